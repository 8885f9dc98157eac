/// Which HTTP stack an ``OSSClient`` created from an endpoint uses.
public enum OSSTransportKind: String, Sendable, Hashable, CaseIterable {
    /// URLSession on Apple platforms, AsyncHTTPClient elsewhere.
    case automatic
    /// ``OSSURLSessionTransport``: the system's HTTP stack (proxies, VPN rules, cellular policy); on Linux through
    /// FoundationNetworking.
    case urlSession
    #if OSS_ASYNC_HTTP_CLIENT
    /// `AsyncHTTPClientTransport` (not on Apple platforms, where the SDK does not link AsyncHTTPClient).
    case asyncHTTPClient
    #endif

    /// Parses `urlsession` / `asynchttpclient` / `automatic` (case-insensitive; `ahc` is accepted too).
    public init?(name: String) {
        switch name.lowercased() {
        case "automatic", "auto", "default": self = .automatic
        case "urlsession", "url-session": self = .urlSession
        #if OSS_ASYNC_HTTP_CLIENT
        case "asynchttpclient", "async-http-client", "ahc": self = .asyncHTTPClient
        #endif
        default: return nil
        }
    }

    /// The transport this kind resolves to on this platform.
    public var resolved: OSSTransportKind {
        guard self == .automatic else { return self }
        #if OSS_ASYNC_HTTP_CLIENT
        return .asyncHTTPClient
        #else
        return .urlSession
        #endif
    }

    /// Creates the transport for a client configuration (the caller shuts it down).
    public func makeTransport(configuration: OSSClientConfiguration) -> any OSSHTTPTransport {
        switch resolved {
        case .urlSession, .automatic:
            return OSSURLSessionTransport(configuration: configuration)
        #if OSS_ASYNC_HTTP_CLIENT
        case .asyncHTTPClient:
            return AsyncHTTPClientTransport(configuration: configuration)
        #endif
        }
    }
}
