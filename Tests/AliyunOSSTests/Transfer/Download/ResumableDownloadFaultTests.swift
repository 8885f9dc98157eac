import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

@Suite("resumableDownload: faults and unwritable destinations")
struct ResumableDownloadFaultTests {
    @Test("503s and connections dropped mid-body are retried; the file is identical", arguments: [
        "GetObject:nth=2:status=503",
        "GetObject:nth=3:drop=5000",
        "GetObject:every=2:drop=70000:times=3",
        "GetObject:random=0.3:seed=7:status=503:times=4",
    ])
    func retriedFaults(rule: String) async throws {
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(1_000_000, seed: 41)
        try await withServerAndClient { server, client in
            try await rdPut(client, "faults.bin", bytes)
            await server.resetStats()
            await server.addFault(try LocalOSSFaultRule(parsing: rule))
            let result = try await client.resumableDownload(rdRequest("faults.bin", scratch, threads: 3))
            #expect(try scratch.destinationBytes() == bytes)
            #expect(result.crc64 == CRC64.checksum(bytes))
            #expect(await server.stats().faultsInjected >= 1)
            #expect(try scratch.leftovers().isEmpty)
        }
    }

    func cancelAfter(_ parts: Int, _ client: OSSClient, _ key: String, _ scratch: RDScratch) async {
        var request = rdRequest(key, scratch, threads: 1)
        let handle = request
        request.downloadProgress = { _, total, _ in if total >= Int64(parts) * rdPartSize { handle.cancel() } }
        let error = await thrownClientError { _ = try await client.resumableDownload(request) }
        #expect(error?.code == .taskCancelled)
    }

    @Test("503 after every retry keeps the partial download; the next call resumes")
    func persistent503Resumable() async throws {
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(800_000, seed: 42)
        try await withServerAndClient { server, client in
            try await rdPut(client, "p503.bin", bytes)
            await cancelAfter(3, client, "p503.bin", scratch)
            await server.addFault(try LocalOSSFaultRule(parsing: "GetObject:always:status=503"))
            do {
                _ = try await client.resumableDownload(rdRequest("p503.bin", scratch))
                Issue.record("expected a 503")
            } catch let error as OSSServerError {
                #expect(error.statusCode == 503)
            }
            #expect(scratch.records().count == 1)
            #expect(try scratch.temporaryFiles().count == 1)
            await server.clearFaults()
            let result = try await client.resumableDownload(rdRequest("p503.bin", scratch))
            #expect(result.resumedBytes >= 3 * rdPartSize)
            #expect(try scratch.destinationBytes() == bytes)
        }
    }

    @Test("a non-resumable failure (403) removes the temporary file and the record")
    func forbiddenCleansUp() async throws {
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        try await withServerAndClient { server, client in
            try await rdPut(client, "p403.bin", patternBytes(800_000, seed: 43))
            await cancelAfter(2, client, "p403.bin", scratch)
            await server.addFault(try LocalOSSFaultRule(parsing: "GetObject:always:status=403:code=AccessDenied"))
            do {
                _ = try await client.resumableDownload(rdRequest("p403.bin", scratch))
                Issue.record("expected a 403")
            } catch let error as OSSServerError {
                #expect(error.statusCode == 403)
            }
            #expect(scratch.records().isEmpty)
            #expect(try scratch.leftovers().isEmpty)
        }
    }

    @Test("a destination whose directory cannot hold files is fileCantWrite, with nothing left behind")
    func unwritableDirectory() async throws {
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        // A regular file where a directory should be: creating anything "inside" it fails (ENOTDIR), even as root.
        let blocker = scratch.root.appendingPathComponent("not-a-directory")
        try Data("x".utf8).write(to: blocker)
        let destination = blocker.appendingPathComponent("download.bin")
        try await withServerAndClient { server, client in
            try await rdPut(client, "nowrite.bin", patternBytes(300_000, seed: 44))
            await server.resetStats()
            let request = OSSResumableDownloadRequest(
                bucketName: "bkt", objectKey: "nowrite.bin", downloadToFileURL: destination, partSize: rdPartSize,
                recordDirectoryPath: scratch.recordDirectory)
            let error = await thrownClientError { _ = try await client.resumableDownload(request) }
            #expect(error?.code == .fileCantWrite)
            #expect(await rdGetBytes(server) == 0)
            #expect(scratch.records().isEmpty)
            #expect(try scratch.leftovers() == ["not-a-directory"])
        }
    }

    @Test("a destination that is a directory is fileCantWrite at the rename; the directory is untouched")
    func destinationIsDirectory() async throws {
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        try FileManager.default.createDirectory(at: scratch.destination, withIntermediateDirectories: false)
        try Data("keep".utf8).write(to: scratch.destination.appendingPathComponent("inside.txt"))
        try await withServerAndClient { _, client in
            try await rdPut(client, "dir.bin", patternBytes(300_000, seed: 45))
            let error = await thrownClientError { _ = try await client.resumableDownload(rdRequest("dir.bin", scratch)) }
            #expect(error?.code == .fileCantWrite)
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: scratch.destination.path) == ["inside.txt"])
            #expect(try scratch.temporaryFiles().isEmpty)
            #expect(scratch.records().isEmpty)
        }
    }

    @Test("a record directory that cannot be created is fileCantWrite before any GET")
    func unwritableRecordDirectory() async throws {
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        let blocker = scratch.root.appendingPathComponent("blocker")
        try Data("x".utf8).write(to: blocker)
        try await withServerAndClient { server, client in
            try await rdPut(client, "norecorddir.bin", patternBytes(300_000, seed: 46))
            await server.resetStats()
            let request = OSSResumableDownloadRequest(
                bucketName: "bkt", objectKey: "norecorddir.bin", downloadToFileURL: scratch.destination,
                recordDirectoryPath: blocker.appendingPathComponent("records").path)
            let error = await thrownClientError { _ = try await client.resumableDownload(request) }
            #expect(error?.code == .fileCantWrite)
            #expect(await rdGetBytes(server) == 0)
            #expect(try scratch.leftovers() == ["blocker"])
        }
    }

    @Test("crcFlag false skips the combined CRC check but still reports the CRC of the bytes")
    func crcDisabled() async throws {
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(300_000, seed: 47)
        try await withServerAndClient { _, client in
            try await rdPut(client, "nocrc.bin", bytes)
            var request = rdRequest("nocrc.bin", scratch)
            request.crcFlag = false
            let result = try await client.resumableDownload(request)
            #expect(result.crc64 == CRC64.checksum(bytes))
            #expect(try scratch.destinationBytes() == bytes)
        }
    }
}

@Suite("resumableDownload: bytes damaged in transit")
struct ResumableDownloadIntegrityTests {
    @Test("a flipped bit in one part fails the combined CRC-64: invalidCRC, no destination, nothing left behind")
    func damagedPartFailsTheDownload() async throws {
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(1_000_000, seed: 43)
        try await withServerAndClient { server, client in
            try await rdPut(client, "rot.bin", bytes)
            await server.addFault(try LocalOSSFaultRule(parsing: "GetObject:nth=4:corrupt=777"))
            let error = await thrownClientError {
                _ = try await client.resumableDownload(rdRequest("rot.bin", scratch, threads: 2))
            }
            #expect(error?.code == .invalidCRC)
            #expect(!FileManager.default.fileExists(atPath: scratch.destination.path))
            #expect(try scratch.leftovers().isEmpty)
            #expect(scratch.records().isEmpty)
            // A clean second call downloads the object again, identical.
            _ = try await client.resumableDownload(rdRequest("rot.bin", scratch, threads: 2))
            #expect(try scratch.destinationBytes() == bytes)
        }
    }
}
