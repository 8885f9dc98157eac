#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging

extension OSSClient {
    /// Uploads a stream of unknown length (`AsyncSequence` of `Data`, `[UInt8]` or any `DataProtocol` chunks)
    /// as one object.
    ///
    /// The stream is cut into parts as it arrives (sizes: ``OSSStreamUploadOptions``) and uploaded with
    /// multipart, ``OSSStreamUploadOptions/concurrency`` parts at a time; memory stays at most
    /// `(concurrency + 1)` parts however long the stream. A stream no longer than one part goes as one PutObject.
    ///
    /// Each part is retried by the client's retry policy (it is in memory, so it can be sent again). With CRC
    /// checking on, each part's CRC-64 is checked against the server's, and after CompleteMultipartUpload the
    /// combined CRC-64 of all parts against the object's `x-oss-hash-crc64ecma` (from the answer, else a HEAD):
    /// a mismatch throws `.invalidCRC` (a mismatch found only after completion leaves the object as the server
    /// assembled it).
    ///
    /// On any failure before completion (a part that still fails after its retries, the stream itself throwing,
    /// a stream longer than ``OSSStreamUploadOptions/maximumLength``) and on cancellation, the parts in flight are
    /// cancelled and the multipart upload is aborted (also when cancelled: the upload cannot be resumed, so its
    /// parts would only cost storage; an abort that fails too is not reported, and
    /// ``findOrphanedUploads(bucketName:prefix:olderThan:recordDirectoryPath:)`` finds such an upload later); then
    /// the error is thrown: cancellation as `.taskCancelled`, a failure of the stream as `.fileCantRead` with the
    /// stream's error as ``OSSClientError/underlying``.
    public func uploadStream<Bytes: AsyncSequence>(
        _ bytes: Bytes, bucket: String, key: String, options: OSSStreamUploadOptions = .init()
    ) async throws -> OSSStreamUploadResult where Bytes.Element: DataProtocol {
        try options.validate()
        do {
            return try await scheduler.withTransferSlot(priority: options.priority) {
                try await uploadScheduledStream(bytes, bucket: bucket, key: key, options: options)
            }
        } catch let error as CancellationError {
            // Cancelled while waiting for the scheduler: the SDK's own error, as for any other cancellation.
            throw OSSClientError.cancelled(error)
        }
    }

    /// ``uploadStream(_:bucket:key:options:)`` once it holds its transfer slot.
    private func uploadScheduledStream<Bytes: AsyncSequence>(
        _ bytes: Bytes, bucket: String, key: String, options: OSSStreamUploadOptions
    ) async throws -> OSSStreamUploadResult where Bytes.Element: DataProtocol {
        var reader = OSSStreamPartReader(bytes.makeAsyncIterator())
        let progress = options.uploadProgress.map(OSSStreamUploadProgress.init)
        // Each part holds a part slot, charged its whole size, from before its bytes are read until it is sent.
        let firstSlot = try await scheduler.partSlot(
            priority: options.priority, bytes: Int64(options.partSize(ofPart: 1)))
        let first: (data: Data, isLast: Bool)
        do {
            first = try await reader.nextPart(size: options.partSize(ofPart: 1))
            if first.isLast {
                let result = try await putStream(first.data, bucket: bucket, key: key, options: options, progress: progress)
                firstSlot.release(succeeded: true)
                return result
            }
            if Task.isCancelled { throw OSSClientError.cancelled() }
        } catch {
            firstSlot.release(succeeded: false)
            throw error
        }
        let initiated = try await initiateMultipartUpload(
            OSSInitiateMultipartUploadRequest(
                bucketName: bucket, objectKey: key, contentType: options.contentType, metadata: options.metadata,
                headers: options.headers))
        let uploadId = initiated.uploadId
        let parts: [OSSPartInfo]
        let done: OSSCompleteMultipartUploadResult
        do {
            parts = try await uploadStreamParts(
                first: first.data, firstSlot: firstSlot, reader: &reader, bucket: bucket, key: key, uploadId: uploadId, options: options,
                progress: progress)
            var complete = OSSCompleteMultipartUploadRequest(
                bucketName: bucket, objectKey: key, uploadId: uploadId, parts: parts)
            complete.typedCallback = options.callback
            if Task.isCancelled { throw OSSClientError.cancelled() }
            done = try await completeStream(complete, parts: parts, options: options)
        } catch {
            let abort = OSSAbortMultipartUploadRequest(bucketName: bucket, objectKey: key, uploadId: uploadId)
            // Abort even when cancelled (a detached task is not): nothing can resume this upload.
            _ = try? await Task.detached { try await self.abortMultipartUpload(abort) }.value
            throw error
        }
        var crc64 = done.crc64
        if crcCheckEnabled(options.crcFlag) {
            let local = CRC64.combine(parts: parts.map { (crc: $0.crc64 ?? 0, length: UInt64($0.size)) })
            if crc64 == nil {
                // The answer had no CRC (a callback's answer may not): the object's own, if it is still this one.
                let head = try await headObject(OSSHeadObjectRequest(bucketName: bucket, objectKey: key))
                if head.eTag == done.eTag { crc64 = head.crc64 }
            }
            try verifyCRC64(
                local: local, server: crc64, enabled: true,
                what: "the \(parts.count) parts of stream upload \(key) (the object was completed)")
            crc64 = local
        }
        return OSSStreamUploadResult(
            eTag: done.eTag, crc64: crc64, totalBytes: reader.totalBytes, partCount: parts.count,
            versionId: done.versionId, requestId: done.requestId, serverCallbackBody: done.serverCallbackBody)
    }

    /// Uploads a stream of single bytes (such as `FileHandle.AsyncBytes` or `URL.AsyncBytes`), batched into
    /// chunks of up to 64 KiB; otherwise as ``uploadStream(_:bucket:key:options:)``.
    public func uploadStream<Bytes: AsyncSequence>(
        _ bytes: Bytes, bucket: String, key: String, options: OSSStreamUploadOptions = .init()
    ) async throws -> OSSStreamUploadResult where Bytes.Element == UInt8 {
        try await uploadStream(OSSByteBatches(base: bytes), bucket: bucket, key: key, options: options)
    }

    /// CompleteMultipartUpload. When its answer was lost and the retry found the upload gone (`NoSuchUpload`), the
    /// first attempt may have completed it: with CRC checking on, a HEAD that shows an object of the parts' total
    /// size and combined CRC-64 is taken as that completion; anything else rethrows `NoSuchUpload`.
    private func completeStream(
        _ complete: OSSCompleteMultipartUploadRequest, parts: [OSSPartInfo], options: OSSStreamUploadOptions
    ) async throws -> OSSCompleteMultipartUploadResult {
        do {
            return try await completeMultipartUpload(complete)
        } catch let error as OSSServerError where error.code == "NoSuchUpload" && crcCheckEnabled(options.crcFlag) {
            let size = parts.reduce(Int64(0)) { $0 + $1.size }
            let crc = CRC64.combine(parts: parts.map { (crc: $0.crc64 ?? 0, length: UInt64($0.size)) })
            let head = try await headObject(
                OSSHeadObjectRequest(bucketName: complete.bucketName, objectKey: complete.objectKey))
            guard head.contentLength == size, head.crc64 == crc, complete.typedCallback == nil else { throw error }
            configuration.logger.debug(
                "stream upload: the completion's answer was lost; the object is the parts'",
                metadata: ["key": "\(complete.objectKey)"])
            return OSSCompleteMultipartUploadResult(
                eTag: head.eTag, crc64: head.crc64, location: nil, bucketName: complete.bucketName,
                objectKey: complete.objectKey, versionId: head.versionId, requestId: head.requestId,
                serverCallbackBody: nil, headers: head.headers)
        }
    }

    /// A stream no longer than one part: one PutObject (its CRC-64 checked by ``putObject(_:)``).
    private func putStream(
        _ data: Data, bucket: String, key: String, options: OSSStreamUploadOptions, progress: OSSStreamUploadProgress?
    ) async throws -> OSSStreamUploadResult {
        var put = OSSPutObjectRequest(
            bucketName: bucket, objectKey: key, source: .data(data), contentType: options.contentType,
            metadata: options.metadata, headers: options.headers, uploadProgress: progress?.partHandler)
        put.crcFlag = options.crcFlag
        put.callback = options.callback
        let result = try await putObject(put)
        return OSSStreamUploadResult(
            eTag: result.eTag, crc64: result.crc64, totalBytes: Int64(data.count), partCount: 0,
            versionId: result.versionId, requestId: result.requestId, serverCallbackBody: result.serverCallbackBody)
    }

    /// Uploads `first` (holding `firstSlot`) and the rest of the stream as parts, at most `options.concurrency`
    /// at a time, reading the next part while they are in flight; returns the parts sorted by number, each with its
    /// checked CRC-64 when CRC checking is on.
    ///
    /// Every part takes a part slot of the client's scheduler, charged its whole size, before its bytes are read,
    /// and gives it back once it is sent: the scheduler's parts in flight and memory budget bound what the stream
    /// holds in memory, not only what it sends.
    private func uploadStreamParts<Base: AsyncIteratorProtocol>(
        first: Data, firstSlot: OSSPartSlot, reader: inout OSSStreamPartReader<Base>, bucket: String, key: String,
        uploadId: String, options: OSSStreamUploadOptions, progress: OSSStreamUploadProgress?
    ) async throws -> [OSSPartInfo] where Base.Element: DataProtocol {
        let crcEnabled = crcCheckEnabled(options.crcFlag)
        return try await withThrowingTaskGroup(of: OSSPartInfo.self) { group in
            var parts: [OSSPartInfo] = []
            var inFlight = 0
            var number = 1
            var part = (data: first, isLast: false)
            var slot = firstSlot
            while true {
                do {
                    if inFlight == options.concurrency, let done = try await group.next() {
                        parts.append(done)
                        inFlight -= 1
                    }
                    if Task.isCancelled { throw OSSClientError.cancelled() }
                } catch {
                    slot.release(succeeded: false)
                    throw error
                }
                var request = OSSUploadPartRequest(
                    bucketName: bucket, objectKey: key, uploadId: uploadId, partNumber: number,
                    source: .data(part.data), uploadProgress: progress?.partHandler)
                request.crcFlag = crcEnabled
                let upload = request
                let size = Int64(part.data.count)
                let held = slot
                group.addTask {
                    let result: OSSUploadPartResult
                    do {
                        result = try await self.uploadPart(upload)
                    } catch {
                        held.release(succeeded: false)
                        throw error
                    }
                    held.release(succeeded: true)
                    return OSSPartInfo(
                        partNumber: upload.partNumber, eTag: result.eTag, size: size,
                        crc64: crcEnabled ? result.crc64 : nil)
                }
                inFlight += 1
                if part.isLast { break }
                number += 1
                guard number <= options.partLimit else {
                    throw OSSClientError.invalidArgument(
                        "the stream is longer than \(options.maximumLength) bytes, the most \(options.partLimit) parts "
                            + "starting at \(options.partSize) bytes can hold; use a larger partSize")
                }
                part = (data: Data(), isLast: false)  // release the sent part's buffer before filling the next
                slot = try await scheduler.partSlot(
                    priority: options.priority, bytes: Int64(options.partSize(ofPart: number)))
                do {
                    part = try await reader.nextPart(size: options.partSize(ofPart: number))
                } catch {
                    slot.release(succeeded: false)
                    throw error
                }
            }
            while let done = try await group.next() { parts.append(done) }
            return parts.sorted { $0.partNumber < $1.partNumber }
        }
    }
}
