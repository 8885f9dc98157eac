import NIOCore
import NIOHTTP1

import Foundation

extension RequestHandler {
    /// `POST /key?x-oss-process` with the body `x-oss-process=<process>`:
    /// - `trigger/callback,callback_<Base64 JSON>,callback-var_<Base64 JSON>` runs the upload callback for the
    ///   stored object, as PutObject would have (its ETag, size and type fill the template), and answers with the
    ///   callback server's reply, or 203 `CallbackFailed`;
    /// - anything else (an image action saved with `sys/saveas`) is media processing, which the local server does
    ///   not do: 501 `NotImplemented`.
    func processObject(_ context: RequestContext, reader: RequestBodyReader) async throws -> ServerResponse {
        let (bucket, key) = try requireBucketAndKey(context)
        let body = try await reader.collect(limit: 64 << 10)
        try verifyContentMD5(context, body: body)
        let text = String(decoding: body.readableBytesView, as: UTF8.self)
        guard text.hasPrefix("x-oss-process=") else {
            throw LocalOSSError.invalidArgument("The body must be x-oss-process=<process>.", name: "x-oss-process")
        }
        let process = String(text.dropFirst("x-oss-process=".count))
        guard process.hasPrefix("trigger/callback,") else {
            throw LocalOSSError.notImplemented("x-oss-process (\(process.prefix(64))) is not implemented by the local server.")
        }
        var callbackContext = context
        for field in process.dropFirst("trigger/callback,".count).split(separator: ",") {
            if field.hasPrefix("callback_"), field.count > "callback_".count {
                callbackContext.headers["x-oss-callback"] = String(field.dropFirst("callback_".count))
            } else if field.hasPrefix("callback-var_"), field.count > "callback-var_".count {
                callbackContext.headers["x-oss-callback-var"] = String(field.dropFirst("callback-var_".count))
            }
        }
        guard let callback = try CallbackRequest.parse(callbackContext) else {
            throw LocalOSSError.invalidArgument("trigger/callback needs callback_<Base64 JSON>.", name: "x-oss-process")
        }
        let object = try await store.object(bucket, key)
        var headers = HTTPHeaders()
        headers.add(name: "ETag", value: object.etag)
        return try await callbackResponse(callback, headers: headers, context: context, bucket: bucket, object: object)
    }
}
