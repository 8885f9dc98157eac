#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import OSSResumable

extension OSSResumableError {
    /// The public form of a pure-layer error raised by a resumable upload.
    var uploadClientError: OSSClientError {
        switch self {
        case .invalidArgument(let message):
            OSSClientError(.invalidArgument, message, underlying: self)
        case .fileChanged:
            OSSClientError(
                .cannotResumeUpload,
                "\(description); the stale upload was aborted and its record removed, so the next call starts clean",
                underlying: self)
        case .recordLocked(let path):
            OSSClientError.transferInUse(lockPath: path, underlying: self)
        case .crcMismatch, .partCRCMismatch:
            OSSClientError(.invalidCRC, description, underlying: self)
        case .fileCantRead:
            OSSClientError(.fileCantRead, description, underlying: self)
        case .fileCantWrite(_, let code):
            OSSClientError(code == ENOSPC || code == EDQUOT ? .noSpaceLeft : .fileCantWrite, description, underlying: self)
        case .uploadNotFound:
            OSSClientError(.cannotResumeUpload, description, underlying: self)
        default:
            OSSClientError(.exceptionCaught, description, underlying: self)
        }
    }
}
