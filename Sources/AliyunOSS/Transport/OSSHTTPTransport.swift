/// Sends one HTTP request and hands the streamed response to `handler`.
///
/// The exchange is scoped: resources (the connection, an open file for a file-range body) live until `handler`
/// returns. Implementations map their failures to ``OSSClientError``: `.networkError` for transport failures,
/// `.fileCantRead` for an unreadable body file and `.taskCancelled` for cancellation.
public protocol OSSHTTPTransport: Sendable {
    func send<Result: Sendable>(
        _ request: OSSHTTPRequest,
        handler: (OSSHTTPResponse) async throws -> Result
    ) async throws -> Result

    /// Releases the transport's resources. Further requests fail.
    func shutdown() async throws
}

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
