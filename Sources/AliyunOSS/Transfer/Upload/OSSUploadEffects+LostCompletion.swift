import Logging
import OSSResumable

extension OSSUploadEffects {
    /// The machine's ``OSSUploadStateMachine/Action/checkCompletedObject(size:crc64:)``: the upload is gone
    /// after every part was confirmed, so an earlier Complete may have succeeded with its answer lost (the
    /// connection dropped after the server completed it and the retry found the upload gone, or the process died
    /// waiting for the answer).
    ///
    /// The object is adopted only when HEAD shows exactly this upload's bytes: its size is `size` (the file's) and
    /// its `x-oss-hash-crc64ecma` is `crc64` (combined from the parts). Anything else — no object, another size or
    /// CRC, HEAD failing — returns `nil`, and the upload starts over as before.
    func completedObject(size: Int64, crc64 expected: UInt64, uploadId: String) async
        -> OSSCompleteMultipartUploadResult?
    {
        let head: OSSHeadObjectResult
        do {
            head = try await client.headObject(
                OSSHeadObjectRequest(bucketName: request.bucketName, objectKey: request.objectKey))
        } catch {
            logger.info(
                "the multipart upload is gone and the object cannot be checked",
                metadata: ["uploadId": "\(uploadId)", "key": "\(request.objectKey)", "error": "\(error)"])
            return nil
        }
        guard head.contentLength == size, head.crc64 == expected else { return nil }
        logger.info(
            "the multipart upload was already completed (its answer was lost): the object holds this file's bytes",
            metadata: ["uploadId": "\(uploadId)", "key": "\(request.objectKey)"])
        return OSSCompleteMultipartUploadResult(
            eTag: head.eTag, crc64: head.crc64, location: nil, bucketName: request.bucketName,
            objectKey: request.objectKey, versionId: head.versionId, requestId: head.requestId,
            serverCallbackBody: nil, headers: head.headers)
    }
}
