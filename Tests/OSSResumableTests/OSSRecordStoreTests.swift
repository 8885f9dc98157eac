import Foundation
import OSSResumable
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("Record store")
struct OSSRecordStoreTests {
    @Test func namesAreStableAndDistinct() {
        let a = OSSRecordStore.uploadRecordName(filePath: "/x/f", bucket: "b", key: "k", requestedPartSize: 102_400, crcMode: .enabled)
        #expect(a == OSSRecordStore.uploadRecordName(filePath: "/x/./f", bucket: "b", key: "k", requestedPartSize: 102_400, crcMode: .enabled))
        let variants = [
            OSSRecordStore.uploadRecordName(filePath: "/x/g", bucket: "b", key: "k", requestedPartSize: 102_400, crcMode: .enabled),
            OSSRecordStore.uploadRecordName(filePath: "/x/f", bucket: "c", key: "k", requestedPartSize: 102_400, crcMode: .enabled),
            OSSRecordStore.uploadRecordName(filePath: "/x/f", bucket: "b", key: "kk", requestedPartSize: 102_400, crcMode: .enabled),
            OSSRecordStore.uploadRecordName(filePath: "/x/f", bucket: "b", key: "k", requestedPartSize: 204_800, crcMode: .enabled),
            OSSRecordStore.uploadRecordName(filePath: "/x/f", bucket: "b", key: "k", requestedPartSize: 102_400, crcMode: .disabled),
            // Field boundaries matter: ("b", "k/x") is not ("b/k", "x").
            OSSRecordStore.uploadRecordName(filePath: "/x/f", bucket: "bk", key: "", requestedPartSize: 102_400, crcMode: .enabled),
        ]
        #expect(Set(variants + [a]).count == variants.count + 1)
        let d1 = OSSRecordStore.downloadRecordName(bucket: "b", key: "k", requestedRange: nil, destinationPath: "/x/d")
        let d2 = OSSRecordStore.downloadRecordName(
            bucket: "b", key: "k", requestedRange: OSSRequestedRange(first: 0, last: 9), destinationPath: "/x/d")
        #expect(d1 != d2)
        #expect(d1 != a)
        #expect(a.hasSuffix(".upload.record") && d1.hasSuffix(".download.record"))
    }

    @Test func saveLoadDeleteLeavesNoTemporaryFiles() throws {
        try withTemporaryDirectory { dir in
            let store = OSSRecordStore(directoryPath: dir + "/records/nested")
            let name = "r.upload.record"
            #expect(try store.load(OSSUploadRecord.self, name: name) == nil)
            #expect(store.loadResult(OSSUploadRecord.self, name: name) == .none)
            var record = OSSRecordCodecTests.sampleUpload(parts: 1)
            try store.save(record, name: name)
            #expect(try store.load(OSSUploadRecord.self, name: name) == record)
            record.parts.append(.init(number: 2, size: 102_400, crc64: 1, etag: "x"))
            try store.save(record, name: name)
            #expect(store.loadResult(OSSUploadRecord.self, name: name) == .loaded(record))
            #expect(try FileManager.default.contentsOfDirectory(atPath: store.directoryPath) == [name])
            try store.delete(name: name)
            try store.delete(name: name)
            #expect(try store.load(OSSUploadRecord.self, name: name) == nil)
        }
    }

    @Test("a temporary file left by a save that died is removed when the record is locked, and on delete")
    func temporaryFilesOfADeadSaveAreRemoved() throws {
        try withTemporaryDirectory { dir in
            let store = OSSRecordStore(directoryPath: dir)
            let name = "r.upload.record"
            try store.save(OSSRecordCodecTests.sampleUpload(parts: 1), name: name)
            // What a process killed between create and rename leaves, for this record and for another one.
            for leftover in ["." + name + ".tmp-1f2e", "." + name + ".tmp-ab", ".other.upload.record.tmp-9"] {
                #expect(FileManager.default.createFile(atPath: dir + "/" + leftover, contents: Data([1, 2, 3])))
            }
            do {
                let lock = try store.lock(name: name)
                defer { withExtendedLifetime(lock) {} }
                let left = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.contains(".tmp-") }
                #expect(left == [".other.upload.record.tmp-9"], "only the locked record's temporaries go")
            }
            #expect(FileManager.default.createFile(atPath: dir + "/." + name + ".tmp-77", contents: Data()))
            try store.delete(name: name)
            let left = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.contains(".tmp-") }
            #expect(left == [".other.upload.record.tmp-9"])
        }
    }

    @Test func corruptAndForeignRecordsLoadAsUnusable() throws {
        try withTemporaryDirectory { dir in
            let store = OSSRecordStore(directoryPath: dir)
            try writeFile(store.recordPath(name: "torn"), Array(try OSSRecordCodec.encode(OSSRecordCodecTests.sampleUpload()).prefix(40)))
            guard case .unusable(let error) = store.loadResult(OSSUploadRecord.self, name: "torn") else {
                Issue.record("a torn record must be unusable")
                return
            }
            #expect(error.isRecordProblem)
            try store.save(try OSSRecordCodecTests.sampleDownload(), name: "foreign")
            guard case .unusable(.recordForeign) = store.loadResult(OSSUploadRecord.self, name: "foreign") else {
                Issue.record("a download record offered as an upload record must be foreign")
                return
            }
        }
    }

    @Test func secondLockOnTheSameRecordFailsUntilTheFirstIsReleased() throws {
        try withTemporaryDirectory { dir in
            let store = OSSRecordStore(directoryPath: dir)
            var first: OSSRecordLock? = try store.lock(name: "r")
            #expect(first != nil)
            #expect(throws: OSSResumableError.recordLocked(path: store.lockPath(name: "r"))) {
                _ = try store.lock(name: "r")
            }
            // Another record is independent.
            _ = try store.lock(name: "other")
            first = nil
            let again = try store.lock(name: "r")
            #expect(again.path == store.lockPath(name: "r"))
        }
    }

    @Test("one owner: releasing a lock never removes a lock file that is not its own, so no two holders")
    func releaseNeverRemovesAnotherHoldersFile() throws {
        try withTemporaryDirectory { dir in
            let store = OSSRecordStore(directoryPath: dir)
            let path = store.lockPath(name: "r")
            var first: OSSRecordLock? = try store.lock(name: "r")
            #expect(first != nil)
            // The held file is moved away behind its holder's back (what removing a lock file outside the lock
            // did before); a second acquirer then creates and locks a new file at the path.
            try FileManager.default.moveItem(atPath: path, toPath: dir + "/displaced.lock")
            var second: OSSRecordLock? = try store.lock(name: "r")
            #expect(second != nil)
            first = nil
            #expect(FileManager.default.fileExists(atPath: path), "the first holder's release left the second's file")
            #expect(throws: OSSResumableError.recordLocked(path: path)) { _ = try store.lock(name: "r") }
            second = nil
            #expect(!FileManager.default.fileExists(atPath: path), "released by its holder, the file goes")
        }
    }

    @Test("deleting a record leaves its lock with the holder: the transfer stays locked until released")
    func deletingARecordKeepsItsLock() throws {
        try withTemporaryDirectory { dir in
            let store = OSSRecordStore(directoryPath: dir)
            let lock = try store.lock(name: "r.upload.record")
            try store.save(OSSRecordCodecTests.sampleUpload(), name: "r.upload.record")
            try store.delete(name: "r.upload.record")
            #expect(FileManager.default.fileExists(atPath: lock.path))
            #expect(throws: OSSResumableError.recordLocked(path: lock.path)) { _ = try store.lock(name: "r.upload.record") }
        }
    }

    @Test func lockHeldByAnotherProcessIsReportedAndReleasedWhenItDies() async throws {
        let dir = NSTemporaryDirectory() + "oss-resumable-lock-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = OSSRecordStore(directoryPath: dir)
        let lockPath = store.lockPath(name: "r")
        // A separate process takes the same flock, says so on its stdout, and sleeps.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        holder.arguments = [
            "-c",
            "import fcntl, sys, time; f = open(sys.argv[1], 'a'); fcntl.flock(f, fcntl.LOCK_EX); print('locked', flush=True); time.sleep(60)",
            lockPath,
        ]
        let said = Pipe()
        holder.standardOutput = said
        try holder.run()
        defer { if holder.isRunning { holder.terminate() } }
        // Wait for its word (however long a loaded machine takes to start Python), not for a deadline.
        let word = await Task.detached { said.fileHandleForReading.availableData }.value
        #expect(String(decoding: word, as: UTF8.self).hasPrefix("locked"))
        let refused: OSSResumableError? = Self.lockError(store, name: "r")
        if case .recordLocked = refused {} else { Issue.record("expected recordLocked, the other process holds the lock: \(String(describing: refused))") }
        // SIGKILL: the kernel drops the lock with the process.
        kill(holder.processIdentifier, SIGKILL)
        holder.waitUntilExit()
        let lock = try store.lock(name: "r")
        #expect(lock.path == lockPath)
    }

    /// The error `lock(name:)` throws, `nil` when it takes the lock (released at once).
    static func lockError(_ store: OSSRecordStore, name: String) -> OSSResumableError? {
        do {
            _ = try store.lock(name: name)
            return nil
        } catch {
            return error
        }
    }
}
