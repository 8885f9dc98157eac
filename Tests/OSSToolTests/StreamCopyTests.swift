import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

/// `oss cp -`: standard input up, an object down to standard output.
@Suite("oss cp - (streams)")
struct StreamCopyTests {
    struct RawOutcome {
        var status: Int32
        var stdout: Data
        var stderr: String
    }

    /// Runs `oss arguments...` with standard input read from `input` (empty when nil), keeping standard output as
    /// bytes.
    func run(_ tool: ToolRunner, _ arguments: [String], input: URL? = nil) async throws -> RawOutcome {
        let process = Process()
        process.executableURL = ToolRunner.binary
        // A loaded machine must not turn a slow in-process server into stall retries (the corrupted GET would be
        // retried clean): stall detection has its own tests.
        process.arguments = arguments + ["--stall-timeout", "120"]
        process.environment = tool.environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let stdin = try FileHandle(forReadingFrom: input ?? URL(fileURLWithPath: "/dev/null"))
        defer { try? stdin.close() }
        process.standardInput = stdin
        try process.run()
        async let stdout = readToEnd(out)
        async let stderr = readToEnd(err)
        let (o, e) = await (stdout, stderr)
        await waitForExit(process)
        return RawOutcome(status: process.terminationStatus, stdout: o, stderr: String(decoding: e, as: UTF8.self))
    }

    @Test("cp - uploads standard input (multipart past one part); cp oss://… - writes the object, byte-identical",
          arguments: [0, 1000, 350_000])
    func roundTrip(length: Int) async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["streams"])) { server in
            let tool = ToolRunner(server: server, home: work)
            let file = work.appendingPathComponent("in.bin")
            let crc = try writeFile(file, count: length, seed: UInt64(length) + 3)
            let up = try await run(tool, ["cp", "-", "oss://streams/piped.bin", "--part-size", "102400"], input: file)
            #expect(up.status == 0, "\(up.stderr)")
            let summary = String(decoding: up.stdout, as: UTF8.self)
            #expect(summary.contains("uploaded standard input to oss://streams/piped.bin"), "\(summary)")
            #expect(summary.contains("crc64 \(crc)"), "\(summary)")
            #expect(summary.contains(length > 102_400 ? "4 parts" : "one request"), "\(summary)")

            let down = try await run(tool, ["cp", "oss://streams/piped.bin", "-"])
            #expect(down.status == 0, "\(down.stderr)")
            #expect(down.stdout == (try Data(contentsOf: file)), "standard output holds the object and nothing else")
            #expect(down.stderr.contains("downloaded oss://streams/piped.bin to standard output"), "\(down.stderr)")
        }
    }

    @Test("cp oss://missing - fails with the service's error on standard error and writes nothing to standard output")
    func missingObject() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["streams"])) { server in
            let tool = ToolRunner(server: server, home: work)
            let r = try await run(tool, ["cp", "oss://streams/none.bin", "-"])
            #expect(r.status == 1)
            #expect(r.stdout.isEmpty)
            #expect(r.stderr.contains("NoSuchKey"), "\(r.stderr)")
        }
    }

    @Test("cp oss://… - with a bit flipped in transit: exit 4 (integrity)")
    func corruptedDownload() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["streams"])) { server in
            let tool = ToolRunner(server: server, home: work)
            let file = work.appendingPathComponent("in.bin")
            _ = try writeFile(file, count: 200_000, seed: 9)
            #expect(try await run(tool, ["cp", "-", "oss://streams/flip.bin"], input: file).status == 0)
            await server.addFault(try LocalOSSFaultRule(parsing: "GetObject:nth=1:corrupt=100"))
            let r = try await run(tool, ["cp", "oss://streams/flip.bin", "-"])
            #expect(r.status == 4, "\(r.stderr)")
            #expect(r.stderr.contains("InvalidCRC"), "\(r.stderr)")
        }
    }
}
