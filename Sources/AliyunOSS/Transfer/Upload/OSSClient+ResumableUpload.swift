import OSSResumable

extension OSSClient {
    /// Uploads a local file as a multipart upload that survives cancellation, network failures and process death.
    ///
    /// Parts are streamed from the file (`threadNum` in flight), each with its CRC-64 checked; the object's CRC-64
    /// is checked against the parts' combined CRC (reused parts included). With
    /// ``OSSResumableUploadRequest/recordDirectoryPath`` set, the next call with the same file, bucket, key,
    /// part size and CRC mode resumes: ListParts is the truth, and only the parts the server lacks (or holds with
    /// the wrong size or CRC) are sent again.
    ///
    /// If CompleteMultipartUpload succeeded on the server but its answer was lost (the retry finds the upload
    /// gone), the object is adopted when HEAD shows this file's size and combined CRC-64; the result then has the
    /// HEAD's ETag and no callback body.
    ///
    /// - Throws: ``OSSClientError``: `taskCancelled` (after ``OSSResumableUploadRequest/cancel()`` or Task
    ///   cancellation); `taskPaused` after ``OSSResumableUploadRequest/pause()``, with a
    ///   ``OSSClientError/resumeToken``; `cannotResumeUpload` when the file changed since the record (the stale
    ///   upload is aborted and the record removed, so the next call starts clean); `transferInUse`, at once, when
    ///   another process or request is running the same transfer (it holds the record's lock); `invalidCRC`; `fileCantRead`; `invalidArgument`; `networkError` after retries (the record
    ///   is kept). Or an ``OSSServerError`` from the server.
    public func resumableUpload(_ request: OSSResumableUploadRequest) async throws -> OSSResumableUploadResult {
        try await instrumentedTransfer(
            .upload, bucket: request.bucketName, key: request.objectKey, summary: OSSTransferSummary.init
        ) {
            try await request.cancellation.run { [self] in
                let transfer = try OSSUploadRun(client: self, request: request)
                return try await scheduler.withTransferSlot(priority: request.priority, proceedsWhenCancelled: true) {
                    try await transfer.run()
                }
            }
        }
    }

    /// Resumes an upload from a token (from ``OSSClientError/resumeToken`` of a paused upload, or
    /// ``OSSTransferManager/resumeToken(for:)``), typically stored by the app and decoded again.
    ///
    /// The token must belong to `request`: same bucket, key, local file, part size and CRC mode. Its record then
    /// replaces the one in ``OSSResumableUploadRequest/recordDirectoryPath`` (or is used in memory when there is
    /// none) and the upload resumes as from a record: ListParts is the truth, a file changed since the token was
    /// made is refused (`cannotResumeUpload`), an upload the server no longer has starts over.
    ///
    /// ```swift
    /// let token = try JSONDecoder().decode(OSSResumeToken.self, from: stored)
    /// let result = try await client.resumableUpload(request, resumingFrom: token)
    /// ```
    ///
    /// - Throws: ``OSSClientError`` `invalidArgument` when the token belongs to another transfer (naming the field
    ///   that differs) or is a download token; otherwise what ``resumableUpload(_:)`` throws.
    public func resumableUpload(
        _ request: OSSResumableUploadRequest, resumingFrom token: OSSResumeToken
    ) async throws -> OSSResumableUploadResult {
        try await instrumentedTransfer(
            .upload, bucket: request.bucketName, key: request.objectKey, summary: OSSTransferSummary.init
        ) {
            try await request.cancellation.run { [self] in
                let transfer = try OSSUploadRun(client: self, request: request, token: token)
                return try await scheduler.withTransferSlot(priority: request.priority, proceedsWhenCancelled: true) {
                    try await transfer.run()
                }
            }
        }
    }
}

extension OSSClient {
    /// Every part the server holds for `uploadId` (ListParts, all pages), as the upload machines see them.
    func listAllParts(bucket: String, key: String, uploadId: String) async throws -> [OSSUploadStateMachine.ServerPart] {
        var parts: [OSSUploadStateMachine.ServerPart] = []
        let first = OSSListPartsRequest(bucketName: bucket, objectKey: key, uploadId: uploadId, maxParts: 1000, partNumberMarker: 0)
        for try await page in listPartsPaginator(first) {
            for part in page.parts {
                parts.append(.init(number: part.partNumber, size: part.size, etag: part.eTag, crc64: part.crc64))
            }
        }
        return parts
    }
}
