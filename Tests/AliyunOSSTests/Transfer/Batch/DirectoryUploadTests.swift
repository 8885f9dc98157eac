import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@testable import AliyunOSS

@Suite("Directory upload")
struct DirectoryUploadTests {
    /// Odd names, an empty file, a nested file, an empty directory, an excluded subtree, a large file, a link to a
    /// file and a link back to the root.
    static func makeTree(_ scratch: BatchScratch) throws -> [String: [UInt8]] {
        let files: [String: [UInt8]] = [
            "a b.txt": Array("space".utf8),
            "ünïcode-文件.txt": Array("unicode".utf8),
            "plus+sign.txt": Array("plus".utf8),
            "100%.txt": Array("percent".utf8),
            "hash#tag.txt": Array("hash".utf8),
            "what?.txt": Array("question".utf8),
            "empty.txt": [],
            "sub/nested/deep.bin": patternBytes(5000, seed: 3),
            "big.bin": patternBytes(350_000, seed: 4),
        ]
        for (path, bytes) in files { try scratch.write(path, bytes) }
        try scratch.write("skip/secret.txt", Array("secret".utf8))
        try scratch.write("sub/skip/also.txt", Array("also".utf8))
        try FileManager.default.createDirectory(
            at: scratch.source.appendingPathComponent("sub/empty-dir"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: scratch.source.appendingPathComponent("loop").path, withDestinationPath: scratch.source.path)
        try FileManager.default.createSymbolicLink(
            atPath: scratch.source.appendingPathComponent("link-to-file").path, withDestinationPath: "a b.txt")
        return files
    }

    static func options(followLinks: Bool) -> OSSDirectoryTransferOptions {
        var options = OSSDirectoryTransferOptions()
        options.exclude = ["skip/"]
        options.symbolicLinks = followLinks ? .follow : .skip
        options.singleRequestThreshold = 200_000
        options.partSize = batchPartSize
        options.filesAtOnce = 4
        return options
    }

    /// Uploads the tree of ``makeTree(_:)`` to `up/` and runs `body` with its files, the run, the server and the
    /// client; the batch, completed, must be gone afterwards.
    static func uploadTree(
        followLinks: Bool,
        _ body: ([String: [UInt8]], (report: OSSBatchReport, items: [OSSBatchItem]), LocalOSSServer, OSSClient) async throws -> Void
    ) async throws {
        let scratch = try BatchScratch()
        defer { scratch.cleanup() }
        let files = try makeTree(scratch)
        try await withServerAndClient { server, client in
            let run = try await runBatch(
                client, records: scratch.records,
                .upload(from: scratch.source, toBucket: "bkt", prefix: "up", options: options(followLinks: followLinks)))
            try await body(files, run, server, client)
            // A completed batch leaves nothing behind.
            #expect(try await OSSTransferManager(client: client, recordDirectoryPath: scratch.records).batches().isEmpty)
        }
    }

    @Test("objectMetadata: every object, one request or multipart, gets the type, ACL, storage class and user metadata; the batch's mtime wins")
    func objectMetadataReachesEveryObject() async throws {
        let scratch = try BatchScratch()
        defer { scratch.cleanup() }
        try scratch.write("small.txt", Array("small".utf8))
        try scratch.write("large.bin", patternBytes(350_000, seed: 7))
        var options = batchOptions()
        options.objectMetadata = [
            "Content-Type": "text/x-batch", "x-oss-object-acl": "public-read", "x-oss-storage-class": "IA",
            "owner": "ops", "x-oss-meta-mtime": "not the batch's",
        ]
        try await withServerAndClient { server, client in
            let run = try await runBatch(
                client, records: scratch.records, .upload(from: scratch.source, toBucket: "bkt", prefix: "meta", options: options))
            #expect(run.report.counts.uploaded == 2)
            #expect(await server.stats()[.initiateMultipartUpload].requests == 1, "large.bin went as multipart")
            for key in ["meta/small.txt", "meta/large.bin"] {
                let head = try await client.headObject(OSSHeadObjectRequest(bucketName: "bkt", objectKey: key))
                #expect(head.contentType == "text/x-batch", "\(key)")
                #expect(head.storageClass == "IA", "\(key)")
                #expect(head.metadata["owner"] == "ops", "\(key)")
                #expect(head.metadata["mtime"] != "not the batch's", "\(key): \(head.metadata)")
                #expect(head.metadata["mtime"]?.contains(".") == true, "\(key): \(head.metadata)")
                let acl = try await client.getObjectACL(OSSGetObjectACLRequest(bucketName: "bkt", objectKey: key))
                #expect(acl.grant == .publicRead, "\(key)")
            }
        }
    }

    @Test("a mixed tree: odd names, empty files, an excluded subtree, a large file; links skipped by default")
    func mixedTreeSkippingLinks() async throws {
        try await Self.uploadTree(followLinks: false) { files, run, server, client async throws in
            let (report, items) = run
            #expect(report.state == .completed)
            #expect(report.counts.uploaded == files.count)
            #expect(report.counts.refused == 2)
            #expect(report.counts.failed == 0)
            let byKey = outcomes(items)
            #expect(byKey["up/loop"] == .refused(.symbolicLinkSkipped))
            #expect(byKey["up/link-to-file"] == .refused(.symbolicLinkSkipped))
            #expect(Set(try await listKeys(client, prefix: "up/")) == Set(files.keys.map { "up/" + $0 }))
            for (path, bytes) in files {
                #expect(try await objectBytes(client, "up/" + path) == bytes, "\(path)")
            }
            // The large file went as a multipart upload, the others as single PutObjects.
            let stats = await server.stats()
            #expect(stats[.initiateMultipartUpload].requests == 1)
            #expect(stats[.putObject].requests == Int64(files.count - 1))
            #expect(try await client.listMultipartUploads(OSSListMultipartUploadsRequest(bucketName: "bkt")).uploads.isEmpty)
            // A completed batch leaves nothing behind.
            #expect(report.bytesTransferred >= Int64(files.values.map(\.count).reduce(0, +)))
        }
    }

    @Test("following links: a link to a file is uploaded, a link back to the root is a reported loop, not a hang")
    func followingLinksDetectsLoops() async throws {
        try await Self.uploadTree(followLinks: true) { files, run, _, client async throws in
            let (report, items) = run
            #expect(report.state == .completed)
            let byKey = outcomes(items)
            #expect(byKey["up/loop"] == .refused(.symbolicLinkLoop))
            #expect(byKey["up/link-to-file"] == .uploaded)
            #expect(try await objectBytes(client, "up/link-to-file") == Array("space".utf8))
            #expect(report.counts.uploaded == files.count + 1)
            #expect(!(try await listKeys(client, prefix: "up/")).contains { $0.contains("skip") })
        }
    }

    @Test("a dangling link (followed) and a FIFO are reported; the rest goes")
    func unreadableEntries() async throws {
        let scratch = try BatchScratch()
        defer { scratch.cleanup() }
        try scratch.write("ok.txt", Array("ok".utf8))
        try FileManager.default.createSymbolicLink(
            atPath: scratch.source.appendingPathComponent("dangling").path, withDestinationPath: "/nonexistent/file")
        #expect(mkfifo(scratch.source.appendingPathComponent("fifo").path, 0o600) == 0)
        try await withServerAndClient { _, client in
            var options = OSSDirectoryTransferOptions()
            options.symbolicLinks = .follow
            let (report, items) = try await runBatch(
                client, records: scratch.records, .upload(from: scratch.source, toBucket: "bkt", prefix: "u", options: options))
            #expect(report.state == .completedWithFailures)
            let byKey = outcomes(items)
            #expect(byKey["u/ok.txt"] == .uploaded)
            #expect(byKey["u/fifo"] == .refused(.unsupportedFileType))
            guard case .failed(let failure)? = byKey["u/dangling"] else {
                Issue.record("the dangling link was not reported as failed: \(String(describing: byKey["u/dangling"]))")
                return
            }
            #expect(failure.clientErrorCode == .fileCantRead)
            #expect(failure.posixErrorCode == ENOENT)
            #expect(report.problems.count == 2)
            // A batch that completed with failures stays listed, for a resume to retry them.
            let listed = try await OSSTransferManager(client: client, recordDirectoryPath: scratch.records).batches()
            #expect(listed.map(\.state) == [.completedWithFailures])
        }
    }

    @Test("an unreadable file is reported with its errno (not as root, who reads everything)", .enabled(if: getuid() != 0))
    func unreadableFile() async throws {
        let scratch = try BatchScratch()
        defer { scratch.cleanup() }
        try scratch.write("ok.txt", Array("ok".utf8))
        let locked = try scratch.write("locked.txt", Array("locked".utf8))
        try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: locked.path)
        try await withServerAndClient { _, client in
            let (report, items) = try await runBatch(
                client, records: scratch.records, .upload(from: scratch.source, toBucket: "bkt", prefix: "r"))
            #expect(outcomes(items)["r/ok.txt"] == .uploaded)
            guard case .failed(let failure)? = outcomes(items)["r/locked.txt"] else {
                Issue.record("locked.txt: \(String(describing: outcomes(items)["r/locked.txt"]))")
                return
            }
            #expect(failure.clientErrorCode == .fileCantRead)
            #expect(failure.posixErrorCode == EACCES)
            #expect(report.state == .completedWithFailures)
        }
    }

    /// Rewrites the start of the file at `path` in place and gives it back its modification time: what a write under
    /// way when a read began looks like (the kernel set the time as the write started, so size and time read the
    /// same before and after the read; only the bytes differ).
    static func rewriteKeepingStamp(_ path: String, _ bytes: [UInt8]) {
        var status = stat()
        _ = stat(path, &status)
        if let handle = FileHandle(forWritingAtPath: path) {
            handle.write(Data(bytes))
            try? handle.close()
        }
        #if canImport(Darwin)
        var times = [status.st_atimespec, status.st_mtimespec]
        #else
        var times = [status.st_atim, status.st_mtim]
        #endif
        _ = utimensat(AT_FDCWD, path, &times, 0)
    }

    @Test(
        "a file that changes while it is read is sent again once (also under the same size and modification time); one that keeps changing fails, never torn",
        .enabled(if: runsOnLinux, "holds the SDK's reads with Linux fanotify"))
    func fileChangingDuringUpload() async throws {
        let scratch = try BatchScratch()
        defer { scratch.cleanup() }
        let once = try scratch.write("once.txt", Array("before".utf8))
        let always = try scratch.write("always.txt", Array("moving".utf8))
        let same = try scratch.write("same.bin", [UInt8](repeating: UInt8(ascii: "A"), count: 64_000))
        // A write under way across both reads (its writer held mid-write) lands only after the first read: a second
        // read sees it only when it waits for the file to settle. Dated a minute ahead (a clock set ahead), the file
        // waits the whole settle time.
        let late = try scratch.write("late.bin", [UInt8](repeating: UInt8(ascii: "A"), count: 64_000))
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(60)], ofItemAtPath: late.path)
        let lateFirstRead = OSSLockedValue<ContinuousClock.Instant?>(nil)
        let lateGap = OSSLockedValue<Duration?>(nil)
        // A snapshot reads a file twice; the kernel holds each read until this handler returns, so every change
        // below lands between the first read of an attempt (reads 1 and 3) and its second (reads 2 and 4).
        let gate = try FileReadGate(watching: [once.path, always.path, same.path, late.path]) { path, read in
            if path == late.path, read == 1 { lateFirstRead.withLockedValue { $0 = .now } }
            guard read.isMultiple(of: 2) else { return }
            if path == late.path, read == 2 {
                lateGap.withLockedValue { $0 = lateFirstRead.withLockedValue { $0 }.map { .now - $0 } }
                Self.rewriteKeepingStamp(path, [UInt8](repeating: UInt8(ascii: "C"), count: 64_000))
            }
            if path == same.path, read == 2 {
                Self.rewriteKeepingStamp(path, [UInt8](repeating: UInt8(ascii: "B"), count: 32_000))
            }
            if path == once.path, read == 2, let handle = FileHandle(forWritingAtPath: path) {
                // In place: the SDK's open descriptor sees the new size.
                try? handle.truncate(atOffset: 0)
                handle.write(Data("after, longer".utf8))
                try? handle.close()
            }
            if path == always.path, let handle = FileHandle(forWritingAtPath: path) {
                handle.seekToEndOfFile()
                handle.write(Data("+".utf8))
                try? handle.close()
            }
        }
        defer { gate.stop() }
        try await withServerAndClient { server, client in
            let (report, items) = try await runBatch(
                client, records: scratch.records, .upload(from: scratch.source, toBucket: "bkt", prefix: "c"))
            let byKey = outcomes(items)
            #expect(byKey["c/once.txt"] == .uploaded)
            #expect(try await objectBytes(client, "c/once.txt") == Array("after, longer".utf8))
            guard case .failed(let failure)? = byKey["c/always.txt"] else {
                Issue.record("always.txt: \(String(describing: byKey["c/always.txt"]))")
                return
            }
            #expect(failure.clientErrorCode == .fileChanged)
            #expect(byKey["c/same.bin"] == .uploaded)
            #expect(
                try await objectBytes(client, "c/same.bin")
                    == [UInt8](repeating: UInt8(ascii: "B"), count: 32_000) + [UInt8](repeating: UInt8(ascii: "A"), count: 32_000))
            #expect(byKey["c/late.bin"] == .uploaded)
            #expect(try await objectBytes(client, "c/late.bin") == [UInt8](repeating: UInt8(ascii: "C"), count: 64_000))
            let gap = try #require(lateGap.withLockedValue { $0 }, "late.bin was read twice")
            #expect(gap >= OSSBatchRunner.settleTime, "the second read of an unsettled file waited \(gap)")
            #expect(try await listKeys(client, prefix: "c/") == ["c/late.bin", "c/once.txt", "c/same.bin"])
            #expect(report.counts.failed == 1)
            // Nothing was sent for the changing file: the snapshot was refused before the request.
            #expect(await server.stats()[.putObject].requests == 3)
        }
    }

    @Test("a large file that keeps changing during its multipart upload fails with fileChanged; nothing is stored")
    func largeFileKeepsChanging() async throws {
        let scratch = try BatchScratch()
        defer { scratch.cleanup() }
        let moving = try scratch.write("moving.bin", [UInt8](repeating: 7, count: 1_000_000))
        try await withServerAndClient(faults: [
            LocalOSSFaultRule(operation: .uploadPart, action: .delay(milliseconds: 40))
        ]) { _, client in
            // Something appends to the file while it uploads, again and again.
            let writer = Task {
                while !Task.isCancelled {
                    if let handle = FileHandle(forWritingAtPath: moving.path) {
                        handle.seekToEndOfFile()
                        handle.write(Data([1]))
                        try? handle.close()
                    }
                    try? await Task.sleep(for: .milliseconds(20))
                }
            }
            defer { writer.cancel() }
            var options = batchOptions()
            let (report, items) = try await runBatch(
                client, records: scratch.records,
                .upload(from: scratch.source, toBucket: "bkt", prefix: "m", options: options))
            guard case .failed(let failure)? = outcomes(items)["m/moving.bin"] else {
                Issue.record("moving.bin: \(String(describing: outcomes(items)["m/moving.bin"]))")
                return
            }
            #expect(failure.clientErrorCode == .fileChanged, "\(failure)")
            #expect(report.counts.failed == 1)
            #expect(try await listKeys(client, prefix: "m/").isEmpty)
        }
    }

    @Test("stop on first failure: a typed error, the report kept")
    func stopOnFirstFailure() async throws {
        let scratch = try BatchScratch()
        defer { scratch.cleanup() }
        for index in 0..<6 { try scratch.write("f\(index).txt", Array("x".utf8)) }
        try await withServerAndClient(faults: [
            LocalOSSFaultRule(operation: .putObject, trigger: .nth(2), action: .status(403, code: "AccessDenied"))
        ]) { _, client in
            var options = OSSDirectoryTransferOptions()
            options.failurePolicy = .stopOnFirstFailure
            options.filesAtOnce = 1
            let manager = OSSTransferManager(client: client, recordDirectoryPath: scratch.records)
            let batch = try await manager.startBatch(.upload(from: scratch.source, toBucket: "bkt", prefix: "s", options: options))
            let error = await thrownClientError { _ = try await batch.result() }
            #expect(error?.code == .batchStopped)
            #expect((error?.underlying as? OSSBatchFailure)?.serverErrorCode == "AccessDenied")
            let report = try #require(batch.report)
            #expect(report.state == .stopped)
            #expect(report.counts.uploaded == 1)
            #expect(report.counts.failed == 1)
            // Resuming retries the failed file and goes on; the first file is not sent again.
            let resumed = try await manager.resumeBatch(batch.id)
            let second = try await resumed.result()
            #expect(second.state == .completed)
            #expect(second.counts.uploaded == 5)
            #expect(second.counts.doneInEarlierRuns == 1)
            #expect(try await listKeys(client, prefix: "s/").count == 6)
        }
    }

    @Test("a missing bucket ends the batch at its first file whatever the policy, naming the bucket and the fix")
    func missingBucketEndsTheBatch() async throws {
        let scratch = try BatchScratch()
        defer { scratch.cleanup() }
        for index in 0..<6 { try scratch.write("f\(index).txt", Array("x".utf8)) }
        try await withServerAndClient { server, client in
            var options = OSSDirectoryTransferOptions()
            options.failurePolicy = .continueAndReport
            options.filesAtOnce = 1
            let manager = OSSTransferManager(client: client, recordDirectoryPath: scratch.records)
            let batch = try await manager.startBatch(.upload(from: scratch.source, toBucket: "nosuch", prefix: "s", options: options))
            let error = await thrownClientError { _ = try await batch.result() }
            #expect(error?.code == .batchStopped)
            let failure = try #require(error?.underlying as? OSSBatchFailure)
            #expect(failure.serverErrorCode == "NoSuchBucket" && failure.endsBatch)
            #expect(error?.message.contains("the bucket nosuch does not exist") == true, "\(String(describing: error))")
            #expect(batch.report?.state == .stopped)
            #expect(batch.report?.counts.failed == 1)
            #expect(await server.stats()[.putObject].requests == 1)
        }
    }
}
