import AliyunOSS
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LocalServerCommand
import OSSLocalServer
import OSSTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `oss ls -h` and `--json`, `oss presign --content-type` with its curl hint, and `oss serve` with the flags of
/// `oss-local-server` and the `export` lines.
@Suite("oss ls, presign and serve")
struct ListPresignServeTests {
    @Test("ls -h prints sizes as KiB/MiB; ls --json prints one object per line (objects, folders, buckets)")
    func listHumanReadableAndJSON() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["lsb"])) { server in
            try await withOSSClient(endpoint: server.endpoint, credentialProvider: server.credentials.provider) { client in
                for (key, size) in [("a/one.bin", 1536), ("a/two.bin", 3 << 20), ("top.txt", 5)] {
                    _ = try await client.putObject(
                        OSSPutObjectRequest(bucketName: "lsb", objectKey: key, data: Data(count: size)))
                }
            }
            let tool = ToolRunner(server: server, home: work)
            var r = try await tool.run(["ls", "-h", "-r", "oss://lsb"])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains("   1.5 KiB  oss://lsb/a/one.bin"), "\(r.stdout)")
            #expect(r.stdout.contains("   3.0 MiB  oss://lsb/a/two.bin"), "\(r.stdout)")
            #expect(r.stdout.contains("       5 B  oss://lsb/top.txt"), "\(r.stdout)")
            r = try await tool.run(["ls", "--human-readable", "-r", "oss://lsb"])
            #expect(r.stdout.contains("1.5 KiB"), "\(r.stdout)")
            r = try await tool.run(["ls", "-r", "oss://lsb"])
            #expect(r.stdout.contains("        1536  oss://lsb/a/one.bin"), "without -h sizes stay in bytes: \(r.stdout)")

            r = try await tool.run(["ls", "--json", "oss://lsb"])
            #expect(r.status == 0, "\(r.stderr)")
            let lines = r.stdout.split(separator: "\n").map(String.init)
            let objects = try lines.map { line in
                try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
            }
            #expect(objects.count == 2, "\(r.stdout)")
            #expect(objects.contains { $0["prefix"] as? String == "a/" && $0["url"] as? String == "oss://lsb/a/" })
            let top = try #require(objects.first { $0["key"] as? String == "top.txt" })
            #expect(top["size"] as? Int == 5)
            #expect(top["url"] as? String == "oss://lsb/top.txt")
            #expect(top["etag"] is String && top["lastModified"] is String)
            #expect(r.stderr.contains("1 object(s)"), "the count goes to standard error: \(r.stderr)")

            r = try await tool.run(["ls", "--json"])
            let bucket = try #require(
                try JSONSerialization.jsonObject(with: Data(r.stdout.split(separator: "\n").first.map(String.init)?.utf8 ?? "".utf8))
                    as? [String: Any], "\(r.stdout)")
            #expect(bucket["name"] as? String == "lsb")
            #expect(bucket["url"] as? String == "oss://lsb")
        }
    }

    /// Sends `body` to `url` with `method` and, when given, a `Content-Type`; the response's status.
    func send(_ method: String, _ url: String, contentType: String?, body: Data) async throws -> Int {
        var request = URLRequest(url: try #require(URL(string: url)))
        request.httpMethod = method
        if let contentType { request.setValue(contentType, forHTTPHeaderField: "Content-Type") }
        request.httpBody = body
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? -1
    }

    @Test("presign --content-type signs the type into a PUT URL: that type uploads, another is refused; the curl hint names it",
          arguments: ["v1", "v4"])
    func presignPutWithContentType(version: String) async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["pre"])) { server in
            let tool = ToolRunner(server: server, home: work)
            let r = try await tool.run(
                ["presign", "oss://pre/up.txt", "--method", "PUT", "--content-type", "text/plain; charset=utf-8",
                 "--signature-version", version])
            #expect(r.status == 0, "\(r.stderr)")
            let url = r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(!url.contains("\n"), "only the URL on standard output: \(r.stdout)")
            #expect(r.stderr.contains("curl -f -X PUT -H 'Content-Type: text/plain; charset=utf-8' -T FILE '\(url)'"), "\(r.stderr)")

            #expect(try await send("PUT", url, contentType: "application/octet-stream", body: Data("no".utf8)) == 403)
            #expect(try await send("PUT", url, contentType: "text/plain; charset=utf-8", body: Data("hello".utf8)) == 200)
            let head = try await withOSSClient(endpoint: server.endpoint, credentialProvider: server.credentials.provider) {
                try await $0.headObject(OSSHeadObjectRequest(bucketName: "pre", objectKey: "up.txt"))
            }
            #expect(head.contentType == "text/plain; charset=utf-8")
            #expect(head.contentLength == 5)

            let get = try await tool.run(["presign", "oss://pre/up.txt", "--signature-version", version])
            #expect(get.stderr.contains("curl -f -o FILE '"), "\(get.stderr)")
            let refused = try await tool.run(["presign", "oss://pre/up.txt", "--content-type", "text/plain"])
            #expect(refused.status == 64, "--content-type is for PUT: \(refused.stderr)")
        }
    }

    /// The first line `process` writes to `pipe`, read on a Dispatch thread.
    func firstLine(_ pipe: Pipe) async -> String {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var bytes = Data()
                while true {
                    let chunk = pipe.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    bytes.append(chunk)
                    if bytes.contains(UInt8(ascii: "\n")) { break }
                }
                let text = String(decoding: bytes, as: UTF8.self)
                continuation.resume(returning: String(text.split(separator: "\n").first ?? ""))
            }
        }
    }

    @Test("oss serve takes oss-local-server's flags and prints the export lines on standard error")
    func serveTakesTheServerFlags() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let tool = ToolRunner(home: work)
        let (process, out, err) = try tool.start(
            ["serve", "--bucket", "served", "--region", "eu-test-1", "--access-key-id", "serve-id",
             "--access-key-secret", "serve-secret", "--max-clock-skew", "60", "--log-level", "info"])
        let line = await firstLine(out)
        #expect(line.hasPrefix("listening on http://127.0.0.1:"), "\(line)")
        let endpoint = String(line.dropFirst("listening on ".count))
        // The flags took effect: the given credentials and region sign a request the server accepts.
        var client = ToolRunner(home: work)
        client.environment["OSS_ENDPOINT"] = endpoint
        client.environment["OSS_ACCESS_KEY_ID"] = "serve-id"
        client.environment["OSS_ACCESS_KEY_SECRET"] = "serve-secret"
        client.environment["OSS_REGION"] = "eu-test-1"
        let listed = try await client.run(["ls"])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.contains("oss://served"), "\(listed.stdout)")
        kill(process.processIdentifier, SIGINT)
        let errors = String(decoding: await readToEnd(err), as: UTF8.self)
        await waitForExit(process)
        #expect(process.terminationStatus == 0, "\(errors)")
        let trimmed = endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint
        #expect(errors.contains("export OSS_ENDPOINT=\(trimmed) OSS_ACCESS_KEY_ID=serve-id OSS_REGION=eu-test-1"), "\(errors)")
        #expect(!errors.contains("serve-secret"), "a secret of the user's own is never printed: \(errors)")
        #expect(errors.contains("GET / 200"), "--log-level info logs each request: \(errors)")
    }

    @Test("the export line carries the development pair's secret, quoted for the shell")
    func exportLinesForTheDevelopmentPair() throws {
        let configuration = LocalOSSServerConfiguration(region: "cn-hangzhou")
        let text = LocalServerOptions.exportLines(
            endpoint: try #require(URL(string: "http://127.0.0.1:9000/")), configuration: configuration)
        #expect(text.contains(
            "export OSS_ENDPOINT=http://127.0.0.1:9000 OSS_ACCESS_KEY_ID=\(configuration.accessKeyId) "
                + "OSS_ACCESS_KEY_SECRET=\(configuration.accessKeySecret) OSS_REGION=cn-hangzhou"),
            "\(text)")
    }

    @Test("--trace prints each operation and attempt on stderr as it ends, with status and retries; stdout is unchanged")
    func traceTimeline() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let refused = LocalOSSFaultRule(operation: .listObjectsV2, trigger: .nth(1), action: .status(503, code: nil))
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["trc"], faults: [refused])) { server in
            let tool = ToolRunner(server: server, home: work)
            let file = work.appendingPathComponent("a.txt")
            try Data("hello".utf8).write(to: file)
            let put = try await tool.run(["cp", file.path, "oss://trc/a.txt", "--trace"])
            #expect(put.status == 0, "\(put.stderr)")
            let putLines = put.stderr.split(separator: "\n").filter { $0.hasPrefix("trace ") }
            #expect(putLines.contains { $0.contains(" PutObject  ") && $0.contains("oss.key=a.txt") && $0.contains("http.response.status_code=200") }, "\(put.stderr)")
            #expect(putLines.contains { $0.contains("  PutObject attempt  ") && $0.contains("oss.attempt=1") }, "\(put.stderr)")
            #expect(!put.stderr.contains("Signature") && !put.stderr.contains(server.credentials.accessKeySecret), "no secrets in a trace")

            let traced = try await tool.run(["ls", "oss://trc", "--trace"])
            let plain = try await tool.run(["ls", "oss://trc"])
            #expect(traced.status == 0 && traced.stdout == plain.stdout, "a trace goes to stderr only")
            #expect(!plain.stderr.contains("trace "))
            let lines = traced.stderr.split(separator: "\n").filter { $0.hasPrefix("trace ") }.map(String.init)
            // The first ListObjectsV2 attempt got the injected 503, the second its 200; the operation line says one retry.
            let attempts = lines.filter { $0.contains("ListObjectsV2 attempt") }
            #expect(attempts.count == 2, "\(traced.stderr)")
            #expect(attempts.contains { $0.contains("oss.attempt=1") && $0.contains("http.response.status_code=503") }, "\(lines)")
            #expect(attempts.contains { $0.contains("oss.attempt=2") && $0.contains("http.response.status_code=200") }, "\(lines)")
            let operation = try #require(lines.first { $0.contains(" ListObjectsV2  ") }, "\(lines)")
            #expect(operation.contains("oss.retry_count=1") && operation.contains("http.response.status_code=200"), "\(operation)")
            // Attempts are indented under their operation.
            let indent = { (line: String) -> Int in
                guard let duration = line.range(of: " ms") else { return -1 }
                return line[duration.upperBound...].prefix { $0 == " " }.count
            }
            #expect(indent(attempts[0]) == indent(operation) + 2, "\(lines)")
        }
    }
}
