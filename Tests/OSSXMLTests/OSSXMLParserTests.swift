import OSSXML
import Testing

@Suite("XML parser")
struct OSSXMLParserTests {
    @Test func parsesAListPartsPageWithOnePart() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <ListPartsResult>
              <Bucket>examplebucket</Bucket>
              <Key>big/archive.bin</Key>
              <UploadId>0004B9894A22E5B1888A1E29F8236E2D</UploadId>
              <NextPartNumberMarker>1</NextPartNumberMarker>
              <IsTruncated>false</IsTruncated>
              <Part>
                <PartNumber>1</PartNumber>
                <ETag>"3858F62230AC3C915F300C664312C11F"</ETag>
                <HashCrc64ecma>18446744073709551615</HashCrc64ecma>
                <Size>102400</Size>
              </Part>
            </ListPartsResult>
            """
        let root = try OSSXMLParser.parse(Array(xml.utf8), root: "ListPartsResult")
        #expect(try root.requiredString("UploadId") == "0004B9894A22E5B1888A1E29F8236E2D")
        #expect(try root.bool("IsTruncated") == false)
        let parts = root.children("Part")
        #expect(parts.count == 1)
        #expect(try parts[0].int("PartNumber") == 1)
        #expect(try parts[0].uint64("HashCrc64ecma") == UInt64.max)
        #expect(parts[0].string("ETag") == "\"3858F62230AC3C915F300C664312C11F\"")
    }

    @Test func keepsTextExactlyAsSent() throws {
        let xml = "<R><Key>  two  spaces &amp; &lt;tag&gt; 文件 </Key><Empty></Empty><CDATA><![CDATA[a<b]]></CDATA></R>"
        let root = try OSSXMLParser.parse(Array(xml.utf8))
        #expect(root.string("Key") == "  two  spaces & <tag> 文件 ")
        #expect(root.string("Empty") == "")
        #expect(root.string("CDATA") == "a<b")
        #expect(root.string("Missing") == nil)
    }

    @Test(arguments: [
        "",
        "<",
        "<a>",
        "<a></b>",
        "not xml at all",
        "<a><b></a></b>",
        "<a>&undefined;</a>",
        "<a/><b/>",
    ])
    func malformedDocumentsAreTypedErrors(_ text: String) {
        #expect(throws: OSSXMLError.self) { try OSSXMLParser.parse(Array(text.utf8)) }
    }

    @Test func externalEntitiesAreRefused() {
        let probe = """
            <?xml version="1.0"?>
            <!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>
            <r>&x;</r>
            """
        #expect(throws: OSSXMLError(.malformed, "document type declarations are not accepted")) {
            try OSSXMLParser.parse(Array(probe.utf8))
        }
    }

    @Test func entityBombIsRefused() {
        let bomb = """
            <?xml version="1.0"?>
            <!doctype lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>
            <lolz>&lol2;</lolz>
            """
        #expect(throws: OSSXMLError.self) { try OSSXMLParser.parse(Array(bomb.utf8)) }
    }

    @Test func wrongRootIsATypedError() {
        #expect(throws: OSSXMLError.self) { try OSSXMLParser.parse(Array("<Error/>".utf8), root: "ListPartsResult") }
    }

    @Test func deepNestingIsRefused() {
        let deep = String(repeating: "<a>", count: 200) + String(repeating: "</a>", count: 200)
        #expect(throws: OSSXMLError.self) { try OSSXMLParser.parse(Array(deep.utf8)) }
    }

    @Test func badNumbersAreTypedErrors() throws {
        let root = try OSSXMLParser.parse(Array("<r><n>12x</n><b>yes</b><u>-1</u></r>".utf8))
        #expect(throws: OSSXMLError.self) { try root.int("n") }
        #expect(throws: OSSXMLError.self) { try root.bool("b") }
        #expect(throws: OSSXMLError.self) { try root.uint64("u") }
        #expect(throws: OSSXMLError.self) { try root.requiredString("missing") }
    }
}

@Suite("XML writer")
struct OSSXMLWriterTests {
    @Test func writesAndEscapes() throws {
        var w = OSSXMLWriter(declaration: false)
        w.element("CompleteMultipartUpload") { w in
            w.element("Part") { w in
                w.element("PartNumber", "1")
                w.element("ETag", "\"ABC\"")
            }
            w.element("Key", "a&b<c>'d'")
        }
        #expect(
            w.output
                == "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>&quot;ABC&quot;</ETag></Part><Key>a&amp;b&lt;c&gt;&apos;d&apos;</Key></CompleteMultipartUpload>"
        )
        let back = try OSSXMLParser.parse(Array(w.output.utf8))
        #expect(back.string("Key") == "a&b<c>'d'")
        #expect(back.child("Part")?.string("ETag") == "\"ABC\"")
    }

    @Test func dropsCharactersXMLCannotCarry() {
        #expect(OSSXMLWriter.escape("a\u{0}b\u{1F}c") == "abc")
    }
}
