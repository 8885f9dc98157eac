import Logging
import OSSResumable

extension OSSResumableUploadEngine {
    /// After CompleteMultipartUpload answered `NoSuchUpload`: whether the upload was in fact completed by an
    /// earlier attempt whose answer was lost (the connection dropped after the server completed it, and the
    /// retry found the upload gone).
    ///
    /// The object is adopted only when HEAD shows exactly this upload's bytes: its size is the file's size and
    /// its `x-oss-hash-crc64ecma` equals the CRC-64 combined from the parts (so this needs the parts' CRCs, which
    /// every part sent or reused by this engine has). Anything else — no object, another size or CRC, no CRC to
    /// compare, HEAD failing — returns `nil`, and the upload starts over as before.
    func completedObject(uploadId: String) async -> OSSCompleteMultipartUploadResult? {
        guard let expected = machine.expectedCRC64, let plan = machine.plan else { return nil }
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
        guard head.contentLength == plan.totalLength, head.crc64 == expected else { return nil }
        logger.info(
            "the multipart upload was already completed (its answer was lost): the object holds this file's bytes",
            metadata: ["uploadId": "\(uploadId)", "key": "\(request.objectKey)"])
        return OSSCompleteMultipartUploadResult(
            eTag: head.eTag, crc64: head.crc64, location: nil, bucketName: request.bucketName,
            objectKey: request.objectKey, versionId: head.versionId, requestId: head.requestId,
            serverCallbackBody: nil, headers: head.headers)
    }
}
