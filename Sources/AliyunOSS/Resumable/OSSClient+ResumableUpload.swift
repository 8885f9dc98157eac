import OSSResumable

extension OSSClient {
    /// Uploads a local file as a multipart upload that survives cancellation, network failures and process death.
    ///
    /// Parts are streamed from the file (`threadNum` in flight), each with `Content-MD5` and its CRC-64 checked;
    /// the object's CRC-64 is checked against the parts' combined CRC (reused parts included). With
    /// ``OSSResumableUploadRequest/recordDirectoryPath`` set, the next call with the same file, bucket, key,
    /// part size and CRC mode resumes: ListParts is the truth, and only the parts the server lacks (or holds with
    /// the wrong size or CRC) are sent again.
    ///
    /// - Throws: ``OSSClientError``: `taskCancelled` (after ``OSSResumableUploadRequest/cancel()`` or Task
    ///   cancellation); `cannotResumeUpload` when the file changed since the record (the stale upload is aborted
    ///   and the record removed, so the next call starts clean) or another process holds the record's lock;
    ///   `invalidCRC`; `fileCantRead`; `invalidArgument`; `networkError` after retries (the record is kept). Or an
    ///   ``OSSServerError`` from the server.
    public func resumableUpload(_ request: OSSResumableUploadRequest) async throws -> OSSResumableUploadResult {
        try await request.cancellation.run { [self] in
            let engine = try OSSResumableUploadEngine(client: self, request: request)
            return try await engine.run()
        }
    }
}
