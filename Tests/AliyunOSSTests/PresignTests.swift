import AliyunOSS
import Foundation
import NIOCore
import OSSLocalServer
import Testing

@Suite("Presigned URLs against the local server")
struct PresignTests {
    /// Sends a raw request (no signing) and returns the status and body.
    func send(_ method: String, _ url: String, headers: [String: String] = [:], body: [UInt8] = []) async throws -> (
        Int, [UInt8]
    ) {
        let transport = OSSTransportKind.automatic.makeTransport(configuration: OSSClientConfiguration())
        do {
            let result = try await transport.send(
                OSSHTTPRequest(method: method, url: url, headers: headers, body: body.isEmpty ? .empty : .bytes(Data(body)))
            ) { response in
                (response.status, try await response.body.collectBytes(upTo: 1 << 20))
            }
            try await transport.shutdown()
            return result
        } catch {
            try? await transport.shutdown()
            throw error
        }
    }

    @Test(arguments: [OSSSignatureVersion.v1, .v4], [false, true])
    func putThenGetThroughPresignedURLs(version: OSSSignatureVersion, sts: Bool) async throws {
        try await withServerAndClient(version: version, sts: sts) { _, client in
            let key = "pre signed/ü+%.txt"
            let putURL = try await client.presignConstrainURL(
                bucket: "bkt", key: key, method: "PUT", expiration: 600,
                headers: ["Content-Type": "text/plain", "x-oss-meta-who": "presign"])
            if version == .v1 {
                #expect(putURL.contains("OSSAccessKeyId=") && putURL.contains("Signature="))
                #expect(putURL.contains("security-token=") == sts)
            } else {
                #expect(putURL.contains("x-oss-signature-version=OSS4-HMAC-SHA256") && putURL.contains("x-oss-signature="))
                #expect(putURL.contains("x-oss-security-token=") == sts)
            }
            let (putStatus, putBody) = try await send(
                "PUT", putURL, headers: ["content-type": "text/plain", "x-oss-meta-who": "presign"],
                body: Array("hello presign".utf8))
            #expect(putStatus == 200, "\(String(decoding: putBody, as: UTF8.self))")

            let getURL = try await client.presignConstrainURL(bucket: "bkt", key: key, expiration: 600)
            let (status, body) = try await send("GET", getURL)
            #expect(status == 200)
            #expect(body == Array("hello presign".utf8))
            let head = try await client.headObject(OSSHeadObjectRequest(bucketName: "bkt", objectKey: key))
            #expect(head.metadata["who"] == "presign")

            // A header the URL was signed with must be sent as signed.
            let (tampered, _) = try await send(
                "PUT", putURL, headers: ["content-type": "text/html", "x-oss-meta-who": "presign"], body: [1])
            #expect(tampered == 403)
        }
    }

    @Test(arguments: [OSSSignatureVersion.v1, .v4])
    func multipartThroughPresignedURLs(version: OSSSignatureVersion) async throws {
        try await withServerAndClient(version: version) { _, client in
            let initiated = try await client.initiateMultipartUpload(
                OSSInitiateMultipartUploadRequest(bucketName: "bkt", objectKey: "mp"))
            let partURL = try await client.presignConstrainURL(
                bucket: "bkt", key: "mp", method: "PUT", expiration: 600,
                parameters: ["partNumber": "1", "uploadId": initiated.uploadId])
            let (status, _) = try await send("PUT", partURL, body: Array("part one".utf8))
            #expect(status == 200)
            let parts = try await client.listAllParts(bucketName: "bkt", objectKey: "mp", uploadId: initiated.uploadId)
            #expect(parts.map(\.size) == [8])
        }
    }

    @Test func v4ExpiryLimitAndPublicURL() async throws {
        try await withServerAndClient(version: .v4) { server, client in
            let tooLong = await clientErrorCode {
                _ = try await client.presignConstrainURL(bucket: "bkt", key: "k", expiration: 604_801)
            }
            #expect(tooLong == .invalidArgument)
            _ = try await client.presignConstrainURL(bucket: "bkt", key: "k", expiration: 604_800)
            let negative = await clientErrorCode {
                _ = try await client.presignConstrainURL(bucket: "bkt", key: "k", expiration: 0)
            }
            #expect(negative == .invalidArgument)
            let publicURL = try client.presignPublicURL(bucket: "bkt", key: "a b/c")
            #expect(publicURL == server.endpoint.absoluteString + "/bkt/a%20b/c")
        }
    }

    @Test func expiredV1URLIsRejected() async throws {
        try await withServerAndClient { _, client in
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "e", data: Data("x".utf8)))
            let url = try await client.presignConstrainURL(bucket: "bkt", key: "e", expiration: 1)
            try await Task.sleep(for: .milliseconds(2100))
            let (status, _) = try await send("GET", url)
            #expect(status == 403)
        }
    }
}
