#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension OSSClient {
    /// The default cap for ``getObject(_:maxBytes:)``: 64 MiB.
    public static let defaultInMemoryLimit = 64 << 20

    /// GetObject into memory, failing with `.invalidArgument` if the body is larger than `maxBytes`.
    ///
    /// For a whole-object download the CRC-64 is checked when `crcCheckEnabled` (`.invalidCRC`).
    /// A failed condition is an ``OSSServerError``: 412 `PreconditionFailed` (`ifMatch`, `ifUnmodifiedSince`)
    /// or 304 with an empty code (`ifNoneMatch`, `ifModifiedSince`). A range past the end is the whole object with
    /// status 200 by default (OSS's legacy behaviour, as in the iOS SDK), or, with `standardRangeBehavior`, truncated
    /// at the end (206) or 416 `InvalidRange` when it starts past the end.
    public func getObject(_ request: OSSGetObjectRequest, maxBytes: Int = OSSClient.defaultInMemoryLimit)
        async throws -> OSSGetObjectResult
    {
        try await receiveObject(request) { response, advance, finish in
            var data = Data()
            var crc = CRC64()
            for try await chunk in response.body {
                guard data.count + chunk.count <= maxBytes else {
                    throw OSSClientError(.invalidArgument, "the object is larger than the limit of \(maxBytes) bytes")
                }
                chunk.withUnsafeBytes { crc.update($0) }
                data.append(chunk)
                advance(Int64(chunk.count))
            }
            var result = try finish(Int64(data.count), crc.value)
            result.content = data
            return result
        }
    }

    /// GetObject streamed into a file, written atomically (temporary file, fsync, rename over `destination`).
    public func getObject(_ request: OSSGetObjectRequest, toFile destination: URL) async throws -> OSSGetObjectResult {
        try await receiveObject(request) { response, advance, finish in
            if !request.acceptsCiphertext,
                let refusal = OSSClientError.ciphertextRefusal(
                    headers: response.headers, bucket: request.bucketName, key: request.objectKey)
            {
                throw refusal
            }
            return try await OSSAtomicFile.write(to: destination.path) { handle in
                let written = try await response.body.write(to: handle, at: 0, onChunk: advance)
                return try finish(written.bytes, written.crc64)
            }
        }
    }

    /// GetObject streamed into the file at `path` starting at `offset`, without truncating it: the building
    /// block of a ranged, resumable download. The file is created if needed. The number of bytes received is
    /// checked against `Content-Length`; `result.receivedCRC64` is the CRC-64 of the bytes written.
    public func getObject(_ request: OSSGetObjectRequest, writingTo path: String, at offset: Int64) async throws
        -> OSSGetObjectResult
    {
        guard offset >= 0 else { throw OSSClientError.invalidArgument("the file offset must not be negative") }
        return try await receiveObject(request) { response, advance, finish in
            let written = try await response.body.write(toFileAt: path, offset: offset, onChunk: advance)
            return try finish(written.bytes, written.crc64)
        }
    }

    /// GetObject with `receive` reading each attempt's body. It is given the response, `advance` to report the bytes
    /// it takes (the request's progress, restarted with every attempt) and `finish`, which turns the count and
    /// CRC-64 of the bytes received into the result, checked as ``verifyDownload(result:received:crc:request:crcEnabled:)``
    /// checks it.
    private func receiveObject(
        _ request: OSSGetObjectRequest,
        _ receive: (
            _ response: OSSHTTPResponse, _ advance: @escaping (Int64) -> Void,
            _ finish: (_ received: Int64, _ crc: UInt64) throws -> OSSGetObjectResult
        ) async throws -> OSSGetObjectResult
    ) async throws -> OSSGetObjectResult {
        let operation = try Self.getOperation(request)
        let progress = OSSDownloadProgress(handler: request.downloadProgress)
        let crcEnabled = crcCheckEnabled(request.crcFlag)
        return try await execute(operation) { response in
            progress.startAttempt()
            let expected = response.contentLength ?? -1
            return try await receive(response, { progress.advance($0, expected: expected) }) { received, crc in
                var result = Self.getResult(response, request: request)
                try Self.verifyDownload(
                    result: &result, received: received, crc: crc, request: request, crcEnabled: crcEnabled)
                return result
            }
        }
    }

    /// GetObject as a stream of chunks: `body` receives the response metadata and the body as an
    /// `AsyncSequence` of `Data`, which is valid until `body` returns. Nothing is buffered beyond what
    /// the network delivers. A network failure while reading is not retried (the caller has seen the bytes).
    public func withObjectStream<Result: Sendable>(
        _ request: OSSGetObjectRequest,
        _ body: (OSSGetObjectResult, OSSResponseBody) async throws -> Result
    ) async throws -> Result {
        let operation = try Self.getOperation(request)
        return try await execute(operation, retryDecodeFailures: false) { response in
            try await body(Self.getResult(response, request: request), response.body)
        }
    }

    static func getOperation(_ request: OSSGetObjectRequest) throws -> OSSOperation {
        var operation = OSSOperation(
            name: "GetObject", method: "GET", bucket: request.bucketName, key: request.objectKey,
            query: request.parameters, headers: request.headers)
        operation.detectsStalls = true
        operation.isAuthenticationRequired = request.isAuthenticationRequired
        if let range = request.range {
            try range.validate()
            operation.setHeader("range", range.headerValue)
            if request.standardRangeBehavior {
                operation.setHeader("x-oss-range-behavior", "standard")
            }
        }
        operation.setQuery("versionId", request.versionId)
        applyConditions(
            to: &operation, ifMatch: request.ifMatch, ifNoneMatch: request.ifNoneMatch,
            ifModifiedSince: request.ifModifiedSince, ifUnmodifiedSince: request.ifUnmodifiedSince)
        return operation
    }

    static func getResult(_ response: OSSHTTPResponse, request: OSSGetObjectRequest) -> OSSGetObjectResult {
        OSSGetObjectResult(
            statusCode: response.status, content: nil, contentLength: response.contentLength,
            contentRange: response.headers["content-range"].flatMap { OSSContentRange($0) },
            contentType: response.headers["content-type"], eTag: response.eTag, lastModified: response.lastModified,
            crc64: response.crc64, receivedCRC64: nil, objectType: response.headers["x-oss-object-type"],
            versionId: response.headers["x-oss-version-id"], metadata: response.userMetadata,
            requestId: response.requestId, headers: response.publicHeaders)
    }

    /// Checks the byte count against `Content-Length` (a short body is a retryable network error) and, for a
    /// whole object (status 200), the CRC-64 against `x-oss-hash-crc64ecma`.
    static func verifyDownload(
        result: inout OSSGetObjectResult, received: Int64, crc: UInt64, request: OSSGetObjectRequest, crcEnabled: Bool
    ) throws {
        if let announced = result.contentLength, announced != received {
            throw OSSClientError(
                .networkError, "the body ended after \(received) of \(announced) bytes for \(request.objectKey)")
        }
        result.contentLength = received
        result.receivedCRC64 = crc
        if result.statusCode == 200 {
            try verifyCRC64(local: crc, server: result.crc64, enabled: crcEnabled, what: "GetObject \(request.objectKey)")
        }
    }
}
