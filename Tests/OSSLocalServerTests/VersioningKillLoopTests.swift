import Foundation
import OSSCRC64
import OSSLocalServer
import OSSTestSupport
import Testing

/// SIGKILLs the real `oss-local-server` while it receives a PutObject body for a versioned key (read no faster than
/// `x-oss-traffic-limit`, so the kills land mid-body, some after it), restarts it on the same data directory and
/// checks that every version acknowledged before is still listed and reads back byte for byte, that the killed
/// write left either no version or a whole one, and that no data file is left that no record references (records
/// of versions included, see ``CompleteKillLoopTests/expectNoOrphans(_:bucket:iteration:)``).
@Suite struct VersioningKillLoopTests {
    static let iterations = 10
    /// 400 KB at 4 MB/s (32 Mbit/s): 100 ms of body; the kills sweep the first 250 ms, so that some land after the
    /// body (the killed write then left a whole version, or none if the kill came before its commit).
    static let bodySize = 400_000
    static let limit = "33554432"
    static let windowMicroseconds: UInt64 = 250_000

    @Test func killDuringAVersionedPutKeepsEveryVersionWhole() async throws {
        let binary = try #require(ServerProcess.executable(), "oss-local-server was not built")
        let dir = try makeWorkDirectory("oss-server-test")
        defer { try? FileManager.default.removeItem(at: dir) }
        let arguments = ServerProcess.arguments(dataDirectory: dir, bucket: "kill")
        var server = try await ServerProcess(binary, arguments: arguments)
        #expect(try await Versioning.set(server.client, "kill", "Enabled").status == 200)
        var known: [String: [UInt8]] = [:]
        let first = randomBytes(Self.bodySize)
        known[try #require(try await server.client.send("PUT", bucket: "kill", key: "k", body: first).header("x-oss-version-id"))] = first
        var outcomes: [String: Int] = [:]
        for iteration in 0..<Self.iterations {
            let next = randomBytes(Self.bodySize)
            let delay = ServerProcess.killDelayMicroseconds(
                iteration: iteration, of: Self.iterations, window: Self.windowMicroseconds)
            server = try await server.killDuring(
                { client in
                    _ = try? await client.send(
                        "PUT", bucket: "kill", key: "k", headers: ["x-oss-traffic-limit": Self.limit], body: next)
                },
                afterMicroseconds: delay, restart: binary, arguments: arguments)
            let listed = try await Versioning.list(server.client, "kill")
            let ids = Set(listed.map(\.versionId))
            #expect(ids.isSuperset(of: known.keys), "iteration \(iteration): a version was lost")
            let extra = ids.subtracting(known.keys)
            #expect(extra.count <= 1, "iteration \(iteration)")
            for id in extra {
                let get = try await server.client.send("GET", bucket: "kill", key: "k", query: ["versionId": id])
                #expect(get.body == next, "iteration \(iteration): the killed write left a partial version")
                known[id] = next
            }
            outcomes[extra.isEmpty ? "none" : "whole", default: 0] += 1
            for (id, body) in known {
                let get = try await server.client.send("GET", bucket: "kill", key: "k", query: ["versionId": id])
                #expect(get.status == 200 && get.body == body, "iteration \(iteration): version \(id)")
                #expect(get.header("x-oss-hash-crc64ecma") == String(CRC64.checksum(get.body)), "iteration \(iteration)")
            }
            try CompleteKillLoopTests.expectNoOrphans(dir, bucket: "kill", iteration: iteration)
        }
        await server.stop(signal: SIGTERM)
        print("versioned put kill loop outcomes: \(outcomes)")
    }
}
