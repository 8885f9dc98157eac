import Foundation
import OSSLocalServer
import OSSSigning
import Testing

/// Runs the `oss-local-server` executable (built next to the test bundle by `swift test`).
@Suite struct ExecutableTests {
    static func executable() -> URL? {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var dir = testBinary.deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("oss-local-server")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return nil
    }

    @Test func printsListeningLineServesAndStopsOnSIGTERM() async throws {
        let binary = try #require(Self.executable(), "oss-local-server was not built next to \(CommandLine.arguments[0])")
        let dataDirectory = tempDirectory()
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let process = Process()
        process.executableURL = binary
        process.arguments = [
            "--host", "127.0.0.1", "--port", "0", "--data-dir", dataDirectory.path, "--bucket", "cli-bucket",
            "--sts-credential", "STS.Cli:CliSecret:Cli+Token", "--fault", "GetObject:nth=1:status=503", "--admin",
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        let exited = AsyncStream<Int32> { continuation in
            process.terminationHandler = { continuation.yield($0.terminationStatus); continuation.finish() }
        }
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        // Read the first line without blocking the cooperative pool.
        let line: String = try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                var bytes: [UInt8] = []
                while let byte = try? pipe.fileHandleForReading.read(upToCount: 1), let b = byte.first, b != 0x0A {
                    bytes.append(b)
                }
                continuation.resume(returning: String(decoding: bytes, as: UTF8.self))
            }
        }
        #expect(line.hasPrefix("listening on http://127.0.0.1:"), "\(line)")
        let endpoint = try #require(URL(string: String(line.dropFirst("listening on ".count))))
        var client = TestClient(endpointURL: endpoint, credentials: OSSCredentials(
            accessKeyId: LocalOSSServerConfiguration.defaultAccessKeyId,
            accessKeySecret: LocalOSSServerConfiguration.defaultAccessKeySecret))
        #expect(try await client.send("PUT", bucket: "cli-bucket", key: "k", body: [7]).status == 200)
        #expect(try await client.send("GET", bucket: "cli-bucket", key: "k").status == 503)
        #expect(try await client.send("GET", bucket: "cli-bucket", key: "k").body == [7])
        client.credentials = OSSCredentials(accessKeyId: "STS.Cli", accessKeySecret: "CliSecret", securityToken: "Cli+Token")
        #expect(try await client.send("HEAD", bucket: "cli-bucket", key: "k").status == 200)
        let stats = try await client.execute("GET", url: endpoint.absoluteString + "/-/stats")
        #expect(stats.status == 200)
        process.terminate()  // SIGTERM
        var status: Int32?
        for await s in exited { status = s }
        #expect(status == 0)
    }
}
