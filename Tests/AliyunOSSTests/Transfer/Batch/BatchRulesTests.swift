import Foundation
import Testing

@testable import AliyunOSS

@Suite("Batch rules: path patterns, key mapping, journal lines")
struct BatchRulesTests {
    @Test("a batch is the same transfer at another pace; any option that changes the result makes another one")
    func sameTransfer() {
        let base = OSSDirectoryTransferRequest(direction: .upload, bucketName: "b", prefix: "p/", localDirectoryPath: "/d")
        var faster = base
        faster.options.filesAtOnce = 64
        faster.options.partsPerFile = 16
        faster.options.priority = .userInitiated
        #expect(base.isSameTransfer(as: faster) && faster.isSameTransfer(as: base))
        #expect(base != faster, "the requests still differ")
        var changes: [OSSDirectoryTransferRequest] = []
        var other = base
        other.prefix = "q/"
        changes.append(other)
        other = base
        other.options.mode = .sync(.sizeAndModificationTime)
        changes.append(other)
        other = base
        other.options.deleteExtras = true
        changes.append(other)
        other = base
        other.options.exclude = ["*.tmp"]
        changes.append(other)
        other = base
        other.options.partSize = 16 << 20
        changes.append(other)
        other = base
        other.options.crcFlag = false
        changes.append(other)
        other = base
        other.options.objectMetadata = ["x-oss-object-acl": "private"]
        changes.append(other)
        other = base
        other.direction = .download
        changes.append(other)
        for changed in changes { #expect(!base.isSameTransfer(as: changed), "\(changed)") }
    }

    @Test("glob patterns: names at any depth, anchored paths, **, classes, directories only")
    func patterns() throws {
        func matches(_ pattern: String, _ path: String, directory: Bool = false) throws -> Bool {
            try OSSPathPattern(pattern).matches(path, isDirectory: directory)
        }
        #expect(try matches("*.tmp", "a/b/c.tmp"))
        #expect(try !matches("*.tmp", "a/b/c.tmpx"))
        #expect(try matches(".git", ".git", directory: true))
        #expect(try matches(".git", "sub/.git", directory: true))
        #expect(try matches("build/*.o", "build/x.o"))
        #expect(try !matches("build/*.o", "src/build/x.o"))
        #expect(try !matches("build/*.o", "build/sub/x.o"))
        #expect(try matches("docs/**/*.md", "docs/a.md"))
        #expect(try matches("docs/**/*.md", "docs/x/y/a.md"))
        #expect(try matches("**/cache", "a/b/cache", directory: true))
        #expect(try matches("/TODO", "TODO"))
        #expect(try !matches("/TODO", "a/TODO"))
        #expect(try matches("cache/", "x/cache", directory: true))
        #expect(try !matches("cache/", "x/cache"))
        #expect(try matches("file-[0-9]?.txt", "file-3a.txt"))
        #expect(try !matches("file-[!0-9].txt", "file-3.txt"))
        #expect(try matches("a\\*b", "a*b"))
        #expect(try !matches("a\\*b", "axb"))
        #expect(try matches("*", "anything"))
        #expect(try matches("a*b*c", "aXXbYYbc"))
        #expect(throws: OSSClientError.self) { try OSSPathPattern("") }
        #expect(throws: OSSClientError.self) { try OSSPathPattern("[abc") }
    }

    @Test("filter: an excluded directory prunes its keys; includes take files only")
    func filter() throws {
        var options = OSSDirectoryTransferOptions()
        options.exclude = ["skip", "*.log"]
        options.include = ["*.txt", "*.log"]
        let filter = try OSSPathFilter(options)
        #expect(filter.prunes(directory: "a/skip"))
        #expect(!filter.prunes(directory: "a/keep"))
        #expect(filter.takes(file: "a/keep/x.txt"))
        #expect(!filter.takes(file: "a/keep/x.bin"))
        #expect(!filter.takes(file: "a/keep/x.log"))
        #expect(!filter.takes(keyPath: "a/skip/x.txt", isDirectory: false))
        #expect(filter.takes(keyPath: "a/keep/x.txt", isDirectory: false))
        #expect(!filter.takes(keyPath: "a/skip", isDirectory: true))
    }

    @Test("a key never maps outside the directory", arguments: [
        ("p/../x", OSSBatchPaths.Target.refused(.escapesDirectory)),
        ("p/a/../../x", .refused(.escapesDirectory)),
        ("p//abs", .refused(.escapesDirectory)),
        ("p/..", .refused(.escapesDirectory)),
        ("p/a//b", .refused(.invalidPathComponent)),
        ("p/./a", .refused(.invalidPathComponent)),
        ("p/a/.", .refused(.invalidPathComponent)),
        ("p/nul\u{0}byte", .refused(.invalidFileName)),
        ("p/" + String(repeating: "n", count: 256), .refused(.invalidFileName)),
        ("p/", .root),
        ("p/dir/", .directory("dir")),
        ("p/a b/c+d%e#f?g", .file("a b/c+d%e#f?g")),
        ("p/..x/y..", .file("..x/y..")),
        ("q/x", .refused(.escapesDirectory)),
    ])
    func keyTargets(key: String, expected: OSSBatchPaths.Target) {
        #expect(OSSBatchPaths.target(ofKey: key, prefix: "p/") == expected)
    }

    @Test("prefixes are directories; the local key of a long path is refused")
    func prefixes() {
        #expect(OSSDirectoryTransferRequest.directoryPrefix("photos") == "photos/")
        #expect(OSSDirectoryTransferRequest.directoryPrefix("photos/") == "photos/")
        #expect(OSSDirectoryTransferRequest.directoryPrefix("") == "")
        let request = OSSDirectoryTransferRequest.upload(from: URL(fileURLWithPath: "/tmp/x/"), toBucket: "b", prefix: "x")
        #expect(request.prefix == "x/")
        #expect(request.localDirectoryPath == "/tmp/x")
        #expect(OSSBatchPaths.refusal(prefix: "p/", relativePath: String(repeating: "k", count: 1022)) == .keyTooLong)
        #expect(OSSBatchPaths.refusal(prefix: "p/", relativePath: String(repeating: "k", count: 1021)) == nil)
    }

    @Test("journal lines: checksummed, a torn or edited line is rejected")
    func journalLines() throws {
        let entry = OSSBatchJournalEntry.item("p/a", path: "a", .ended, outcome: .failed(OSSBatchFailure(.fileChanged, "x")), bytes: 3)
        var line = try entry.line()
        #expect(line.last == 0x0A)
        line.removeLast()
        let decoded = try #require(OSSBatchJournalEntry.decode(line))
        #expect(decoded.key == "p/a")
        #expect(decoded.outcome == .failed(OSSBatchFailure(.fileChanged, "x")))
        #expect(OSSBatchJournalEntry.decode(line.dropLast(3)) == nil)
        var edited = line
        edited[edited.count - 5] ^= 1
        #expect(OSSBatchJournalEntry.decode(edited) == nil)
    }

    @Test("journal replay: the mark, keys ended past it, failures retried, a torn last line ignored and closed on reopen")
    func journalReplay() async throws {
        let scratch = try BatchScratch()
        defer { scratch.cleanup() }
        try FileManager.default.createDirectory(at: scratch.root, withIntermediateDirectories: true)
        let path = scratch.root.appendingPathComponent("journal").path
        let request = OSSDirectoryTransferRequest.upload(from: scratch.source, toBucket: "bkt", prefix: "p")
        let writer = try await OSSBatchJournalWriter.open(path: path, header: .header(.directory(request)))
        try await writer.append(.run())
        for key in ["p/a", "p/b"] { try await writer.append(.item(key, path: "", .ended, outcome: .uploaded, bytes: 1)) }
        try await writer.append(.mark("p/b"))
        try await writer.append(.item("p/d", path: "", .ended, outcome: .uploaded, bytes: 1))
        try await writer.append(.item("p/c", path: "", .ended, outcome: .failed(OSSBatchFailure(.networkError, "x"))))
        try await writer.append(.item("p/e", path: "", .running))
        try await writer.close()
        // A kill in the middle of a line.
        let handle = try #require(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data("0123456789abcdef {\"t\":\"item\",\"k\":\"p/f\"".utf8))
        try handle.close()

        var replay = try await OSSBatchJournalReplay.read(path: path)
        #expect(replay.request == .directory(request))
        #expect(replay.state == .interrupted)
        #expect(replay.isDone("p/a") && replay.isDone("p/b") && replay.isDone("p/d"))
        #expect(!replay.isDone("p/c"), "a failed item is tried again")
        #expect(!replay.isDone("p/e") && !replay.isDone("p/f") && !replay.isDone("p/bb"))
        #expect(replay.inFlight == ["p/e"])
        #expect(replay.counts.uploaded == 3)
        #expect(replay.counts.failed == 1)

        let reopened = try await OSSBatchJournalWriter.open(path: path, header: nil)
        try await reopened.append(.item("p/c", path: "", .ended, outcome: .uploaded, bytes: 1))
        try await reopened.append(.end(.completed))
        try await reopened.close()
        replay = try await OSSBatchJournalReplay.read(path: path)
        #expect(replay.isDone("p/c"))
        #expect(replay.counts.failed == 0)
        #expect(replay.state == .completed)
    }

    @Test("the window's mark moves only over ended items, in order")
    func window() {
        var window = OSSBatchWindow(capacity: 3)
        let a = window.open("a")
        let b = window.open("b")
        let c = window.open("c")
        #expect(window.isFull)
        #expect(window.end(b) == nil)
        #expect(window.end(a) == "b")
        #expect(window.count == 1)
        #expect(window.end(c) == "c")
        #expect(window.count == 0)
    }

    @Test("the batch rate: this run's bytes over the window, else over the run, so a fast batch never shows 0 B/s")
    func batchRate() {
        // All 3 MiB moved in the window's first 50 ms, before it spans 0.2 s: the rate is over the run so far.
        let early = OSSBatchProgressTracker.rate(
            moved: 3 << 20, windowStart: (0, .milliseconds(50)), sinceStart: .milliseconds(125))
        #expect(early == Double(24 << 20))
        // Once the window spans 0.2 s it decides: 2 MiB in its last 2 s.
        let windowed = OSSBatchProgressTracker.rate(
            moved: 10 << 20, windowStart: (8 << 20, .seconds(2)), sinceStart: .seconds(10))
        #expect(windowed == Double(1 << 20))
        #expect(OSSBatchProgressTracker.rate(moved: 0, windowStart: nil, sinceStart: .seconds(1)) == 0)
    }
}
