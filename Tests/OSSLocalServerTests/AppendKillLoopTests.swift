import Foundation
import OSSCRC64
import OSSLocalServer
import OSSTestSupport
import Testing

/// SIGKILLs the real `oss-local-server` at points spread over the first 30 ms of an AppendObject (receiving the
/// body, merging small segments, committing the record), restarts it on the same data directory and checks that
/// the object holds its bytes before the append or after it (byte for byte, CRC-64 consistent, appendable at its
/// length) and that the objects directory holds exactly the files the records name: no orphan, no missing file.
@Suite struct AppendKillLoopTests {
    @Test func killDuringAppendLeavesTheObjectBeforeOrAfterIt() async throws {
        let binary = try #require(ServerProcess.executable(), "oss-local-server was not built")
        let dir = try makeWorkDirectory("oss-server-test")
        defer { try? FileManager.default.removeItem(at: dir) }
        let arguments = ServerProcess.arguments(dataDirectory: dir, bucket: "kill")
        var server = try await ServerProcess(binary, arguments: arguments)
        let iterations = 12
        // Appends below the default 4 MiB merge threshold, so kills also land in merges of small segments.
        var current: [UInt8] = []
        for size in [300_000, 200_000, 100_000] {
            let data = randomBytes(size)
            try await AppendSegmentTests.append(server.client, bucket: "kill", key: "k", at: current.count, data)
            current += data
        }
        var outcomes: [String: Int] = [:]
        for iteration in 0..<iterations {
            let piece = randomBytes(60_000 + 9_001 * iteration)
            let position = current.count
            let delay = ServerProcess.killDelayMicroseconds(iteration: iteration, of: iterations, window: 30_000)
            let query = ["append": "", "position": String(position)]
            server = try await server.killDuring(
                { client in _ = try? await client.send("POST", bucket: "kill", key: "k", query: query, body: piece) },
                afterMicroseconds: delay, restart: binary, arguments: arguments)
            let get = try await server.client.send("GET", bucket: "kill", key: "k")
            #expect(get.status == 200, "iteration \(iteration)")
            #expect(get.header("x-oss-hash-crc64ecma") == String(CRC64.checksum(get.body)), "iteration \(iteration)")
            #expect(get.header("x-oss-next-append-position") == String(get.body.count), "iteration \(iteration)")
            if get.body == current + piece {
                outcomes["after", default: 0] += 1
                current += piece
            } else {
                #expect(get.body == current, "iteration \(iteration): neither before nor after the append")
                outcomes["before", default: 0] += 1
            }
            try CompleteKillLoopTests.expectNoOrphans(dir, bucket: "kill", iteration: iteration)
        }
        // The object still takes appends at its length after all the kills.
        let tail = randomBytes(1000)
        let r = try await AppendSegmentTests.append(server.client, bucket: "kill", key: "k", at: current.count, tail)
        #expect(r.header("x-oss-hash-crc64ecma") == String(CRC64.checksum(current + tail)))
        await server.stop(signal: SIGTERM)
        print("append kill loop outcomes: \(outcomes)")
    }
}
