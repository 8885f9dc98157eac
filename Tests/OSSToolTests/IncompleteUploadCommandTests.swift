import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

/// `oss ls -m` lists the multipart uploads in progress (key, upload id, initiated, parts and bytes so far);
/// `oss rm -m` aborts those of one key, `oss rm -m -r` those under a folder, with `--dry-run` and the confirmation
/// `rm -r` uses.
@Suite("oss ls -m and rm -m: multipart uploads in progress")
struct IncompleteUploadCommandTests {
    /// Starts an upload of `key` and sends parts of `parts` bytes; returns its upload id.
    static func startUpload(_ key: String, parts: [Int] = [], bucket: String, client: OSSClient) async throws -> String {
        let upload = try await client.initiateMultipartUpload(OSSInitiateMultipartUploadRequest(bucketName: bucket, objectKey: key))
        for (index, size) in parts.enumerated() {
            _ = try await client.uploadPart(
                OSSUploadPartRequest(
                    bucketName: bucket, objectKey: key, uploadId: upload.uploadId, partNumber: index + 1,
                    source: .data(Data(repeating: 1, count: size))))
        }
        return upload.uploadId
    }

    /// The uploads in progress in `bucket`, as "key upload-id".
    static func uploads(_ bucket: String, client: OSSClient) async throws -> Set<String> {
        var all: Set<String> = []
        for try await page in client.listMultipartUploadsPaginator(OSSListMultipartUploadsRequest(bucketName: bucket)) {
            for upload in page.uploads { all.insert("\(upload.objectKey) \(upload.uploadId)") }
        }
        return all
    }

    static func client(_ server: LocalOSSServer) throws -> OSSClient {
        try OSSClient(endpoint: server.endpoint, credentialProvider: server.credentials.provider)
    }

    @Test("ls -m: key, upload id, initiated, parts and bytes; the folder rule; odd keys as ls prints them; JSON")
    func listsUploads() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["mpu"])) { server in
            let client = try Self.client(server)
            let odd = "dir/a b+c%20ü&<x>.bin"
            let big = try await Self.startUpload("big.bin", parts: [1000, 500], bucket: "mpu", client: client)
            let empty = try await Self.startUpload("big.bin", bucket: "mpu", client: client)
            let oddId = try await Self.startUpload(odd, parts: [7], bucket: "mpu", client: client)
            let exact = try await Self.startUpload("dir", parts: [3], bucket: "mpu", client: client)
            let backup = try await Self.startUpload("dir-backup/x", bucket: "mpu", client: client)
            try await client.shutdown()
            let tool = ToolRunner(server: server, home: work)

            var r = try await tool.run(["ls", "-m", "oss://mpu"])
            #expect(r.status == 0, "\(r.stderr)")
            let lines = r.stdout.split(separator: "\n").map(String.init)
            #expect(lines.count == 5, "\(r.stdout)")
            #expect(r.stderr.contains("5 upload(s) in progress"), "\(r.stderr)")
            let bigLine = try #require(lines.first { $0.contains(big) }, "\(r.stdout)")
            #expect(bigLine.hasSuffix("  \(big)  oss://mpu/big.bin"), "\(bigLine)")
            #expect(bigLine.contains(" 2 parts ") && bigLine.contains(" 1500  "), "\(bigLine)")
            #expect(bigLine.hasPrefix("20"), "the initiated time comes first: \(bigLine)")
            let emptyLine = try #require(lines.first { $0.contains(empty) })
            #expect(emptyLine.contains(" 0 parts ") && emptyLine.contains(" 0  \(empty)"), "\(emptyLine)")
            let oddLine = try #require(lines.first { $0.contains(oddId) })
            #expect(oddLine.hasSuffix("  oss://mpu/\(odd)") && oddLine.contains(" 1 part "), "\(oddLine)")

            // oss://mpu/dir: the key dir and the folder dir/, never dir-backup/.
            r = try await tool.run(["ls", "-m", "oss://mpu/dir"])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains(exact) && r.stdout.contains(oddId), "\(r.stdout)")
            #expect(!r.stdout.contains(backup) && !r.stdout.contains(big), "\(r.stdout)")
            r = try await tool.run(["ls", "-m", "-h", "oss://mpu/big.bin"])
            #expect(r.stdout.contains("1.5 KiB  \(big)"), "\(r.stdout)")

            r = try await tool.run(["ls", "-m", "--json", "oss://mpu/dir/"])
            #expect(r.status == 0, "\(r.stderr)")
            let objects = try r.stdout.split(separator: "\n").map {
                try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }
            #expect(objects.count == 1, "\(r.stdout)")
            #expect(objects.first?["key"] as? String == odd)
            #expect(objects.first?["url"] as? String == "oss://mpu/\(odd)")
            #expect(objects.first?["uploadId"] as? String == oddId)
            #expect(objects.first?["parts"] as? Int == 1 && objects.first?["size"] as? Int == 7)
            #expect((objects.first?["initiated"] as? String)?.hasPrefix("20") == true, "\(r.stdout)")

            r = try await tool.run(["ls", "-m", "oss://mpu/nothing"])
            #expect(r.status == 0 && r.stdout.isEmpty && r.stderr.contains("0 upload(s) in progress"), "\(r.stdout)\(r.stderr)")
            r = try await tool.run(["ls", "-m"])
            #expect(r.status != 0, "ls -m needs a bucket: \(r.stderr)")
        }
    }

    @Test("rm -m: one key's uploads; -r: a folder's; --dry-run; the confirmation rule; one line per aborted upload")
    func abortsUploads() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["mpu"])) { server in
            let client = try Self.client(server)
            let k1 = try await Self.startUpload("k", parts: [10], bucket: "mpu", client: client)
            let k2 = try await Self.startUpload("k", bucket: "mpu", client: client)
            let other = try await Self.startUpload("k2", bucket: "mpu", client: client)
            let fa = try await Self.startUpload("f/a", bucket: "mpu", client: client)
            let fb = try await Self.startUpload("f/sub/b", bucket: "mpu", client: client)
            let fx = try await Self.startUpload("f-x/c", bucket: "mpu", client: client)
            let tool = ToolRunner(server: server, home: work)

            var r = try await tool.run(["rm", "-m", "oss://mpu/k", "--dry-run"])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(Set(r.stdout.split(separator: "\n")) == ["would abort upload \(k1) of oss://mpu/k", "would abort upload \(k2) of oss://mpu/k"], "\(r.stdout)")
            #expect(try await Self.uploads("mpu", client: client).count == 6, "a dry run aborts nothing")

            r = try await tool.run(["rm", "-m", "oss://mpu/k"])
            #expect(r.status == 8, "two uploads without a terminal or --force: \(r.stderr)")
            #expect(r.stderr.contains("refusing to abort 2 "), "\(r.stderr)")
            #expect(try await Self.uploads("mpu", client: client).count == 6)

            r = try await tool.run(["rm", "-m", "oss://mpu/k", "--force"])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(Set(r.stdout.split(separator: "\n")) == ["aborted upload \(k1) of oss://mpu/k", "aborted upload \(k2) of oss://mpu/k"], "\(r.stdout)")
            #expect(try await Self.uploads("mpu", client: client) == ["k2 \(other)", "f/a \(fa)", "f/sub/b \(fb)", "f-x/c \(fx)"])

            // One upload: no question.
            r = try await tool.run(["rm", "-m", "oss://mpu/k2"])
            #expect(r.status == 0 && r.stdout == "aborted upload \(other) of oss://mpu/k2\n", "\(r.stdout)\(r.stderr)")
            r = try await tool.run(["rm", "-m", "oss://mpu/k"])
            #expect(r.status == 0 && r.stdout.isEmpty, "\(r.stdout)")
            #expect(r.stderr.contains("no multipart uploads in progress of oss://mpu/k"), "\(r.stderr)")

            // -r: the folder f/ (never f-x/), at a terminal.
            r = try await tool.run(["rm", "-m", "-r", "oss://mpu/f", "--dry-run"])
            #expect(r.stdout == "would abort upload \(fa) of oss://mpu/f/a\nwould abort upload \(fb) of oss://mpu/f/sub/b\n", "\(r.stdout)")
            let terminal = try await DeleteSafetyTests().runAtTerminal(tool, ["rm", "-m", "-r", "oss://mpu/f"], answer: "y")
            #expect(terminal.status == 0, "\(terminal.screen)")
            #expect(terminal.screen.contains("abort 2 multipart uploads in progress under oss://mpu/f/"), "\(terminal.screen)")
            #expect(terminal.screen.contains("aborted upload \(fb) of oss://mpu/f/sub/b"), "\(terminal.screen)")
            #expect(try await Self.uploads("mpu", client: client) == ["f-x/c \(fx)"])

            r = try await tool.run(["rm", "-m", "oss://mpu"])
            #expect(r.status == 2, "rm -m without -r names a key: \(r.stderr)")
            r = try await tool.run(["rm", "-m", "oss://mpu/k", "--version-id", "v"])
            #expect(r.status == 64, "\(r.stderr)")
            r = try await tool.run(["rm", "-m", "-r", "--force", "oss://mpu"])
            #expect(r.status == 0 && r.stdout == "aborted upload \(fx) of oss://mpu/f-x/c\n", "\(r.stdout)\(r.stderr)")
            #expect(try await Self.uploads("mpu", client: client).isEmpty)
            try await client.shutdown()
        }
    }

    @Test("more than one page of uploads: ls -m and rm -m -r follow the listing's markers")
    func pagesOfUploads() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["mpu"])) { server in
            let client = try Self.client(server)
            // 1001 uploads: two pages of ListMultipartUploads (1000 a page); the same key twice across the page
            // boundary, so the upload-id marker matters as well as the key marker.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for start in stride(from: 0, to: 999, by: 111) {
                    group.addTask {
                        for index in start..<min(999, start + 111) {
                            _ = try await Self.startUpload(String(format: "many/%04d", index), bucket: "mpu", client: client)
                        }
                    }
                }
                try await group.waitForAll()
            }
            for _ in 0..<2 { _ = try await Self.startUpload("many/0999", bucket: "mpu", client: client) }
            await server.resetStats()
            let tool = ToolRunner(server: server, home: work)
            var r = try await tool.run(["ls", "-m", "oss://mpu/many"])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(Set(r.stdout.split(separator: "\n")).count == 1001, "\(r.stdout.prefix(300))")
            #expect(await server.stats()[.listMultipartUploads].requests >= 2)
            r = try await tool.run(["rm", "-m", "-r", "--force", "oss://mpu/many/"])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.split(separator: "\n").count == 1001)
            #expect(r.stderr.contains("aborted 1001 multipart uploads"), "\(r.stderr)")
            #expect(try await Self.uploads("mpu", client: client).isEmpty)
            try await client.shutdown()
        }
    }

    /// The ```LANGUAGE block of ResumableUpload.md's section on uploads nobody resumes, as lines.
    static func articleBlock(_ language: String) throws -> [String] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let article = try String(
            contentsOf: root.appendingPathComponent("Sources/AliyunOSS/AliyunOSS.docc/Articles/ResumableUpload.md"), encoding: .utf8)
        let section = try #require(article.range(of: "### Uploads nobody resumes")).upperBound
        let lines = article[section...].components(separatedBy: "\n")
        let start = try #require(lines.firstIndex(of: "```" + language)) + 1
        let end = try #require(lines[start...].firstIndex(of: "```"))
        return Array(lines[start..<end])
    }

    @Test("ResumableUpload.md: its lifecycle rule, in Swift and through oss bucket-config, aborts an old upload")
    func theArticlesLifecycleRule() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        // The article's Swift block is the code below, verbatim (indentation aside).
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8).components(separatedBy: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) }
        let block = try Self.articleBlock("swift").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(block.count > 5)
        #expect((0...(source.count - block.count)).contains { Array(source[$0..<($0 + block.count)]) == block }, "\(block)")
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["my-bucket"])) { server in
            let client = try Self.client(server)
            let first = try await Self.startUpload("old.bin", parts: [5], bucket: "my-bucket", client: client)
            var rules: [OSSLifecycleRule] = []
            do {
                rules = try await client.getBucketConfiguration(OSSLifecycleConfiguration.self, bucketName: "my-bucket")
                    .configuration.rules
            } catch let error as OSSServerError where error.code == "NoSuchLifecycle" {
                // The bucket has no rules yet.
            }
            rules.append(OSSLifecycleRule(id: "abort-forgotten-uploads", prefix: "", abortMultipartUpload: .init(days: 7)))
            try await client.putBucketConfiguration(OSSLifecycleConfiguration(rules: rules), bucketName: "my-bucket")
            var report = try await server.runLifecycle(now: Date().addingTimeInterval(6 * 86_400))
            #expect(report.actions.isEmpty, "six days: not yet")
            report = try await server.runLifecycle(now: Date().addingTimeInterval(8 * 86_400))
            #expect(report.actions.map(\.action) == ["AbortMultipartUpload"] && report.actions.first?.uploadId == first)
            #expect(try await Self.uploads("my-bucket", client: client).isEmpty)

            // The XML document, sent by the command the article names.
            try await client.deleteBucketConfiguration(OSSLifecycleConfiguration.self, bucketName: "my-bucket")
            let second = try await Self.startUpload("old.bin", bucket: "my-bucket", client: client)
            let file = work.appendingPathComponent("rules.xml")
            try Self.articleBlock("xml").joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
            let r = try await ToolRunner(server: server, home: work).run(["bucket-config", "oss://my-bucket", "lifecycle", "put", file.path])
            #expect(r.status == 0, "\(r.stderr)")
            report = try await server.runLifecycle(now: Date().addingTimeInterval(8 * 86_400))
            #expect(report.actions.map(\.action) == ["AbortMultipartUpload"] && report.actions.first?.uploadId == second)
            try await client.shutdown()
        }
    }

    @Test func helpDocumentsTheMultipartFlags() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let tool = ToolRunner(home: work)
        for (command, words) in [("ls", ["-m, --multipart", "upload id", "ListParts"]), ("rm", ["-m, --multipart", "abort", "oss rm -m -r"])] {
            let r = try await tool.run([command, "--help"])
            let help = r.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            for word in words { #expect(help.contains(word), "oss \(command) --help lacks \(word)") }
        }
    }
}
