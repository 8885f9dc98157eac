import Foundation
import OSSCRC64
import OSSLocalServer
import OSSTestSupport
import Testing

/// SIGKILLs the real `oss-local-server` while it receives a PutObject body (read no faster than the request's
/// `x-oss-traffic-limit`, so the kills land mid-body), restarts it on the same data directory and checks that the
/// key holds the old object or the new one, byte for byte with a consistent CRC-64, never a prefix, and that no
/// data file is left that no record references.
@Suite struct PutObjectKillLoopTests {
    static let iterations = 10
    /// 400 KB at 4 MB/s (32 Mbit/s): 100 ms of body; the kills sweep the first 130 ms.
    static let bodySize = 400_000
    static let limit = "33554432"
    static let windowMicroseconds: UInt64 = 130_000

    @Test func killDuringPutObjectLeavesOldOrNewObject() async throws {
        let binary = try #require(ServerProcess.executable(), "oss-local-server was not built")
        let dir = try makeWorkDirectory("oss-server-test")
        defer { try? FileManager.default.removeItem(at: dir) }
        let arguments = ServerProcess.arguments(dataDirectory: dir, bucket: "kill")
        var server = try await ServerProcess(binary, arguments: arguments)
        var current = randomBytes(Self.bodySize)
        #expect(try await server.client.send("PUT", bucket: "kill", key: "k", body: current).status == 200)
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
            let get = try await server.client.send("GET", bucket: "kill", key: "k")
            #expect(get.status == 200, "iteration \(iteration)")
            #expect(get.header("x-oss-hash-crc64ecma") == String(CRC64.checksum(get.body)), "iteration \(iteration)")
            if get.body == next {
                outcomes["new", default: 0] += 1
                current = next
            } else {
                #expect(get.body == current, "iteration \(iteration): neither the old nor the new object")
                outcomes["old", default: 0] += 1
            }
            try CompleteKillLoopTests.expectNoOrphans(dir, bucket: "kill", iteration: iteration)
        }
        await server.stop(signal: SIGTERM)
        print("put kill loop outcomes: \(outcomes)")
    }
}
