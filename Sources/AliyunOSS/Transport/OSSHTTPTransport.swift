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
