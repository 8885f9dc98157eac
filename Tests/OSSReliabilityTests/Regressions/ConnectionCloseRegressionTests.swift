import Foundation
import OSSLocalServer
import OSSSigning
import Testing

/// Regression: a client that sends `Connection: close` (the URLSession transport on Linux, HTTP/1.0-style clients)
/// got large bodies cut short, because closing a NIO channel discards the writes still queued. The server now
/// half-closes after the last byte is written and lets the client close.
@Suite("Regressions: Connection: close gets the whole body")
struct ConnectionCloseRegressionTests {
    static func signed(_ method: String, key: String, server: LocalOSSServer, headers: [String: String] = [:])
        throws -> String
    {
        var request = OSSSignableRequest(method: method, bucket: "bkt", key: key, headers: headers)
        try OSSSignerV1().sign(&request, credentials: server.credentials, date: Date())
        var text = "\(method) /bkt/\(key) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        for (name, value) in request.headers.sorted(by: { $0.key < $1.key }) { text += "\(name): \(value)\r\n" }
        return text
    }

    @Test("a 24 MiB GET with Connection: close arrives whole, three times")
    func largeBodyArrivesWhole() async throws {
        let object = (0..<(24 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ ($0 >> 11)) }
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["bkt"])) { server in
            let put = try Self.signed("PUT", key: "big", server: server, headers: ["content-type": "application/octet-stream"])
                + "Content-Length: \(object.count)\r\n\r\n"
            let stored = try await RawHTTP.exchange(port: server.port, request: Array(put.utf8) + object)
            #expect(RawHTTP.parse(stored)?.status == 200)
            for _ in 0..<3 {
                let get = try Self.signed("GET", key: "big", server: server) + "\r\n"
                let reply = try #require(RawHTTP.parse(try await RawHTTP.exchange(port: server.port, request: Array(get.utf8))))
                #expect(reply.status == 200)
                #expect(reply.body.count == object.count)
                let same = reply.body == object  // not inside #expect: it would print 24 MiB on failure
                #expect(same)
            }
        }
    }
}
