import Foundation
import OSSLocalServer
import OSSSigning
import Testing

/// Regression for a CI crash: a request body that NIO's HTTP parser rejects half-way. NIO's protocol error handler
/// answers `400` itself; the server then wrote a second response on the same connection, which trips NIO's
/// "Received second response while waiting for first one to complete" assertion (a crash in debug builds, a broken
/// HTTP/1.1 stream in release builds).
@Suite("Regressions: a body the HTTP parser rejects half-way")
struct MalformedBodyRegressionTests {
    static func chunkedPut(key: String, server: LocalOSSServer, tail: String) throws -> [UInt8] {
        var request = OSSSignableRequest(
            method: "PUT", bucket: "bkt", key: key, headers: ["content-type": "application/octet-stream"])
        try OSSSignerV1().sign(&request, credentials: server.credentials, date: Date())
        var text = "PUT /bkt/\(key) HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n"
        for (name, value) in request.headers.sorted(by: { $0.key < $1.key }) { text += "\(name): \(value)\r\n" }
        text += "\r\n"
        text += "400\r\n" + String(repeating: "a", count: 0x400) + "\r\n"
        text += tail
        return Array(text.utf8)
    }

    @Test("one reply, the connection closed, nothing stored, and the server still serves", arguments: [
        "zz-not-a-chunk-size\r\n", "400\r\n\u{0}\u{1}\u{2}",
    ])
    func parserErrorMidBody(tail: String) async throws {
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["bkt"])) { server in
            let bytes = try await RawHTTP.exchange(
                port: server.port, request: try Self.chunkedPut(key: "broken", server: server, tail: tail),
                halfCloseAfterMilliseconds: 1000)
            let text = String(decoding: bytes, as: UTF8.self)
            let statusLines = text.components(separatedBy: "\r\n").filter { $0.hasPrefix("HTTP/1.1 ") }
            #expect(statusLines.count <= 1, "more than one response on one request: \(statusLines)")
            if let reply = RawHTTP.parse(bytes) { #expect(reply.status == 400, "\(reply.status)") }

            // The server is alive, and the broken upload left no object behind.
            let good = try await RawHTTP.exchange(
                port: server.port,
                request: try Self.chunkedPut(key: "whole", server: server, tail: "0\r\n\r\n").replacingHost())
            #expect(RawHTTP.parse(good)?.status == 200)
            var head = OSSSignableRequest(method: "HEAD", bucket: "bkt", key: "broken")
            try OSSSignerV1().sign(&head, credentials: server.credentials, date: Date())
            var headText = "HEAD /bkt/broken HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
            for (name, value) in head.headers.sorted(by: { $0.key < $1.key }) { headText += "\(name): \(value)\r\n" }
            let missing = try await RawHTTP.exchange(port: server.port, request: Array((headText + "\r\n").utf8))
            #expect(RawHTTP.parse(missing)?.status == 404)
        }
    }
}

extension Array where Element == UInt8 {
    /// The same request asking the server to close the connection after replying, so the exchange ends.
    fileprivate func replacingHost() -> [UInt8] {
        let text = String(decoding: self, as: UTF8.self)
        return Array(text.replacingOccurrences(of: "Host: 127.0.0.1\r\n", with: "Host: 127.0.0.1\r\nConnection: close\r\n").utf8)
    }
}
