#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension OSSClient {
    /// TriggerCallBack (iOS `triggerCallBack:`): runs an upload callback for a stored object. The result holds the
    /// callback server's reply; a failed callback throws ``OSSServerError`` `CallbackFailed` (status 203).
    ///
    /// - Throws: ``OSSClientError`` `.invalidArgument` without callback parameters.
    public func triggerCallBack(_ request: OSSCallBackRequest) async throws -> OSSCallBackResult {
        let headers = try OSSCallbackHeaders.make(
            typed: request.callback, parameters: request.callbackParam, variables: request.callbackVar)
        guard let parameters = headers["x-oss-callback"] else {
            throw OSSClientError.invalidArgument("triggerCallBack needs callbackParam (callbackUrl, callbackBody)")
        }
        let process = "trigger/callback,callback_\(parameters),callback-var_\(headers["x-oss-callback-var"] ?? "")"
        let operation = try await Self.processOperation(
            name: "TriggerCallBack", bucket: request.bucketName, key: request.objectName, process: process)
        return try await execute(operation) { response in
            try await OSSCallback.checkCallbackFailed(response)
            let body = try await response.body.collectBytes(upTo: OSSServerError.maximumRawBodySize)
            return OSSCallBackResult(
                serverCallbackBody: Data(body), requestId: response.requestId, headers: response.publicHeaders)
        }
    }

    /// ImagePersist (iOS `imageActionPersist:`): applies an image action to `fromObject` and saves the result as
    /// `toBucket/toObject` (`sys/saveas`, its names in URL-safe Base64 as OSS documents).
    ///
    /// - Throws: ``OSSClientError`` `.invalidArgument` for an empty name or action.
    public func imageActionPersist(_ request: OSSImagePersistRequest) async throws -> OSSImagePersistResult {
        guard !request.action.isEmpty, !request.toBucket.isEmpty, !request.toObject.isEmpty else {
            throw OSSClientError.invalidArgument("imageActionPersist needs an action, toBucket and toObject")
        }
        try OSSRequestBuilder.validateBucketName(request.toBucket)
        try OSSRequestBuilder.validateObjectKey(request.toObject)
        let action = request.action.hasPrefix("image/") ? request.action : "image/" + request.action
        let process = "\(action)|sys/saveas,o_\(Self.urlSafeBase64(request.toObject)),b_\(Self.urlSafeBase64(request.toBucket))"
        let operation = try await Self.processOperation(
            name: "ImagePersist", bucket: request.fromBucket, key: request.fromObject, process: process)
        return try await execute(operation) { response in
            try await response.body.drain()
            return OSSImagePersistResult(requestId: response.requestId, headers: response.publicHeaders)
        }
    }

    /// `POST /key?x-oss-process` with the body `x-oss-process=<process>` and its `Content-MD5`.
    static func processOperation(name: String, bucket: String, key: String, process: String) async throws
        -> OSSOperation
    {
        let body = try await uploadBody(for: .data(Data("x-oss-process=\(process)".utf8)), sendContentMD5: true)
        var operation = OSSOperation(
            name: name, method: "POST", bucket: bucket, key: key, query: ["x-oss-process": ""], body: body.body)
        operation.setHeader("content-md5", body.contentMD5)
        return operation
    }

    /// Base64 with `-` and `_` and no padding (RFC 4648 §5), as `sys/saveas` takes names.
    static func urlSafeBase64(_ text: String) -> String {
        String(Data(text.utf8).base64EncodedString().compactMap { $0 == "=" ? nil : $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
    }
}
