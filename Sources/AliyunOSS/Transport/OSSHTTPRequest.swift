/// A fully built, signed HTTP request, as handed to an ``OSSHTTPTransport``.
public struct OSSHTTPRequest: Sendable {
    /// `GET`, `PUT`, `POST`, `DELETE` or `HEAD`.
    public var method: String
    /// The complete URL, path and query already percent-encoded.
    public var url: String
    /// Header names are lower-cased.
    public var headers: [String: String]
    public var body: OSSHTTPBody
    /// A limit on the whole exchange, if any.
    public var timeout: Duration?
    /// Called with each body chunk as it is handed to the network (for progress and CRC-64 while sending). The
    /// bytes are valid only during the call.
    public var onChunkSent: (@Sendable (UnsafeRawBufferPointer) -> Void)?
    /// When set, the request is abandoned (a retryable `.networkError`) if no bytes move in either direction for
    /// this long while it waits on the network. Set by the client for data transfers (see
    /// ``OSSClientConfiguration/Timeouts/stall``); transports need not look at it.
    public var stallTimeout: Duration?
    /// Called by a transport whose request waits for a network to appear (URLSession's `waitsForConnectivity`):
    /// that wait is not a stall. Cleared by the next bytes that move.
    var onWaitingForConnectivity: (@Sendable () -> Void)?
    /// Called when stall detection abandons the request (for the pipeline's observers).
    var onStall: (@Sendable () -> Void)?

    public init(
        method: String, url: String, headers: [String: String], body: OSSHTTPBody = .empty, timeout: Duration? = nil,
        onChunkSent: (@Sendable (UnsafeRawBufferPointer) -> Void)? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.onChunkSent = onChunkSent
    }
}
