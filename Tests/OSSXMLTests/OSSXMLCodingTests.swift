import Foundation
import OSSXML
import Testing

/// Models shaped like OSS documents, to drive the coders.
private struct Tagging: Codable, Equatable {
    struct Tag: Codable, Equatable {
        var key: String
        var value: String
        enum CodingKeys: String, CodingKey {
            case key = "Key"
            case value = "Value"
        }
    }

    /// The wrapper `<TagSet>`: a nested model with one array property.
    struct TagSet: Codable, Equatable {
        var tags: [Tag]
        enum CodingKeys: String, CodingKey { case tags = "Tag" }
    }

    var tagSet: TagSet
    enum CodingKeys: String, CodingKey { case tagSet = "TagSet" }
}

private enum StorageClass: String, Codable { case standard = "Standard", ia = "IA" }

private struct Upload: Codable, Equatable {
    struct Part: Codable, Equatable {
        var partNumber: Int
        var eTag: String
        var size: Int64?
        var crc64: UInt64?
        enum CodingKeys: String, CodingKey {
            case partNumber = "PartNumber"
            case eTag = "ETag"
            case size = "Size"
            case crc64 = "HashCrc64ecma"
        }
    }

    var key: String
    var isTruncated: Bool
    var initiated: Date?
    var storageClass: StorageClass?
    /// Flat repeated `<Part>` elements.
    var parts: [Part]

    enum CodingKeys: String, CodingKey {
        case key = "Key"
        case isTruncated = "IsTruncated"
        case initiated = "Initiated"
        case storageClass = "StorageClass"
        case parts = "Part"
    }
}

/// A wrapper written by hand with a nested container instead of a wrapper model.
private struct Keys: Codable, Equatable {
    var names: [String]
    enum Outer: String, CodingKey { case list = "List" }
    enum Inner: String, CodingKey { case name = "Name" }

    init(names: [String]) { self.names = names }

    init(from decoder: any Decoder) throws {
        let list = try decoder.container(keyedBy: Outer.self).nestedContainer(keyedBy: Inner.self, forKey: .list)
        names = try list.decode([String].self, forKey: .name)
    }

    func encode(to encoder: any Encoder) throws {
        var outer = encoder.container(keyedBy: Outer.self)
        var list = outer.nestedContainer(keyedBy: Inner.self, forKey: .list)
        try list.encode(names, forKey: .name)
    }
}

@Suite("XML coding")
struct OSSXMLCodingTests {
    let encoder = OSSXMLEncoder(declaration: false)
    let decoder = OSSXMLDecoder()

    @Test func writesAWrapperElementAroundRepeatedItems() throws {
        let tagging = Tagging(tagSet: .init(tags: [.init(key: "a", value: "1 & 2"), .init(key: "b", value: "")]))
        let xml = try encoder.encode(tagging, root: "Tagging")
        #expect(
            xml
                == "<Tagging><TagSet><Tag><Key>a</Key><Value>1 &amp; 2</Value></Tag>"
                + "<Tag><Key>b</Key><Value></Value></Tag></TagSet></Tagging>")
        #expect(try decoder.decode(Tagging.self, from: Array(xml.utf8), root: "Tagging") == tagging)
    }

    @Test func writesTheDeclarationByDefault() throws {
        let xml = try OSSXMLEncoder().encode(Keys(names: ["x"]), root: "R")
        #expect(xml == "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<R><List><Name>x</Name></List></R>")
    }

    @Test func flatRepeatedElementsOptionalsDatesBooleansAndEnums() throws {
        let date = Date(timeIntervalSince1970: 1_705_307_445.5)
        let upload = Upload(
            key: "big.bin", isTruncated: true, initiated: date, storageClass: .ia,
            parts: [.init(partNumber: 1, eTag: "\"E1\"", size: 5, crc64: .max), .init(partNumber: 2, eTag: "\"E2\"")])
        let xml = try encoder.encode(upload, root: "ListPartsResult")
        #expect(
            xml
                == "<ListPartsResult><Key>big.bin</Key><IsTruncated>true</IsTruncated>"
                + "<Initiated>2024-01-15T08:30:45.500Z</Initiated><StorageClass>IA</StorageClass>"
                + "<Part><PartNumber>1</PartNumber><ETag>&quot;E1&quot;</ETag><Size>5</Size>"
                + "<HashCrc64ecma>18446744073709551615</HashCrc64ecma></Part>"
                + "<Part><PartNumber>2</PartNumber><ETag>&quot;E2&quot;</ETag></Part></ListPartsResult>")
        let back = try decoder.decode(Upload.self, from: Array(xml.utf8), root: "ListPartsResult")
        #expect(back.parts == upload.parts)
        #expect(back.storageClass == .ia)
        #expect(abs(back.initiated!.timeIntervalSince(date)) < 0.001)
    }

    @Test func readsWhatOSSSendsIgnoringUnknownElements() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <ListPartsResult>
              <Bucket>ignored</Bucket>
              <Key>big.bin</Key>
              <IsTruncated> FALSE </IsTruncated>
              <Initiated>2024-01-15T08:30:45Z</Initiated>
              <Part><PartNumber> 3 </PartNumber><ETag>"E"</ETag><LastModified>2024-01-15T08:30:45.000Z</LastModified></Part>
              <NewFieldFromTheFuture><Deep>1</Deep></NewFieldFromTheFuture>
            </ListPartsResult>
            """
        let upload = try decoder.decode(Upload.self, from: Array(xml.utf8), root: "ListPartsResult")
        #expect(upload.key == "big.bin")
        #expect(upload.isTruncated == false)
        #expect(upload.initiated == Date(timeIntervalSince1970: 1_705_307_445))
        #expect(upload.storageClass == nil)
        #expect(upload.parts == [.init(partNumber: 3, eTag: "\"E\"")])
    }

    @Test func aMissingArrayIsEmptyAndOneElementIsAListOfOne() throws {
        let none = try decoder.decode(Upload.self, from: Array("<R><Key>k</Key><IsTruncated>false</IsTruncated></R>".utf8), root: "R")
        #expect(none.parts.isEmpty)
        let keys = try decoder.decode(Keys.self, from: Array("<R><List><Name>only</Name></List></R>".utf8), root: "R")
        #expect(keys.names == ["only"])
        let xml = try encoder.encode(Keys(names: ["a", "b"]), root: "R")
        #expect(xml == "<R><List><Name>a</Name><Name>b</Name></List></R>")
    }

    @Test func aMissingRequiredElementNamesItsPath() throws {
        let xml = "<Tagging><TagSet><Tag><Key>a</Key><Value>1</Value></Tag><Tag><Value>2</Value></Tag></TagSet></Tagging>"
        let error = try #require(throws: OSSXMLError.self) {
            try decoder.decode(Tagging.self, from: Array(xml.utf8), root: "Tagging")
        }
        #expect(error.code == .missingElement)
        #expect(error.path == "Tagging/TagSet/Tag[2]/Key")
    }

    @Test(arguments: [
        ("<R><Key>k</Key><IsTruncated>yes</IsTruncated></R>", "R/IsTruncated"),
        ("<R><Key>k</Key><IsTruncated>true</IsTruncated><Part><PartNumber>1x</PartNumber><ETag/></Part></R>", "R/Part[1]/PartNumber"),
        ("<R><Key>k</Key><IsTruncated>true</IsTruncated><Part><PartNumber>1</PartNumber><ETag/><HashCrc64ecma>-1</HashCrc64ecma></Part></R>",
         "R/Part[1]/HashCrc64ecma"),
        ("<R><Key>k</Key><IsTruncated>true</IsTruncated><Initiated>yesterday</Initiated></R>", "R/Initiated"),
        ("<R><Key>k</Key><IsTruncated>true</IsTruncated><StorageClass>Cold</StorageClass></R>", "R/StorageClass"),
    ])
    func aBadValueNamesItsPath(xml: String, path: String) throws {
        let error = try #require(throws: OSSXMLError.self) {
            try decoder.decode(Upload.self, from: Array(xml.utf8), root: "R")
        }
        #expect(error.code == .invalidValue)
        #expect(error.path == path)
    }

    @Test func theRootIsChecked() throws {
        let error = try #require(throws: OSSXMLError.self) {
            try decoder.decode(Tagging.self, from: Array("<Other/>".utf8), root: "Tagging")
        }
        #expect(error.code == .unexpectedRoot)
    }

    @Test func hostileDocumentsStopAtTheParsersLimits() throws {
        // Nesting past the parser's depth limit, in the element the model reads.
        let depth = OSSXMLParser.maximumDepth + 10
        let deep = "<R><Key>k</Key><IsTruncated>true</IsTruncated>" + String(repeating: "<Part>", count: depth)
            + String(repeating: "</Part>", count: depth) + "</R>"
        let deepError = try #require(throws: OSSXMLError.self) {
            try decoder.decode(Upload.self, from: Array(deep.utf8), root: "R")
        }
        #expect(deepError.code == .tooLarge)

        // Larger than any OSS response.
        let item = "<Part><PartNumber>1</PartNumber><ETag>e</ETag></Part>"
        let count = OSSXMLParser.maximumDocumentSize / item.utf8.count + 1
        let huge = "<R><Key>k</Key><IsTruncated>true</IsTruncated>" + String(repeating: item, count: count) + "</R>"
        let hugeError = try #require(throws: OSSXMLError.self) {
            try decoder.decode(Upload.self, from: Array(huge.utf8), root: "R")
        }
        #expect(hugeError.code == .tooLarge)

        // Entities are refused before any decoding.
        let bomb = "<!DOCTYPE R [<!ENTITY a \"aaaa\">]><R><Key>&a;</Key><IsTruncated>true</IsTruncated></R>"
        #expect(throws: OSSXMLError.self) { try decoder.decode(Upload.self, from: Array(bomb.utf8), root: "R") }
    }

    @Test func manyItemsWithinTheLimitsDecode() throws {
        let item = "<Part><PartNumber>7</PartNumber><ETag>e</ETag></Part>"
        let xml = "<R><Key>k</Key><IsTruncated>true</IsTruncated>" + String(repeating: item, count: 20_000) + "</R>"
        let upload = try decoder.decode(Upload.self, from: Array(xml.utf8), root: "R")
        #expect(upload.parts.count == 20_000)
        #expect(upload.parts.allSatisfy { $0.partNumber == 7 })
    }

    @Test func aModelThatTakesTheWrongShapeIsAnErrorNotACrash() throws {
        // `<Key>` holds elements where a string is expected: the text is what is read (empty), no trap.
        let odd = try decoder.decode(
            Tagging.self, from: Array("<T><TagSet><Tag><Key><X/></Key><Value/></Tag></TagSet></T>".utf8), root: "T")
        #expect(odd.tagSet.tags == [.init(key: "", value: "")])
        // A required wrapper that is absent.
        let error = try #require(throws: OSSXMLError.self) {
            try decoder.decode(Tagging.self, from: Array("<T/>".utf8), root: "T")
        }
        #expect(error.path == "T/TagSet")
    }

    @Test func refusesNamesThatAreNotXMLNamesAndValuesXMLCannotCarry() throws {
        struct Bad: Encodable {
            var value: String
            enum CodingKeys: String, CodingKey { case value = "not a name" }
        }
        #expect(throws: OSSXMLError.self) { try encoder.encode(Bad(value: "x"), root: "R") }
        #expect(throws: OSSXMLError.self) { try encoder.encode(Keys(names: []), root: "<R>") }
        struct Number: Encodable {
            var value: Double
            enum CodingKeys: String, CodingKey { case value = "V" }
        }
        #expect(throws: OSSXMLError.self) { try encoder.encode(Number(value: .nan), root: "R") }
        #expect(try encoder.encode(Number(value: 1.5), root: "R") == "<R><V>1.5</V></R>")
    }

    @Test func datesReadWithOrWithoutFractionsAndWriteMilliseconds() {
        #expect(OSSXMLDateFormat.parse("2024-01-15T08:30:45.000Z") == Date(timeIntervalSince1970: 1_705_307_445))
        #expect(OSSXMLDateFormat.parse("2024-01-15T08:30:45Z") == Date(timeIntervalSince1970: 1_705_307_445))
        #expect(OSSXMLDateFormat.parse("2024-01-15") == nil)
        #expect(OSSXMLDateFormat.format(Date(timeIntervalSince1970: 1_705_307_445)) == "2024-01-15T08:30:45.000Z")
    }
}

/// Without `CodingKeys`, a property's element is its name with the first letter upper-cased, as OSS names them.
private struct Versioning: Codable, Equatable {
    var status: String
    var mfaDelete: Bool?
    var eTag: [String]
}

@Suite("XML coding: element names")
struct OSSXMLElementNameTests {
    @Test func propertyNamesBecomeUpperCamelCaseElements() throws {
        let value = Versioning(status: "Enabled", mfaDelete: false, eTag: ["a", "b"])
        let xml = try OSSXMLEncoder(declaration: false).encode(value, root: "VersioningConfiguration")
        #expect(
            xml == "<VersioningConfiguration><Status>Enabled</Status><MfaDelete>false</MfaDelete><ETag>a</ETag>"
                + "<ETag>b</ETag></VersioningConfiguration>")
        #expect(try OSSXMLDecoder().decode(Versioning.self, from: Array(xml.utf8), root: "VersioningConfiguration") == value)
        // A lower-case element is not the property's element.
        let error = try #require(throws: OSSXMLError.self) {
            try OSSXMLDecoder().decode(Versioning.self, from: Array("<V><status>Enabled</status></V>".utf8), root: "V")
        }
        #expect(error.path == "V/Status")
    }

    @Test func allKeysListsTheElementsPresent() throws {
        let map = try OSSXMLDecoder().decode(
            [String: String].self, from: Array("<M><Name>n</Name><Region>r</Region></M>".utf8), root: "M")
        #expect(map == ["Name": "n", "Region": "r"])
    }
}
