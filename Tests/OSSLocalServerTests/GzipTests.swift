import Foundation
import OSSLocalServer
import Testing

/// GET and HEAD with `Accept-Encoding: gzip`, as OSS answers them (a web text type of at least 1 KB goes gzip-encoded
/// and chunked, without ETag, Content-Length or Accept-Ranges). The Python judge also decodes the raw body with zlib.
@Suite struct GzipTests {
    @Test func textObjectsGoOutGzipEncodedAndChunked() async throws {
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["gzp"])) { server in
            let client = TestClient(server)
            let text = Array(String(repeating: "gzip me ", count: 600).utf8)
            let put = try await client.send(
                "PUT", bucket: "gzp", key: "page.html", headers: ["Content-Type": "text/html; charset=utf-8"], body: text)
            #expect(put.status == 200)
            // The test client's AsyncHTTPClient decodes gzip bodies itself (zlib), so the body arrives decoded. HEAD
            // is checked by the Python judge (this client fails a HEAD whose empty body says gzip).
            let r = try await client.send("GET", bucket: "gzp", key: "page.html", headers: ["Accept-Encoding": "gzip"])
            #expect(r.status == 200)
            #expect(r.header("Content-Encoding") == "gzip")
            #expect(r.header("Vary") == "Accept-Encoding")
            #expect(r.header("Content-Length") == nil && r.header("ETag") == nil && r.header("Accept-Ranges") == nil)
            #expect(r.header("Transfer-Encoding") == "chunked")
            #expect(r.header("x-oss-hash-crc64ecma") == put.header("x-oss-hash-crc64ecma"))
            #expect(r.body == text, "the gzip stream decodes to the object")
            let plain = try await client.send("GET", bucket: "gzp", key: "page.html", headers: ["Accept-Encoding": "identity"])
            #expect(plain.header("Content-Encoding") == nil && plain.body == text, "only when the client accepts gzip")
        }
    }

    @Test func otherRepliesAreNotCompressed() async throws {
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["gzp"])) { server in
            let client = TestClient(server)
            let big = Array(repeating: UInt8(ascii: "a"), count: 4096)
            _ = try await client.send("PUT", bucket: "gzp", key: "a.bin", headers: ["Content-Type": "image/png"], body: big)
            _ = try await client.send("PUT", bucket: "gzp", key: "b.txt", headers: ["Content-Type": "text/plain"], body: Array(big.prefix(1023)))
            _ = try await client.send("PUT", bucket: "gzp", key: "c.txt", headers: ["Content-Type": "text/plain"], body: big)
            let cases: [(String, [String: String])] = [
                ("a.bin", ["Accept-Encoding": "gzip"]), ("b.txt", ["Accept-Encoding": "gzip"]),
                ("c.txt", ["Accept-Encoding": "gzip", "Range": "bytes=0-9"]),
                ("c.txt", ["Accept-Encoding": "gzip;q=0, identity"]), ("c.txt", ["Accept-Encoding": "deflate"]),
            ]
            for (key, headers) in cases {
                let r = try await client.send("GET", bucket: "gzp", key: key, headers: headers)
                #expect(r.header("Content-Encoding") == nil, "\(key) \(headers)")
                #expect(r.header("Content-Length") == String(r.body.count), "\(key) \(headers)")
            }
        }
    }
}
