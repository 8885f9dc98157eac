/// A response whose head has arrived; the body is streamed.
public struct OSSHTTPResponse: Sendable {
    /// The HTTP status code.
    public var status: Int
    /// Header names lower-cased; repeated headers joined with `,`.
    public var headers: [String: String]
    /// The body, streamed.
    public var body: OSSResponseBody

    public init(status: Int, headers: [String: String], body: OSSResponseBody) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// `x-oss-request-id`, or the empty string.
    public var requestId: String { headers["x-oss-request-id"] ?? "" }
}
