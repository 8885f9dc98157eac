import Foundation
import OSSLocalServer
import Testing

/// Server-side encryption as OSS reports it (`x-oss-server-side-encryption`, `-key-id`, `x-oss-server-side-data-
/// encryption`): recorded with the object or upload and returned by PUT, HEAD, GET, AppendObject, the multipart
/// calls and CopyObject; the KMS key is the server's default when the request names none. oss2's own tests read the
/// key id from a HEAD to set up their KMS crypto bucket (scripts/oss2-suite.sh). Fails without the feature: no
/// header came back.
@Suite struct ServerSideEncryptionTests {
    static let sse = "x-oss-server-side-encryption"
    static let keyId = "x-oss-server-side-encryption-key-id"
    static let data = "x-oss-server-side-data-encryption"

    @Test func objectsReportTheirEncryption() async throws {
        var configuration = LocalOSSServerConfiguration(buckets: ["sse"])
        configuration.kmsKeyId = "cmk-default"
        try await withLocalOSSServer(configuration) { server in
            let client = TestClient(server)
            var r = try await client.send("PUT", bucket: "sse", key: "kms", headers: [Self.sse: "KMS"], body: [1])
            #expect(r.status == 200 && r.header(Self.sse) == "KMS" && r.header(Self.keyId) == "cmk-default")
            r = try await client.send("HEAD", bucket: "sse", key: "kms")
            #expect(r.header(Self.sse) == "KMS" && r.header(Self.keyId) == "cmk-default" && r.header(Self.data) == nil)
            r = try await client.send(
                "PUT", bucket: "sse", key: "named",
                headers: [Self.sse: "KMS", Self.keyId: "cmk-named", Self.data: "SM4"], body: [1])
            r = try await client.send("GET", bucket: "sse", key: "named")
            #expect(r.header(Self.keyId) == "cmk-named" && r.header(Self.data) == "SM4" && r.body == [1])
            // The key id and the data algorithm belong to KMS only.
            r = try await client.send(
                "PUT", bucket: "sse", key: "aes", headers: [Self.sse: "AES256", Self.keyId: "x", Self.data: "SM4"])
            #expect(r.header(Self.sse) == "AES256" && r.header(Self.keyId) == nil && r.header(Self.data) == nil)
            r = try await client.send("PUT", bucket: "sse", key: "bad", headers: [Self.sse: "DES"])
            #expect(r.status == 400 && r.errorCode == "InvalidEncryptionAlgorithmError")
            r = try await client.send("PUT", bucket: "sse", key: "plain", body: [2])
            #expect(r.header(Self.sse) == nil)
            #expect(try await client.send("HEAD", bucket: "sse", key: "plain").header(Self.sse) == nil)

            // A copy is encrypted as its request asks, not as its source.
            r = try await client.send("PUT", bucket: "sse", key: "copy", headers: ["x-oss-copy-source": "/sse/kms"])
            #expect(r.status == 200 && r.header(Self.sse) == nil)
            r = try await client.send(
                "PUT", bucket: "sse", key: "copy", headers: ["x-oss-copy-source": "/sse/kms", Self.sse: "SM4"])
            #expect(try await client.send("HEAD", bucket: "sse", key: "copy").header(Self.sse) == "SM4")

            // An appendable object keeps the first append's encryption.
            r = try await client.send(
                "POST", bucket: "sse", key: "log", query: ["append": "", "position": "0"], headers: [Self.sse: "KMS"],
                body: [1])
            #expect(r.header(Self.keyId) == "cmk-default")
            r = try await client.send(
                "POST", bucket: "sse", key: "log", query: ["append": "", "position": "1"], headers: [Self.sse: "AES256"],
                body: [2])
            #expect(r.status == 200 && r.header(Self.sse) == "KMS" && r.header(Self.keyId) == "cmk-default")
        }
    }

    @Test func multipartUploadsTakeTheEncryptionOfTheirInitiation() async throws {
        var configuration = LocalOSSServerConfiguration(buckets: ["sse"])
        configuration.kmsKeyId = "cmk-default"
        try await withLocalOSSServer(configuration) { server in
            let client = TestClient(server)
            var r = try await client.send(
                "POST", bucket: "sse", key: "mp", query: ["uploads": ""], headers: [Self.sse: "KMS", Self.data: "SM4"])
            #expect(r.header(Self.sse) == "KMS" && r.header(Self.keyId) == "cmk-default" && r.header(Self.data) == "SM4")
            let uploadId = try #require(xmlValue("UploadId", in: r.text))
            r = try await client.send(
                "PUT", bucket: "sse", key: "mp", query: ["uploadId": uploadId, "partNumber": "1"],
                headers: [Self.sse: "KMS"], body: [1, 2, 3])
            #expect(r.status == 400 && r.errorCode == "InvalidArgument", "a part names no encryption")
            r = try await client.send(
                "PUT", bucket: "sse", key: "mp", query: ["uploadId": uploadId, "partNumber": "1"], body: [1, 2, 3])
            #expect(r.status == 200 && r.header(Self.sse) == "KMS" && r.header(Self.keyId) == "cmk-default")
            let etag = try #require(r.header("ETag"))
            let complete = "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>\(etag)</ETag></Part>"
                + "</CompleteMultipartUpload>"
            r = try await client.send(
                "POST", bucket: "sse", key: "mp", query: ["uploadId": uploadId], headers: [Self.sse: "KMS"],
                body: Array(complete.utf8))
            #expect(r.status == 400 && r.errorCode == "InvalidArgument", "nor does the completion")
            r = try await client.send(
                "POST", bucket: "sse", key: "mp", query: ["uploadId": uploadId], body: Array(complete.utf8))
            #expect(r.status == 200 && r.header(Self.data) == "SM4" && r.header(Self.keyId) == "cmk-default")
            r = try await client.send("HEAD", bucket: "sse", key: "mp")
            #expect(r.header(Self.sse) == "KMS" && r.header(Self.keyId) == "cmk-default" && r.header(Self.data) == "SM4")
        }
    }
}
