import AliyunOSS
import Foundation
import OSSLocalServer

/// Starts a local server (bucket `bkt`) configured by `configureServer`, and a V1 client for it.
func withParityServer<T: Sendable>(
    configureServer: (inout LocalOSSServerConfiguration) -> Void = { _ in },
    configureClient: (inout OSSClientConfiguration) -> Void = { _ in },
    _ body: (LocalOSSServer, OSSClient) async throws -> T
) async throws -> T {
    var serverConfiguration = LocalOSSServerConfiguration(region: "cn-hangzhou", buckets: ["bkt"])
    configureServer(&serverConfiguration)
    return try await withLocalOSSServer(serverConfiguration) { server in
        var configuration = OSSClientConfiguration(region: "cn-hangzhou")
        configuration.retry = .init(maxRetryCount: 2, baseDelay: .milliseconds(1), maxDelay: .milliseconds(5))
        // Parity tests count requests (e.g. four UploadParts): the tests' stall limit, which a loaded machine does
        // not reach, not the 5 s default that once retried a part in the loaded urlsession step.
        configuration.timeouts.stall = testClientConfiguration().timeouts.stall
        configureClient(&configuration)
        return try await withClient(of: server, server.credentials.provider, configuration, body)
    }
}

/// Parses a callback body sent as JSON.
func jsonObject(_ data: Data) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
}

/// Parses a callback body sent as `application/x-www-form-urlencoded`.
func formFields(_ data: Data) -> [String: String] {
    var fields: [String: String] = [:]
    for pair in String(decoding: data, as: UTF8.self).split(separator: "&") {
        let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        let name = String(parts[0]).removingPercentEncoding ?? String(parts[0])
        let value = parts.count > 1 ? (String(parts[1]).removingPercentEncoding ?? String(parts[1])) : ""
        fields[name] = value
    }
    return fields
}

/// A multipart upload of one part: `initiate`, `bytes` as part 1, then Complete as `configure` sets it up
/// (callbacks, headers).
@discardableResult
func uploadOnePart(
    _ client: OSSClient, _ initiate: OSSInitiateMultipartUploadRequest, bytes: Data = Data("m".utf8),
    completing configure: (inout OSSCompleteMultipartUploadRequest) -> Void = { _ in }
) async throws -> OSSCompleteMultipartUploadResult {
    let initiated = try await client.initiateMultipartUpload(initiate)
    let part = try await client.uploadPart(
        OSSUploadPartRequest(
            bucketName: initiate.bucketName, objectKey: initiate.objectKey, uploadId: initiated.uploadId, partNumber: 1,
            source: .data(bytes)))
    var complete = OSSCompleteMultipartUploadRequest(
        bucketName: initiate.bucketName, objectKey: initiate.objectKey, uploadId: initiated.uploadId,
        parts: [OSSPartInfo(partNumber: 1, eTag: part.eTag)])
    configure(&complete)
    return try await client.completeMultipartUpload(complete)
}
