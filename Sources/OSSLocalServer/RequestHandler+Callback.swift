import NIOCore
import NIOHTTP1

import Foundation

extension RequestHandler {
    /// Calls the upload callback of a stored object and builds the reply, as OSS does: the callback server's JSON
    /// answer (status 200) with the upload's headers, or 203 `CallbackFailed` (the object stays stored) when every
    /// callback URL failed, timed out, answered non-2xx or answered something that is not JSON.
    func callbackResponse(
        _ callback: CallbackRequest, headers: HTTPHeaders, context: RequestContext, bucket: String, object: ObjectRecord
    ) async throws -> ServerResponse {
        let upload = CallbackRequest.Upload(
            bucket: bucket, object: object.key, etag: object.etag, size: object.size, mimeType: object.contentType,
            crc64: object.crc64, contentMD5: object.contentMD5,
            operation: object.objectType == "Multipart" ? "CompleteMultipartUpload" : "PutObject",
            requestId: context.requestId)
        let body = callback.body(for: upload)
        var failure = "no callback URL"
        for target in callback.targets {
            try Task.checkCancellation()
            if let refusal = target.refusal {
                failure = refusal
                continue
            }
            let host = callback.hostHeader ?? (target.host.contains(":") ? "[\(target.host)]" : target.host)
            do {
                let reply = try await CallbackClient.post(
                    target, hostHeader: host, contentType: callback.bodyType, body: body, timeout: configuration.callbackTimeout)
                guard (200...299).contains(reply.status) else {
                    failure = "Error status : \(reply.status)."
                    continue
                }
                let bytes = Data(reply.body.readableBytesView)
                guard (try? JSONSerialization.jsonObject(with: bytes, options: [.fragmentsAllowed])) != nil else {
                    failure = "Response body is not valid json format."
                    continue
                }
                var response = ServerResponse(status: .ok, body: .buffer(reply.body))
                response.headers.add(name: "Content-Type", value: "application/json")
                for (name, value) in headers { response.headers.add(name: name, value: value) }
                return response
            } catch let error as CallbackClient.Failure {
                failure = "\(error)"
            }
        }
        var response = errorResponse(
            LocalOSSError(203, "CallbackFailed", failure), context: context)
        for (name, value) in headers { response.headers.replaceOrAdd(name: name, value: value) }
        return response
    }
}
