#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OSSResumable

/// The local file of a resumable transfer and its record store, as a request gives them: the absolute path the
/// transfer reads or writes, and the form records and resume tokens hold — relative to the request's base
/// directory when it has one (see ``OSSBaseDirectory``), absolute otherwise.
struct OSSTransferLocalPaths {
    let base: OSSBaseDirectory?
    /// The local file (absolute, standardised, symbolic links resolved).
    let localPath: String
    /// The local file as records and tokens hold it.
    let storedLocalPath: String
    /// The record store (records' paths made relative to ``base`` on save, resolved on load); `nil` without a
    /// record directory. A relative record directory is taken from ``base``.
    let store: OSSRecordStore?

    /// - Throws: ``OSSClientError`` `invalidArgument` when `baseDirectoryURL` is not a file URL, or the file
    ///   (named `role` in the message) lies outside it.
    init(fileURL: URL, role: String, baseDirectoryURL: URL?, recordDirectoryPath: String?) throws {
        if let url = baseDirectoryURL {
            guard url.isFileURL, !url.path.isEmpty else {
                throw OSSClientError(.invalidArgument, "baseDirectoryURL must be a file URL, not \(url)")
            }
            base = OSSBaseDirectory(path: url.path)
        } else {
            base = nil
        }
        localPath = OSSRecordStore.absolutePath(fileURL.path)
        if let base {
            guard let relative = base.relativePath(of: localPath) else {
                throw OSSClientError(.invalidArgument, "\(role) \(localPath) does not lie inside baseDirectoryURL \(base.path)")
            }
            storedLocalPath = relative
        } else {
            storedLocalPath = localPath
        }
        if let recordDirectoryPath, !recordDirectoryPath.isEmpty {
            store = OSSRecordStore(directoryPath: recordDirectoryPath, baseDirectory: base)
        } else {
            store = nil
        }
    }

    /// The record of `token` once `check` accepted it for this transfer (given the token with its paths made
    /// relative to ``base``, and ``storedLocalPath``), with its paths resolved against ``base``.
    func record<Record: OSSTransferRecord>(
        of token: OSSResumeToken, checkedBy check: (OSSResumeToken, String) throws -> Record
    ) throws -> Record {
        try OSSResumeToken.resolving(check(token.relativized(to: base), storedLocalPath), against: base)
    }
}
