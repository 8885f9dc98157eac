import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

@testable import AliyunOSS

/// Destinations whose file name is close to NAME_MAX (255 bytes): the temporary file's name
/// (`<name>.osstmp-<16 hex>`) would be 24 bytes longer, so it is shortened to fit, and everything that recognises
/// temporary files still does.
@Suite("resumableDownload: destination names near NAME_MAX")
struct ResumableDownloadLongNameTests {
    /// 250 bytes of UTF-8 (121 two-byte characters, then `long.bin`): the 231 bytes a temporary name keeps of it
    /// end inside a character, so the cut must move back to a boundary.
    static let longName = String(repeating: "é", count: 121) + "long.bin"
    static let size = 6 * Int(rdPartSize) + 123

    static func destination(_ scratch: RDScratch, _ name: String = longName) -> URL {
        scratch.root.appendingPathComponent(name)
    }

    static func request(
        _ key: String, _ scratch: RDScratch, record: Bool = true, progress: OSSProgressHandler? = nil
    ) -> OSSResumableDownloadRequest {
        OSSResumableDownloadRequest(
            bucketName: "bkt", objectKey: key, downloadToFileURL: destination(scratch), partSize: rdPartSize,
            threadNum: 2, recordDirectoryPath: record ? scratch.recordDirectory : nil, downloadProgress: progress)
    }

    /// The files beside the destination other than the destination and the record directory.
    static func leftovers(_ scratch: RDScratch) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: scratch.root.path)
            .filter { $0 != longName && $0 != "records" }
    }

    @Test("the temporary name: unchanged while it fits, else cut at a character boundary to 255 bytes")
    func temporaryNames() {
        let id = String(repeating: "f", count: 16)
        #expect(OSSTemporaryFileName.path(beside: "/d/x.bin", id: id) == "/d/x.bin.osstmp-" + id)
        let fits = String(repeating: "a", count: 231)
        #expect(OSSTemporaryFileName.path(beside: "/d/" + fits, id: id) == "/d/" + fits + ".osstmp-" + id)
        for name in [Self.longName, String(repeating: "b", count: 255), String(repeating: "字", count: 85)] {
            let path = OSSTemporaryFileName.path(beside: "/d/é/" + name, id: id)
            let file = String(path.dropFirst("/d/é/".count))
            #expect(path.hasPrefix("/d/é/"))
            #expect(file.utf8.count <= 255 && file.utf8.count >= 253, "\(file.utf8.count)")
            #expect(name.hasPrefix(String(file.dropLast(24))) && file.hasSuffix(".osstmp-" + id))
            #expect(OSSTemporaryFileName.isTemporary(path, of: "/d/é/" + name))
            #expect(OSSDownloadEffects.isTempFile(path, of: "/d/é/" + name))
            #expect(!OSSTemporaryFileName.isTemporary(path, of: "/d/é/x" + name))
            #expect(!OSSTemporaryFileName.isTemporary(path, of: "/d/" + name))
        }
        // The names earlier versions made, and random ids of any length, are recognised; other files are not.
        #expect(OSSTemporaryFileName.isTemporary("/d/x.bin.osstmp-0123456789abcdef", of: "/d/x.bin"))
        #expect(OSSTemporaryFileName.isTemporary(OSSTemporaryFileName.randomPath(beside: "/d/x.bin"), of: "/d/x.bin"))
        #expect(!OSSTemporaryFileName.isTemporary("/d/x.bin.osstmp-", of: "/d/x.bin"))
        #expect(!OSSTemporaryFileName.isTemporary("/d/x.bin.osstmp-xyz", of: "/d/x.bin"))
        #expect(!OSSTemporaryFileName.isTemporary("/e/x.bin.osstmp-12", of: "/d/x.bin"))
        #expect(!OSSTemporaryFileName.isTemporary("/d/x.bin", of: "/d/x.bin"))
    }

    @Test("a key whose last component is 250 bytes downloads to a file of that name, leaving nothing behind")
    func wholeDownload() async throws {
        #expect(Self.longName.utf8.count == 250)
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(Self.size, seed: 701)
        let key = "deep/dir/" + Self.longName
        try await withServerAndClient { _, client in
            try await rdPut(client, key, bytes)
            for record in [true, false] {
                let result = try await client.resumableDownload(Self.request(key, scratch, record: record))
                #expect(Array(try Data(contentsOf: Self.destination(scratch))) == bytes, "record: \(record)")
                #expect(result.crc64 == CRC64.checksum(bytes))
                #expect(try Self.leftovers(scratch) == [], "record: \(record)")
                #expect(scratch.records().isEmpty)
                try FileManager.default.removeItem(at: Self.destination(scratch))
            }
            // A single GetObject to a file writes through a temporary file too.
            _ = try await client.getObject(
                OSSGetObjectRequest(bucketName: "bkt", objectKey: key), toFile: Self.destination(scratch))
            #expect(Array(try Data(contentsOf: Self.destination(scratch))) == bytes)
            #expect(try Self.leftovers(scratch) == [])
        }
    }

    @Test(
        "a paused download of such a key resumes from its shortened temporary file",
        arguments: [true, false])
    func pauseAndResume(record: Bool) async throws {
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(Self.size, seed: 702)
        let key = Self.longName
        try await withServerAndClient { server, client in
            try await rdPut(client, key, bytes)
            var paused = Self.request(key, scratch, record: record)
            let handle = paused
            paused.downloadProgress = RDProgressLog().handler { count in if count == 2 { handle.pause() } }
            let error = await thrownClientError { _ = try await client.resumableDownload(paused) }
            #expect(error?.code == .taskPaused, "\(String(describing: error))")
            let token = try #require(error?.resumeToken)
            #expect(token.bytesDone >= 2 * rdPartSize)
            let temporary = try Self.leftovers(scratch)
            #expect(temporary.count == 1)
            let name = try #require(temporary.first)
            #expect(name.utf8.count <= 255 && name.contains(".osstmp-"))
            #expect(!FileManager.default.fileExists(atPath: Self.destination(scratch).path))

            await server.resetStats()
            // With a record directory the record finds the same (deterministic) temporary file; without one the
            // token names it.
            let result =
                record
                ? try await client.resumableDownload(Self.request(key, scratch))
                : try await client.resumableDownload(Self.request(key, scratch, record: false), resumingFrom: token)
            #expect(result.resumedBytes >= token.bytesDone)
            #expect(await rdGetBytes(server) <= Int64(bytes.count) - token.bytesDone + 2 * rdPartSize)
            #expect(Array(try Data(contentsOf: Self.destination(scratch))) == bytes)
            #expect(try Self.leftovers(scratch) == [])
            #expect(scratch.records().isEmpty)
        }
    }

    @Test("a directory download writes keys with 250-byte names, small and multipart")
    func directoryDownload() async throws {
        let scratch = try BatchScratch()
        defer { scratch.cleanup() }
        let small = String(repeating: "s", count: 242) + ".txt.bin"
        let large = String(repeating: "ü", count: 121) + "bigs.bin"
        #expect(small.utf8.count == 250 && large.utf8.count == 250)
        let files: [String: [UInt8]] = [
            small: Array("small".utf8), "sub/" + large: patternBytes(Self.size, seed: 703),
        ]
        try await withServerAndClient { _, client in
            for (path, bytes) in files { try await rdPut(client, "p/" + path, bytes) }
            var options = batchOptions()
            let (report, items) = try await runBatch(
                client, records: scratch.records,
                .download(fromBucket: "bkt", prefix: "p", to: scratch.destination, options: options))
            #expect(report.state == .completed)
            #expect(report.counts.downloaded == files.count, "\(outcomes(items))")
            for (path, bytes) in files {
                let data = try Data(contentsOf: scratch.destination.appendingPathComponent(path))
                #expect(Array(data) == bytes, "\(path)")
            }
            let all = try FileManager.default.subpathsOfDirectory(atPath: scratch.destination.path)
            #expect(Set(all) == Set(files.keys).union(["sub"]), "no temporary file left")
        }
    }
}
