import AliyunOSS
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import OSSLocalServer
import OSSTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The `oss` tool, run as a subprocess against the local server.
@Suite("oss command-line tool")
struct OSSToolTests {
    @Test func makeBucketListStatRemove() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try await withLocalOSSServer { server in
            let tool = ToolRunner(server: server, home: work)
            var r = try await tool.run(["mb", "oss://tool-bucket"])
            #expect(r.status == 0, "\(r.stderr)")
            let file = work.appendingPathComponent("small.txt")
            let crc = try writeFile(file, count: 1234, seed: 1)
            r = try await tool.run(["cp", file.path, "oss://tool-bucket/dir/small.txt", "--checkpoint-dir", work.path])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains("crc64 \(crc)"))
            r = try await tool.run(["ls", "oss://tool-bucket/"])
            #expect(r.status == 0)
            #expect(r.stdout.contains("oss://tool-bucket/dir/"), "\(r.stdout)")
            r = try await tool.run(["ls", "-r", "oss://tool-bucket/dir/"])
            #expect(r.stdout.contains("1234  oss://tool-bucket/dir/small.txt"), "\(r.stdout)")
            r = try await tool.run(["stat", "oss://tool-bucket/dir/small.txt"])
            #expect(r.status == 0)
            #expect(r.stdout.contains("size:           1234"))
            #expect(r.stdout.contains("crc64:          \(crc)"))
            r = try await tool.run(["rm", "oss://tool-bucket/dir/small.txt"])
            #expect(r.status == 0)
            r = try await tool.run(["stat", "oss://tool-bucket/dir/small.txt"])
            #expect(r.status == 1, "a missing object is a service error")
            #expect(r.stderr.contains("NoSuchKey"), "\(r.stderr)")
            #expect(r.stderr.contains("request id"), "\(r.stderr)")
            r = try await tool.run(["ls"])
            #expect(r.stdout.contains("oss://tool-bucket"))
        }
    }

    @Test("cp picks the upload part size from the file size when --part-size is not given")
    func automaticPartSize() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["auto"])) { server in
            let tool = ToolRunner(server: server, home: work)
            // 3 MiB: 1 MiB parts (3); 70 MiB: about 64 parts, rounded to a power of two: 2 MiB parts (35).
            for (mebibytes, parts) in [(3, 3), (70, 35)] {
                let file = work.appendingPathComponent("f\(mebibytes).bin")
                let crc = try writeFile(file, count: mebibytes << 20, seed: UInt64(mebibytes))
                await server.resetStats()
                let r = try await tool.run(
                    ["cp", file.path, "oss://auto/f.bin", "--checkpoint-dir", work.path, "--multipart-threshold", "0"])
                #expect(r.status == 0, "\(r.stderr)")
                #expect(r.stdout.contains("crc64 \(crc)"), "\(r.stdout)")
                // The object's multipart ETag ends in its part count; a part retried under load adds a request, not a part.
                #expect(
                    r.stdout.contains("-\(parts)\" crc64") || r.stdout.contains("-\(parts) crc64"),
                    "\(mebibytes) MiB: \(r.stdout)")
                #expect(await server.stats()[.uploadPart].requests >= Int64(parts), "\(mebibytes) MiB")
            }
        }
    }

    @Test func presignedURLIsFetchableWithPlainHTTP() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["pre"])) { server in
            let tool = ToolRunner(server: server, home: work)
            let file = work.appendingPathComponent("f.bin")
            let crc = try writeFile(file, count: 300_000, seed: 2)
            var r = try await tool.run(["cp", file.path, "oss://pre/f.bin", "--checkpoint-dir", work.path])
            #expect(r.status == 0, "\(r.stderr)")
            for version in ["v1", "v4"] {
                r = try await tool.run(["presign", "oss://pre/f.bin", "--expires", "300", "--signature-version", version])
                #expect(r.status == 0, "\(r.stderr)")
                let url = try #require(URL(string: r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
                let fetched = try await httpGet(url)
                #expect(fetched.status == 200)
                #expect(CRC64.checksum(fetched.body) == crc, "\(version)")
            }
        }
    }

    @Test("cp heals a part damaged in transit, with and without --content-md5", arguments: [false, true])
    func copyHealsADamagedPart(contentMD5: Bool) async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["heal"])) { server in
            let tool = ToolRunner(server: server, home: work)
            let file = work.appendingPathComponent("f.bin")
            let crc = try writeFile(file, count: 1_000_000, seed: 3)  // 5 parts of 200 KB
            await server.addFault(try LocalOSSFaultRule(parsing: "UploadPart:nth=2:corrupt=4242"))
            let r = try await tool.run(
                ["cp", file.path, "oss://heal/f.bin", "--checkpoint-dir", work.path, "--part-size", "200000",
                 "--threads", "2", "--stall-timeout", "120", "--multipart-threshold", "0"] + (contentMD5 ? ["--content-md5"] : []))
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains("crc64 \(crc)"), "\(r.stdout)")
            let stats = await server.stats()
            #expect(stats.faultsInjected == 1)
            #expect(stats[.uploadPart].requests == 6, "five parts and the damaged one again")
        }
    }

    @Test func uploadKilledMidwayResumesWithinTheBound() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let partSize = 200 * 1024
        let threads = 2
        let size = 40 * partSize + 777
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["kill"])) { server in
            let tool = ToolRunner(server: server, home: work)
            let file = work.appendingPathComponent("big.bin")
            let crc = try writeFile(file, count: size, seed: 3)
            // Slow each part down so the kill lands mid-upload.
            await server.addFault(LocalOSSFaultRule(operation: .uploadPart, action: .delay(milliseconds: 60)))
            // Requests are counted: a loaded machine must not turn a slow in-process server into stall retries
            // (stall detection has its own tests).
            let args = ["cp", file.path, "oss://kill/big.bin", "--part-size", "\(partSize)", "--threads", "\(threads)",
                "--checkpoint-dir", work.path, "--stall-timeout", "120", "--multipart-threshold", "0"]
            let (process, _, _) = try tool.start(args)
            // Wait until about a third of the parts are on the server, then kill -9.
            var waited = 0
            while await server.stats()[.uploadPart].requests < 14 && waited < 600 {
                try await Task.sleep(for: .milliseconds(50))
                waited += 1
            }
            kill(process.processIdentifier, SIGKILL)
            await waitForExit(process)
            #expect(process.terminationReason == .uncaughtSignal)
            await server.clearFaults()
            let sentBefore = await server.stats()[.uploadPart].requestBodyBytes
            #expect(sentBefore > 0 && sentBefore < Int64(size))
            let r = try await tool.run(args)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains("resumed"), "\(r.stdout)")
            let total = await server.stats()[.uploadPart].requestBodyBytes
            // Everything the server received, less the file itself, is what was sent twice.
            #expect(total - Int64(size) <= Int64(threads * partSize), "re-sent \(total - Int64(size)) bytes")
            let download = work.appendingPathComponent("back.bin")
            let d = try await tool.run(["cp", "oss://kill/big.bin", download.path, "--checkpoint-dir", work.path])
            #expect(d.status == 0, "\(d.stderr)")
            #expect(try crcOfFile(download) == crc)
        }
    }

    @Test func downloadKilledMidwayResumes() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let partSize = 128 * 1024
        let size = 30 * partSize + 5
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["dl-bucket"])) { server in
            let tool = ToolRunner(server: server, home: work)
            let file = work.appendingPathComponent("src.bin")
            let crc = try writeFile(file, count: size, seed: 4)
            var r = try await tool.run(["cp", file.path, "oss://dl-bucket/obj.bin", "--checkpoint-dir", work.path])
            #expect(r.status == 0, "\(r.stderr)")
            await server.resetStats()
            await server.addFault(LocalOSSFaultRule(operation: .getObject, action: .delay(milliseconds: 60)))
            let target = work.appendingPathComponent("out.bin")
            // A long stall limit: on a loaded machine a slow in-process server is not a stalled connection (a part
            // abandoned and fetched again would count as re-fetched).
            let args = ["cp", "oss://dl-bucket/obj.bin", target.path, "--part-size", "\(partSize)", "--threads", "2",
                "--checkpoint-dir", work.path, "--stall-timeout", "120", "--multipart-threshold", "0"]
            let (process, _, _) = try tool.start(args)
            var waited = 0
            while await server.stats()[.getObject].requests < 10 && waited < 600 {
                try await Task.sleep(for: .milliseconds(50))
                waited += 1
            }
            kill(process.processIdentifier, SIGKILL)
            await waitForExit(process)
            await server.clearFaults()
            #expect(!FileManager.default.fileExists(atPath: target.path), "nothing is renamed into place before the end")
            let before = await server.stats()[.getObject].responseBodyBytes
            r = try await tool.run(args)
            #expect(r.status == 0, "\(r.stderr)")
            let after = await server.stats()[.getObject].responseBodyBytes
            #expect(try crcOfFile(target) == crc)
            #expect(after - before < Int64(size), "the rerun fetched only what was missing: \(r.stdout) \(r.stderr)")
            // 2 threads, parts below the checkpoint interval: the parts in flight and those that finished during
            // the record save in progress (the record is saved in the background).
            #expect(before + (after - before) - Int64(size) <= Int64(2 * 2 * partSize), "re-fetched within 2 × threads × partSize")
        }
    }

    @Test func badInputGivesAClearMessageAndNonZeroExit() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        // No credentials in the environment, nor anywhere the default chain looks.
        let bare = ToolRunner(home: work)
        var r = try await bare.run(["ls", "oss://bucket-b/", "--endpoint", "http://127.0.0.1:9"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("no credentials from the default chain"), "\(r.stderr)")
        try await withLocalOSSServer { server in
            let tool = ToolRunner(server: server, home: work)
            r = try await tool.run(["stat", "not-a-url"])
            #expect(r.status == 2)
            #expect(r.stderr.contains("not an OSS URL"), "\(r.stderr)")
            r = try await tool.run(["cp", work.appendingPathComponent("missing.bin").path, "oss://b/k"])
            #expect(r.status == 2)
            #expect(r.stderr.contains("cannot read"), "\(r.stderr)")
            r = try await tool.run(["cp", "a", "b"])
            #expect(r.status == 64, "usage errors exit 64")
            r = try await tool.run(["stat", "oss://no-such-bucket/k"])
            #expect(r.status == 1)
            #expect(r.stderr.contains("NoSuch"), "\(r.stderr)")
        }
    }
}

/// A plain HTTP GET with no signing.
func httpGet(_ url: URL) async throws -> (status: Int, body: [UInt8]) {
    let (data, response) = try await URLSession.shared.data(from: url)
    return ((response as? HTTPURLResponse)?.statusCode ?? 0, [UInt8](data))
}
