import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

/// iOS features a port uses verbatim: triggerCallBack, imageActionPersist, anonymous requests, endpoint path
/// prefixes, proxies and the per-request CRC flag.
@Suite struct PortingFeatureTests {
    @Test func triggerCallBackRunsTheCallbackForAStoredObject() async throws {
        let reply = Data(#"{"ok":true}"#.utf8)
        try await withRecordingHTTPServer({ _ in .init(body: reply) }) { receiver in
            try await withParityServer { _, client in
                _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "done.txt", data: Data("12345".utf8)))
                let result = try await client.triggerCallBack(
                    OSSCallBackRequest(
                        bucketName: "bkt", objectName: "done.txt",
                        callbackParam: ["callbackUrl": receiver.callbackURL, "callbackBody": "object=${object}&size=${size}&who=${x:who}"],
                        callbackVar: ["x:who": "dave"]))
                #expect(result.serverCallbackBody == reply)
                let received = try #require(receiver.requests.first)
                #expect(formFields(received.body) == ["object": "done.txt", "size": "5", "who": "dave"])
            }
        }
    }

    @Test func imageActionPersistIsARealRequest() async throws {
        try await withParityServer { _, client in
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "cat.jpg", data: Data([1, 2, 3])))
            let error = await serverError {
                _ = try await client.imageActionPersist(
                    OSSImagePersistRequest(
                        fromBucket: "bkt", fromObject: "cat.jpg", toBucket: "bkt", toObject: "thumb.jpg",
                        action: "resize,w_100"))
            }
            // The local server authenticates and routes it, then says plainly that it does not process images.
            #expect(error?.statusCode == 501)
            #expect(error?.code == "NotImplemented")
        }
    }

    @Test func anonymousRequestsReadPublicObjects() async throws {
        try await withParityServer { _, client in
            var put = OSSPutObjectRequest(bucketName: "bkt", objectKey: "public.txt", data: Data("pub".utf8))
            put.metadata = ["x-oss-object-acl": "public-read"]
            _ = try await client.putObject(put)
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "private.txt", data: Data("p".utf8)))

            var get = OSSGetObjectRequest(bucketName: "bkt", objectKey: "public.txt")
            get.isAuthenticationRequired = false
            #expect(try await client.getObject(get).content == Data("pub".utf8))
            var head = OSSHeadObjectRequest(bucketName: "bkt", objectKey: "public.txt")
            head.isAuthenticationRequired = false
            #expect(try await client.headObject(head).contentLength == 3)

            get.objectKey = "private.txt"
            let denied = await serverError { [get] in _ = try await client.getObject(get) }
            #expect(denied?.statusCode == 403)
        }
    }

    @Test func theEndpointPathIsKeptOnlyWhenAsked() async throws {
        func url(_ endpoint: String, keep: Bool, _ addressing: OSSAddressingStyle, key: String) async throws -> String {
            var configuration = OSSClientConfiguration(addressing: addressing)
            configuration.isCustomPathPrefixEnabled = keep
            return try await withOSSClient(
                endpoint: endpoint, credentialProvider: OSSCredentials(accessKeyId: "ak", accessKeySecret: "sk").provider,
                configuration: configuration
            ) { try $0.presignPublicURL(bucket: "bkt", key: key) }
        }
        #expect(try await url("http://127.0.0.1:9/gw/oss/", keep: false, .pathStyle, key: "a/b.txt") == "http://127.0.0.1:9/bkt/a/b.txt")
        #expect(try await url("http://127.0.0.1:9/gw/oss/", keep: true, .pathStyle, key: "a/b.txt") == "http://127.0.0.1:9/gw/oss/bkt/a/b.txt")
        #expect(try await url("https://cdn.example.com/files", keep: true, .cname, key: "x") == "https://cdn.example.com/files/x")
    }

    /// The transports a proxy test can run on here: swift-corelibs-foundation's URLSession ignores
    /// `connectionProxyDictionary` (it follows only libcurl's `http_proxy` environment), so on Linux only
    /// AsyncHTTPClient, the default there, honours ``OSSClientConfiguration/proxy``.
    static let proxiedTransports: [OSSTransportKind] = {
        #if canImport(Darwin)
        return [.urlSession]
        #else
        return OSSTransportKind.allCases.filter { $0 != .automatic && $0 != .urlSession }
        #endif
    }()

    /// Requests go to the configured proxy: AsyncHTTPClient opens a `CONNECT` tunnel to the OSS host, URLSession
    /// sends the absolute URL. (The recording server is no real proxy, so the request itself then fails.)
    @Test(arguments: proxiedTransports)
    func requestsGoThroughTheProxy(transport: OSSTransportKind) async throws {
        try await withRecordingHTTPServer { proxy in
            var configuration = OSSClientConfiguration()
            configuration.transport = transport
            configuration.retry.maxRetryCount = 0
            configuration.proxy = OSSProxy(host: "127.0.0.1", port: try #require(proxy.server.url.port))
            try await withOSSClient(
                endpoint: "http://oss-cn-hangzhou.aliyuncs.com",
                credentialProvider: OSSCredentials(accessKeyId: "ak", accessKeySecret: "sk").provider,
                configuration: configuration
            ) { client in
                _ = try? await client.invoke(
                    OSSOperation(name: "GetObject", method: "GET", bucket: "bkt", key: "via-proxy.txt")
                ) { $0.status }
            }
            let request = try #require(proxy.requests.first, "nothing reached the proxy")
            let tunnel = request.method == "CONNECT" && request.uri == "bkt.oss-cn-hangzhou.aliyuncs.com:80"
            let forward = request.method == "GET" && request.uri == "http://bkt.oss-cn-hangzhou.aliyuncs.com/via-proxy.txt"
            #expect(tunnel || forward, "\(request.method) \(request.uri)")
        }
    }

    /// `crcFlag` on a request overrides the client's `crcCheckEnabled`, both ways.
    @Test func thePerRequestCRCFlagOverridesTheClient() async throws {
        let corrupt = LocalOSSFaultRule(operation: .getObject, action: .corrupt(atByte: 3))
        try await withParityServer(
            configureServer: { $0.faults = [corrupt] }, configureClient: { $0.crcCheckEnabled = false }
        ) { _, client in
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "c.bin", data: Data(patternBytes(64))))
            let unchecked = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "c.bin"))
            #expect(unchecked.content != Data(patternBytes(64)), "the client does not check: the damage goes through")
            var checked = OSSGetObjectRequest(bucketName: "bkt", objectKey: "c.bin")
            checked.crcFlag = true
            let request = checked
            let code = await clientErrorCode { _ = try await client.getObject(request, maxBytes: 1 << 20) }
            #expect(code == .invalidCRC)
        }
    }
}
