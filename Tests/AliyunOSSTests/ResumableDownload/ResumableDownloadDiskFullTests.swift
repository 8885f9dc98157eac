import AliyunOSS
import Foundation
import OSSLocalServer
import Testing

/// A small tmpfs mounted for one test (needs root, or the permission to mount, on Linux).
struct RDSmallFileSystem {
    let path: String

    static func run(_ arguments: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return false
        }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    /// Whether a tmpfs can be mounted here (checked once by mounting and unmounting one).
    static let available: Bool = {
        #if os(Linux)
        guard let probe = try? RDSmallFileSystem(sizeKiB: 64) else { return false }
        probe.unmount()
        return true
        #else
        return false
        #endif
    }()

    init(sizeKiB: Int) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("aliyun-oss-rd-tmpfs-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard Self.run(["mount", "-t", "tmpfs", "-o", "size=\(sizeKiB)k", "tmpfs", path]) else {
            try? FileManager.default.removeItem(atPath: path)
            throw CocoaError(.fileWriteNoPermission)
        }
    }

    func unmount() {
        _ = Self.run(["umount", path])
        try? FileManager.default.removeItem(atPath: path)
    }
}

@Suite("resumableDownload: disk full")
struct ResumableDownloadDiskFullTests {
    @Test(
        "a destination file system without room for the object is fileCantWrite before any GET, nothing left behind",
        .enabled(if: RDSmallFileSystem.available, "needs permission to mount a tmpfs (root on Linux)"))
    func diskFull() async throws {
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        let small = try RDSmallFileSystem(sizeKiB: 256)
        defer { small.unmount() }
        let destination = URL(fileURLWithPath: small.path).appendingPathComponent("big.bin")
        try await withServerAndClient { server, client in
            try await rdPut(client, "big.bin", patternBytes(1_000_000, seed: 61))
            await server.resetStats()
            let request = OSSResumableDownloadRequest(
                bucketName: "bkt", objectKey: "big.bin", downloadToFileURL: destination, partSize: rdPartSize,
                recordDirectoryPath: scratch.recordDirectory)
            let error = await thrownClientError { _ = try await client.resumableDownload(request) }
            #expect(error?.code == .fileCantWrite)
            #expect(await rdGetBytes(server) == 0)
            #expect(try FileManager.default.contentsOfDirectory(atPath: small.path).isEmpty)
            #expect(scratch.records().isEmpty)
        }
    }

    @Test(
        "running out of space mid-download (the space was taken after the check) is fileCantWrite, cleaned up",
        .enabled(if: RDSmallFileSystem.available, "needs permission to mount a tmpfs (root on Linux)"))
    func diskFullMidway() async throws {
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        let small = try RDSmallFileSystem(sizeKiB: 1024)
        defer { small.unmount() }
        let destination = URL(fileURLWithPath: small.path).appendingPathComponent("mid.bin")
        let filler = URL(fileURLWithPath: small.path).appendingPathComponent("filler")
        try await withServerAndClient { _, client in
            try await rdPut(client, "mid.bin", patternBytes(900_000, seed: 62))
            // Once the first part is in, fill the file system so the next parts cannot be written.
            let request = rdRequest("mid.bin", scratch, threads: 1, progress: { _, _, _ in
                guard !FileManager.default.fileExists(atPath: filler.path),
                    FileManager.default.createFile(atPath: filler.path, contents: nil),
                    let handle = FileHandle(forWritingAtPath: filler.path)
                else { return }
                let chunk = Data(count: 16 * 1024)
                while (try? handle.write(contentsOf: chunk)) != nil {}
                try? handle.close()
            })
            var placed = request
            placed.downloadToFileURL = destination
            let error = await thrownClientError { _ = try await client.resumableDownload(placed) }
            #expect(error?.code == .fileCantWrite)
            #expect(try FileManager.default.contentsOfDirectory(atPath: small.path) == ["filler"])
            #expect(scratch.records().isEmpty)
        }
    }
}
