@testable import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

/// The traps an app ported from the iOS SDK falls into: metadata prefixes, Content-Type by extension, the user
/// agent, custom domains with `.automatic` addressing.
@Suite struct PortingTrapTests {
    @Test func metadataWorksWithAndWithoutThePrefix() async throws {
        try await withParityServer { _, client in
            var request = OSSPutObjectRequest(bucketName: "bkt", objectKey: "meta.bin", data: Data("m".utf8))
            request.metadata = ["x-oss-meta-color": "blue", "X-OSS-META-Shape": "round", "size": "L"]
            _ = try await client.putObject(request)
            let head = try await client.headObject(OSSHeadObjectRequest(bucketName: "bkt", objectKey: "meta.bin"))
            #expect(head.metadata == ["color": "blue", "shape": "round", "size": "L"])

            try await uploadOnePart(
                client, OSSInitiateMultipartUploadRequest(bucketName: "bkt", objectKey: "meta-mp.bin", metadata: ["x-oss-meta-a": "1"]))
            let headMP = try await client.headObject(OSSHeadObjectRequest(bucketName: "bkt", objectKey: "meta-mp.bin"))
            #expect(headMP.metadata == ["a": "1"])
        }
    }

    @Test func contentTypeComesFromTheExtension() async throws {
        try await withParityServer { _, client in
            func contentType(_ key: String) async throws -> String? {
                try await client.headObject(OSSHeadObjectRequest(bucketName: "bkt", objectKey: key)).contentType
            }
            // Data: from the key.
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "a/cat.JPG", data: Data([1])))
            #expect(try await contentType("a/cat.JPG") == "image/jpeg")
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "v.mp4", data: Data([1])))
            #expect(try await contentType("v.mp4") == "video/mp4")
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "noext", data: Data([1])))
            #expect(try await contentType("noext") == "application/octet-stream")
            // A file: from the file name first.
            let file = try makeTemporaryFile([1, 2, 3], name: "page-\(UUID().uuidString).html")
            defer { try? FileManager.default.removeItem(at: file) }
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "page", fileURL: file))
            #expect(try await contentType("page") == "text/html")
            // Explicit values win, as a parameter or a header.
            _ = try await client.putObject(
                OSSPutObjectRequest(bucketName: "bkt", objectKey: "x.jpg", source: .data(Data([1])), contentType: "text/plain"))
            #expect(try await contentType("x.jpg") == "text/plain")
            _ = try await client.putObject(
                OSSPutObjectRequest(
                    bucketName: "bkt", objectKey: "y.jpg", source: .data(Data([1])), headers: ["Content-Type": "image/gif"]))
            #expect(try await contentType("y.jpg") == "image/gif")
            // Initiate: from the key; resumable upload: from the local file.
            try await uploadOnePart(client, OSSInitiateMultipartUploadRequest(bucketName: "bkt", objectKey: "doc.pdf"))
            #expect(try await contentType("doc.pdf") == "application/pdf")
            let png = try makeTemporaryFile(patternBytes(2000), name: "shot-\(UUID().uuidString).png")
            defer { try? FileManager.default.removeItem(at: png) }
            _ = try await client.resumableUpload(
                OSSResumableUploadRequest(bucketName: "bkt", objectKey: "uploads/shot", uploadingFileURL: png))
            #expect(try await contentType("uploads/shot") == "image/png")
        }
    }

    @Test func mimeTable() {
        #expect(OSSMimeType.guess(for: "a.jpeg") == "image/jpeg")
        #expect(OSSMimeType.guess(for: "dir.v2/readme") == nil)
        #expect(OSSMimeType.guess(for: ".hidden") == nil)
        #expect(OSSMimeType.guess(for: "x.DOCX") == "application/vnd.openxmlformats-officedocument.wordprocessingml.document")
        #expect(OSSMimeType.guess(for: "clip.mov") == "video/quicktime")
    }

    @Test func userAgentIsAppended() async throws {
        try await withRecordingHTTPServer({ _ in .init(status: 200, contentType: "application/xml", body: Data()) }) { fake in
            var configuration = OSSClientConfiguration()
            configuration.userAgent = "MyApp/2.1"
            configuration.retry = .init(maxRetryCount: 0)
            let client = try OSSClient(
                endpoint: fake.server.url.absoluteString,
                credentialProvider: OSSCredentials(accessKeyId: "ak", accessKeySecret: "sk").provider,
                configuration: configuration)
            _ = try? await client.deleteObject(OSSDeleteObjectRequest(bucketName: "bkt", objectKey: "k"))
            try await client.shutdown()
            let agent = try #require(fake.requests.first?.headers["user-agent"])
            #expect(agent.hasPrefix("aliyun-oss-swift/"))
            #expect(agent.hasSuffix(" MyApp/2.1"))
        }
        #expect(OSSUserAgent.value(appending: nil) == OSSUserAgent.sdk)
        #expect(OSSUserAgent.value(appending: "  ") == OSSUserAgent.sdk)
    }

    @Test func automaticAddressingTreatsOtherHostsAsCustomDomains() throws {
        func url(_ endpoint: String, exclude: [String] = []) throws -> String {
            var builder = OSSRequestBuilder(endpoint: try OSSEndpoint(endpoint), addressing: .automatic, userAgent: "t")
            builder.cnameExcludeList = exclude
            return builder.urlWithoutQuery(bucket: "bkt", key: "a/b.jpg")
        }
        #expect(try url("https://oss-cn-hangzhou.aliyuncs.com") == "https://bkt.oss-cn-hangzhou.aliyuncs.com/a/b.jpg")
        #expect(try url("oss-cn-shanghai-internal.aliyuncs.com") == "https://bkt.oss-cn-shanghai-internal.aliyuncs.com/a/b.jpg")
        #expect(try url("https://cdn.example.com") == "https://cdn.example.com/a/b.jpg")
        #expect(try url("https://oss.example.com", exclude: ["example.com"]) == "https://bkt.oss.example.com/a/b.jpg")
        #expect(try url("http://127.0.0.1:9000") == "http://127.0.0.1:9000/bkt/a/b.jpg")
        #expect(try url("http://localhost:9000") == "http://localhost:9000/bkt/a/b.jpg")
        #expect(try url("http://[::1]:9000") == "http://[::1]:9000/bkt/a/b.jpg")
    }
}
