/// A directory that a transfer's local paths are recorded relative to, so that checkpoint records and resume
/// tokens survive the directory moving.
///
/// iOS moves an app's container (`/var/mobile/Containers/Data/Application/<UUID>/`) to a new path across app
/// updates and restores. A record that holds absolute paths then names files that no longer exist; a record that
/// holds `Documents/video.mov` relative to the container resolves to the file at its new place. The SDK stores
/// every local path that lies inside the base directory (the uploaded file, the download's destination and
/// temporary file) in this relative form, and names records from it, so the same transfer finds its record
/// from the new container. Paths outside the base directory stay absolute.
///
/// Stored paths are told apart by their first character: absolute paths start with `/`, relative ones never do.
public struct OSSBaseDirectory: Sendable, Hashable, CustomStringConvertible {
    /// The directory: absolute, standardised, symbolic links resolved.
    public let path: String

    /// A base directory at `path` (made absolute against the current directory when relative).
    public init(path: String) {
        self.path = OSSRecordStore.absolutePath(path)
    }

    public var description: String { path }

    /// Whether a stored path is relative to a base directory (does not start with `/`).
    package static func isRelative(_ storedPath: String) -> Bool {
        !storedPath.hasPrefix("/")
    }

    /// `absolutePath` relative to this directory (no leading `/`), or `nil` when it does not lie strictly
    /// inside it. Symbolic links are resolved on both sides first (a destination that does not exist yet is
    /// compared through its parent directory).
    package func relativePath(of absolutePath: String) -> String? {
        let candidates = [
            OSSRecordStore.absolutePath(absolutePath),
            OSSRecordStore.absolutePath(OSSDurableFile.parentDirectory(of: absolutePath)) + "/"
                + Self.lastComponent(of: absolutePath),
        ]
        let prefix = path == "/" ? "/" : path + "/"
        for candidate in candidates where candidate.hasPrefix(prefix) && candidate.count > prefix.count {
            return String(candidate.dropFirst(prefix.count))
        }
        return nil
    }

    /// The form of `path` to store: relative to this directory when it lies inside it, unchanged otherwise (an
    /// already relative path included).
    package func portable(_ path: String) -> String {
        guard !Self.isRelative(path) else { return path }
        return relativePath(of: path) ?? path
    }

    /// The absolute path of a stored path: a relative one is taken from this directory, an absolute one is
    /// returned unchanged.
    package func resolve(_ storedPath: String) -> String {
        guard Self.isRelative(storedPath) else { return storedPath }
        return path == "/" ? "/" + storedPath : path + "/" + storedPath
    }

    /// The absolute path of a stored path with an optional base directory.
    ///
    /// - Throws: `recordNeedsBaseDirectory` for a relative path without a base directory.
    package static func resolve(_ storedPath: String, against base: OSSBaseDirectory?) throws(OSSResumableError) -> String {
        guard isRelative(storedPath) else { return storedPath }
        guard let base else { throw .recordNeedsBaseDirectory(path: storedPath) }
        return base.resolve(storedPath)
    }

    private static func lastComponent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}
