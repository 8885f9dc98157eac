
/// A request after addressing: the signable parts (method, bucket, key, decoded query, headers), the
/// URL prefix (scheme, host and encoded path) and the body. The signing layer adds the authentication headers.
struct OSSPreparedRequest: Sendable {
    var signable: OSSSignableRequest
    /// `scheme://host[:port]/encoded/path`, without the query.
    var urlWithoutQuery: String
    var body: OSSHTTPBody

    /// The final URL: the prefix plus the strictly encoded, sorted query.
    var url: String {
        let query = OSSPercentEncoding.encodeQuery(signable.query)
        return query.isEmpty ? urlWithoutQuery : urlWithoutQuery + "?" + query
    }

    func httpRequest(
        timeout: Duration?, stallTimeout: Duration?, onChunkSent: (@Sendable (UnsafeRawBufferPointer) -> Void)?
    ) -> OSSHTTPRequest {
        var request = OSSHTTPRequest(
            method: signable.method, url: url, headers: signable.headers, body: body, timeout: timeout,
            onChunkSent: onChunkSent)
        request.stallTimeout = stallTimeout
        return request
    }
}
