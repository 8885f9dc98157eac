#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif


extension OSSClient {
    /// AppendObject (`POST /key?append&position=n`). A wrong position is the server's 409
    /// `PositionNotEqualToLength` (its `x-oss-next-append-position` header carries the current length); appending
    /// to a Normal or Multipart object is 409 `ObjectNotAppendable`.
    ///
    /// With `crcCheckEnabled`, the CRC-64 of the bytes sent is combined with `initCRC64` (0 at position 0) and
    /// checked against the server's whole-object `x-oss-hash-crc64ecma` (mismatch: `.invalidCRC`).
    public func appendObject(_ request: OSSAppendObjectRequest) async throws -> OSSAppendObjectResult {
        guard request.appendPosition >= 0 else {
            throw OSSClientError.invalidArgument("appendPosition must not be negative, not \(request.appendPosition)")
        }
        var operation = OSSOperation(
            name: "AppendObject", method: "POST", bucket: request.bucketName, key: request.objectKey,
            query: ["append": "", "position": String(request.appendPosition)], headers: request.headers,
            uploadProgress: request.uploadProgress)
        operation.detectsStalls = true
        if request.appendPosition == 0 {
            // The object's type and metadata are set by the first append only, as in the iOS SDK.
            OSSObjectMetadata.apply(
                request.metadata, contentType: request.contentType,
                guessedFrom: [request.source.fileName, request.objectKey], to: &operation)
        } else {
            operation.setHeader("content-type", request.contentType)
            OSSObjectMetadata.apply(request.metadata, to: &operation)
        }
        let crcEnabled = crcCheckEnabled(request.crcFlag)
        let observer = try await Self.attachUploadBody(
            request.source, sendContentMD5: request.sendContentMD5, progress: request.uploadProgress,
            computeCRC: crcEnabled, to: &operation)
        let length = operation.body.length
        let previous: UInt64? = request.appendPosition == 0 ? 0 : request.initCRC64
        return try await execute(operation, observer: observer) { response in
            try await response.body.drain()
            if let previous {
                let combined = CRC64.combine(previous, observer.crc64, length2: UInt64(length))
                try verifyCRC64(
                    local: combined, server: response.crc64, enabled: crcEnabled,
                    what: "AppendObject \(request.objectKey) at \(request.appendPosition)")
            }
            guard let next = response.headers["x-oss-next-append-position"].flatMap({ Int64($0) }) else {
                throw OSSClientError(.exceptionCaught, "AppendObject response has no x-oss-next-append-position")
            }
            return OSSAppendObjectResult(
                eTag: response.eTag, xOssNextAppendPosition: next, crc64: response.crc64,
                versionId: response.headers["x-oss-version-id"], requestId: response.requestId,
                headers: response.publicHeaders)
        }
    }
}

extension OSSClient {
    /// SealAppendObject (`POST /key?seal&position=N`): the appendable object takes no more appends (and lifecycle
    /// rules may then move it to a colder class). `position` is its length (409 `PositionNotEqualToLength`
    /// otherwise); sealing again answers the first seal's time.
    public func sealAppendObject(bucketName: String, objectKey: String, position: Int64) async throws -> OSSSealAppendObjectResult {
        guard position >= 0 else { throw OSSClientError.invalidArgument("SealAppendObject: the position is not negative") }
        var operation = try OSSCall(
            OSSAPI("SealAppendObject", "POST", subresource: "seal"), bucket: bucketName, key: objectKey,
            as: OSSSealAppendObjectResult.self
        ).operation()
        operation.setQuery("position", String(position))
        return try await execute(operation) { try await OSSSealAppendObjectResult.decode($0) }
    }
}

/// The result of SealAppendObject.
public struct OSSSealAppendObjectResult: Sendable {
    /// `x-oss-sealed-time`: when the object was first sealed (`Wed, 07 May 2025 12:00:00 GMT`).
    public var sealedTime: String?
    public var requestId: String
}

extension OSSSealAppendObjectResult: OSSDeclaredResult {
    static func decode(_ response: OSSHTTPResponse) async throws -> Self {
        try await response.body.drain()
        return Self(sealedTime: response.headers["x-oss-sealed-time"], requestId: response.requestId)
    }
}
