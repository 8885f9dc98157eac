#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OSSResumable

extension OSSBaseDirectory {
    /// The base directory of a request's `baseDirectoryURL`, if it has one.
    ///
    /// - Throws: ``OSSClientError`` `invalidArgument` when the URL is not a file URL.
    static func of(_ url: URL?) throws -> OSSBaseDirectory? {
        guard let url else { return nil }
        guard url.isFileURL, !url.path.isEmpty else {
            throw OSSClientError(.invalidArgument, "baseDirectoryURL must be a file URL, not \(url)")
        }
        return OSSBaseDirectory(path: url.path)
    }

    /// The stored form of the local file `absolutePath` of a transfer: relative to `base` when there is one
    /// (the file must lie inside it), `absolutePath` itself otherwise.
    ///
    /// - Throws: ``OSSClientError`` `invalidArgument` naming `role` when the file lies outside `base`.
    static func storedPath(of absolutePath: String, base: OSSBaseDirectory?, role: String) throws -> String {
        guard let base else { return absolutePath }
        guard let relative = base.relativePath(of: absolutePath) else {
            throw OSSClientError(
                .invalidArgument, "\(role) \(absolutePath) does not lie inside baseDirectoryURL \(base.path)")
        }
        return relative
    }

    /// The record store of a request's `recordDirectoryPath` (relative paths taken from `base`), if it has one.
    static func recordStore(_ directory: String?, base: OSSBaseDirectory?) -> OSSRecordStore? {
        guard let directory, !directory.isEmpty else { return nil }
        return OSSRecordStore(directoryPath: directory, baseDirectory: base)
    }
}
