import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

@testable import AliyunOSS

@Suite("Directory sync")
struct DirectorySyncTests {
    static func syncOptions(_ comparison: OSSSyncComparison = .sizeAndModificationTime) -> OSSDirectoryTransferOptions {
        var options = OSSDirectoryTransferOptions()
        options.mode = .sync(comparison)
        options.singleRequestThreshold = 200_000
        options.partSize = batchPartSize
        return options
    }

    /// Five files last modified an hour ago.
    static func makeTree(_ scratch: BatchScratch) throws {
        let files: [String: [UInt8]] = [
            "a.txt": Array("alpha".utf8), "b/c d.txt": Array("charlie delta".utf8), "b/e+f%.txt": Array("echo".utf8),
            "empty": [], "big.bin": patternBytes(250_000, seed: 11),
        ]
        for (path, bytes) in files {
            try setModificationDate(Date().addingTimeInterval(-3600), of: try scratch.write(path, bytes))
        }
    }

    /// Runs `body` with a fresh tree (``makeTree(_:)``), a server and a client.
    static func withTree(_ body: (BatchScratch, LocalOSSServer, OSSClient) async throws -> Void) async throws {
        let scratch = try BatchScratch()
        defer { scratch.cleanup() }
        try makeTree(scratch)
        try await withServerAndClient { server, client in try await body(scratch, server, client) }
    }

    /// Uploads the tree to `prefix` with `options` (a sync by default) and returns the run.
    static func upload(
        _ client: OSSClient, _ scratch: BatchScratch, prefix: String, _ options: OSSDirectoryTransferOptions = syncOptions()
    ) async throws -> (report: OSSBatchReport, items: [OSSBatchItem]) {
        try await runBatch(
            client, records: scratch.records, .upload(from: scratch.source, toBucket: "bkt", prefix: prefix, options: options))
    }

    @Test("a second upload sync of an unchanged tree moves no object bytes")
    func secondUploadSyncMovesNothing() async throws {
        try await Self.withTree { scratch, server, client async throws in
            let first = try await Self.upload(client, scratch, prefix: "s")
            #expect(first.report.counts.uploaded == 5)
            await server.resetStats()
            let second = try await Self.upload(client, scratch, prefix: "s")
            #expect(second.report.state == .completed)
            #expect(second.report.counts.unchanged == 5)
            #expect(second.report.counts.uploaded == 0)
            #expect(second.report.bytesTransferred == 0)
            let stats = await server.stats()
            #expect(stats[.putObject].requests == 0)
            #expect(stats[.uploadPart].requests == 0)
            #expect(stats[.initiateMultipartUpload].requests == 0)
            #expect(stats[.headObject].requests == 0, "size and time come from the listing")
            #expect(stats[.listObjectsV2].requests == 1)
            // A file touched after its upload is sent again; the others are not.
            try setModificationDate(Date().addingTimeInterval(60), of: scratch.source.appendingPathComponent("a.txt"))
            await server.resetStats()
            let third = try await Self.upload(client, scratch, prefix: "s")
            #expect(outcomes(third.items)["s/a.txt"] == .uploaded)
            #expect(third.report.counts.unchanged == 4)
            #expect(await objectBodyBytes(server).sent == 5)
            // A file written in the same second as its upload: `Last-Modified` cannot order them, the object's
            // x-oss-meta-mtime does (one HEAD), and the file is not sent again.
            try scratch.write("fresh.txt", Array("fresh".utf8))
            _ = try await Self.upload(client, scratch, prefix: "s")
            await server.resetStats()
            let fourth = try await Self.upload(client, scratch, prefix: "s")
            #expect(outcomes(fourth.items)["s/fresh.txt"] == .unchanged)
            #expect(fourth.report.counts.uploaded == 0)
            #expect(await server.stats()[.headObject].requests <= 2)
            #expect(await objectBodyBytes(server).sent == 0)
        }
    }

    @Test("checksum mode finds a change of the same size and modification time; the default cannot")
    func checksumFindsSameSizeChange() async throws {
        try await Self.withTree { scratch, server, client async throws in
            _ = try await Self.upload(client, scratch, prefix: "k")
            let file = scratch.source.appendingPathComponent("b/c d.txt")
            let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
            let modified = try #require(attributes[.modificationDate] as? Date)
            try Data("CHARLIE DELTA".utf8).write(to: file)
            try setModificationDate(modified, of: file)

            let byTime = try await Self.upload(client, scratch, prefix: "k")
            #expect(byTime.report.counts.unchanged == 5)
            await server.resetStats()
            let byChecksum = try await Self.upload(client, scratch, prefix: "k", Self.syncOptions(.checksum))
            #expect(outcomes(byChecksum.items)["k/b/c d.txt"] == .uploaded)
            #expect(byChecksum.report.counts.unchanged == 4)
            #expect(try await objectBytes(client, "k/b/c d.txt") == Array("CHARLIE DELTA".utf8))
            #expect(await objectBodyBytes(server).sent == 13)
        }
    }

    @Test("delete extras, with a dry run first: the plan lists every action and changes nothing")
    func deleteExtrasAndDryRun() async throws {
        try await Self.withTree { scratch, server, client async throws in
            _ = try await Self.upload(client, scratch, prefix: "d")
            for key in ["d/extra.txt", "d/b/old.txt", "d/keep/excluded.txt", "other/outside.txt"] {
                _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: key, data: Data("x".utf8)))
            }
            try scratch.write("new.txt", Array("new".utf8))
            var options = Self.syncOptions()
            options.deleteExtras = true
            options.exclude = ["keep/"]
            options.dryRun = true
            await server.resetStats()
            let plan = try await Self.upload(client, scratch, prefix: "d", options)
            let planned = outcomes(plan.items)
            #expect(planned["d/extra.txt"] == .wouldDelete)
            #expect(planned["d/b/old.txt"] == .wouldDelete)
            #expect(planned["d/new.txt"] == .wouldUpload)
            #expect(planned["d/keep/excluded.txt"] == nil)
            #expect(plan.report.counts.wouldDelete == 2)
            #expect(plan.report.counts.wouldUpload == 1)
            #expect(plan.report.counts.unchanged == 5)
            #expect(plan.report.dryRun)
            let stats = await server.stats()
            #expect(stats[.putObject].requests == 0)
            #expect(stats[.deleteObject].requests == 0)
            let kept = (try? FileManager.default.contentsOfDirectory(atPath: scratch.records + "/batches")) ?? []
            #expect(kept.isEmpty, "a dry run keeps no journal")

            options.dryRun = false
            let applied = try await Self.upload(client, scratch, prefix: "d", options)
            #expect(applied.report.counts.deleted == 2)
            #expect(applied.report.counts.uploaded == 1)
            let keys = Set(try await listKeys(client, prefix: ""))
            #expect(!keys.contains("d/extra.txt"))
            #expect(!keys.contains("d/b/old.txt"))
            #expect(keys.contains("d/keep/excluded.txt"))
            #expect(keys.contains("other/outside.txt"))
            #expect(keys.contains("d/new.txt"))
        }
    }

    @Test("download sync: the second run fetches nothing; a local extra is deleted only when asked")
    func downloadSync() async throws {
        try await Self.withTree { scratch, server, client async throws in
            _ = try await Self.upload(client, scratch, prefix: "dl", OSSDirectoryTransferOptions())
            var options = Self.syncOptions()
            let request = { (options: OSSDirectoryTransferOptions) in
                OSSDirectoryTransferRequest.download(fromBucket: "bkt", prefix: "dl", to: scratch.destination, options: options)
            }
            let first = try await runBatch(client, records: scratch.records, request(options))
            #expect(first.report.counts.downloaded == 5)
            try scratch.write("local-extra.txt", Array("extra".utf8), under: scratch.destination)
            await server.resetStats()
            let second = try await runBatch(client, records: scratch.records, request(options))
            #expect(second.report.counts.unchanged == 5)
            #expect(second.report.counts.deleted == 0)
            #expect(await server.stats()[.getObject].requests == 0)
            #expect(FileManager.default.fileExists(atPath: scratch.destination.appendingPathComponent("local-extra.txt").path))

            options.deleteExtras = true
            // A changed object is fetched again; the extra goes.
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "dl/a.txt", data: Data("ALPHA!".utf8)))
            let third = try await runBatch(client, records: scratch.records, request(options))
            #expect(outcomes(third.items)["dl/a.txt"] == .downloaded)
            #expect(outcomes(third.items)["dl/local-extra.txt"] == .deleted)
            #expect(!FileManager.default.fileExists(atPath: scratch.destination.appendingPathComponent("local-extra.txt").path))
            #expect(try Data(contentsOf: scratch.destination.appendingPathComponent("a.txt")) == Data("ALPHA!".utf8))
        }
    }
}
