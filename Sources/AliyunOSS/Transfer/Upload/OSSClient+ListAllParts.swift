import OSSResumable

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
