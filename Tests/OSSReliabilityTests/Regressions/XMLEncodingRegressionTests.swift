import Foundation
import OSSXML
import Testing

/// Regression tests for what the XML fuzzer found (docs/RELIABILITY.md, findings 1 and 2).
@Suite("Regressions: XML encodings and processing instructions")
struct XMLEncodingRegressionTests {
    static func bytes(hex: String) -> [UInt8] {
        var out: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            out.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return out
    }

    /// A mutated UTF-16 document (seed 0x584D4C00) that made swift-corelibs-foundation's XMLParser trap in
    /// `_NSXMLParserStartElementNs` (SIGILL), killing the process. It must be refused with a typed error.
    static let crashingDocument = bytes(hex: [
        "feff003c003f0078006d006c002000760065007200730069006f006e003d00220031002e00300022002000efbbbf6500",
        "6e0063006f00640069026e0067003d0022005500540046002d003100360022003f003e003c00210044004f0043005400",
        "5900500045002000780020005b003c00210045004e005400490054005900200065002000530059005300540045004d00",
        "20002200660069006c0065003a002f002f002f006500740063002f0070006100730073007700640022003e005d003e00",
        "3c004500720072006f0072003e003c0043006f00640065003e00260065003b003c002f0043006f00640065003e003c00",
        "2f004500720072006f0072003e",
    ].joined())

    @Test("the document that crashed XMLParser is refused with a typed error")
    func crashingDocumentIsRefused() {
        #expect(throws: OSSXMLError.self) { try OSSXMLParser.parse(Self.crashingDocument) }
    }

    @Test("UTF-16 documents, BOM or not, and NUL bytes are refused (the DOCTYPE check only sees UTF-8)")
    func utf16Refused() {
        let text = "<?xml version=\"1.0\"?><Error><Code>x</Code></Error>"
        var le: [UInt8] = [0xFF, 0xFE]
        var be: [UInt8] = [0xFE, 0xFF]
        var bare: [UInt8] = []
        for unit in text.utf16 {
            le += [UInt8(unit & 0xFF), UInt8(unit >> 8)]
            be += [UInt8(unit >> 8), UInt8(unit & 0xFF)]
            bare += [UInt8(unit & 0xFF), UInt8(unit >> 8)]
        }
        for document in [le, be, bare, Array("<Error><Code>a\u{0}b</Code></Error>".utf8)] {
            #expect(throws: OSSXMLError.self) { try OSSXMLParser.parse(document) }
        }
    }

    @Test("an XML declaration naming another encoding, or invalid UTF-8, is refused")
    func otherEncodingsRefused() {
        for declaration in ["UTF-16", "utf-16le", "ISO-8859-1", "EBCDIC-US", "UCS-4"] {
            let document = Array("<?xml version=\"1.0\" encoding=\"\(declaration)\"?><Error><Code>x</Code></Error>".utf8)
            #expect(throws: OSSXMLError.self, "\(declaration)") { try OSSXMLParser.parse(document) }
        }
        #expect(throws: OSSXMLError.self) { try OSSXMLParser.parse(Array("<Error><Code>".utf8) + [0xC3, 0x28] + Array("</Code></Error>".utf8)) }
    }

    @Test("UTF-8 documents still parse: declared, undeclared, single quotes, with a byte-order mark, non-ASCII text")
    func utf8Accepted() throws {
        let bodies = [
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>\u{732B}</Code></Error>",
            "<?xml version='1.0' encoding='utf-8'?><Error><Code>\u{732B}</Code></Error>",
            "<?xml version=\"1.0\"?><Error><Code>\u{732B}</Code></Error>",
            "<Error><Code>\u{732B}</Code></Error>",
        ]
        for body in bodies {
            for bom in [false, true] {
                let document = (bom ? [0xEF, 0xBB, 0xBF] : []) + Array(body.utf8)
                let root = try OSSXMLParser.parse(document, root: "Error")
                #expect(root.string("Code") == "\u{732B}", "\(body) bom \(bom)")
            }
        }
    }

    /// `<?pi?>` (a processing instruction without data) made XMLParser call strlen(NULL): SIGSEGV.
    @Test("processing instructions, with or without data, and data-less XML declarations are refused", arguments: [
        "<?xml?><Error/>", "<?xmlx?><Error/>", "<?pi?><Error/>", "<Error><?pi?></Error>", "<Error><?pi data?></Error>",
        "<?xml version=\"1.0\"?>\n<ListBucketResult><Name>bkt</Name><?x?></ListBucketResult>",
        "<?xml version=\"1.0\"?><?xml-stylesheet href=\"a\"?><Error/>",
    ])
    func processingInstructionsRefused(document: String) {
        #expect(throws: OSSXMLError.self) { try OSSXMLParser.parse(Array(document.utf8)) }
    }

    @Test("the truncated ListObjectsV2 page with `<?xml?>` the fuzzer produced is refused")
    func fuzzedDataLessDeclaration() {
        let document = "<?xml?>\n<ListBucketResult>\n  <Name>bkt</Name>\n  <Contents>\n    <Size>344606</Sizntents>\n  <C"
        #expect(throws: OSSXMLError.self) { try OSSXMLParser.parse(Array(document.utf8)) }
    }
}
