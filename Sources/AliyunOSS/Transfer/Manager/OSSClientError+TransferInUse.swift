extension OSSClientErrorCode {
    /// The transfer is in use: another process, or another request in this process, is running it (it holds the
    /// lock of the transfer's checkpoint record). Thrown at once, without waiting, by
    /// ``OSSClient/resumableUpload(_:)``, ``OSSClient/resumableDownload(_:)`` and ``OSSTransferManager``'s
    /// ``OSSTransferManager/terminate(_:)`` and ``OSSTransferManager/restore(_:)``; the message names the record.
    /// Nothing was changed: try again once the other run has finished or paused (a paused or killed run holds no
    /// lock).
    public static let transferInUse = Self(rawValue: "TransferInUse")
}

extension OSSClientError {
    /// The `transferInUse` error for the record whose lock file is `lockPath`.
    static func transferInUse(lockPath: String, underlying: (any Error)? = nil) -> OSSClientError {
        let record = lockPath.hasSuffix(".lock") ? String(lockPath.dropLast(".lock".count)) : lockPath
        return OSSClientError(
            .transferInUse,
            "the transfer of record \(record) is in use by another process or request (its lock \(lockPath) is held); "
                + "try again once that run has finished or paused",
            underlying: underlying)
    }
}
