@testable import AliyunOSS
import Foundation
import OSSCRC64
import OSSLocalServer
import OSSResumable
import OSSTestSupport
import Testing

/// A small tmpfs mounted for one test and unmounted by `unmount()`. Mounting needs root on Linux: without it the
/// test fails saying so (it never passes by skipping what it checks).
struct RDSmallFileSystem {
    let path: String

    /// Runs `arguments` through `/usr/bin/env`; its standard error when it fails, nil when it succeeds.
    @discardableResult
    static func run(_ arguments: [String]) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        do {
            try process.run()
        } catch {
            return "\(error)"
        }
        let said = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return process.terminationStatus == 0 ? nil : String(decoding: said, as: UTF8.self)
    }

    init(sizeKiB: Int) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("aliyun-oss-rd-tmpfs-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        if let failure = Self.run(["mount", "-t", "tmpfs", "-o", "size=\(sizeKiB)k", "tmpfs", path]) {
            try? FileManager.default.removeItem(atPath: path)
            throw SetupUnavailable(
                description: "this test mounts a \(sizeKiB) KiB tmpfs, which needs root; this process runs as uid "
                    + "\(getuid()) and mount said: \(failure.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
    }

    func unmount() {
        Self.run(["umount", path])
        try? FileManager.default.removeItem(atPath: path)
    }
}

extension RDSmallFileSystem {
    /// Takes every free byte of the file system (a file named `name`, written until the kernel refuses a single
    /// byte more with `ENOSPC`), as another writer would.
    func fill(_ name: String = "filler") {
        let fd = open((path as NSString).appendingPathComponent(name), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            Issue.record("cannot create the filler: errno \(errno)")
            return
        }
        defer { close(fd) }
        let chunk = [UInt8](repeating: 0xF1, count: 64 * 1024)
        var size = chunk.count
        while size > 0 {
            let written = chunk.withUnsafeBytes { write(fd, $0.baseAddress!, size) }
            if written <= 0 {
                guard written == 0 || errno == ENOSPC else {
                    Issue.record("filling \(path): errno \(errno)")
                    return
                }
                size /= 2  // down to one byte: the volume is full to the byte
            }
        }
        var status = statvfs()
        if statvfs(path, &status) == 0 {
            #expect(status.f_bavail == 0, "the filler left \(status.f_bavail) blocks free")
        }
    }

    func remove(_ name: String = "filler") {
        try? FileManager.default.removeItem(atPath: (path as NSString).appendingPathComponent(name))
    }
}

@Suite("resumableDownload: disk full")
struct ResumableDownloadDiskFullTests {
    static let mib = 1_048_576

    @Test(
        "a destination file system without room for the object is noSpaceLeft before any GET, nothing left behind",
        .enabled(if: runsOnLinux, "mounts a Linux tmpfs"))
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
            #expect(error?.code == .noSpaceLeft)
            #expect(error?.posixErrorCode == ENOSPC)
            #expect(await rdGetBytes(server) == 0)
            #expect(try FileManager.default.contentsOfDirectory(atPath: small.path).isEmpty)
        }
    }

    /// Downloads `key` to `destination` and checks the failure `fail` provokes: `code`, nothing at the destination,
    /// the temporary file and the record kept; then `recover` and the same call resumes byte-identical, fetching
    /// only the bytes the record did not hold.
    ///
    /// `fail` runs once, right after the first record that `failWhen` accepts (by default one holding bytes) is on disk (the record store's
    /// `afterEachSave` hook, in the writer's task). That is an event, not a moment: the download is then always still
    /// running (the parts after the next one wait for that save before they start: the download's record writer
    /// keeps up), so later record saves and later part writes meet whatever `fail` did, on either transport. (It was
    /// a progress mark once: past 2 MiB and a record on disk; on the URLSession transport the record could lag until
    /// the last part, and the download then finished before any save met the full disk.)
    func failsThenResumes(
        _ key: String, destination: URL, records: String, code: OSSClientErrorCode, size: Int = 6 * Self.mib + 4321,
        exactRefetch: Bool = true, failWhen: @escaping @Sendable (OSSDownloadRecord) -> Bool = Self.holdsBytes,
        fail: @escaping @Sendable () -> Void,
        recover: () -> Void
    ) async throws {
        let bytes = patternBytes(size, seed: UInt64(size))
        // Two lives of one server over one data directory. The failing run talks to the first; the resume, as after
        // a relaunch, to the second, which counts only what the resume asks for. A GET the failing run's transport
        // had already written when the run gave up (its other thread hit the failure) may reach a server after the
        // client's shutdown returned (URLSession cancels asynchronously); with the first server gone it reaches no
        // counter (the loaded test runs once counted such a 1 MiB GET against the resume).
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("aliyun-oss-rd-server-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        var serverConfiguration = LocalOSSServerConfiguration(region: "cn-hangzhou", buckets: ["bkt"])
        serverConfiguration.dataDirectory = data
        func request() -> OSSResumableDownloadRequest {
            OSSResumableDownloadRequest(
                bucketName: "bkt", objectKey: key, downloadToFileURL: destination, partSize: Int64(Self.mib),
                threadNum: 2, recordDirectoryPath: records)
        }
        try await withLocalOSSServer(serverConfiguration) { server in
            try await withClient(of: server, server.credentials.provider, testClientConfiguration()) { _, first in
                try await rdPut(first, key, bytes)
                let failed = RDFlag()
                let afterSave: @Sendable (String) -> Void = { _ in
                    if let record = Self.savedRecord(records), failWhen(record), failed.setOnce() { fail() }
                }
                let error = await OSSTransferRecordSlot.$afterEachSave.withValue(afterSave) {
                    await thrownClientError { _ = try await first.resumableDownload(request()) }
                }
                #expect(!failed.setOnce(), "no record that failWhen accepts was saved, so nothing failed")
                #expect(error?.code == code, "\(String(describing: error))")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        let directory = destination.deletingLastPathComponent().path
        let temporary = try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { $0.hasPrefix(destination.lastPathComponent + ".osstmp-") }
        #expect(temporary.count == 1, "the temporary file is kept: \(temporary)")
        let kept = ((try? FileManager.default.contentsOfDirectory(atPath: records)) ?? [])
            .filter { $0.hasSuffix(".download.record") }
        #expect(kept.count == 1, "the last good record is kept")

        recover()
        try await withLocalOSSServer(serverConfiguration) { server in
            try await withClient(of: server, server.credentials.provider, testClientConfiguration()) { _, client in
                let result = try await client.resumableDownload(request())
                #expect(Array(try Data(contentsOf: destination)) == bytes)
                #expect(result.crc64 == CRC64.checksum(bytes))
                #expect(result.resumedBytes > 0, "the resume started from the bytes on disk")
                let fetched = await rdGetBytes(server)
                let needed = Int64(size) - result.resumedBytes
                #expect(fetched >= needed)
                if exactRefetch {
                    // On failure, what the resume asked for: GETs served, bytes meant and bytes written (a GET cut off
                    // by a retry is counted whole in the first, in part in the second).
                    let gets = await server.stats()[.getObject]
                    #expect(
                        fetched == needed,
                        "GETs \(gets.requests), bytes \(gets.responseBodyBytes), written \(gets.responseBodyBytesWritten), resumed \(result.resumedBytes)")
                }
            }
        }
    }

    @Test(
        "bytes a record claims but the disk lost (unsynced, then overwritten) are checked at resume and fetched again",
        .enabled(if: runsOnLinux, "mounts a Linux tmpfs"))
    func unsyncedClaimsAreChecked() async throws {
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        let small = try RDSmallFileSystem(sizeKiB: 10 * 1024)
        defer { small.unmount() }
        let records = scratch.recordDirectory
        let destination = URL(fileURLWithPath: small.path).appendingPathComponent("download.bin")
        // A 6 MiB download never reaches the 16 MiB sync interval: every claim in its record is unsynced.
        try await failsThenResumes(
            "lost.bin", destination: destination, records: records, code: .noSpaceLeft,
            exactRefetch: false,  // the lost part is fetched again whole; what matters is the identical result
            // Two whole parts: the first MiB is zeroed below, and the other part is what the resume keeps (with one
            // part, nothing would be left to resume from).
            failWhen: { $0.parts.count >= 2 },
            fail: { small.fill() },  // another writer takes the rest of the volume
            recover: {
                small.remove()
                // As after a power cut: the first MiB of the temporary file is zeros again.
                let directory = small.path
                guard let name = (try? FileManager.default.contentsOfDirectory(atPath: directory))?
                    .first(where: { $0.hasPrefix("download.bin.osstmp-") }),
                    let handle = FileHandle(forWritingAtPath: directory + "/" + name)
                else {
                    Issue.record("no temporary file")
                    return
                }
                try? handle.write(contentsOf: Data(count: Self.mib))
                try? handle.close()
            })
    }

    @Test(
        "running out of space mid-download (the space was taken after the check): noSpaceLeft, kept, resumed",
        .enabled(if: runsOnLinux, "mounts a Linux tmpfs"))
    func diskFullMidway() async throws {
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        let small = try RDSmallFileSystem(sizeKiB: 10 * 1024)
        defer { small.unmount() }
        try await failsThenResumes(
            "mid.bin", destination: URL(fileURLWithPath: small.path).appendingPathComponent("mid.bin"),
            records: scratch.recordDirectory, code: .noSpaceLeft,
            fail: { small.fill() },  // another writer takes the rest of the volume
            recover: { small.remove() })
    }

    @Test(
        "a record directory that fills up: noSpaceLeft naming it, the last good record kept, the same call resumes",
        .enabled(if: runsOnLinux, "mounts a Linux tmpfs"))
    func recordDirectoryFull() async throws {
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        let small = try RDSmallFileSystem(sizeKiB: 512)
        defer { small.unmount() }
        let records = (small.path as NSString).appendingPathComponent("records")
        try await failsThenResumes(
            "records-full.bin", destination: scratch.destination, records: records, code: .noSpaceLeft,
            fail: { small.fill() },
            recover: { small.remove() })
    }

    /// Makes a directory unwritable for this process and back: `chmod` for a user, the immutable attribute for root
    /// (which permissions do not stop; `chattr +i` on ext4 and most local file systems).
    enum Freeze {
        static func set(_ path: String, frozen: Bool) -> Bool {
            if getuid() != 0 {
                return (try? FileManager.default.setAttributes(
                    [.posixPermissions: frozen ? 0o500 : 0o700], ofItemAtPath: path)) != nil
            }
            return RDSmallFileSystem.run(["chattr", frozen ? "+i" : "-i", path]) == nil
        }

        /// Whether it works here (checked once on a scratch directory).
        static let available: Bool = {
            let probe = FileManager.default.temporaryDirectory.appendingPathComponent("aliyun-oss-freeze-\(UUID().uuidString)").path
            guard (try? FileManager.default.createDirectory(atPath: probe, withIntermediateDirectories: true)) != nil
            else { return false }
            defer {
                _ = set(probe, frozen: false)
                try? FileManager.default.removeItem(atPath: probe)
            }
            guard set(probe, frozen: true) else { return false }
            return !FileManager.default.createFile(atPath: probe + "/x", contents: nil)
        }()
    }

    @Test(
        "a record directory that turns read-only: fileCantWrite, the last good record kept, the same call resumes",
        .enabled(if: Freeze.available, "needs chmod (a user) or chattr +i (root) to take a directory's write permission"))
    func recordDirectoryReadOnly() async throws {
        let scratch = try RDScratch()
        let records = scratch.recordDirectory
        defer {
            _ = Freeze.set(records, frozen: false)
            scratch.cleanup()
        }
        try await failsThenResumes(
            "records-ro.bin", destination: scratch.destination, records: records, code: .fileCantWrite,
            fail: { #expect(Freeze.set(records, frozen: true)) },
            recover: { #expect(Freeze.set(records, frozen: false)) })
    }

    /// The download record saved in `directory`, if one is there and reads.
    static func savedRecord(_ directory: String) -> OSSDownloadRecord? {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter {
            $0.hasSuffix(".download.record")
        }
        guard let name = names.first, let data = FileManager.default.contents(atPath: directory + "/" + name) else {
            return nil
        }
        return try? OSSRecordCodec.decode(OSSDownloadRecord.self, from: Array(data))
    }

    /// Whether a download record claims any bytes (completed or partial parts).
    @Sendable static func holdsBytes(_ record: OSSDownloadRecord) -> Bool {
        !record.parts.isEmpty || !record.partials.isEmpty
    }
}

/// A flag set once, from any thread.
final class RDFlag: Sendable {
    private let state = OSSLockedValue(false)

    /// True for the one caller that set it.
    func setOnce() -> Bool {
        state.withLockedValue { set in
            defer { set = true }
            return !set
        }
    }
}
