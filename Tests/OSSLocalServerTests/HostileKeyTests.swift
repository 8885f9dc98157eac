import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import OSSLocalServer
import OSSSigning
import OSSTestSupport
import Testing

@Suite struct HostileKeyTests {
    static let keys: [String] = [
        "..", "../escape", "../../../../../../tmp/escape", "a/../../b", "trailing/",
        "nul\u{0}byte", "percent%2F..%2Fencoded", "back\\slash\\..\\..", String(repeating: "é", count: 511) + "a",  // 1023 bytes: OSS's longest key
        "spaces and + plus & amp = eq ? q # hash", "名字/文件.txt", "bucket.json", "tmp",
    ]

    /// Every file under `directory`, recursively.
    static func files(under directory: URL) -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: directory.path) else { return [] }
        return enumerator.compactMap { $0 as? String }
    }

    @Test func keysNeverEscapeTheDataDirectory() async throws {
        let base = try makeWorkDirectory("oss-server-test")
        defer { try? FileManager.default.removeItem(at: base) }
        let dataDirectory = base.appendingPathComponent("data")
        try await withLocalOSSServer(.init(dataDirectory: dataDirectory, buckets: ["hostile"])) { server in
            let client = TestClient(server)
            for (i, key) in Self.keys.enumerated() {
                let body = Array("object \(i)".utf8)
                let put = try await client.send("PUT", bucket: "hostile", key: key, body: body)
                #expect(put.status == 200, "\(key.debugDescription): \(put.text)")
                let get = try await client.send("GET", bucket: "hostile", key: key)
                #expect(get.body == body, "\(key.debugDescription)")
            }
            let list = try await client.send(
                "GET", bucket: "hostile", query: ["list-type": "2", "encoding-type": "url", "max-keys": "1000"])
            let listed = Set(xmlValues("Key", in: list.text).compactMap { OSSPercentEncoding.decode($0) })
            #expect(listed == Set(Self.keys))
            let id = try #require(
                xmlValue("UploadId", in: try await client.send("POST", bucket: "hostile", key: "../up", query: ["uploads": ""]).text))
            #expect(try await client.send(
                "PUT", bucket: "hostile", key: "../up", query: ["partNumber": "1", "uploadId": id], body: [1]).status == 200)
            // upload ids are not paths either
            let traversal = try await client.send(
                "PUT", bucket: "hostile", key: "x", query: ["partNumber": "1", "uploadId": "../../../etc"], body: [1])
            #expect(traversal.status == 404 && traversal.errorCode == "NoSuchUpload")
        }
        // nothing was created beside the data directory, and no stored file name contains a key
        let outside = try FileManager.default.contentsOfDirectory(atPath: base.path)
        #expect(outside == ["data"])
        for file in Self.files(under: dataDirectory) {
            #expect(!file.contains(".."), "\(file)")
            #expect(!file.contains("escape"), "\(file)")
        }
        #expect(!FileManager.default.fileExists(atPath: "/tmp/escape"))
        // and everything is still there after a restart
        try await withLocalOSSServer(.init(dataDirectory: dataDirectory)) { server in
            let client = TestClient(server, version: .v4)
            for (i, key) in Self.keys.enumerated() {
                let get = try await client.send("GET", bucket: "hostile", key: key)
                #expect(get.body == Array("object \(i)".utf8))
            }
        }
    }
}

@Suite("Object key limits")
struct ObjectKeyLimitTests {
    @Test func keysLongerThan1023BytesAreRefused() async throws {
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["bkt"])) { server in
            for (key, expected) in [(String(repeating: "k", count: 1023), 200), (String(repeating: "k", count: 1024), 400)] {
                var request = OSSSignableRequest(method: "PUT", bucket: "bkt", key: key, headers: ["content-type": "text/plain"])
                try OSSSignerV1().sign(&request, credentials: server.credentials, date: Date())
                var http = HTTPClientRequest(url: server.endpoint.absoluteString + "/bkt/" + OSSPercentEncoding.encode(key))
                http.method = .PUT
                for (name, value) in request.headers { http.headers.add(name: name, value: value) }
                http.body = .bytes(ByteBuffer(bytes: [1, 2, 3]))
                let response = try await HTTPClient.shared.execute(http, timeout: .seconds(30))
                _ = try await response.body.collect(upTo: 1 << 20)
                #expect(Int(response.status.code) == expected, "\(key.utf8.count)-byte key")
            }
        }
    }

    @Test func keysStartingWithASlashOrBackslashAreRefused() async throws {
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["bkt"])) { server in
            let client = TestClient(server)
            for key in ["/leading-slash", "\\leading-backslash"] {
                let put = try await client.send("PUT", bucket: "bkt", key: key, body: [1])
                #expect(put.status == 400 && put.errorCode == "InvalidObjectName", "\(key): \(put.text)")
            }
        }
    }
}
