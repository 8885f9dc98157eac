import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import OSSLocalServer
import Testing

/// Static website hosting: anonymous GETs of the root, a folder or a missing key get the index and error
/// documents, as OSS serves them, on a bucket anonymous users may read; signed calls and private buckets are
/// unaffected.
@Suite struct WebsiteTests {
    static func site(subDir: Bool, type: Int = 0) -> [UInt8] {
        Array("""
            <WebsiteConfiguration><IndexDocument><Suffix>index.html</Suffix><SupportSubDir>\(subDir)</SupportSubDir><Type>\(type)</Type></IndexDocument>
            <ErrorDocument><Key>404.html</Key><HttpStatus>404</HttpStatus></ErrorDocument></WebsiteConfiguration>
            """.utf8)
    }

    static func fill(_ c: TestClient, _ bucket: String, acl: String) async throws {
        #expect(try await c.send("PUT", bucket: bucket, query: ["acl": ""], headers: ["x-oss-acl": acl]).status == 200)
        for (key, text) in [("index.html", "root"), ("docs/index.html", "docs"), ("404.html", "missing"), ("page.txt", "page")] {
            #expect(try await c.send("PUT", bucket: bucket, key: key, headers: ["Content-Type": "text/html"], body: Array(text.utf8)).status == 200)
        }
    }

    @Test func anonymousReadersGetIndexAndErrorDocuments() async throws {
        try await withLocalOSSServer(.init(buckets: ["site", "closed"])) { server in
            let c = TestClient(server)
            try await Self.fill(c, "site", acl: "public-read")
            try await Self.fill(c, "closed", acl: "private")
            // Before a website is configured, an anonymous GET of the root is a listing.
            var r = try await c.send("GET", bucket: "site", sign: false)
            #expect(r.text.contains("<ListBucketResult>"))
            for bucket in ["site", "closed"] {
                #expect(try await c.send("PUT", bucket: bucket, query: ["website": ""], body: Self.site(subDir: true)).status == 200)
            }
            r = try await c.send("GET", bucket: "site", sign: false)
            #expect(r.status == 200 && r.text == "root" && r.header("Content-Type") == "text/html")
            r = try await c.send("GET", bucket: "site", key: "docs/", sign: false)
            #expect(r.status == 200 && r.text == "docs")
            let redirect = try await Self.unfollowed(server.endpoint.absoluteString + "/site/docs")
            #expect(redirect.status == .found && redirect.headers.first(name: "Location") == "docs/")
            r = try await c.send("GET", bucket: "site", key: "docs", sign: false)
            #expect(r.status == 200 && r.text == "docs", "the redirect leads to the folder's index")
            r = try await c.send("GET", bucket: "site", key: "nothing/here", sign: false)
            #expect(r.status == 404 && r.text == "missing")
            r = try await c.send("HEAD", bucket: "site", key: "nothing", sign: false)
            #expect(r.status == 404)
            r = try await c.send("GET", bucket: "site", key: "page.txt", sign: false)
            #expect(r.status == 200 && r.text == "page")
            // Signed requests are API calls: no website.
            r = try await c.send("GET", bucket: "site", key: "nothing")
            #expect(r.status == 404 && r.errorCode == "NoSuchKey")
            r = try await c.send("GET", bucket: "site")
            #expect(r.text.contains("<ListBucketResult>"))
            // A bucket anonymous users may not read serves nothing.
            for key in [nil, "docs/", "nothing"] as [String?] {
                r = try await c.send("GET", bucket: "closed", key: key, sign: false)
                #expect(r.status == 403 && r.errorCode == "AccessDenied", "\(key ?? "/")")
            }
        }
    }

    /// A GET whose redirect is not followed.
    static func unfollowed(_ url: String) async throws -> HTTPClientResponse {
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
        do {
            let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
            try await client.shutdown()
            return response
        } catch {
            try await client.shutdown()
            throw error
        }
    }

    @Test func subDirectoryModes() async throws {
        try await withLocalOSSServer(.init(buckets: ["site"])) { server in
            let c = TestClient(server)
            try await Self.fill(c, "site", acl: "public-read")
            // Without SupportSubDir a folder serves the root's index, and a folder name is just a missing key.
            #expect(try await c.send("PUT", bucket: "site", query: ["website": ""], body: Self.site(subDir: false)).status == 200)
            var r = try await c.send("GET", bucket: "site", key: "docs/", sign: false)
            #expect(r.status == 200 && r.text == "root")
            r = try await c.send("GET", bucket: "site", key: "docs", sign: false)
            #expect(r.status == 404 && r.text == "missing")
            // Type 2: the folder's index is served at once; Type 1: no redirect, the error document.
            #expect(try await c.send("PUT", bucket: "site", query: ["website": ""], body: Self.site(subDir: true, type: 2)).status == 200)
            r = try await c.send("GET", bucket: "site", key: "docs", sign: false)
            #expect(r.status == 200 && r.text == "docs")
            #expect(try await c.send("PUT", bucket: "site", query: ["website": ""], body: Self.site(subDir: true, type: 1)).status == 200)
            r = try await c.send("GET", bucket: "site", key: "docs", sign: false)
            #expect(r.status == 404 && r.text == "missing")
        }
    }
}
