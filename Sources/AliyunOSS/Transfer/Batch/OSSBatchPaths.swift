#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Why one item did not go: refused by rule, or failed.
enum OSSBatchItemProblem: Error, Sendable {
    case refused(OSSBatchRefusal)
    case failed(OSSBatchFailure)

    var outcome: OSSBatchItemOutcome {
        switch self {
        case .refused(let refusal): .refused(refusal)
        case .failed(let failure): .failed(failure)
        }
    }
}

/// Keys and local paths of a batch: the one place that decides which key a file gets and which file a key
/// may be written to.
///
/// Safety rules for a downloaded key (after the prefix): a `..` component or a leading `/` (an absolute path) is
/// ``OSSBatchRefusal/escapesDirectory``; an empty component (`a//b`) or `.` is
/// ``OSSBatchRefusal/invalidPathComponent``; NUL or a component over 255 bytes is
/// ``OSSBatchRefusal/invalidFileName``; a trailing `/` is a directory marker. The directories on the way are
/// created one by one under the local directory, and each existing one must be a directory, not a link (unless
/// links are followed): a key never picks a path outside the directory the user named.
enum OSSBatchPaths {
    /// The longest key OSS accepts, in UTF-8 bytes.
    static let maximumKeyLength = 1023
    /// The longest file name most file systems accept, in bytes.
    static let maximumNameLength = 255

    /// What a listed key is for a download.
    enum Target: Sendable, Equatable {
        /// A file at this relative path.
        case file(String)
        /// A directory (a key ending in `/`) at this relative path.
        case directory(String)
        /// The prefix's own marker (the key is the prefix): nothing to do.
        case root
        case refused(OSSBatchRefusal)
    }

    /// Why the local file at `relativePath` cannot have the key `prefix + relativePath`, if it cannot.
    static func refusal(prefix: String, relativePath: String) -> OSSBatchRefusal? {
        prefix.utf8.count + relativePath.utf8.count > maximumKeyLength ? .keyTooLong : nil
    }

    /// The local target of `key`, listed under `prefix`.
    static func target(ofKey key: String, prefix: String) -> Target {
        guard key.utf8.starts(with: prefix.utf8) else { return .refused(.escapesDirectory) }
        let relative = String(decoding: key.utf8.dropFirst(prefix.utf8.count), as: UTF8.self)
        if relative.isEmpty { return .root }
        let isDirectory = relative.hasSuffix("/")
        let body = isDirectory ? String(relative.dropLast()) : relative
        let components = body.split(separator: "/", omittingEmptySubsequences: false)
        if components.first == "" || components.contains("..") { return .refused(.escapesDirectory) }
        if components.contains(where: { $0.isEmpty || $0 == "." }) { return .refused(.invalidPathComponent) }
        if components.contains(where: { $0.utf8.contains(0) || $0.utf8.count > maximumNameLength }) {
            return .refused(.invalidFileName)
        }
        return isDirectory ? .directory(body) : .file(body)
    }

    /// The relative path of a key's target, or the key minus the prefix for a refused one (for reports).
    static func reportedPath(ofKey key: String, prefix: String) -> String {
        switch target(ofKey: key, prefix: prefix) {
        case .file(let path), .directory(let path): path
        case .root: ""
        case .refused: String(decoding: key.utf8.dropFirst(key.utf8.starts(with: prefix.utf8) ? prefix.utf8.count : 0), as: UTF8.self)
        }
    }

    /// Makes the directories from `root` down to `relativeDirectory` (included), each new one `0755`; an existing
    /// one must be a directory (a link to one only when `followsLinks`). Off the cooperative pool.
    static func makeDirectories(root: String, relativeDirectory: String, followsLinks: Bool) async throws(OSSBatchItemProblem) {
        let result = await OSSBlockingIO.run { () -> OSSBatchItemProblem? in
            var path = root
            if let problem = ensureDirectory(path, followsLinks: true) { return problem }
            for component in relativeDirectory.split(separator: "/") {
                path += "/" + component
                if let problem = ensureDirectory(path, followsLinks: followsLinks) { return problem }
            }
            return nil
        }
        if let result { throw result }
    }

    /// Makes the directories of the parent of `relativePath`.
    static func makeParent(root: String, relativePath: String, followsLinks: Bool) async throws(OSSBatchItemProblem) {
        let parent = relativePath.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        try await makeDirectories(root: root, relativeDirectory: parent, followsLinks: followsLinks)
    }

    private static func ensureDirectory(_ path: String, followsLinks: Bool) -> OSSBatchItemProblem? {
        var st = stat()
        if lstat(path, &st) != 0 {
            guard errno == ENOENT else { return failure("cannot inspect \(path)", errno) }
            if mkdir(path, 0o755) == 0 || errno == EEXIST { return ensureDirectory(path, followsLinks: followsLinks) }
            return failure("cannot create the directory \(path)", errno)
        }
        switch st.st_mode & S_IFMT {
        case S_IFDIR:
            return nil
        case S_IFLNK:
            guard followsLinks else { return .refused(.symbolicLinkInPath) }
            guard stat(path, &st) == 0 else { return failure("cannot follow \(path)", errno) }
            return st.st_mode & S_IFMT == S_IFDIR ? nil : failure("\(path) is not a directory", ENOTDIR)
        default:
            return failure("\(path) is not a directory", ENOTDIR)
        }
    }

    private static func failure(_ message: String, _ code: Int32) -> OSSBatchItemProblem {
        .failed(OSSBatchFailure(OSSClientError.file(writing: true, message, errno: code)))
    }
}
