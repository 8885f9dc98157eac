import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// GET and presigned URLs with extra parameters: `response-*` overrides, `x-oss-traffic-limit` (the local server
/// paces paced bodies and counts them in its stats), on plain and resumable requests.
@Suite struct ExtraParameterTests {
    static let limit = 83_886_080  // 10 MiB/s

    @Test func responseOverridesApplyToGetObject() async throws {
        try await withParityServer { _, client in
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "r.bin", data: Data("r".utf8)))
            var get = OSSGetObjectRequest(bucketName: "bkt", objectKey: "r.bin")
            get.parameters = [
                "response-content-type": "text/csv", "response-content-disposition": "attachment; filename=\"r.csv\"",
                "response-cache-control": "no-store",
            ]
            let result = try await client.getObject(get)
            #expect(result.content == Data("r".utf8))
            #expect(result.contentType == "text/csv")
            #expect(result.headers["content-disposition"] == "attachment; filename=\"r.csv\"")
            #expect(result.headers["cache-control"] == "no-store")
        }
    }

    @Test(arguments: [OSSSignatureVersion.v1, .v4])
    func presignedURLWithOverridesAndTrafficLimit(version: OSSSignatureVersion) async throws {
        try await withParityServer(configureClient: { $0.signatureVersion = version }) { server, client in
            let data = Data(patternBytes(200_000))
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "p/x y.bin", data: data))
            await server.resetStats()
            let url = try await client.presignConstrainURL(
                bucket: "bkt", key: "p/x y.bin", expiration: 300,
                parameters: ["response-content-type": "image/png", OSSTrafficLimit.name: String(Self.limit)])
            let (body, response) = try await URLSession.shared.data(from: try #require(URL(string: url)))
            let http = try #require(response as? HTTPURLResponse)
            #expect(http.statusCode == 200, "\(String(decoding: body, as: UTF8.self))")
            #expect(body == data)
            #expect(http.value(forHTTPHeaderField: "Content-Type") == "image/png")
            let stats = await server.stats()
            #expect(stats.trafficLimitedResponses == 1)
            expectPaced(stats, bytes: Int64(data.count))
            // The signature covers the parameters: changing the limit breaks it.
            let tampered = url.replacingOccurrences(of: String(Self.limit), with: String(Self.limit - 1))
            let (_, refused) = try await URLSession.shared.data(from: try #require(URL(string: tampered)))
            #expect((refused as? HTTPURLResponse)?.statusCode == 403)
        }
    }

    @Test(arguments: [OSSSignatureVersion.v1, .v4])
    func processParameterIsSignedAndAuthenticated(version: OSSSignatureVersion) async throws {
        try await withParityServer(configureClient: { $0.signatureVersion = version }) { _, client in
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "img.jpg", data: Data([1])))
            let process = "image/resize,w_100"
            let url = try await client.presignConstrainURL(
                bucket: "bkt", key: "img.jpg", expiration: 300, parameters: ["x-oss-process": process])
            // Authenticated (not 403), then refused honestly: the local server does not process images.
            let (_, response) = try await URLSession.shared.data(from: try #require(URL(string: url)))
            #expect((response as? HTTPURLResponse)?.statusCode == 501)
            let tampered = url.replacingOccurrences(of: "w_100", with: "w_200")
            let (_, refused) = try await URLSession.shared.data(from: try #require(URL(string: tampered)))
            #expect((refused as? HTTPURLResponse)?.statusCode == 403)
            var get = OSSGetObjectRequest(bucketName: "bkt", objectKey: "img.jpg")
            get.parameters = ["x-oss-process": process]
            let error = await serverError { [get] in _ = try await client.getObject(get) }
            #expect(error?.statusCode == 501)
        }
    }

    @Test func trafficLimitOnGetObjectIsPacedAndCounted() async throws {
        try await withParityServer { server, client in
            let data = Data(patternBytes(300_000))
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "t.bin", data: data))
            await server.resetStats()
            var get = OSSGetObjectRequest(bucketName: "bkt", objectKey: "t.bin")
            get.headers[OSSTrafficLimit.name] = String(Self.limit)
            #expect(try await client.getObject(get).content == data)
            var stats = await server.stats()
            #expect(stats.trafficLimitedResponses == 1)
            expectPaced(stats, bytes: Int64(data.count))
            // Without a limit nothing is paced.
            _ = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "t.bin"))
            stats = await server.stats()
            #expect(stats.trafficLimitedResponses == 1)
        }
    }

    @Test func trafficLimitOnUploadsIsPacedAndCounted() async throws {
        try await withParityServer { server, client in
            let data = Data(patternBytes(300_000, seed: 5))
            var put = OSSPutObjectRequest(bucketName: "bkt", objectKey: "paced.bin", data: data)
            put.headers[OSSTrafficLimit.name] = String(Self.limit)
            _ = try await client.putObject(put)
            var stats = await server.stats()
            #expect(stats.trafficLimitedRequests == 1)
            #expect(stats.trafficLimitedResponses == 0)
            expectPaced(stats, bytes: Int64(data.count))
            #expect(try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "paced.bin")).content == data)
            // Without a limit nothing is paced; an out-of-range limit on an upload is refused.
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "free.bin", data: data))
            stats = await server.stats()
            #expect(stats.trafficLimitedRequests == 1)
            put.headers[OSSTrafficLimit.name] = "100"
            let error = await serverError { [put] in _ = try await client.putObject(put) }
            #expect(error?.statusCode == 400 && error?.code == "InvalidArgument")
        }
    }

    @Test func outOfRangeTrafficLimitsAreRefused() async throws {
        try await withParityServer { _, client in
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "o.bin", data: Data("o".utf8)))
            for bad in ["819199", "838860801", "fast"] {
                var get = OSSGetObjectRequest(bucketName: "bkt", objectKey: "o.bin")
                get.headers[OSSTrafficLimit.name] = bad
                let error = await serverError { [get] in _ = try await client.getObject(get) }
                #expect(error?.statusCode == 400)
                #expect(error?.code == "InvalidArgument")
            }
            let file = try temporaryURL()
            defer { try? FileManager.default.removeItem(at: file) }
            var download = OSSResumableDownloadRequest(bucketName: "bkt", objectKey: "o.bin", downloadToFileURL: file)
            download.trafficLimit = 1000
            let downloadCode = await clientErrorCode { [download] in _ = try await client.resumableDownload(download) }
            #expect(downloadCode == .invalidArgument)
            let source = try makeTemporaryFile([1, 2, 3])
            defer { try? FileManager.default.removeItem(at: source) }
            var upload = OSSResumableUploadRequest(bucketName: "bkt", objectKey: "u.bin", uploadingFileURL: source)
            upload.trafficLimit = 900_000_000
            let uploadCode = await clientErrorCode { [upload] in _ = try await client.resumableUpload(upload) }
            #expect(uploadCode == .invalidArgument)
        }
    }

    @Test func resumableTransfersSendHeadersAndTrafficLimit() async throws {
        try await withParityServer { server, client in
            let bytes = patternBytes(450_000)
            let source = try makeTemporaryFile(bytes)
            defer { try? FileManager.default.removeItem(at: source) }
            var upload = OSSResumableUploadRequest(
                bucketName: "bkt", objectKey: "rt.bin", uploadingFileURL: source, partSize: 102_400)
            upload.trafficLimit = Self.limit
            upload.partHeaders = ["Cache-Control": "no-cache"]
            _ = try await client.resumableUpload(upload)
            await server.resetStats()
            let destination = try temporaryURL()
            defer { try? FileManager.default.removeItem(at: destination) }
            var download = OSSResumableDownloadRequest(
                bucketName: "bkt", objectKey: "rt.bin", downloadToFileURL: destination, partSize: 102_400)
            download.trafficLimit = Self.limit
            _ = try await client.resumableDownload(download)
            #expect(try Data(contentsOf: destination) == Data(bytes))
            let stats = await server.stats()
            #expect(stats.trafficLimitedResponses == stats[.getObject].requests)
            #expect(stats.trafficLimitedResponses == 5)
            expectPaced(stats, bytes: Int64(bytes.count))
        }
    }

    /// The server paced `bytes` under the limit: the body took at least the time the limit requires (the server
    /// measures both; no clock is read here).
    func expectPaced(_ stats: LocalOSSServerStats, bytes: Int64) {
        #expect(stats.trafficLimitedBytes == bytes)
        // Each response's requirement is rounded down to a microsecond.
        let exact = bytes * 8 * 1_000_000 / Int64(Self.limit)
        #expect(
            abs(stats.trafficLimitRequiredMicroseconds - exact)
                <= stats.trafficLimitedResponses + stats.trafficLimitedRequests)
        #expect(stats.trafficLimitRequiredMicroseconds > 0)
        #expect(stats.trafficLimitElapsedMicroseconds >= stats.trafficLimitRequiredMicroseconds)
    }
}
