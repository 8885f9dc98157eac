import Foundation
import OSSResumable
import OSSTestSupport
import Testing

@Suite("File identity")
struct OSSFileIdentityTests {
    @Test func unchangedFileHasNoChanges() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/f.bin"
            try writeFile(path, patternBytes(500_000))
            let a = try OSSFileIdentity.capture(path: path)
            let b = try OSSFileIdentity.capture(path: path)
            #expect(a == b)
            #expect(b.changes(from: a).isEmpty)
            #expect(a.size == 500_000)
            #expect(a.inode != nil)
            #expect(a.fingerprint.samples.count == 3)
        }
    }

    @Test func inPlaceEditWithRestoredTimeIsCaughtByTheFingerprint() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/f.bin"
            var bytes = patternBytes(500_000)
            try writeFile(path, bytes)
            try setModificationTime(path, seconds: 1_700_000_000, nanoseconds: 123_456_789)
            let before = try OSSFileIdentity.capture(path: path)
            #expect(before.modificationTimeNanoseconds == 1_700_000_000_123_456_789)
            // Change one byte in the middle sample, in place, and put the time back.
            bytes[250_000] ^= 0xFF
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try handle.seek(toOffset: 250_000)
            try handle.write(contentsOf: [bytes[250_000]])
            try handle.close()
            try setModificationTime(path, seconds: 1_700_000_000, nanoseconds: 123_456_789)
            let after = try OSSFileIdentity.capture(path: path)
            #expect(after.changes(from: before) == [.content])
        }
    }

    @Test func nanosecondTimeChangeIsReported() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/f.bin"
            try writeFile(path, patternBytes(1000))
            try setModificationTime(path, seconds: 1_700_000_000, nanoseconds: 1)
            let before = try OSSFileIdentity.capture(path: path)
            try setModificationTime(path, seconds: 1_700_000_000, nanoseconds: 2)
            let after = try OSSFileIdentity.capture(path: path)
            #expect(
                after.changes(from: before)
                    == [.modificationTime(recordedNanoseconds: 1_700_000_000_000_000_001, currentNanoseconds: 1_700_000_000_000_000_002)]
            )
        }
    }

    @Test func replacedFileReportsSizeAndInode() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/f.bin"
            try writeFile(path, patternBytes(1000))
            let before = try OSSFileIdentity.capture(path: path)
            let other = dir + "/g.bin"
            try writeFile(other, patternBytes(1001))
            try FileManager.default.removeItem(atPath: path)
            try FileManager.default.moveItem(atPath: other, toPath: path)
            let after = try OSSFileIdentity.capture(path: path)
            let changes = after.changes(from: before)
            #expect(changes.contains(.size(recorded: 1000, current: 1001)))
            #expect(changes.contains { if case .inode = $0 { true } else { false } })
            #expect(changes.contains(.content))
        }
    }

    @Test func missingFileAndDirectoryAreFileCantRead() throws {
        try withTemporaryDirectory { dir in
            #expect {
                _ = try OSSFileIdentity.capture(path: dir + "/missing")
            } throws: { error in
                if case .fileCantRead = error as? OSSResumableError { true } else { false }
            }
            #expect {
                _ = try OSSFileIdentity.capture(path: dir)
            } throws: { error in
                if case .fileCantRead = error as? OSSResumableError { true } else { false }
            }
        }
    }

    @Test func sampleRangesNeverOverlapOrExceedTheFile() {
        for size: Int64 in [0, 1, 65_536, 196_608, 196_609, 1_000_000] {
            let ranges = OSSFileFingerprint.sampleRanges(fileSize: size)
            var end: Int64 = 0
            for range in ranges {
                #expect(range.start >= end)
                #expect(range.end <= size)
                end = range.end
            }
            if size > 0 { #expect(!ranges.isEmpty) }
        }
        #expect(OSSFileFingerprint.sampleRanges(fileSize: 100) == [OSSByteRange.whole(size: 100)])
    }
}
