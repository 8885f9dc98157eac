#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A task handed to the system's transfer service: a request whose body comes from a file (upload) or whose
/// body goes to a file (download), fixed when it is created, and a description that maps its completion back
/// to a transfer and part in a later process lifetime.
///
/// The URL of a task made by the SDK is presigned (the system sends it while the app is not running, so
/// nothing can sign it later). It is persisted by the system (and by the simulated daemon's spool) as the
/// system persists it; the SDK never logs it.
public struct OSSBackgroundTask: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Hashable, Codable {
        /// The body is the file at ``OSSBackgroundTask/filePath``.
        case upload
        /// The response body is delivered as a file (``OSSBackgroundTaskEvent/downloadedFilePath``).
        case download
    }

    public var kind: Kind
    public var method: String
    public var url: String
    /// Header names lower-cased (`content-md5`, `range`, `if-match`...).
    public var headers: [String: String]
    /// For uploads: the file sent as the body.
    public var filePath: String?
    /// `"<transfer id>/<part number>"` for the SDK's tasks.
    public var taskDescription: String

    public init(kind: Kind, method: String, url: String, headers: [String: String], filePath: String?, taskDescription: String) {
        self.kind = kind
        self.method = method
        self.url = url
        self.headers = headers
        self.filePath = filePath
        self.taskDescription = taskDescription
    }

    /// An upload task sending `filePath` with `method` (PUT for UploadPart).
    public static func upload(
        method: String = "PUT", url: String, headers: [String: String] = [:], filePath: String, taskDescription: String
    ) -> OSSBackgroundTask {
        OSSBackgroundTask(
            kind: .upload, method: method, url: url, headers: headers, filePath: filePath, taskDescription: taskDescription)
    }

    /// A download task (GET; `headers` may hold `range` and `if-match`).
    public static func download(url: String, headers: [String: String] = [:], taskDescription: String) -> OSSBackgroundTask {
        OSSBackgroundTask(kind: .download, method: "GET", url: url, headers: headers, filePath: nil, taskDescription: taskDescription)
    }
}

extension OSSBackgroundTask: CustomStringConvertible {
    /// Never shows the URL's query (it holds a signature).
    public var description: String {
        let path = url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? ""
        return "\(kind.rawValue) \(method) \(path) [\(taskDescription)]"
    }
}
