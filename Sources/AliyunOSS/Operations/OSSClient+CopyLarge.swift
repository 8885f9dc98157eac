#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif


extension OSSClient {
    /// Copies an object of any size on the server side: UploadPartCopy of `partSize` ranges, `threadNum` at a
    /// time, then CompleteMultipartUpload. An object no larger than one part is copied with CopyObject.
    ///
    /// The copy keeps the source's Content-Type and metadata unless the request gives them. The result's
    /// CRC-64 is checked against the source's when `crcCheckEnabled`. On failure (or cancellation) the multipart
    /// upload is aborted, so nothing is left behind.
    ///
    /// The copy is a transfer of the client's ``OSSClient/scheduler``: it waits for a transfer slot, and each
    /// UploadPartCopy (or the one CopyObject) for a part slot, so ``OSSTransferLimits/partsInFlight`` bounds it as
    /// it bounds uploads and downloads (a server-side copy holds no client memory: its parts charge no bytes).
    public func copyLargeObject(_ request: OSSCopyLargeObjectRequest) async throws -> OSSCopyLargeObjectResult {
        guard request.partSize >= OSSCopyLargeObjectRequest.minimumPartSize else {
            throw OSSClientError.invalidArgument(
                "partSize must be at least \(OSSCopyLargeObjectRequest.minimumPartSize) bytes, not \(request.partSize)")
        }
        guard request.threadNum >= 1 else { throw OSSClientError.invalidArgument("threadNum must be at least 1") }
        do {
            return try await scheduler.withTransferSlot(priority: .normal) {
                try await copyScheduledObject(request)
            }
        } catch let error as CancellationError {
            // Cancelled while waiting for the scheduler: the SDK's own error, as for any other cancellation.
            throw OSSClientError.cancelled(error)
        }
    }

    /// ``copyLargeObject(_:)`` once it holds its transfer slot.
    private func copyScheduledObject(_ request: OSSCopyLargeObjectRequest) async throws -> OSSCopyLargeObjectResult {
        let source = try await headObject(
            OSSHeadObjectRequest(
                bucketName: request.sourceBucketName, objectKey: request.sourceObjectKey,
                versionId: request.sourceVersionId))
        let size = source.contentLength
        let partCount = size == 0 ? 1 : Int((size + request.partSize - 1) / request.partSize)
        guard partCount <= 10_000 else {
            throw OSSClientError.invalidArgument("partSize \(request.partSize) gives \(partCount) parts; OSS allows 10000")
        }
        if partCount == 1 {
            let copyRequest = OSSCopyObjectRequest(
                sourceBucketName: request.sourceBucketName, sourceObjectKey: request.sourceObjectKey,
                sourceVersionId: request.sourceVersionId, bucketName: request.bucketName, objectKey: request.objectKey,
                contentType: request.contentType, metadata: request.metadata ?? [:],
                conditions: .init(ifMatch: source.eTag), headers: request.headers)
            let copy = try await scheduler.withPartSlot(priority: .normal, bytes: 0) {
                try await copyObject(copyRequest)
            }
            try checkCopyCRC(copy.crc64, source: source.crc64, key: request.objectKey)
            return OSSCopyLargeObjectResult(
                eTag: copy.eTag, crc64: copy.crc64, partCount: 0, versionId: copy.versionId,
                sourceVersionId: copy.sourceVersionId ?? request.sourceVersionId, requestId: copy.requestId)
        }
        let initiated = try await initiateMultipartUpload(
            OSSInitiateMultipartUploadRequest(
                bucketName: request.bucketName, objectKey: request.objectKey,
                contentType: request.contentType ?? source.contentType, metadata: request.metadata ?? source.metadata,
                headers: request.headers))
        let uploadId = initiated.uploadId
        do {
            let parts = try await copyParts(
                request, uploadId: uploadId, size: size, partCount: partCount, eTag: source.eTag,
                versionId: request.sourceVersionId ?? source.versionId)
            let done = try await completeMultipartUpload(
                OSSCompleteMultipartUploadRequest(
                    bucketName: request.bucketName, objectKey: request.objectKey, uploadId: uploadId, parts: parts))
            let combined = parts.allSatisfy { $0.crc64 != nil }
                ? CRC64.combine(parts: parts.map { (crc: $0.crc64 ?? 0, length: UInt64($0.size)) }) : nil
            try checkCopyCRC(done.crc64 ?? combined, source: source.crc64, key: request.objectKey)
            return OSSCopyLargeObjectResult(
                eTag: done.eTag, crc64: done.crc64 ?? combined, partCount: parts.count, versionId: done.versionId,
                sourceVersionId: request.sourceVersionId ?? source.versionId, requestId: done.requestId)
        } catch {
            let abort = OSSAbortMultipartUploadRequest(
                bucketName: request.bucketName, objectKey: request.objectKey, uploadId: uploadId)
            // Abort even when cancelled: the copy cannot be resumed, so its parts would only cost storage.
            _ = try? await Task.detached { try await self.abortMultipartUpload(abort) }.value
            throw error
        }
    }

    /// Copies every part, at most `threadNum` at a time (and as many as the scheduler lets into flight); returns
    /// them sorted by number.
    private func copyParts(
        _ request: OSSCopyLargeObjectRequest, uploadId: String, size: Int64, partCount: Int, eTag: String?,
        versionId: String?
    ) async throws -> [OSSPartInfo] {
        try await withThrowingTaskGroup(of: OSSPartInfo.self) { group in
            var parts: [OSSPartInfo] = []
            var next = 1
            func addTask() {
                let number = next
                next += 1
                let first = Int64(number - 1) * request.partSize
                let last = min(size, first + request.partSize) - 1
                let partRequest = OSSUploadPartCopyRequest(
                    bucketName: request.bucketName, objectKey: request.objectKey, uploadId: uploadId,
                    partNumber: number, sourceBucketName: request.sourceBucketName,
                    sourceObjectKey: request.sourceObjectKey, sourceVersionId: versionId, sourceRange: first...last,
                    conditions: .init(ifMatch: eTag))
                group.addTask {
                    let copied = try await self.scheduler.withPartSlot(priority: .normal, bytes: 0) {
                        try await self.uploadPartCopy(partRequest)
                    }
                    return OSSPartInfo(
                        partNumber: number, eTag: copied.eTag, size: last - first + 1, lastModified: copied.lastModified,
                        crc64: copied.crc64)
                }
            }
            while next <= min(partCount, request.threadNum) { addTask() }
            while let part = try await group.next() {
                parts.append(part)
                if next <= partCount { addTask() }
            }
            return parts.sorted { $0.partNumber < $1.partNumber }
        }
    }

    private func checkCopyCRC(_ copy: UInt64?, source: UInt64?, key: String) throws {
        guard let copy else { return }
        try verifyCRC64(local: copy, server: source, enabled: configuration.crcCheckEnabled, what: "copy to \(key)")
    }
}
