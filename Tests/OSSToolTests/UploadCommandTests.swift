import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

/// What `oss cp` and `oss sync` create: a small file as one PutObject, the object's content type, ACL, user
/// metadata and storage class on every upload path (one request, multipart, standard input, a directory), and
/// `oss mb` on a bucket that exists.
@Suite("oss cp upload options, multipart threshold and mb")
struct UploadCommandTests {
    /// HEAD and GetObjectACL of `bucket/key` through the SDK.
    func inspect(_ server: LocalOSSServer, _ bucket: String, _ key: String) async throws -> (OSSHeadObjectResult, OSSACL) {
        try await withOSSClient(endpoint: server.endpoint, credentialProvider: server.credentials.provider) { client in
            let head = try await client.headObject(OSSHeadObjectRequest(bucketName: bucket, objectKey: key))
            let acl = try await client.getObjectACL(OSSGetObjectACLRequest(bucketName: bucket, objectKey: key))
            return (head, acl.grant)
        }
    }

    @Test("a 16-byte file goes as one PutObject (no multipart, no -1 ETag); --multipart-threshold below it sends parts")
    func smallFileIsOnePutObject() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["small"])) { server in
            let tool = ToolRunner(server: server, home: work)
            let file = work.appendingPathComponent("sixteen.bin")
            let crc = try writeFile(file, count: 16, seed: 16)
            var r = try await tool.run(["cp", file.path, "oss://small/s.bin", "--checkpoint-dir", work.path])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains("crc64 \(crc)"), "\(r.stdout)")
            var stats = await server.stats()
            #expect(stats[.putObject].requests == 1)
            #expect(stats[.initiateMultipartUpload].requests == 0)
            #expect(stats[.uploadPart].requests == 0)
            let (head, _) = try await inspect(server, "small", "s.bin")
            #expect(head.eTag?.hasSuffix("-1\"") == false, "\(head.eTag ?? "-")")
            #expect(head.objectType == "Normal")

            await server.resetStats()
            r = try await tool.run(
                ["cp", file.path, "oss://small/m.bin", "--checkpoint-dir", work.path, "--multipart-threshold", "16"])
            #expect(r.status == 0, "\(r.stderr)")
            stats = await server.stats()
            #expect(stats[.putObject].requests == 0)
            #expect(stats[.initiateMultipartUpload].requests == 1, "16 bytes is not under a threshold of 16")
        }
    }

    @Test("--content-type, --acl, --meta and --storage-class reach the object on every upload path")
    func uploadOptionsReachTheObject() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["opts"])) { server in
            let tool = ToolRunner(server: server, home: work)
            let file = work.appendingPathComponent("page.html")
            _ = try writeFile(file, count: 300_000, seed: 9)
            let tree = work.appendingPathComponent("tree")
            try FileManager.default.createDirectory(at: tree, withIntermediateDirectories: true)
            _ = try writeFile(tree.appendingPathComponent("small.css"), count: 100, seed: 10)
            _ = try writeFile(tree.appendingPathComponent("large.bin"), count: 250_000, seed: 11)
            let options = [
                "--content-type", "text/x-test", "--acl", "public-read", "--meta", "owner=ops", "--meta", "Team=blue",
                "--storage-class", "ia",
            ]
            let ck = ["--checkpoint-dir", work.appendingPathComponent("ck").path]
            // One request, multipart, standard input, a directory (one small file, one multipart).
            var r = try await tool.run(["cp", file.path, "oss://opts/one.html"] + options + ck)
            #expect(r.status == 0, "\(r.stderr)")
            r = try await tool.run(
                ["cp", file.path, "oss://opts/parts.html", "--multipart-threshold", "0", "--part-size", "102400"]
                    + options + ck)
            #expect(r.status == 0, "\(r.stderr)")
            r = try await tool.run(["cp", "-", "oss://opts/stdin.html"] + options, input: file)
            #expect(r.status == 0, "\(r.stderr)")
            r = try await tool.run(
                ["cp", "-r", tree.path, "oss://opts/dir", "--multipart-threshold", "200000", "--part-size", "102400"]
                    + options + ck)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(await server.stats()[.initiateMultipartUpload].requests == 2, "parts.html and dir/large.bin")
            for key in ["one.html", "parts.html", "stdin.html", "dir/small.css", "dir/large.bin"] {
                let (head, acl) = try await inspect(server, "opts", key)
                #expect(head.contentType == "text/x-test", "\(key)")
                #expect(head.metadata["owner"] == "ops", "\(key): \(head.metadata)")
                #expect(head.metadata["team"] == "blue", "\(key): \(head.metadata)")
                #expect(head.storageClass == "IA", "\(key)")
                #expect(acl == .publicRead, "\(key)")
            }
            // The batch keeps its own modification-time metadata beside the user's.
            #expect(try await inspect(server, "opts", "dir/small.css").0.metadata["mtime"] != nil)

            // Without --content-type the type is guessed from the extension on every path.
            r = try await tool.run(["cp", file.path, "oss://opts/guess-one.html"] + ck)
            #expect(r.status == 0, "\(r.stderr)")
            r = try await tool.run(["cp", file.path, "oss://opts/guess-parts.html", "--multipart-threshold", "0"] + ck)
            #expect(r.status == 0, "\(r.stderr)")
            r = try await tool.run(["cp", "-", "oss://opts/guess-stdin.html"], input: file)
            #expect(r.status == 0, "\(r.stderr)")
            r = try await tool.run(["cp", "-r", tree.path, "oss://opts/guess"] + ck)
            #expect(r.status == 0, "\(r.stderr)")
            for (key, type) in [
                ("guess-one.html", "text/html"), ("guess-parts.html", "text/html"), ("guess-stdin.html", "text/html"),
                ("guess/small.css", "text/css"), ("guess/large.bin", "application/octet-stream"),
            ] {
                let (head, acl) = try await inspect(server, "opts", key)
                #expect(head.contentType == type, "\(key)")
                #expect(head.storageClass == "Standard", "\(key)")
                #expect(acl == .default, "\(key)")
            }
        }
    }

    @Test("bad upload options are refused before anything is sent; they do not apply to downloads")
    func badUploadOptions() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["bad"])) { server in
            let tool = ToolRunner(server: server, home: work)
            let file = work.appendingPathComponent("f.txt")
            _ = try writeFile(file, count: 10, seed: 1)
            for (arguments, message) in [
                (["--acl", "everyone"], "--acl must be one of"), (["--storage-class", "Glacier"], "--storage-class must be one of"),
                (["--meta", "novalue"], "--meta takes key=value"), (["--meta", "bad key=1"], "--meta takes key=value"),
            ] {
                let r = try await tool.run(["cp", file.path, "oss://bad/f.txt"] + arguments)
                #expect(r.status == 64, "\(arguments): \(r.stderr)")
                #expect(r.stderr.contains(message), "\(arguments): \(r.stderr)")
            }
            let r = try await tool.run(["cp", "oss://bad/f.txt", work.appendingPathComponent("d").path, "--acl", "private"])
            #expect(r.status == 64, "\(r.stderr)")
            #expect(r.stderr.contains("apply to uploads"), "\(r.stderr)")
            #expect(await server.stats()[.putObject].requests == 0)
        }
    }

    @Test("mb on a bucket you own says so and changes nothing; a name another account holds is explained")
    func makeBucketThatExists() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let taken = try LocalOSSFaultRule(parsing: "PutBucket:always:status=409:code=BucketAlreadyExists")
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["mine"], faults: [taken])) { server in
            let tool = ToolRunner(server: server, home: work)
            var r = try await tool.run(["mb", "oss://mine"])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains("oss://mine already exists and is yours"), "\(r.stdout)")
            #expect(r.stdout.contains("nothing was created"), "\(r.stdout)")
            #expect(await server.stats()[.putBucket].requests == 0)

            r = try await tool.run(["mb", "oss://someone-elses"])
            #expect(r.status == 1, "\(r.stderr)")
            #expect(r.stderr.contains("belongs to another account"), "\(r.stderr)")
            #expect(r.stderr.contains("BucketAlreadyExists"), "\(r.stderr)")
            #expect(r.stderr.contains("choose another name"), "\(r.stderr)")
        }
    }

    @Test("mb whose check of the bucket fails (a 503) reports that failure and creates nothing")
    func makeBucketCheckFails() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let unavailable = try LocalOSSFaultRule(parsing: "GetBucketInfo:always:status=503:code=ServiceUnavailable")
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["mine"], faults: [unavailable])) { server in
            let tool = ToolRunner(server: server, home: work)
            let r = try await tool.run(["mb", "oss://mine"])
            #expect(r.status != 0, "\(r.stdout)")
            #expect(r.stderr.contains("ServiceUnavailable"), "\(r.stderr)")
            #expect(!r.stdout.contains("created"), "an existing bucket is never reported as created: \(r.stdout)")
            #expect(await server.stats()[.putBucket].requests == 0)
        }
    }
}
