#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where an upload's bytes come from.
public enum OSSUploadSource: Sendable {
    /// Bytes in memory.
    case data(Data)
    /// A whole file, streamed.
    case file(URL)
    /// `length` bytes of a file starting at `offset`, streamed (a multipart part).
    case fileRange(URL, offset: Int64, length: Int64)
}

extension OSSUploadSource {
    /// The file's name (its last path component), from which a content type may be guessed; `nil` for bytes.
    var fileName: String? {
        switch self {
        case .file(let url), .fileRange(let url, _, _): url.lastPathComponent
        case .data: nil
        }
    }
}
