import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: The code of WebAndCDN.md (DocC), verbatim: the article's blocks are checked against this file and run
// against the local server below.

func publishSite(client: OSSClient) async throws {
    try await client.putBucketACL(OSSPutBucketACLRequest(bucketName: "my-site", acl: .publicRead))
    let site = OSSWebsiteConfiguration(
        indexDocument: .init(suffix: "index.html", supportSubDir: true),
        errorDocument: .init(key: "404.html", httpStatus: 404))
    try await client.putBucketConfiguration(site, bucketName: "my-site")
}

func allowTheWebApp(client: OSSClient) async throws {
    let cors = OSSCORSConfiguration(rules: [
        OSSCORSRule(
            allowedOrigins: ["https://app.example.com"], allowedMethods: ["GET", "PUT", "POST"],
            allowedHeaders: ["*"], exposeHeaders: ["ETag", "x-oss-request-id"], maxAgeSeconds: 600),
    ])
    try await client.putBucketConfiguration(cors, bucketName: "my-site")
}

func requireModernTLS(client: OSSClient) async throws {
    let https = OSSHTTPSConfiguration(tls: .init(enable: true, tlsVersions: ["TLSv1.2", "TLSv1.3"]))
    try await client.putBucketConfiguration(https, bucketName: "my-site")
}

func accelerate(client: OSSClient) async throws -> OSSClient {
    try await client.putBucketConfiguration(OSSTransferAccelerationConfiguration(enabled: true), bucketName: "my-site")
    return try OSSClient(region: "cn-hangzhou", network: .accelerate, credentialProvider: client.credentialProvider)
}

/// The Web and CDN article: its code is this file's; the site, the CORS rule and the TLS settings act on the local
/// server (anonymous reads get the index and error documents, a preflight from the app's origin is allowed and one
/// from elsewhere is not). The accelerated client is only built (its endpoint is OSS's, never reached here).
@Suite("Web and CDN article")
struct WebAndCDNArticleTests {
    static let source = URL(fileURLWithPath: #filePath)

    @Test func everyBlockOfTheArticleIsThisFilesCodeVerbatim() throws {
        try DocSnippetsTests.expectBlocksVerbatim(of: "WebAndCDN.md", count: 4, in: Self.source)
    }

    /// An anonymous request, as a browser makes it.
    static func fetch(_ url: String, method: String = "GET", headers: [String: String] = [:]) async throws
        -> (status: Int, body: String, headers: [String: String])
    {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let (data, response) = try await session.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields { fields["\(name)".lowercased()] = "\(value)" }
        return (http.statusCode, String(decoding: data, as: UTF8.self), fields)
    }

    @Test func theSiteServesItsPagesAndTheAppsOriginIsAllowed() async throws {
        try await withServerAndClient(extraBuckets: ["my-site"]) { server, client in
            try await publishSite(client: client)
            try await allowTheWebApp(client: client)
            try await requireModernTLS(client: client)
            for (key, page) in [("index.html", "home"), ("docs/index.html", "docs home"), ("404.html", "not here")] {
                var put = OSSPutObjectRequest(bucketName: "my-site", objectKey: key, data: Data(page.utf8))
                put.contentType = "text/html"
                _ = try await client.putObject(put)
            }
            let base = server.endpoint.absoluteString + "/my-site/"
            let root = try await Self.fetch(base)
            #expect(root.status == 200 && root.body == "home")
            let docs = try await Self.fetch(base + "docs/")
            #expect(docs.status == 200 && docs.body == "docs home")
            let missing = try await Self.fetch(base + "nothing.html")
            #expect(missing.status == 404 && missing.body == "not here")

            let allowed = try await Self.fetch(
                base + "index.html", method: "OPTIONS",
                headers: ["Origin": "https://app.example.com", "Access-Control-Request-Method": "PUT"])
            #expect(allowed.status == 200)
            #expect(allowed.headers["access-control-allow-origin"] == "https://app.example.com")
            #expect(allowed.headers["access-control-max-age"] == "600")
            let stranger = try await Self.fetch(
                base + "index.html", method: "OPTIONS",
                headers: ["Origin": "https://evil.example.net", "Access-Control-Request-Method": "PUT"])
            #expect(stranger.status == 403)
            #expect(stranger.headers["access-control-allow-origin"] == nil)

            let tls = try await client.getBucketConfiguration(OSSHTTPSConfiguration.self, bucketName: "my-site")
            #expect(tls.configuration.tls.tlsVersions == ["TLSv1.2", "TLSv1.3"])
        }
    }

    @Test func accelerationIsOnAndTheNewClientUsesTheAccelerateEndpoint() async throws {
        try await withServerAndClient(extraBuckets: ["my-site"]) { _, client in
            let fast = try await accelerate(client: client)
            let stored = try await client.getBucketConfiguration(
                OSSTransferAccelerationConfiguration.self, bucketName: "my-site")
            #expect(stored.configuration.enabled)
            // Built only: its endpoint is OSS's, never reached from here.
            #expect(fast.endpoint.host == "oss-accelerate.aliyuncs.com")
            try await fast.shutdown()
        }
    }
}
