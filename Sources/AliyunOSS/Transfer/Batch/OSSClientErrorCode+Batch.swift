extension OSSClientErrorCode {
    /// A batch with ``OSSBatchFailurePolicy/stopOnFirstFailure`` stopped because a file failed: the message names
    /// it and ``OSSClientError/underlying`` is its ``OSSBatchFailure``. Resumable transfers in flight were paused
    /// and the journal kept: ``OSSTransferManager/resumeBatch(_:)`` retries the file and goes on.
    public static let batchStopped = Self(rawValue: "BatchStopped")
    /// A local file changed while it was read for an upload (its size or modification time, or for a multipart
    /// upload its identity, differs afterwards), again after one retry. Nothing torn was stored: the snapshot was
    /// checked before it was sent, and a multipart upload is never completed over a changed file.
    public static let fileChanged = Self(rawValue: "FileChanged")
}
