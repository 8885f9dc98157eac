#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import OSSCRC64
import OSSResumable

extension OSSDownloadEffects {
    /// How many bytes a part in flight writes between two checkpoints. With four parts in flight a process killed
    /// at any moment has at most 512 KiB written but not yet checkpointed (plus what arrived while the last record
    /// was being saved).
    static let checkpointInterval: Int64 = 128 * 1024
    /// How many checkpointed bytes are handed to the kernel's writeback at once (``OSSDurableFile/startWriteback``).
    static let writebackInterval: Int64 = 1024 * 1024

    /// One ranged GET: `If-Match` pins the object version, `x-oss-range-behavior: standard` makes the range
    /// exact; the answer must be 206 with the expected `Content-Range` and exactly `part.length` bytes, which are
    /// streamed into `handle` at `fileOffset` chunk by chunk (never a whole part in memory; the chunks already
    /// buffered behind the next one are written with it, one trip off the cooperative pool for the batch) while their
    /// CRC-64 is computed. Network failures and 5xx are retried by the client pipeline, each attempt rewriting the
    /// part from its start.
    ///
    /// Every ``checkpointInterval`` bytes written (by this attempt), `checkpoint` gets the attempt's byte count
    /// and their CRC-64: the bytes are in the file (not yet synced: a resume checks unsynced claims).
    static func fetch(
        client: OSSClient, bucket: String, key: String, etag: String, versionId: String? = nil, part: OSSPart,
        fileOffset: Int64,
        handle: OSSFile, progress: (@Sendable (Int64) -> Void)? = nil, headers: [String: String] = [:],
        checkpoint: (@Sendable (_ bytes: Int64, _ crc64: UInt64) async -> Void)? = nil
    ) async throws -> UInt64 {
        var get = OSSGetObjectRequest(
            bucketName: bucket, objectKey: key, range: .closed(part.offset, part.end - 1), standardRangeBehavior: true,
            ifMatch: etag, versionId: versionId)
        get.headers = headers  // the request's headers and traffic limit
        let operation = try OSSClient.getOperation(get)
        return try await client.execute(operation) { response in
            guard response.status == 206 else {
                throw OSSClientError(
                    .exceptionCaught,
                    "GetObject \(key) answered \(response.status) to a range request for \(part); expected 206")
            }
            guard let range = response.headers["content-range"].flatMap({ OSSContentRange($0) }),
                range.start == part.offset, range.end == part.end - 1
            else {
                throw OSSClientError(
                    .exceptionCaught,
                    "GetObject \(key): Content-Range \(response.headers["content-range"] ?? "missing") does not match \(part)")
            }
            if let announced = response.headers["content-length"].flatMap({ Int64($0) }), announced != part.length {
                throw OSSClientError(
                    .exceptionCaught, "GetObject \(key): Content-Length \(announced) does not match \(part)")
            }
            var crc = CRC64()
            var received: Int64 = 0
            var checkpointed: Int64 = 0
            var writtenBack: Int64 = 0
            // The chunks that arrived while the last batch was being written go to the file with one call.
            var body = response.body.makeAsyncIterator()
            while let batch = try await body.nextBatch(upTo: OSSResponseBody.writeBatchLength) {
                let count = batch.reduce(Int64(0)) { $0 + Int64($1.count) }
                guard received + count <= part.length else {
                    throw OSSClientError(.exceptionCaught, "GetObject \(key) sent more bytes than \(part) holds")
                }
                for chunk in batch { chunk.withUnsafeBytes { crc.update($0) } }
                try await handle.write(batch, at: fileOffset + received)
                received += count
                // Each attempt starts from zero; the part's high-water mark keeps the total from going back.
                progress?(received)
                if let checkpoint, received - checkpointed >= checkpointInterval, received < part.length {
                    if received - writtenBack >= writebackInterval {
                        // Writing the bytes out now keeps the sync before the next record short.
                        await handle.startWriteback(offset: fileOffset + writtenBack, length: received - writtenBack)
                        writtenBack = received
                    }
                    checkpointed = received
                    await checkpoint(received, crc.value)
                }
            }
            guard received == part.length else {
                throw OSSClientError(.networkError, "the body of \(part) ended after \(received) of \(part.length) bytes")
            }
            return crc.value
        }
    }
}
