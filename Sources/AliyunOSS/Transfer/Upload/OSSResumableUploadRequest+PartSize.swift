extension OSSResumableUploadRequest {
    /// The iOS SDK's part-size rule: a part size of 0, or under 100 KB (``minimumPartSize``) for a file larger
    /// than 100 KB, is an error, never silently raised (a ported app that relied on the raise would otherwise
    /// change its record identity and part count without a word).
    ///
    /// - Throws: ``OSSClientError`` `invalidArgument`.
    static func checkPartSize(_ partSize: Int64, fileSize: Int64) throws {
        guard partSize > 0, partSize >= minimumPartSize || fileSize <= minimumPartSize else {
            throw OSSClientError(
                .invalidArgument,
                "partSize must be at least \(minimumPartSize) bytes (100 KB) for a file of \(fileSize) bytes, not \(partSize)")
        }
    }
}
