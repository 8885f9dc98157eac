@testable import AliyunOSS
import Foundation
import OSSTestSupport
import OSSXML
import Testing

/// Seeded mutation fuzzing of the XML parser and the SDK's typed response decoders.
@Suite("Fuzz: XML parser and typed decoders")
struct XMLFuzzTests {
    /// Runs every typed decoder the SDK has on `node`; returns whether all of them succeeded.
    /// Any error that is not an ``OSSClientError`` is recorded as an issue.
    static func decodeAll(_ node: OSSXMLNode, bytes: [UInt8]) -> Bool {
        var allAccepted = true
        func attempt(_ name: String, _ body: () throws -> Void) {
            do {
                try body()
            } catch is OSSClientError {
                allAccepted = false
            } catch {
                allAccepted = false
                Issue.record("\(name) threw an untyped error \(error) for \(String(decoding: bytes.prefix(200), as: UTF8.self))")
            }
        }
        attempt("ListParts") {
            _ = try OSSClient.decodeListParts(
                node, request: OSSListPartsRequest(bucketName: "bkt", objectKey: "k", uploadId: "u"), requestId: "r")
        }
        attempt("ListObjectsV2") {
            _ = try OSSClient.decodeListObjectsV2(node, request: OSSListObjectsV2Request(bucketName: "bkt"), requestId: "r")
        }
        attempt("ListMultipartUploads") {
            _ = try OSSClient.decodeListMultipartUploads(
                node, request: OSSListMultipartUploadsRequest(bucketName: "bkt"), requestId: "r")
        }
        // InitiateMultipartUpload and CompleteMultipartUpload decode inline; these are the same reads.
        attempt("InitiateMultipartUpload") {
            let encoded = node.string("EncodingType") == "url"
            let uploadId = try node.decoded { try $0.requiredString("UploadId") }
            _ = try node.decodedText("Key", urlEncoded: encoded)
            _ = uploadId
        }
        attempt("CompleteMultipartUpload") {
            let encoded = node.string("EncodingType") == "url"
            _ = try node.decodedText("Key", urlEncoded: encoded)
            _ = node.string("Location")
            _ = node.string("ETag")
        }
        return allAccepted
    }

    /// No text anywhere in the tree came from /etc/passwd (an expanded external entity).
    static func leaksPasswd(_ node: OSSXMLNode) -> Bool {
        if node.text.contains("root:x:0") || node.text.contains("/bin/") { return true }
        if node.attributes.values.contains(where: { $0.contains("root:x:0") }) { return true }
        return node.children.contains { leaksPasswd($0) }
    }

    @Test("golden documents decode to the expected values")
    func goldenDocumentsDecode() throws {
        let parts = try OSSClient.decodeListParts(
            OSSXMLParser.parse(Array(XMLGoldenDocuments.listParts.utf8), root: "ListPartsResult"),
            request: OSSListPartsRequest(bucketName: "bkt", objectKey: "k", uploadId: "u"), requestId: "r")
        #expect(parts.objectKey == "dir/big file.bin")
        #expect(parts.parts.map(\.partNumber) == [1, 2])
        #expect(parts.parts.first?.crc64 == 11_219_760_133_186_541_106)
        let objects = try OSSClient.decodeListObjectsV2(
            OSSXMLParser.parse(Array(XMLGoldenDocuments.listObjectsV2.utf8), root: "ListBucketResult"),
            request: OSSListObjectsV2Request(bucketName: "bkt"), requestId: "r")
        #expect(objects.contents.map(\.objectKey) == ["photos/2024/cat 猫.jpg"])
        #expect(objects.commonPrefixes == ["photos/2025/"])
        let uploads = try OSSClient.decodeListMultipartUploads(
            OSSXMLParser.parse(Array(XMLGoldenDocuments.listMultipartUploads.utf8), root: "ListMultipartUploadsResult"),
            request: OSSListMultipartUploadsRequest(bucketName: "bkt"), requestId: "r")
        #expect(uploads.uploads.map(\.objectKey) == ["obj/a"])
        let error = OSSServerError.from(status: 404, headers: [:], body: Array(XMLGoldenDocuments.error.utf8))
        #expect(error.code == "NoSuchKey")
        #expect(error.fields["Key"] == "photos/2024/cat.jpg")
    }

    @Test("the XML external-entity probe is refused in every encoding and never expanded")
    func externalEntityProbeNeverExpanded() {
        for (index, probe) in XMLGoldenDocuments.externalEntityProbes.enumerated() {
            do {
                let node = try OSSXMLParser.parse(probe)
                #expect(!Self.leaksPasswd(node), "probe \(index) expanded /etc/passwd")
                Issue.record("probe \(index) was accepted: \(node)")
            } catch {
                #expect(error.code == .malformed || error.code == .tooLarge, "probe \(index): \(error)")
            }
            // The error path of the SDK must not expand it either.
            let serverError = OSSServerError.from(status: 403, headers: [:], body: probe)
            #expect(!serverError.code.contains("root:"), "probe \(index) expanded in OSSServerError")
            #expect(serverError.fields.values.allSatisfy { !$0.contains("root:x:0") })
        }
    }

    @Test("deep nesting and oversized documents are refused with a typed error")
    func deepAndLarge() {
        let deep = Array(Mutator.deepNesting(10_000).utf8)
        #expect(throws: OSSXMLError.self) { try OSSXMLParser.parse(deep) }
        let large = [UInt8](repeating: 0x20, count: OSSXMLParser.maximumDocumentSize + 1)
        #expect(throws: OSSXMLError.self) { try OSSXMLParser.parse(large) }
        let hugeNumbers = XMLGoldenDocuments.listParts.replacingOccurrences(
            of: "<Size>102400</Size>", with: "<Size>99999999999999999999999999999</Size>")
        #expect(throws: OSSClientError.self) {
            try OSSClient.decodeListParts(
                OSSXMLParser.parse(Array(hugeNumbers.utf8)),
                request: OSSListPartsRequest(bucketName: "bkt", objectKey: "k", uploadId: "u"), requestId: "r")
        }
        let negative = XMLGoldenDocuments.listParts.replacingOccurrences(
            of: "<Size>102400</Size>", with: "<Size>-1</Size>")
        #expect(throws: OSSClientError.self) {
            try OSSClient.decodeListParts(
                OSSXMLParser.parse(Array(negative.utf8)),
                request: OSSListPartsRequest(bucketName: "bkt", objectKey: "k", uploadId: "u"), requestId: "r")
        }
        let badEscape = XMLGoldenDocuments.listObjectsV2.replacingOccurrences(of: "photos%2F2024", with: "photos%G2024")
        #expect(throws: OSSClientError.self) {
            try OSSClient.decodeListObjectsV2(
                OSSXMLParser.parse(Array(badEscape.utf8)), request: OSSListObjectsV2Request(bucketName: "bkt"),
                requestId: "r")
        }
    }

    @Test("mutated response documents never crash, hang or leak an entity")
    func mutatedDocuments() {
        let seeds = XMLGoldenDocuments.all.map { Array($0.text.utf8) } + XMLGoldenDocuments.externalEntityProbes
        runFuzz("xml-decoders", seed: ReliabilityScale.seed(0x584D_4C00), count: ReliabilityScale.count(24_000)) {
            rng, _ in
            let seed = rng.element(seeds)
            let input = rng.chance(1, in: 3) ? Mutator.replaceText(seed, &rng) : Mutator.mutate(seed, &rng)
            saveLastFuzzInput(input)
            // The error path parses any body; it must never throw or expand.
            let error = OSSServerError.from(status: 500, headers: [:], body: input)
            if error.fields.values.contains(where: { $0.contains("root:x:0") }) {
                Issue.record("OSSServerError expanded an entity")
            }
            let node: OSSXMLNode
            do {
                node = try OSSXMLParser.parse(input)
            } catch {
                return .rejected
            }
            if Self.leaksPasswd(node) {
                Issue.record("external entity expanded for \(String(decoding: input.prefix(300), as: UTF8.self))")
            }
            return Self.decodeAll(node, bytes: input) ? .accepted : .rejected
        }
    }

    @Test("x-oss-err headers with random Base64 never crash the error decoder")
    func errHeaderFuzz() {
        let seeds = XMLGoldenDocuments.all.map { Array($0.text.utf8) }
        runFuzz("x-oss-err", seed: ReliabilityScale.seed(0x4552_5200), count: ReliabilityScale.count(4_000)) { rng, _ in
            let doc = Mutator.mutate(rng.element(seeds), &rng)
            var header = Data(doc).base64EncodedString()
            if rng.chance(1, in: 3) { header = String(decoding: Mutator.mutate(Array(header.utf8), &rng), as: UTF8.self) }
            let error = OSSServerError.from(status: 404, headers: ["x-oss-err": header], body: [])
            #expect(error.statusCode == 404)
            #expect(error.rawBody.count <= OSSServerError.maximumRawBodySize)
            return error.code.isEmpty ? .rejected : .accepted
        }
    }
}
