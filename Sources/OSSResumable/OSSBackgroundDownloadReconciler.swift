/// The pure decision of a background download: whether a range's completion is usable.
package enum OSSBackgroundDownloadReconciler {
    package enum Verdict: Sendable, Hashable {
        /// The range holds the pinned object's bytes: place it.
        case accept
        /// The object was replaced (412 to `If-Match`, or another ETag): the download cannot continue.
        case objectChanged
        /// The task failed or returned something else: the range is fetched again.
        case retry
    }

    /// A range is accepted with 206 (or 200 when it is the whole object), the record's ETag, and exactly the
    /// range's length on disk.
    package static func verdict(
        status: Int?, etag: String?, receivedLength: Int64?, part: OSSBackgroundDownloadRecord.Part,
        record: OSSBackgroundDownloadRecord
    ) -> Verdict {
        if status == 412 { return .objectChanged }
        let whole = part.offset == 0 && part.length == record.objectSize
        guard status == 206 || (status == 200 && whole) else { return .retry }
        guard let etag else { return .retry }
        guard etag == record.etag else { return .objectChanged }
        return receivedLength == part.length ? .accept : .retry
    }
}
