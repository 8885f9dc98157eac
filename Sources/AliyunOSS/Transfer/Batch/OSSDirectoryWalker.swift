#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One thing found under a local directory, with what `lstat` (or, for a followed link, `stat`) said of it.
struct OSSLocalEntry: Sendable {
    enum Kind: Sendable, Equatable {
        case file
        case directory
        /// Not walked or sent, for this reason.
        case refused(OSSBatchRefusal)
        /// Could not be inspected (a dangling link, a directory that cannot be read): `errno`.
        case unreadable(Int32)
    }

    /// The path relative to the walked directory, `/`-separated (invalid UTF-8 replaced, for `nameNotUTF8`).
    let relativePath: String
    let kind: Kind
    let size: Int64
    /// Modification time, nanoseconds since 1970.
    let modificationNanoseconds: Int64
    let device: UInt64
    let inode: UInt64

    var modificationDate: Date { Date(timeIntervalSince1970: Double(modificationNanoseconds) / 1e9) }

    /// Whether its name can be an object key (valid UTF-8).
    var hasKey: Bool { kind != .refused(.nameNotUTF8) }

    /// Whether the walk goes into it.
    var isDirectory: Bool { kind == .directory }

    /// The same entry, now a directory the walk could not go into (its key still ends in `/`).
    func notEntered(_ kind: Kind) -> OSSLocalEntry {
        var entry = OSSLocalEntry(
            relativePath: relativePath, kind: kind, size: 0, modificationNanoseconds: 0, device: device, inode: inode)
        entry.isDirectoryNotEntered = true
        return entry
    }

    /// A directory the walk did not go into (unreadable, or a loop): it sorts, and keys, as a directory.
    private(set) var isDirectoryNotEntered = false
}

/// Walks a local directory lazily, depth first, yielding its entries in the byte order of the keys they make (a
/// directory sorts as its name followed by `/`), so that a walk can be merged with an OSS listing and a
/// journal's "everything up to this key" mark means the same thing in every run.
///
/// Memory: the entries of the directories on the current path, never the whole tree. Each directory is read (its
/// names, then an `lstat` of each, off Swift's cooperative pool) when the walk enters it; pruned directories are
/// not read at all. A directory that is its own ancestor (same device and inode, through a followed link) is a
/// loop and is reported, not entered.
struct OSSDirectoryWalker: Sendable {
    private struct Frame: Sendable {
        let relativePath: String
        let device: UInt64
        let inode: UInt64
        let entries: [OSSLocalEntry]
        var next = 0
    }

    let root: String
    let followsLinks: Bool
    let filter: OSSPathFilter
    private var stack: [Frame] = []
    private var started = false

    init(root: String, followsLinks: Bool, filter: OSSPathFilter) {
        self.root = root
        self.followsLinks = followsLinks
        self.filter = filter
    }

    /// The next entry in key order: files, directories (before their contents), refused and unreadable entries;
    /// `nil` at the end. Excluded entries are skipped, excluded directories not read.
    ///
    /// - Throws: ``OSSClientError`` `fileCantRead` when the root is not a readable directory; `CancellationError`.
    mutating func next() async throws -> OSSLocalEntry? {
        if !started {
            started = true
            let (root, follows) = (self.root, followsLinks)
            let status = try await OSSBlockingIO.run { () throws(OSSClientError) -> (UInt64, UInt64) in
                var st = stat()
                guard stat(root, &st) == 0 else {
                    throw OSSClientError.file(writing: false, "cannot read the directory \(root)", errno: errno)
                }
                guard st.st_mode & S_IFMT == S_IFDIR else {
                    throw OSSClientError.file(writing: false, "\(root) is not a directory", errno: ENOTDIR)
                }
                return (UInt64(truncatingIfNeeded: st.st_dev), UInt64(st.st_ino))
            }
            let listing = await Self.read(root, relativePath: "", follows: follows)
            let entries: [OSSLocalEntry]
            switch listing {
            case .success(let read): entries = read
            case .failure(let error):
                throw OSSClientError.file(writing: false, "cannot list the directory \(root)", errno: error.code)
            }
            stack = [Frame(relativePath: "", device: status.0, inode: status.1, entries: entries)]
        }
        while !stack.isEmpty {
            try Task.checkCancellation()
            let top = stack.count - 1
            guard stack[top].next < stack[top].entries.count else {
                stack.removeLast()
                continue
            }
            let entry = stack[top].entries[stack[top].next]
            stack[top].next += 1
            switch entry.kind {
            case .directory:
                guard !filter.prunes(directory: entry.relativePath) else { continue }
                if stack.contains(where: { $0.device == entry.device && $0.inode == entry.inode }) {
                    return entry.notEntered(.refused(.symbolicLinkLoop))
                }
                switch await Self.read(root + "/" + entry.relativePath, relativePath: entry.relativePath, follows: followsLinks) {
                case .success(let entries):
                    stack.append(Frame(relativePath: entry.relativePath, device: entry.device, inode: entry.inode, entries: entries))
                    return entry
                case .failure(let error):
                    return entry.notEntered(.unreadable(error.code))
                }
            case .file:
                guard filter.takes(file: entry.relativePath) else { continue }
                return entry
            case .refused, .unreadable:
                // Not files to take, but an excluded one is not reported either.
                guard filter.takes(file: entry.relativePath) else { continue }
                return entry
            }
        }
        return nil
    }

    /// The entries of one directory, inspected and sorted in key order, or the error of `opendir`.
    private static func read(_ path: String, relativePath: String, follows: Bool) async -> Result<[OSSLocalEntry], OSSPOSIXError> {
        await OSSBlockingIO.run { () -> Result<[OSSLocalEntry], OSSPOSIXError> in
            guard let directory = opendir(path) else { return .failure(OSSPOSIXError(code: errno)) }
            defer { closedir(directory) }
            let descriptor = dirfd(directory)
            var entries: [(sortKey: [UInt8], entry: OSSLocalEntry)] = []
            while let pointer = readdir(directory) {
                let name: [UInt8] = withUnsafeBytes(of: pointer.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
                if name == [0x2E] || name == [0x2E, 0x2E] { continue }
                let entry = inspect(descriptor, name: name, relativeDirectory: relativePath, follows: follows)
                entries.append((entry.isDirectory ? name + [0x2F] : name, entry))
            }
            entries.sort { $0.sortKey.lexicographicallyPrecedes($1.sortKey) }
            return .success(entries.map(\.entry))
        }
    }

    /// `lstat` of `name` in the directory `descriptor` (and `stat` of a link's target when following links).
    private static func inspect(_ descriptor: Int32, name: [UInt8], relativeDirectory: String, follows: Bool) -> OSSLocalEntry {
        let decoded = String(decoding: name, as: UTF8.self)
        let relativePath = relativeDirectory.isEmpty ? decoded : relativeDirectory + "/" + decoded
        func make(_ kind: OSSLocalEntry.Kind, _ st: stat? = nil) -> OSSLocalEntry {
            guard let st else {
                return OSSLocalEntry(relativePath: relativePath, kind: kind, size: 0, modificationNanoseconds: 0, device: 0, inode: 0)
            }
            return OSSLocalEntry(
                relativePath: relativePath, kind: kind, size: Int64(st.st_size), modificationNanoseconds: modificationNanoseconds(st),
                device: UInt64(truncatingIfNeeded: st.st_dev), inode: UInt64(st.st_ino))
        }
        guard Array(decoded.utf8) == name else { return make(.refused(.nameNotUTF8)) }
        var st = stat()
        let statusCode: Int32 = name.withUnsafeBufferPointer { bytes in
            let cName = bytes.map { CChar(bitPattern: $0) } + [0]
            return fstatat(descriptor, cName, &st, AT_SYMLINK_NOFOLLOW) == 0 ? 0 : errno
        }
        guard statusCode == 0 else { return make(.unreadable(statusCode)) }
        if st.st_mode & S_IFMT == S_IFLNK {
            guard follows else { return make(.refused(.symbolicLinkSkipped), st) }
            let followed: Int32 = name.withUnsafeBufferPointer { bytes in
                let cName = bytes.map { CChar(bitPattern: $0) } + [0]
                return fstatat(descriptor, cName, &st, 0) == 0 ? 0 : errno
            }
            if followed == ELOOP { return make(.refused(.symbolicLinkLoop)) }
            guard followed == 0 else { return make(.unreadable(followed)) }
        }
        switch st.st_mode & S_IFMT {
        case S_IFREG: return make(.file, st)
        case S_IFDIR: return make(.directory, st)
        default: return make(.refused(.unsupportedFileType), st)
        }
    }

    /// The file at `path` (links followed: a list names its files itself), or the `errno` of its `stat`.
    static func entry(atPath path: String) async -> Result<OSSLocalEntry, OSSPOSIXError> {
        await OSSBlockingIO.run { () -> Result<OSSLocalEntry, OSSPOSIXError> in
            var st = stat()
            guard stat(path, &st) == 0 else { return .failure(OSSPOSIXError(code: errno)) }
            let kind: OSSLocalEntry.Kind =
                switch st.st_mode & S_IFMT {
                case S_IFREG: .file
                case S_IFDIR: .directory
                default: .refused(.unsupportedFileType)
                }
            return .success(
                OSSLocalEntry(
                    relativePath: path, kind: kind, size: Int64(st.st_size), modificationNanoseconds: modificationNanoseconds(st),
                    device: UInt64(truncatingIfNeeded: st.st_dev), inode: UInt64(st.st_ino)))
        }
    }

    static func modificationNanoseconds(_ st: stat) -> Int64 {
        #if canImport(Darwin)
        let (seconds, nanoseconds) = (Int64(st.st_mtimespec.tv_sec), Int64(st.st_mtimespec.tv_nsec))
        #else
        let (seconds, nanoseconds) = (Int64(st.st_mtim.tv_sec), Int64(st.st_mtim.tv_nsec))
        #endif
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? (seconds < 0 ? .min : .max) : scaled &+ nanoseconds
    }
}
