import NIOCore
import NIOHTTP1

/// Static website hosting (PutBucketWebsite) for anonymous GET and HEAD requests, as OSS serves them:
/// - the bucket's root (`GET /`) and a folder (`GET /dir/`) serve the index document: the folder's own
///   (`dir/index.html`) when `SupportSubDir` is true, else the root's;
/// - with `SupportSubDir`, a missing key whose folder has an index is redirected to the folder (`Type` 0, 302), or
///   served that index (`Type` 2); `Type` 1 treats it as missing;
/// - a missing key serves the error document with its `HttpStatus` (404 by default).
/// Only anonymous requests the bucket lets read get here (the ACL check comes first); signed requests and
/// requests with sub-resources are ordinary API calls.
extension RequestHandler {
    /// The website's answer to the request, or `nil` when it is an ordinary call.
    func websiteResponse(_ operation: LocalOSSOperation, context: RequestContext) async throws -> ServerResponse? {
        guard [.getObject, .headObject, .listObjects].contains(operation), isAnonymous(context),
            context.query.keys.allSatisfy({ $0.hasPrefix("response-") }), let bucket = context.bucket,
            let site = await storedConfiguration(WebsiteDocument.self, .website, bucket: bucket)
        else { return nil }
        let key = context.key ?? ""
        let index = site.index?.suffix
        let subDirectories = site.index?.supportSubDir == true
        var target = key
        if key.isEmpty || key.hasSuffix("/") {
            guard let index else { return nil }
            target = (subDirectories ? key : "") + index
        } else if !(await store.objectExists(bucket, key)), subDirectories, let index,
            await store.objectExists(bucket, key + "/" + index)
        {
            switch site.index?.type ?? 0 {
            case 0:
                var headers = HTTPHeaders()
                // Relative to the request (`docs` → `docs/`), so it holds for virtual-host and path-style URLs.
                headers.add(name: "Location", value: String(key.split(separator: "/").last ?? "") + "/")
                return ServerResponse(status: .found, headers: headers)
            case 2: target = key + "/" + index
            default: break
            }
        }
        if await store.objectExists(bucket, target) { return try await getObject(serving(target, context)) }
        guard let page = site.error, await store.objectExists(bucket, page.key) else {
            if target == key { return nil }  // the ordinary NoSuchKey
            throw LocalOSSError.noSuchKey(target)
        }
        var response = try await getObject(serving(page.key, context))
        response.status = HTTPResponseStatus(statusCode: page.status ?? 404)
        return response
    }

    private func serving(_ key: String, _ context: RequestContext) -> RequestContext {
        var context = context
        context.key = key
        context.query = context.query.filter { $0.key.hasPrefix("response-") }
        return context
    }
}
