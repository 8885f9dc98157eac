@testable import AliyunOSS
import Foundation
import Testing

/// A multipart upload driven only through presigned URLs, as a browser does: plain HTTP, no credentials.
@Suite("Presigned multipart steps against the local server")
struct PresignMultipartTests {
    static func send(_ request: OSSPresignedRequest, body: [UInt8] = [], extraHeaders: [String: String] = [:])
        async throws -> (Int, String)
    {
        let (status, reply) = try await PresignTests().send(
            request.method, request.url, headers: request.headers.merging(extraHeaders) { $1 }, body: body)
        return (status, String(decoding: reply, as: UTF8.self))
    }

    static func md5(_ bytes: [UInt8]) -> String { OSSFileDigest.contentMD5(bytes) }

    static func element(_ name: String, _ xml: String) -> String? {
        guard let start = xml.range(of: "<\(name)>"), let end = xml.range(of: "</\(name)>") else { return nil }
        return String(xml[start.upperBound..<end.lowerBound])
    }

    @Test(arguments: [OSSSignatureVersion.v1, .v4], [false, true])
    func everyStepThroughPresignedURLs(version: OSSSignatureVersion, sts: Bool) async throws {
        try await withServerAndClient(version: version, sts: sts) { _, client in
            let key = "users/alice/big file ü.bin"
            let parts = [randomPart(100 * 1024 + 7), randomPart(64 * 1024)]
            let initiate = try await client.presignInitiateMultipartUpload(
                bucket: "bkt", key: key, contentType: "video/mp4", expiration: 600)
            #expect(initiate.method == "POST" && initiate.headers == ["Content-Type": "video/mp4"])
            let (initiated, initiateXML) = try await Self.send(initiate)
            #expect(initiated == 200, "\(initiateXML)")
            let uploadId = try #require(Self.element("UploadId", initiateXML))

            var etags: [String] = []
            for (index, bytes) in parts.enumerated() {
                let part = try await client.presignUploadPart(
                    bucket: "bkt", key: key, uploadId: uploadId, partNumber: index + 1, contentMD5: Self.md5(bytes),
                    expiration: 600)
                #expect(part.headers == ["Content-MD5": Self.md5(bytes)])
                // The URL is for these bytes and this part only.
                let (wrongBytes, _) = try await Self.send(part, body: Array(bytes.reversed()))
                #expect(wrongBytes == 400)
                let (uploaded, _) = try await Self.send(part, body: bytes)
                #expect(uploaded == 200)
                let digest = try #require(Data(base64Encoded: Self.md5(bytes)))
                etags.append("\"" + digest.map { String(format: "%02X", $0) }.joined() + "\"")
            }
            let secondPart = try await client.presignUploadPart(
                bucket: "bkt", key: key, uploadId: uploadId, partNumber: 2, expiration: 600)
            let (otherPart, _) = try await PresignTests().send(
                "PUT", secondPart.url.replacingOccurrences(of: "partNumber=2", with: "partNumber=3"), body: [1, 2, 3])
            #expect(otherPart == 403)

            let list = try await client.presignListParts(bucket: "bkt", key: key, uploadId: uploadId, expiration: 600)
            let (listed, listXML) = try await Self.send(list)
            #expect(listed == 200)
            #expect(listXML.components(separatedBy: "<PartNumber>").count - 1 == 2)

            let document =
                "<CompleteMultipartUpload>"
                + etags.enumerated().map { "<Part><PartNumber>\($0.offset + 1)</PartNumber><ETag>\($0.element)</ETag></Part>" }
                .joined() + "</CompleteMultipartUpload>"
            let complete = try await client.presignCompleteMultipartUpload(
                bucket: "bkt", key: key, uploadId: uploadId, contentMD5: Self.md5(Array(document.utf8)), expiration: 600)
            #expect(complete.headers["Content-Type"] == "application/xml")
            // A browser that lets the body's default type through is refused: the type is signed.
            let (wrongType, _) = try await Self.send(
                complete, body: Array(document.utf8), extraHeaders: ["Content-Type": "text/plain;charset=UTF-8"])
            #expect(wrongType == 403)
            let (completed, completeXML) = try await Self.send(complete, body: Array(document.utf8))
            #expect(completed == 200, "\(completeXML)")

            let object = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: key))
            #expect(object.content == Data(parts.joined()))

            // Abort, on a second upload.
            let (again, againXML) = try await Self.send(
                try await client.presignInitiateMultipartUpload(bucket: "bkt", key: key, expiration: 600))
            #expect(again == 200)
            let second = try #require(Self.element("UploadId", againXML))
            let abort = try await client.presignAbortMultipartUpload(bucket: "bkt", key: key, uploadId: second, expiration: 600)
            #expect(try await Self.send(abort).0 == 204)
            let (gone, goneXML) = try await Self.send(
                try await client.presignListParts(bucket: "bkt", key: key, uploadId: second, expiration: 600))
            #expect(gone == 404 && goneXML.contains("NoSuchUpload"))
        }
    }

    @Test func expiredAndInvalidStepsAreRefused() async throws {
        try await withServerAndClient { _, client in
            let initiate = try await client.presignInitiateMultipartUpload(bucket: "bkt", key: "k", expiration: 1)
            try await Task.sleep(for: .seconds(2.2))
            let (status, xml) = try await Self.send(initiate)
            #expect(status == 403 && xml.contains("AccessDenied"))
            let badPart = await thrownClientError {
                _ = try await client.presignUploadPart(bucket: "bkt", key: "k", uploadId: "u", partNumber: 0, expiration: 60)
            }
            #expect(badPart?.code == .invalidArgument)
            let emptyUpload = await thrownClientError {
                _ = try await client.presignAbortMultipartUpload(bucket: "bkt", key: "k", uploadId: "", expiration: 60)
            }
            #expect(emptyUpload?.code == .invalidArgument)
        }
    }
}

private func randomPart(_ count: Int) -> [UInt8] {
    var generator = SystemRandomNumberGenerator()
    return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
}
