import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

/// What `oss rm` reports is what happened: a folder named without `-r` is not "deleted", a key that does not exist
/// is reported as missing (OSS answers DeleteObject with 204 either way), and `--all-versions` of one key purges
/// exactly that key.
@Suite("oss rm reports what happened")
struct RemoveReportTests {
    static func keys(_ bucket: String, server: LocalOSSServer) async throws -> [String] {
        let client = try OSSClient(endpoint: server.endpoint, credentialProvider: server.credentials.provider)
        defer { Task { try? await client.shutdown() } }
        return try await client.listObjectsV2(OSSListObjectsV2Request(bucketName: bucket)).contents.map(\.objectKey)
    }

    @Test("rm of a folder without -r: says it is a folder, how to delete it, deletes nothing, exit 2")
    func folderWithoutRecursive() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["rep"])) { server in
            try await putObjects(["folder/1", "folder/2", "folder/sub/3", "folder-x"], bucket: "rep", server: server)
            let tool = ToolRunner(server: server, home: work)
            for name in ["oss://rep/folder", "oss://rep/folder/"] {
                let r = try await tool.run(["rm", name])
                #expect(r.status == 2, "\(r.stderr)")
                #expect(r.stdout.isEmpty, "nothing is reported deleted: \(r.stdout)")
                #expect(r.stderr.contains("\(name) is a folder holding 3 objects"), "\(r.stderr)")
                #expect(r.stderr.contains("oss rm -r \(name) deletes them"), "\(r.stderr)")
                #expect(try await Self.keys("rep", server: server).count == 4)
            }
            let r = try await tool.run(["rm", "--dry-run", "oss://rep/folder"])
            #expect(r.status == 2 && r.stdout.isEmpty, "\(r.stdout)\(r.stderr)")
        }
    }

    @Test("rm of a missing key: no such object, exit 1; several keys: the rest deleted, each missing one named")
    func missingKeys() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["rep"])) { server in
            try await putObjects(["a", "c", "keep"], bucket: "rep", server: server)
            let tool = ToolRunner(server: server, home: work)
            var r = try await tool.run(["rm", "oss://rep/missing"])
            #expect(r.status == 1, "\(r.stderr)")
            #expect(r.stdout.isEmpty, "\(r.stdout)")
            #expect(r.stderr.contains("no such object: oss://rep/missing"), "\(r.stderr)")

            r = try await tool.run(["rm", "--dry-run", "oss://rep/a", "oss://rep/missing"])
            #expect(r.status == 1 && r.stdout == "would delete oss://rep/a\n", "\(r.stdout)\(r.stderr)")
            #expect(try await Self.keys("rep", server: server).count == 3)

            r = try await tool.run(["rm", "oss://rep/a", "oss://rep/missing", "oss://rep/c", "oss://rep/gone"])
            #expect(r.status == 1, "\(r.stderr)")
            #expect(r.stdout == "deleted oss://rep/a\ndeleted oss://rep/c\n", "\(r.stdout)")
            #expect(r.stderr.contains("no such object: oss://rep/missing"), "\(r.stderr)")
            #expect(r.stderr.contains("no such object: oss://rep/gone"), "\(r.stderr)")
            #expect(try await Self.keys("rep", server: server) == ["keep"])

            r = try await tool.run(["rm", "oss://rep/keep"])
            #expect(r.status == 0 && r.stdout == "deleted oss://rep/keep\n", "\(r.stdout)\(r.stderr)")
        }
    }

    @Test("versioned bucket: a missing key or one already hidden by a delete marker gets no new marker, exit 1")
    func missingKeyOnAVersionedBucket() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["vrep"])) { server in
            let tool = ToolRunner(server: server, home: work)
            var r = try await tool.run(["bucket-versioning", "oss://vrep", "enable"])
            #expect(r.status == 0, "\(r.stderr)")
            try await putObjects(["k"], bucket: "vrep", server: server)
            r = try await tool.run(["rm", "oss://vrep/never"])
            #expect(r.status == 1 && r.stderr.contains("no such object: oss://vrep/never"), "\(r.stderr)")
            r = try await tool.run(["rm", "oss://vrep/k"])
            #expect(r.status == 0 && r.stdout.contains("delete marker"), "\(r.stdout)\(r.stderr)")
            r = try await tool.run(["rm", "oss://vrep/k"])
            #expect(r.status == 1, "\(r.stderr)")
            #expect(r.stderr.contains("no such object: oss://vrep/k") && r.stderr.contains("delete marker"), "\(r.stderr)")
            let history = try await VersioningCommandTests.versions(tool, "oss://vrep")
            #expect(history.map(\.key) == ["k", "k"], "one version and one marker, none for never: \(history)")
        }
    }

    @Test("rm --all-versions oss://b/key: that key's versions and markers only, with --dry-run and the confirmation")
    func allVersionsOfOneKey() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["vrep"])) { server in
            let tool = ToolRunner(server: server, home: work)
            var r = try await tool.run(["bucket-versioning", "oss://vrep", "enable"])
            #expect(r.status == 0, "\(r.stderr)")
            try await putObjects(["doc", "doc2", "doc/x"], bucket: "vrep", server: server)
            try await putObjects(["doc", "doc"], bucket: "vrep", server: server, size: 5)
            r = try await tool.run(["rm", "oss://vrep/doc"])
            #expect(r.status == 0, "\(r.stderr)")

            r = try await tool.run(["rm", "--all-versions", "--dry-run", "oss://vrep/doc"])
            #expect(r.status == 0, "\(r.stderr)")
            let lines = r.stdout.split(separator: "\n")
            #expect(lines.count == 4, "three versions and a marker: \(r.stdout)")
            #expect(lines.allSatisfy { $0.hasPrefix("would delete oss://vrep/doc version ") }, "\(r.stdout)")
            #expect(lines.filter { $0.hasSuffix("(delete marker)") }.count == 1, "\(r.stdout)")
            #expect(try await VersioningCommandTests.versions(tool, "oss://vrep").count == 6)

            r = try await tool.run(["rm", "--all-versions", "oss://vrep/doc"])
            #expect(r.status == 8, "four without a terminal or --force: \(r.stderr)")
            #expect(try await VersioningCommandTests.versions(tool, "oss://vrep").count == 6)

            r = try await tool.run(["rm", "--all-versions", "--force", "oss://vrep/doc"])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.split(separator: "\n").count == 4 && r.stdout.hasPrefix("deleted oss://vrep/doc version "), "\(r.stdout)")
            #expect(r.stderr.contains("deleted 4 versions (delete markers included) of oss://vrep/doc for good"), "\(r.stderr)")
            let left = try await VersioningCommandTests.versions(tool, "oss://vrep")
            #expect(Set(left.map(\.key)) == ["doc/x", "doc2"], "\(left)")

            // Nothing left of the key: the folder doc/ is named, or nothing at all.
            r = try await tool.run(["rm", "--all-versions", "oss://vrep/doc"])
            #expect(r.status == 2 && r.stderr.contains("oss rm -r --all-versions oss://vrep/doc"), "\(r.stderr)")
            r = try await tool.run(["rm", "--all-versions", "oss://vrep/none"])
            #expect(r.status == 1 && r.stderr.contains("no such object: oss://vrep/none"), "\(r.stderr)")
            r = try await tool.run(["rm", "--all-versions", "oss://vrep/doc2", "oss://vrep/doc/x"])
            #expect(r.status == 64, "--all-versions without -r takes one key: \(r.stderr)")
        }
    }
}
