#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OSSResumable

extension OSSUploadEffects {
    /// How a part's bytes are protected on the way to the server.
    enum PartIntegrity: Sendable {
        /// One pass: the CRC-64 of the bytes is computed as they stream out and compared (by the state machine)
        /// with the server's `x-oss-hash-crc64ecma`; a disagreement re-sends the part.
        case crc64Streamed
        /// Two passes: MD5 and CRC-64 of the range first, then the range is streamed with that `Content-MD5`, so
        /// the server itself refuses bytes that differ from the ones hashed (400 InvalidDigest).
        case contentMD5
    }

    /// The integrity mode for this run: `Content-MD5` when asked for, and whenever CRC checking is off (so a
    /// part is never sent unchecked); otherwise the single streamed pass with CRC-64.
    var partIntegrity: PartIntegrity {
        request.sendContentMD5 || settings.crcMode == .disabled ? .contentMD5 : .crc64Streamed
    }

    /// The headers sent with every UploadPart (the request's, plus its traffic limit).
    var partHeaders: [String: String] {
        (try? OSSTrafficLimit.merged(request.partHeaders, limit: request.trafficLimit)) ?? request.partHeaders
    }

    /// One UploadPart. In ``PartIntegrity/crc64Streamed`` mode the file range is read once: the bytes are hashed
    /// as they are sent, and the CRC of what was sent is returned beside the server's. In
    /// ``PartIntegrity/contentMD5`` mode a first pass computes MD5 and CRC-64 and the second sends the range with
    /// `Content-MD5`.
    static func send(
        client: OSSClient, bucket: String, key: String, uploadId: String, part: OSSPart, path: String,
        integrity: PartIntegrity, progress: (@Sendable (Int64) -> Void)? = nil, headers: [String: String] = [:]
    ) async throws -> OSSUploadStateMachine.Event {
        try Task.checkCancellation()
        var partRequest = OSSUploadPartRequest(
            bucketName: bucket, objectKey: key, uploadId: uploadId, partNumber: part.number,
            source: .fileRange(URL(fileURLWithPath: path), offset: part.offset, length: part.length),
            headers: headers)  // The request's part headers and traffic limit
        if let progress {
            // The part's own progress never runs backwards across its retries (the observer's high-water mark).
            partRequest.uploadProgress = { _, sent, _ in progress(sent) }
        }
        switch integrity {
        case .crc64Streamed:
            let sent = try await client.uploadPart(partRequest, computeCRC: true)
            return .partUploaded(
                uploadId: uploadId, number: part.number, etag: sent.result.eTag, localCRC64: sent.localCRC64,
                serverCRC64: sent.result.crc64)
        case .contentMD5:
            let digest = try await OSSFileDigest.compute(path: path, offset: part.offset, length: part.length)
            partRequest.headers["content-md5"] = digest.contentMD5
            let sent = try await client.uploadPart(partRequest, computeCRC: false)
            return .partUploaded(
                uploadId: uploadId, number: part.number, etag: sent.result.eTag, localCRC64: digest.crc64,
                serverCRC64: sent.result.crc64)
        }
    }
}
