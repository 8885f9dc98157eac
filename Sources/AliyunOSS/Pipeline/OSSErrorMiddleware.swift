/// The innermost layer: turns non-2xx responses into ``OSSServerError``, reading at most 64 KiB of the error body
/// and falling back to the Base64 `x-oss-err` header (HEAD responses have no body). Its check runs after the
/// response observers of the layers above, so they see error responses too.
struct OSSErrorMiddleware: OSSMiddleware {
    func handle<Result: Sendable>(
        _ request: OSSMiddlewareRequest, context: OSSMiddlewareContext,
        next: (OSSMiddlewareRequest, OSSMiddlewareContext) async throws -> Result
    ) async throws -> Result {
        var context = context
        let method = request.method
        context.onResponse { response in try await Self.check(response, method: method) }
        return try await next(request, context)
    }

    /// Throws for a non-2xx response; returns for a success.
    static func check(_ response: OSSHTTPResponse, method: String) async throws {
        guard !(200...299).contains(response.status) else { return }
        var body: [UInt8] = []
        if method != "HEAD" {
            body.reserveCapacity(4096)
            for try await chunk in response.body {
                let room = OSSServerError.maximumRawBodySize - body.count
                if room > 0 {
                    body.append(contentsOf: chunk.prefix(room))
                }
            }
        }
        throw OSSServerError.from(status: response.status, headers: response.headers, body: body)
    }
}
