/// Something that happened to a transfer of an ``OSSTransferManager``, delivered by ``OSSTransferManager/events``.
public struct OSSTransferEvent: Sendable, Hashable {
    /// What happened.
    public enum Change: Sendable, Hashable {
        /// The transfer entered `state` (``OSSTransferState/ongoing`` on resume, ``OSSTransferState/suspended``
        /// after a pause or a failure that kept the record).
        case state(OSSTransferState)
        /// Bytes confirmed so far (plus the bytes of the parts in flight, for a manager made with
        /// ``OSSTransferProgressGranularity/bytes``) and in all. Never runs backwards within a run.
        case progress(bytesDone: Int64, totalBytes: Int64)
        /// The transfer finished: the object (upload) or the file (download) is in place and the record is gone.
        case completed
        /// The run failed; `message` says why. The record is kept when the transfer keeps it (network failures).
        case failed(message: String)
        /// ``OSSTransferManager/terminate(_:)`` removed the transfer.
        case terminated
    }

    /// The transfer's ``OSSTransfer/id``.
    public var id: String
    public var change: Change

    public init(id: String, change: Change) {
        self.id = id
        self.change = change
    }
}

/// What a resumed transfer produced.
public enum OSSTransferOutcome: Sendable {
    case uploaded(OSSResumableUploadResult)
    case downloaded(OSSResumableDownloadResult)
}
