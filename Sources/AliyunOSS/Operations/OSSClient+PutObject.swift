#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension OSSClient {
    /// PutObject: uploads `request.source` (in memory or streamed from a file) as one object.
    ///
    /// The CRC-64 of the bytes sent is checked against the server's `x-oss-hash-crc64ecma` when
    /// `crcCheckEnabled` (mismatch: `.invalidCRC`).
    public func putObject(_ request: OSSPutObjectRequest) async throws -> OSSPutObjectResult {
        var operation = OSSOperation(
            name: "PutObject", method: "PUT", bucket: request.bucketName, key: request.objectKey,
            headers: request.headers, uploadProgress: request.uploadProgress)
        operation.detectsStalls = true
        operation.isAuthenticationRequired = request.isAuthenticationRequired
        OSSObjectMetadata.apply(
            request.metadata, contentType: request.contentType, guessedFrom: [request.source.fileName, request.objectKey],
            to: &operation)
        let callback = try OSSCallbackHeaders.make(
            typed: request.callback, parameters: request.callbackParam, variables: request.callbackVar)
        for (name, value) in callback { operation.setHeader(name, value) }
        let crcEnabled = crcCheckEnabled(request.crcFlag)
        let observer = try await Self.attachUploadBody(
            request.source, sendContentMD5: request.sendContentMD5, progress: request.uploadProgress,
            computeCRC: crcEnabled, to: &operation)
        let hasCallback = operation.headers["x-oss-callback"] != nil
        return try await execute(operation, observer: observer) { response in
            try await OSSCallback.checkCallbackFailed(response)
            var callbackBody: Data?
            if hasCallback {
                callbackBody = try await response.body.collect(upTo: OSSServerError.maximumRawBodySize)
            } else {
                try await response.body.drain()
            }
            try verifyCRC64(
                local: observer.crc64, server: response.crc64, enabled: crcEnabled,
                what: "PutObject \(request.objectKey)")
            return OSSPutObjectResult(
                eTag: response.eTag, crc64: response.crc64, versionId: response.headers["x-oss-version-id"],
                requestId: response.requestId, serverCallbackBody: callbackBody, headers: response.publicHeaders)
        }
    }

    /// Sets `source` as the operation's body, with `Content-MD5` when asked, and returns the observer of its sending:
    /// the request's progress and, with `computeCRC`, the CRC-64 of the bytes sent.
    static func attachUploadBody(
        _ source: OSSUploadSource, sendContentMD5: Bool, progress: OSSProgressHandler?, computeCRC: Bool,
        to operation: inout OSSOperation
    ) async throws -> OSSUploadObserver {
        let body = try await uploadBody(for: source, sendContentMD5: sendContentMD5)
        operation.body = body.body
        operation.setHeader("content-md5", body.contentMD5)
        return OSSUploadObserver(expected: body.body.length, progress: progress, computeCRC: computeCRC)
    }

    /// Turns an upload source into a replayable body, computing `Content-MD5` when asked.
    static func uploadBody(for source: OSSUploadSource, sendContentMD5: Bool) async throws -> (
        body: OSSHTTPBody, contentMD5: String?
    ) {
        switch source {
        case .data(let data):
            return (.bytes(data), sendContentMD5 ? OSSFileDigest.contentMD5(data) : nil)
        case .file(let url):
            guard url.isFileURL else { throw OSSClientError.invalidArgument("\(url) is not a file URL") }
            let path = url.path
            let size = try await OSSFileDigest.fileSize(path: path)
            let md5 = sendContentMD5 ? try await OSSFileDigest.compute(path: path, offset: 0, length: size).contentMD5 : nil
            return (.fileRange(path: path, offset: 0, length: size), md5)
        case .fileRange(let url, let offset, let length):
            guard url.isFileURL else { throw OSSClientError.invalidArgument("\(url) is not a file URL") }
            guard offset >= 0, length >= 0, offset <= Int64.max - length else {
                throw OSSClientError.invalidArgument("a file range needs a non-negative offset and length")
            }
            let path = url.path
            let md5 =
                sendContentMD5 ? try await OSSFileDigest.compute(path: path, offset: offset, length: length).contentMD5 : nil
            return (.fileRange(path: path, offset: offset, length: length), md5)
        }
    }
}
