import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A real restart: `oss cp` (a separate process using the SDK) starts a transfer with a record directory and is
/// killed with SIGKILL mid-transfer; then this process builds a new ``OSSTransferManager`` on the same directory,
/// finds the transfer suspended with its bytes, and resumes it.
@Suite("Transfer manager after a second process was killed")
struct TransferRestartTests {
    static let partSize = 200 * 1024
    static let threads = 2

    /// A client of `server` for the test process.
    func withClient<T: Sendable>(_ server: LocalOSSServer, _ body: (OSSClient) async throws -> T) async throws -> T {
        let client = try OSSClient(
            endpoint: server.endpoint, credentialProvider: server.credentials.provider,
            configuration: OSSClientConfiguration(region: "cn-hangzhou"))
        do {
            let result = try await body(client)
            try await client.shutdown()
            return result
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    /// Starts `oss arguments`, waits until `operation` has seen `requests` requests, then kills it with SIGKILL.
    func startAndKill(
        _ tool: ToolRunner, _ arguments: [String], server: LocalOSSServer, operation: LocalOSSOperation, requests: Int64
    ) async throws {
        let (process, _, _) = try tool.start(arguments)
        var waited = 0
        while await server.stats()[operation].requests < requests && waited < 1200 && process.isRunning {
            try await Task.sleep(for: .milliseconds(25))
            waited += 1
        }
        kill(process.processIdentifier, SIGKILL)
        await waitForExit(process)
        #expect(process.terminationReason == .uncaughtSignal, "the child was killed mid-transfer, not finished")
    }

    @Test("upload: killed child, new manager lists it suspended with its bytes, resumes it within the bound")
    func uploadSurvivesAKilledProcess() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let records = work.appendingPathComponent("records").path
        let size = 30 * Self.partSize + 999
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["restart"])) { server in
            let tool = ToolRunner(server: server, home: work)
            let file = work.appendingPathComponent("big.bin")
            let crc = try writeFile(file, count: size, seed: 81)
            await server.addFault(LocalOSSFaultRule(operation: .uploadPart, action: .delay(milliseconds: 60)))
            try await startAndKill(
                tool,
                ["cp", file.path, "oss://restart/big.bin", "--part-size", "\(Self.partSize)", "--threads",
                 "\(Self.threads)", "--checkpoint-dir", records, "--stall-timeout", "120", "--multipart-threshold", "0"],
                server: server, operation: .uploadPart, requests: 10)
            await server.clearFaults()

            try await withClient(server) { client in
                let manager = OSSTransferManager(client: client, recordDirectoryPath: records, threadNum: 3)
                let listed = try await manager.transfers()
                #expect(listed.count == 1)
                let transfer = try #require(listed.first)
                #expect(transfer.kind == .upload)
                #expect(transfer.state == .suspended)
                #expect(transfer.objectKey == "big.bin")
                #expect(transfer.totalBytes == Int64(size))
                #expect(transfer.bytesDone > 0 && transfer.bytesDone < Int64(size))
                #expect(transfer.partSize == Int64(Self.partSize))

                let outcome = try await manager.resume(transfer.id)
                guard case .uploaded(let result) = outcome else {
                    Issue.record("expected an upload, got \(outcome)")
                    return
                }
                #expect(result.crc64 == crc)
                #expect(result.uploadId == transfer.uploadId, "the killed process's upload was resumed, not restarted")
                #expect(result.resumedBytes >= transfer.bytesDone)
                let head = try await client.headObject(OSSHeadObjectRequest(bucketName: "restart", objectKey: "big.bin"))
                #expect(head.contentLength == Int64(size))
                #expect(head.crc64 == crc)
                // Everything both processes sent, less the file itself, is what was sent twice.
                let sent = await server.stats()[.uploadPart].requestBodyBytes
                #expect(sent - Int64(size) <= Int64(Self.threads * Self.partSize), "re-sent \(sent - Int64(size)) bytes")
                #expect(try await manager.transfers().isEmpty)
            }
            let back = work.appendingPathComponent("back.bin")
            let r = try await tool.run(["cp", "oss://restart/big.bin", back.path, "--checkpoint-dir", records])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(try Data(contentsOf: back) == Data(contentsOf: file), "byte-identical")
        }
    }

    @Test("a killed oss cp whose record is then damaged: the rerun says so, aborts the old upload, completes")
    func damagedRecordAfterAKill() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let records = work.appendingPathComponent("records").path
        let size = 12 * Self.partSize + 7
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["restart"])) { server in
            let tool = ToolRunner(server: server, home: work)
            let file = work.appendingPathComponent("big.bin")
            let crc = try writeFile(file, count: size, seed: 83)
            let arguments = [
                "cp", file.path, "oss://restart/big.bin", "--part-size", "\(Self.partSize)", "--threads",
                "\(Self.threads)", "--checkpoint-dir", records, "--multipart-threshold", "0",
            ]
            await server.addFault(LocalOSSFaultRule(operation: .uploadPart, action: .delay(milliseconds: 60)))
            try await startAndKill(tool, arguments + ["--stall-timeout", "120"], server: server, operation: .uploadPart, requests: 4)
            await server.clearFaults()
            let recordNames = try FileManager.default.contentsOfDirectory(atPath: records).filter { $0.hasSuffix(".upload.record") }
            try #require(recordNames.count == 1)
            let path = records + "/" + recordNames[0]
            // One byte of the record flipped: the checksum's first digit.
            var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            let marker = Array(#""checksum":""#.utf8)
            let at = try #require((0...(bytes.count - marker.count)).first { Array(bytes[$0..<$0 + marker.count]) == marker })
            bytes[at + marker.count] = bytes[at + marker.count] == UInt8(ascii: "a") ? UInt8(ascii: "b") : UInt8(ascii: "a")
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let killed = try await withClient(server) { client in
                try await client.listMultipartUploads(OSSListMultipartUploadsRequest(bucketName: "restart")).uploads.map(\.uploadId)
            }
            #expect(killed.count == 1)

            let rerun = try await tool.run(arguments)
            #expect(rerun.status == 0, "\(rerun.stderr)")
            let said = rerun.stderr.split(separator: "\n").filter { $0.contains("cannot be used") }
            #expect(said.count == 1, "\(rerun.stderr)")
            #expect(said.first?.contains(recordNames[0]) == true)
            #expect(said.first?.contains("record checksum mismatch") == true)
            #expect(said.first?.contains("aborting its multipart upload \(killed.first ?? "?")") == true, "\(rerun.stderr)")
            try await withClient(server) { client in
                let left = try await client.listMultipartUploads(OSSListMultipartUploadsRequest(bucketName: "restart"))
                #expect(left.uploads.isEmpty, "no upload is left behind: \(left.uploads.map(\.uploadId))")
                let head = try await client.headObject(OSSHeadObjectRequest(bucketName: "restart", objectKey: "big.bin"))
                #expect(head.crc64 == crc)
            }
        }
    }

    @Test("download: killed child, new manager lists it suspended with its bytes, resumes it within the bound")
    func downloadSurvivesAKilledProcess() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let records = work.appendingPathComponent("records").path
        let partSize = 128 * 1024
        let size = 24 * partSize + 5
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["restart"])) { server in
            let tool = ToolRunner(server: server, home: work)
            let source = work.appendingPathComponent("src.bin")
            _ = try writeFile(source, count: size, seed: 82)
            try await withClient(server) { client in
                _ = try await client.putObject(
                    OSSPutObjectRequest(bucketName: "restart", objectKey: "obj.bin", data: try Data(contentsOf: source)))
            }
            await server.resetStats()
            await server.addFault(LocalOSSFaultRule(operation: .getObject, action: .delay(milliseconds: 60)))
            let target = work.appendingPathComponent("out.bin")
            try await startAndKill(
                tool,
                ["cp", "oss://restart/obj.bin", target.path, "--part-size", "\(partSize)", "--threads",
                 "\(Self.threads)", "--checkpoint-dir", records, "--stall-timeout", "120", "--multipart-threshold", "0"],
                server: server, operation: .getObject, requests: 8)
            await server.clearFaults()
            #expect(!FileManager.default.fileExists(atPath: target.path))

            try await withClient(server) { client in
                let manager = OSSTransferManager(client: client, recordDirectoryPath: records)
                let transfer = try #require(try await manager.transfers().first)
                #expect(transfer.kind == .download)
                #expect(transfer.state == .suspended)
                #expect(transfer.filePath == OSSTestPath.resolved(target.path))
                #expect(transfer.totalBytes == Int64(size))
                #expect(transfer.bytesDone > 0 && transfer.bytesDone < Int64(size))
                let outcome = try await manager.resume(transfer.id)
                guard case .downloaded(let result) = outcome else {
                    Issue.record("expected a download, got \(outcome)")
                    return
                }
                // What the record lists, and what the checkpoint journal beside it adds (written after its last save).
                #expect(result.resumedBytes >= transfer.bytesDone)
                // Everything both processes fetched (the killed child's last answers included), less the object
                // itself, is what was fetched twice.
                let fetched = await server.stats()[.getObject].responseBodyBytes
                // Parts below the checkpoint interval: the parts in flight and those that finished during the
                // record save in progress (the record is saved in the background).
                #expect(
                    fetched - Int64(size) <= Int64(2 * Self.threads * partSize), "re-fetched \(fetched - Int64(size)) bytes")
            }
            #expect(try Data(contentsOf: target) == Data(contentsOf: source), "byte-identical")
        }
    }
}

/// Paths as the SDK records them (symbolic links resolved, e.g. /tmp on macOS).
enum OSSTestPath {
    static func resolved(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }
}
