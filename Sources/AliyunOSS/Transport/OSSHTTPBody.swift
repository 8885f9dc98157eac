#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A request body. Bodies that can be produced again (``isReplayable``) may be resent by the retry layer.
public enum OSSHTTPBody: Sendable {
    /// No body.
    case empty
    /// Bytes in memory.
    case bytes(Data)
    /// `length` bytes of the file at `path`, starting at `offset`, streamed in chunks (never loaded whole).
    case fileRange(path: String, offset: Int64, length: Int64)
    /// A one-shot stream of `length` bytes. Not replayable: a failed request with this body is not retried.
    case stream(length: Int64, OSSBodyStream)

    /// The number of bytes in the body.
    public var length: Int64 {
        switch self {
        case .empty: 0
        case .bytes(let data): Int64(data.count)
        case .fileRange(_, _, let length): length
        case .stream(let length, _): length
        }
    }

    /// Whether the body can be sent again on a retry.
    public var isReplayable: Bool {
        switch self {
        case .empty, .bytes, .fileRange: true
        case .stream: false
        }
    }
}

/// A one-shot body source: `next()` returns the following chunk, or `nil` at the end.
public struct OSSBodyStream: Sendable {
    let next: @Sendable () async throws -> Data?

    public init(next: @escaping @Sendable () async throws -> Data?) {
        self.next = next
    }
}
