import Crypto
import Foundation
import OSSCRC64
import OSSLocalServer
import OSSTestSupport
import Testing

/// SIGKILLs the real `oss-local-server` while it receives an UploadPart body (paced by `x-oss-traffic-limit`, so the
/// kills land mid-body), restarts it on the same data directory and checks that ListParts shows the part whole
/// (its size and MD5 ETag) or not at all, that the part is accepted again when it is missing, and that the
/// completed object is byte-identical; no data file is left that no record references.
@Suite struct UploadPartKillLoopTests {
    static let iterations = 10
    static let partSize = 300_000
    /// 300 KB at 4 MB/s: 75 ms of body; the kills sweep the first 100 ms.
    static let limit = "33554432"
    static let windowMicroseconds: UInt64 = 100_000

    @Test func killDuringUploadPartLeavesTheWholePartOrNone() async throws {
        let binary = try #require(ServerProcess.executable(), "oss-local-server was not built")
        let dir = try makeWorkDirectory("oss-server-test")
        defer { try? FileManager.default.removeItem(at: dir) }
        let arguments = ServerProcess.arguments(dataDirectory: dir, bucket: "kill")
        var server = try await ServerProcess(binary, arguments: arguments)
        let id = try await MultipartTests.initiate(server.client, bucket: "kill", key: "k")
        var object: [UInt8] = []
        var listed: [(Int, String)] = []
        var outcomes: [String: Int] = [:]
        for iteration in 0..<Self.iterations {
            let number = iteration + 1
            let data = randomBytes(Self.partSize)
            let query = ["partNumber": String(number), "uploadId": id]
            let delay = ServerProcess.killDelayMicroseconds(
                iteration: iteration, of: Self.iterations, window: Self.windowMicroseconds)
            server = try await server.killDuring(
                { client in
                    _ = try? await client.send(
                        "PUT", bucket: "kill", key: "k", query: query, headers: ["x-oss-traffic-limit": Self.limit],
                        body: data)
                },
                afterMicroseconds: delay, restart: binary, arguments: arguments)
            let etag = "\"" + Insecure.MD5.hash(data: data).map { String(format: "%02X", $0) }.joined() + "\""
            let parts = try await server.client.send("GET", bucket: "kill", key: "k", query: ["uploadId": id])
            #expect(parts.status == 200, "iteration \(iteration)")
            if parts.text.contains("<PartNumber>\(number)</PartNumber>") {
                // Listed: whole, never a prefix.
                let listedETag = "<ETag>" + etag.replacingOccurrences(of: "\"", with: "&quot;") + "</ETag>"
                #expect(parts.text.contains(listedETag), "iteration \(iteration): a damaged part is listed")
                #expect(parts.text.contains("<Size>\(Self.partSize)</Size>"), "iteration \(iteration)")
                outcomes["stored", default: 0] += 1
            } else {
                outcomes["absent", default: 0] += 1
                let again = try await server.client.send("PUT", bucket: "kill", key: "k", query: query, body: data)
                #expect(again.status == 200, "iteration \(iteration)")
                #expect(again.header("ETag") == etag, "iteration \(iteration)")
            }
            listed.append((number, etag))
            object += data
            try CompleteKillLoopTests.expectNoOrphans(dir, bucket: "kill", iteration: iteration)
        }
        let complete = try await server.client.send(
            "POST", bucket: "kill", key: "k", query: ["uploadId": id], body: MultipartTests.completeBody(listed))
        #expect(complete.status == 200)
        let get = try await server.client.send("GET", bucket: "kill", key: "k")
        #expect(get.body == object)
        #expect(get.header("x-oss-hash-crc64ecma") == String(CRC64.checksum(object)))
        await server.stop(signal: SIGTERM)
        print("upload part kill loop outcomes: \(outcomes)")
    }
}
