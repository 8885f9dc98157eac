import Foundation
import OSSLocalServer
import OSSSigning
import OSSTestSupport
import Testing

/// Runs the `oss-local-server` executable (built next to the test bundle by `swift test`).
@Suite struct ExecutableTests {
    @Test func printsListeningLineServesAndStopsOnSIGTERM() async throws {
        let binary = try #require(ServerProcess.executable(), "oss-local-server was not built next to \(CommandLine.arguments[0])")
        let dataDirectory = try makeWorkDirectory("oss-server-test")
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let server = try await ServerProcess(binary, arguments: [
            "--host", "127.0.0.1", "--port", "0", "--data-dir", dataDirectory.path, "--bucket", "cli-bucket",
            "--sts-credential", "STS.Cli:CliSecret:Cli+Token", "--fault", "GetObject:nth=1:status=503", "--admin",
            "--log-level", "info",
        ], standardError: dataDirectory.appendingPathComponent("stderr.log"))
        #expect(server.endpoint.absoluteString.hasPrefix("http://127.0.0.1:"))
        let endpoint = server.endpoint
        var client = server.client
        #expect(try await client.send("PUT", bucket: "cli-bucket", key: "k", body: [7]).status == 200)
        #expect(try await client.send("GET", bucket: "cli-bucket", key: "k").status == 503)
        #expect(try await client.send("GET", bucket: "cli-bucket", key: "k").body == [7])
        client.credentials = OSSCredentials(accessKeyId: "STS.Cli", accessKeySecret: "CliSecret", securityToken: "Cli+Token")
        #expect(try await client.send("HEAD", bucket: "cli-bucket", key: "k").status == 200)
        let stats = try await client.execute("GET", url: endpoint.absoluteString + "/-/stats")
        #expect(stats.status == 200)
        let status = await server.stop(signal: SIGTERM)
        #expect(status == 0)
        // One log line per request: method, path (never the query), status, bytes and request id.
        let log = try String(contentsOf: dataDirectory.appendingPathComponent("stderr.log"), encoding: .utf8)
        let lines = log.split(separator: "\n")
        let put = try #require(lines.first { $0.contains("PUT /cli-bucket/k 200") }, "\(log)")
        #expect(put.contains("bytes=0") && put.contains("request-id="))
        #expect(lines.contains { $0.contains("GET /cli-bucket/k 503") })
        #expect(lines.contains { $0.contains("GET /cli-bucket/k 200") && $0.contains("bytes=1") })
        #expect(!log.contains("Signature") && !log.contains("Cli+Token") && !log.contains("security-token"))
    }
}
