#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging

/// Everything an ``OSSClient`` can be tuned with. A value: copy it, change it, pass it to the client.
public struct OSSClientConfiguration: Sendable {
    /// Network timeouts.
    public struct Timeouts: Sendable, Hashable {
        /// How long establishing a connection may take.
        public var connect: Duration
        /// The longest pause allowed between two reads of the response (idle read timeout).
        public var read: Duration
        /// An optional limit on a whole request, body included; `nil` means none (large transfers can take long).
        public var request: Duration?
        /// Stall detection for data transfers (GetObject, PutObject, UploadPart, AppendObject, and the parts of
        /// resumable transfers): a request whose bytes stop moving in both directions for this long is abandoned
        /// and retried on a fresh connection, instead of holding its part for the whole ``read`` timeout. Time
        /// spent waiting on the caller (reading a body slowly) does not count. `nil` disables it. Default 5 s.
        ///
        /// Requests that legitimately wait for their answer (CompleteMultipartUpload, copies, uploads with a
        /// callback, bodies from a caller's stream) are never watched.
        public var stall: Duration?

        public init(
            connect: Duration = .seconds(10), read: Duration = .seconds(60), request: Duration? = nil,
            stall: Duration? = .seconds(5)
        ) {
            self.connect = connect
            self.read = read
            self.request = request
            self.stall = stall
        }
    }

    /// Retry policy parameters: exponential backoff with full jitter.
    public struct Retry: Sendable, Hashable {
        /// How many times a failed request is retried (0 disables retries). Default 3.
        public var maxRetryCount: Int
        /// The backoff base: attempt `n` waits a random time in `0...min(maxDelay, baseDelay * 2^n)`.
        public var baseDelay: Duration
        /// The longest wait between two attempts.
        public var maxDelay: Duration
        /// The longest wait a throttled answer can impose: a 503 or 429 naming a delay (`x-oss-qos-delay-time`
        /// in milliseconds, or `Retry-After`) is retried no sooner than that delay, capped at this. While it runs,
        /// every request of the client waits (a client-wide pause), so parallel parts do not each hit the
        /// throttled server. Default 30 s.
        public var maxServerDelay: Duration

        public init(
            maxRetryCount: Int = 3, baseDelay: Duration = .milliseconds(200), maxDelay: Duration = .seconds(20),
            maxServerDelay: Duration = .seconds(30)
        ) {
            self.maxRetryCount = max(0, maxRetryCount)
            self.baseDelay = baseDelay
            self.maxDelay = maxDelay
            self.maxServerDelay = maxServerDelay
        }
    }

    /// The bare region id (`cn-hangzhou`, not `oss-cn-hangzhou`). Required for signature V4.
    public var region: String?
    /// The signature version; `.v1` by default.
    public var signatureVersion: OSSSignatureVersion
    /// Network timeouts.
    public var timeouts: Timeouts
    /// Retry behaviour.
    public var retry: Retry
    /// The connection pool size per host: how many requests run at once.
    public var maxConcurrentRequestCount: Int
    /// How the bucket appears in URLs.
    public var addressing: OSSAddressingStyle
    /// Whether CRC-64 checksums are computed and compared with the server's `x-oss-hash-crc64ecma`. Default true.
    public var crcCheckEnabled: Bool
    /// Appended to the SDK's `User-Agent` (`aliyun-oss-swift/0.1 (OS; arch) <userAgent>`), as the iOS SDK's
    /// `userAgentMark`; `nil` sends the SDK's alone.
    public var userAgent: String?
    /// Hosts (and their subdomains) that ``OSSAddressingStyle/automatic`` treats as OSS endpoints
    /// (virtual-hosted) besides the OSS domains; any other host name is taken as a custom domain (CNAME). The iOS
    /// SDK's `cnameExcludeList`.
    public var cnameExcludeList: [String] = []
    /// An HTTP proxy for every request (the iOS `proxyHost` / `proxyPort`); `nil` uses the system's settings
    /// (URLSession) or none (AsyncHTTPClient).
    public var proxy: OSSProxy?
    /// Whether the path of the endpoint (`https://gw.example.com/oss`) is kept in every request URL, before the
    /// bucket or key: the iOS SDK's `isCustomPathPrefixEnable`, for a gateway that serves OSS under a path. The
    /// signature is unchanged (it covers `/bucket/key`). Default false: the path is dropped, as in iOS.
    public var isCustomPathPrefixEnabled = false
    /// The HTTP stack of a client created from an endpoint: `.automatic` is URLSession on Apple platforms and
    /// AsyncHTTPClient on Linux. Ignored when the client is given a transport.
    public var transport: OSSTransportKind = .automatic
    /// The limits of the client's ``OSSClient/scheduler``: transfers at once, parts in flight across them, and the
    /// memory their buffers may hold. ``OSSTransferLimits/platformDefault`` by default (small on iOS and watchOS).
    public var transferLimits: OSSTransferLimits = .platformDefault
    /// Where the client logs. Secrets, tokens and signatures are never logged; the string to sign only at `.trace`.
    public var logger: Logger
    /// Middleware run once per operation, above the retry layer (first element outermost): it sees the operation's
    /// outcome after every retry. See ``OSSMiddleware`` for the whole chain.
    public var operationMiddleware: [any OSSMiddleware] = []
    /// Middleware run once per attempt, below retry and throttling and above signing (first element outermost): a
    /// header it sets is signed; it sees each attempt's response head and error.
    public var attemptMiddleware: [any OSSMiddleware] = []
    /// Middleware run around each resumable transfer (first element outermost). See ``OSSTransferMiddleware``.
    public var transferMiddleware: [any OSSTransferMiddleware] = []
    /// Whether a transport made from this configuration adds spans of its own per HTTP request (AsyncHTTPClient's,
    /// to the process-wide tracer). Turned off by `observe(_:)` when it installs span-making middleware: the
    /// client's spans then cover each request, and one more per request would repeat them at a cost (it was most
    /// of what tracing cost a small request). A transport passed to the client keeps its own setting.
    package var transportMakesSpans = true
    /// `requester` sends `x-oss-request-payer: requester` with every request (one that sets the header itself
    /// keeps its own): the caller pays for requests and traffic to a requester-pays bucket of another account, which
    /// refuses requests without it (403 `AccessDenied`). `nil` (the default) sends nothing. The official SDKs'
    /// per-request `RequestPayer`; a single request can instead carry the header in its `headers`.
    public var requestPayer: String?

    public init(
        region: String? = nil,
        signatureVersion: OSSSignatureVersion = .v1,
        timeouts: Timeouts = Timeouts(),
        retry: Retry = Retry(),
        maxConcurrentRequestCount: Int = 8,
        addressing: OSSAddressingStyle = .automatic,
        crcCheckEnabled: Bool = true,
        userAgent: String? = nil,
        logger: Logger = Logger(label: "com.aliyun.oss", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.region = region
        self.signatureVersion = signatureVersion
        self.timeouts = timeouts
        self.retry = retry
        self.maxConcurrentRequestCount = max(1, maxConcurrentRequestCount)
        self.addressing = addressing
        self.crcCheckEnabled = crcCheckEnabled
        self.userAgent = userAgent
        self.logger = logger
    }

    /// Shorthand for `retry.maxRetryCount`.
    public var maxRetryCount: Int {
        get { retry.maxRetryCount }
        set { retry.maxRetryCount = max(0, newValue) }
    }
}

/// An HTTP proxy every request goes through: the iOS SDK's `proxyHost` / `proxyPort`. URLSession on Apple
/// platforms takes it as its `connectionProxyDictionary`, AsyncHTTPClient (the Linux default) as its proxy, which
/// tunnels every request with `CONNECT`. On Linux, FoundationNetworking's URLSession ignores it (only libcurl's
/// `http_proxy` / `https_proxy` environment applies there).
public struct OSSProxy: Sendable, Hashable {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// The `connectionProxyDictionary` of a `URLSessionConfiguration` (the CFNetwork keys, spelled out because
    /// the HTTPS ones are not exported on every platform).
    var connectionProxyDictionary: [AnyHashable: Any] {
        ["HTTPEnable": 1, "HTTPProxy": host, "HTTPPort": port, "HTTPSEnable": 1, "HTTPSProxy": host, "HTTPSPort": port]
    }
}

/// How the bucket is placed in request URLs.
public struct OSSAddressingStyle: Hashable, Sendable, CustomStringConvertible {
    enum Kind: Hashable, Sendable {
        case automatic, virtualHosted, pathStyle, cname
    }

    let kind: Kind

    /// Virtual-hosted (`https://bucket.endpoint/key`) for OSS endpoints (the OSS domains and
    /// ``OSSClientConfiguration/cnameExcludeList``), path-style for IP literals and `localhost`, and CNAME
    /// (`https://host/key`) for any other host, which is taken as a custom domain bound to the bucket (as the iOS
    /// SDK does). The default.
    public static let automatic = Self(kind: .automatic)
    /// Always `https://bucket.endpoint/key`.
    public static let virtualHosted = Self(kind: .virtualHosted)
    /// Always `https://endpoint/bucket/key`.
    public static let pathStyle = Self(kind: .pathStyle)
    /// The endpoint is a custom domain bound to one bucket: `https://cname/key`.
    public static let cname = Self(kind: .cname)

    public var description: String {
        switch kind {
        case .automatic: "automatic"
        case .virtualHosted: "virtualHosted"
        case .pathStyle: "pathStyle"
        case .cname: "cname"
        }
    }
}
