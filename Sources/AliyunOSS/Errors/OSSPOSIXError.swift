#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The `errno` behind a file failure, as ``OSSClientError/underlying``.
public struct OSSPOSIXError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The `errno` value (`ENOSPC` for a full volume, `EROFS` for a read-only one, `EACCES`...).
    public var code: Int32

    public init(code: Int32) {
        self.code = code
    }

    /// The system's text for the `errno`, e.g. `No space left on device`.
    public var reason: String { String(cString: strerror(code)) }

    /// `errno 28: No space left on device`.
    public var description: String { "errno \(code): \(reason)" }

    /// Whether the volume or the user's quota is full (`ENOSPC`, `EDQUOT`).
    var isNoSpace: Bool { code == ENOSPC || code == EDQUOT }
}

extension OSSClientError {
    /// A file failure with its `errno` (and the system's text for it): ``OSSClientErrorCode/noSpaceLeft`` for a full
    /// volume or quota, else `fileCantWrite` or `fileCantRead`.
    static func file(writing: Bool, _ message: String, errno code: Int32) -> OSSClientError {
        let posix = OSSPOSIXError(code: code)
        let kind: OSSClientErrorCode = posix.isNoSpace ? .noSpaceLeft : writing ? .fileCantWrite : .fileCantRead
        return OSSClientError(kind, "\(message) (\(posix))", underlying: posix)
    }

    /// The `errno` of a file failure (`ENOSPC` when the volume is full), if the failure came from the file system.
    public var posixErrorCode: Int32? {
        (underlying as? OSSPOSIXError)?.code
    }
}
