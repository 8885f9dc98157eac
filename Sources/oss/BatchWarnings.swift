import AliyunOSS

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An item of `cp -r` or `sync` that was skipped by the link rule rather than failed: a symbolic link not followed
/// (`--no-follow-symlinks`), a loop, or a link to nothing (a file gone when it was read looks the same). Printed as
/// a warning; it does not make the command exit 7, since running it again would skip it again.
struct LinkWarning: CustomStringConvertible {
    var description: String

    init?(_ item: OSSBatchItem) {
        let name = item.key.isEmpty ? item.relativePath : item.key
        switch item.outcome {
        case .refused(let reason) where [.symbolicLinkSkipped, .symbolicLinkLoop, .symbolicLinkInPath].contains(reason):
            description = "skipped \(name): \(reason)"
        case .failed(let failure) where failure.posixErrorCode == ENOENT && failure.clientErrorCode == .fileCantRead:
            description = "skipped \(name): no such file (a symbolic link to nothing, or deleted during the copy)"
        default:
            return nil
        }
    }
}

/// How many of a batch's failed and refused items were only link warnings: the summary counts them apart, so that a
/// run that exits 0 does not report them as failures.
struct LinkWarningCounts: Sendable {
    var failed = 0
    var refused = 0
    var total: Int { failed + refused }

    mutating func count(_ item: OSSBatchItem) {
        if case .failed = item.outcome { failed += 1 } else { refused += 1 }
    }
}
