#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging

extension OSSClient {
    /// Streams an object (from ``OSSDownloadStreamRequest/offset`` to its end) as an `AsyncSequence` of `Data`
    /// chunks, in order, with backpressure.
    ///
    /// Returns once the first answer arrived, so a missing object (404), a wrong ``OSSDownloadStreamRequest/eTag``
    /// (`.objectChanged`) or an offset past the end (`.invalidArgument`) throw here; the bytes follow as the
    /// returned ``OSSObjectStream`` is iterated.
    ///
    /// - Memory: a background task reads one GetObject and stays at most ``OSSDownloadStreamRequest/bufferSize``
    ///   bytes ahead of the consumer, however slow it is (plus the transport's own buffer of about 1 MiB).
    /// - Versions: every request carries `If-Match` with the ETag of the first answer (or the one given), so a
    ///   stream never mixes two versions: an object replaced while it streams ends the iteration with
    ///   `.objectChanged` once the stream needs another request.
    /// - Failures: a network error or a 5xx in the middle of the body re-requests the remaining range (from the
    ///   byte after the last one queued for the consumer, `If-Match` the ETag) up to
    ///   ``OSSDownloadStreamRequest/maxResumeAttempts`` times in a row without progress; the consumer sees the
    ///   same bytes it would have without the failure.
    /// - Integrity: when the whole object was streamed (offset 0, or ``OSSDownloadStreamRequest/prefixCRC64``
    ///   given) and the server sent `x-oss-hash-crc64ecma`, its CRC-64 is checked after the last byte; a mismatch
    ///   ends the iteration with `.invalidCRC` instead of a normal end.
    public func downloadStream(_ request: OSSDownloadStreamRequest) async throws -> OSSObjectStream {
        try request.validate()
        let channel = OSSByteChannel<OSSObjectStreamHead>(limit: request.bufferSize)
        let producer = Task { await self.produceStream(request, into: channel) }
        let core = OSSObjectStreamCore(channel: channel, producer: producer)
        let head: OSSObjectStreamHead
        do {
            head = try await channel.head()
        } catch {
            core.cancel()
            throw OSSRetryMiddleware.publicError(error)
        }
        return OSSObjectStream(offset: request.offset, head: head, core: core, progress: request.downloadProgress)
    }

    /// Streams `bucket`/`key` from `offset`; see ``downloadStream(_:)``.
    public func downloadStream(bucket: String, key: String, from offset: Int64 = 0, eTag: String? = nil)
        async throws -> OSSObjectStream
    {
        try await downloadStream(OSSDownloadStreamRequest(bucketName: bucket, objectKey: key, offset: offset, eTag: eTag))
    }

    /// The producer: GetObject from `offset`, each chunk into the channel; after a transient failure the remaining
    /// range again, `If-Match` the first answer's ETag; then the CRC-64 verdict. Ends the channel either way.
    func produceStream(_ request: OSSDownloadStreamRequest, into channel: OSSByteChannel<OSSObjectStreamHead>) async {
        var state = OSSStreamDownloadState(offset: request.offset)
        let maxAttempts = request.maxResumeAttempts ?? configuration.retry.maxRetryCount
        var failures = 0
        var failedAt: Int64 = -1
        do {
            while state.head.map({ state.offset < $0.objectSize }) ?? true {
                do {
                    try await streamRange(request, state: &state, channel: channel)
                    guard let head = state.head, state.offset < head.objectSize else { break }
                    throw OSSClientError(
                        .networkError,
                        "the body of \(request.objectKey) ended at byte \(state.offset) of \(head.objectSize)")
                } catch {
                    let error = OSSRetryMiddleware.publicError(error)
                    if Task.isCancelled || channel.isClosed { throw OSSClientError.cancelled(error) }
                    if (error as? OSSServerError)?.statusCode == 412 {
                        throw OSSClientError(
                            .objectChanged,
                            state.head == nil
                                ? "\(request.objectKey) no longer has ETag \(request.eTag ?? "-") (412 on If-Match)"
                                : "\(request.objectKey) was replaced while it streamed (412 on If-Match \(state.head?.eTag ?? "-") at byte \(state.offset))",
                            underlying: error)
                    }
                    if state.head == nil, (error as? OSSServerError)?.statusCode == 416, request.offset > 0 {
                        try await startPastTheEnd(request, state: &state, channel: channel, error: error)
                        break
                    }
                    // Before the first answer the request was already retried by the pipeline.
                    guard state.head != nil, OSSErrorDisposition(error) == .retryable else { throw error }
                    if state.offset > failedAt { failures = 0 }
                    failedAt = state.offset
                    failures += 1
                    guard failures <= maxAttempts else { throw error }
                    configuration.logger.debug(
                        "download stream resumes after a failure",
                        metadata: ["key": "\(request.objectKey)", "offset": "\(state.offset)", "attempt": "\(failures)"])
                    if failures > 1 {
                        do {
                            try await retrying.sleeper.sleep(for: retrying.policy.delay(attempt: failures - 2))
                        } catch {
                            throw OSSClientError.cancelled(error)
                        }
                    }
                }
            }
            try verifyStreamCRC(request, state: state)
            channel.finish()
        } catch {
            channel.fail(OSSRetryMiddleware.publicError(error))
        }
    }

    /// One GetObject for the rest of the object, its bytes queued as they arrive.
    private func streamRange(
        _ request: OSSDownloadStreamRequest, state: inout OSSStreamDownloadState, channel: OSSByteChannel<OSSObjectStreamHead>
    ) async throws {
        let ranged = state.head != nil || state.offset > 0
        var get = OSSGetObjectRequest(
            bucketName: request.bucketName, objectKey: request.objectKey, range: ranged ? .from(state.offset) : nil,
            standardRangeBehavior: ranged, ifMatch: state.head?.eTag ?? request.eTag,
            // A stream that resumes after a dropped connection stays on the version it began with.
            versionId: request.versionId ?? state.head?.result.versionId, headers: request.headers)
        get.crcFlag = false
        try await withObjectStream(get) { result, body in
            if let head = state.head {
                guard result.statusCode == 206, let range = result.contentRange, range.start == state.offset,
                    range.total == head.objectSize
                else {
                    throw OSSClientError(
                        .objectChanged,
                        "the answer for bytes \(state.offset)- of \(request.objectKey) does not continue the stream "
                            + "(status \(result.statusCode), Content-Range \(result.headers["content-range"] ?? "-"))")
                }
            } else {
                let head = try Self.streamHead(result, request: request)
                state.head = head
                channel.setHead(head)
            }
            let size = state.head?.objectSize ?? 0
            for try await chunk in body where !chunk.isEmpty {
                guard Int64(chunk.count) <= size - state.offset else {
                    throw OSSClientError(
                        .exceptionCaught, "the body of \(request.objectKey) runs past its size of \(size) bytes")
                }
                chunk.withUnsafeBytes { state.crc.update($0) }
                try await channel.send(chunk)
                state.offset += Int64(chunk.count)
            }
        }
    }

    /// The head of a stream from the first answer: a 200 for the whole object, a 206 starting at the offset.
    static func streamHead(_ result: OSSGetObjectResult, request: OSSDownloadStreamRequest) throws
        -> OSSObjectStreamHead
    {
        guard let eTag = result.eTag, !eTag.isEmpty else {
            throw OSSClientError(.exceptionCaught, "GetObject \(request.objectKey) answered without an ETag")
        }
        if !request.acceptsCiphertext,
            let refusal = OSSClientError.ciphertextRefusal(
                headers: result.headers, bucket: request.bucketName, key: request.objectKey)
        {
            throw refusal
        }
        let size: Int64?
        switch result.statusCode {
        case 200 where request.offset == 0:
            size = result.contentLength
        case 206:
            size = result.contentRange.flatMap { $0.start == request.offset ? $0.total : nil }
        default:
            size = nil
        }
        guard let size else {
            throw OSSClientError(
                .exceptionCaught,
                "GetObject \(request.objectKey) from byte \(request.offset) answered status \(result.statusCode) "
                    + "without a usable size (Content-Range \(result.headers["content-range"] ?? "-"))")
        }
        var result = result
        result.contentLength = size - request.offset
        return OSSObjectStreamHead(eTag: eTag, objectSize: size, crc64: result.crc64, result: result)
    }

    /// A 416 for a stream from `offset` > 0: an empty stream when the offset is the object's end (a stream
    /// resumed after its last byte), else `.invalidArgument`.
    private func startPastTheEnd(
        _ request: OSSDownloadStreamRequest, state: inout OSSStreamDownloadState, channel: OSSByteChannel<OSSObjectStreamHead>,
        error: any Error
    ) async throws {
        let head = try await headObject(
            OSSHeadObjectRequest(
                bucketName: request.bucketName, objectKey: request.objectKey, versionId: request.versionId,
                ifMatch: request.eTag))
        guard head.contentLength == request.offset, let eTag = head.eTag else {
            throw OSSClientError(
                .invalidArgument,
                "offset \(request.offset) is past the end of \(request.objectKey) (\(head.contentLength) bytes)",
                underlying: error)
        }
        let result = OSSGetObjectResult(
            statusCode: 206, content: nil, contentLength: 0, contentRange: nil, contentType: head.contentType,
            eTag: eTag, lastModified: head.lastModified, crc64: head.crc64, receivedCRC64: nil,
            objectType: head.objectType, versionId: head.versionId, metadata: head.metadata,
            requestId: head.requestId, headers: head.headers)
        let streamHead = OSSObjectStreamHead(
            eTag: eTag, objectSize: head.contentLength, crc64: head.crc64, result: result)
        state.head = streamHead
        channel.setHead(streamHead)
    }

    /// The whole object's CRC-64, when the stream covered it (or the caller gave the prefix's) and the server
    /// sent one.
    private func verifyStreamCRC(_ request: OSSDownloadStreamRequest, state: OSSStreamDownloadState) throws {
        guard crcCheckEnabled(request.crcFlag), let head = state.head, let server = head.crc64 else { return }
        let streamed = UInt64(state.offset - request.offset)
        let whole: UInt64
        if request.offset == 0 {
            whole = state.crc.value
        } else if let prefix = request.prefixCRC64 {
            whole = CRC64.combine(prefix, state.crc.value, length2: streamed)
        } else {
            return
        }
        try verifyCRC64(local: whole, server: server, enabled: true, what: "download stream of \(request.objectKey)")
    }
}

/// Where a download stream's producer is: the object's head once known, the next byte to queue and the CRC-64 of
/// the bytes queued.
struct OSSStreamDownloadState {
    var head: OSSObjectStreamHead?
    var offset: Int64
    var crc = CRC64()

    init(offset: Int64) {
        self.offset = offset
    }
}
