#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import OSSResumable

extension OSSClientErrorCode {
    /// The object was replaced during a resumable download (a ranged GET answered 412 to `If-Match`), or
    /// since the record of an interrupted one was written, and the policy says to fail.
    public static let objectChanged = Self(rawValue: "ObjectChanged")
    /// A resumable download cannot continue from its record. (A record whose transfer is running elsewhere is
    /// ``transferInUse``.)
    public static let cannotResumeDownload = Self(rawValue: "CannotResumeDownload")
}

extension OSSResumableError {
    /// The public form of a pure-layer error raised by a resumable download.
    var downloadClientError: OSSClientError {
        switch self {
        case .invalidArgument(let message):
            OSSClientError(.invalidArgument, message, underlying: self)
        case .crcMismatch(let expected, let actual):
            OSSClientError(
                .invalidCRC,
                "CRC-64 mismatch for the downloaded object: the server reports \(expected), the parts combine to \(actual)",
                underlying: self)
        case .objectChanged(let message):
            OSSClientError(.objectChanged, "the object changed: \(message)", underlying: self)
        case .fileCantWrite(_, let code):
            OSSClientError(code == ENOSPC || code == EDQUOT ? .noSpaceLeft : .fileCantWrite, description, underlying: self)
        case .fileCantRead:
            OSSClientError(.fileCantRead, description, underlying: self)
        case .recordLocked(let path):
            OSSClientError.transferInUse(lockPath: path, underlying: self)
        default:
            OSSClientError(.exceptionCaught, description, underlying: self)
        }
    }
}
