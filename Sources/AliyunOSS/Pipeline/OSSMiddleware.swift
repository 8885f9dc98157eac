import Logging

/// One layer of the request pipeline: it sees each request on its way to the network, may change it, and calls
/// `next` to pass it on (or throws instead).
///
/// Every request of an ``OSSClient`` runs through one chain, built once per client:
///
/// ```
/// operation → request building
///   → operation middleware  (once per operation: ``OSSClientConfiguration/operationMiddleware``)
///   → retry → throttle      (built in: each attempt below runs once per try)
///   → attempt middleware    (once per attempt: ``OSSClientConfiguration/attemptMiddleware``)
///   → signing → error mapping → transport
/// ```
///
/// A middleware changes the request (``OSSMiddlewareRequest/setHeader(_:_:)``; attempt middleware runs before
/// signing, so what it adds is signed), watches the response head as it arrives
/// (``OSSMiddlewareContext/onResponse(_:)``) or the body bytes as they go out or come in
/// (``OSSMiddlewareContext/onBodyBytesSent(_:)``, ``OSSMiddlewareContext/onBodyBytesReceived(_:)``), and sees the error an attempt or an operation ends with (`next`
/// throws it). The response body itself belongs to the operation: it is streamed to its reader, never buffered.
///
/// ```swift
/// struct TenantHeader: OSSMiddleware {
///     let tenant: String
///     func handle<Result: Sendable>(
///         _ request: OSSMiddlewareRequest, context: OSSMiddlewareContext,
///         next: (OSSMiddlewareRequest, OSSMiddlewareContext) async throws -> Result
///     ) async throws -> Result {
///         var request = request
///         try request.setHeader("x-oss-meta-tenant", tenant)
///         return try await next(request, context)
///     }
/// }
/// configuration.attemptMiddleware.append(TenantHeader(tenant: "acme"))
/// ```
public protocol OSSMiddleware: Sendable {
    /// Handles one request: call `next` exactly once to pass it on (a middleware that retries may call it again
    /// after it threw), and return what it returns.
    func handle<Result: Sendable>(
        _ request: OSSMiddlewareRequest,
        context: OSSMiddlewareContext,
        next: (OSSMiddlewareRequest, OSSMiddlewareContext) async throws -> Result
    ) async throws -> Result
}

/// The request as the middleware sees it: addressed, not yet signed (attempt middleware runs before signing).
public struct OSSMiddlewareRequest: Sendable {
    var prepared: OSSPreparedRequest

    init(_ prepared: OSSPreparedRequest) {
        self.prepared = prepared
    }

    /// `GET`, `PUT`, `POST`, `DELETE` or `HEAD`.
    public var method: String { prepared.signable.method }
    /// The complete URL, path and query percent-encoded.
    public var url: String { prepared.url }
    /// The headers, names lower-cased (after signing, the authentication headers too).
    public var headers: [String: String] { prepared.signable.headers }
    /// The decoded query parameters.
    public var query: [String: String] { prepared.signable.query }
    /// The body's length in bytes (the body itself is streamed to the network as it is, never read here).
    public var bodyLength: Int64 { prepared.body.length }

    /// Sets a header (the name is lower-cased); `nil` removes it. Set before signing, an `x-oss-` header is signed.
    ///
    /// - Throws: ``OSSClientError`` `.invalidArgument` for a name or value with a line break.
    public mutating func setHeader(_ name: String, _ value: String?) throws {
        let text = name + (value ?? "")
        if text.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" }) {
            throw OSSClientError.invalidArgument("the header \(name) contains a line break")
        }
        prepared.signable[header: name.lowercased()] = value
    }
}

/// What a middleware knows about the request it handles, passed down the chain (a middleware may pass on a
/// changed copy).
public struct OSSMiddlewareContext: Sendable {
    /// The API name (e.g. `PutObject`).
    public let operation: String
    /// The bucket, or `nil` for service-level calls.
    public let bucket: String?
    /// The object key, or `nil` for bucket-level calls. Personal data in many apps: log or record it only when the
    /// app asked for it.
    public let key: String?
    /// The attempt this request is, from 1; 0 above the retry layer (operation middleware).
    public internal(set) var attempt: Int
    /// The client's logger.
    public let logger: Logger

    let isAuthenticationRequired: Bool
    /// Shared by every attempt of one operation, so that operation middleware can read how many attempts ran.
    let record: OSSOperationRecord
    var responseObservers: [@Sendable (OSSHTTPResponse) async throws -> Void] = []
    var sentObservers: [@Sendable (Int) -> Void] = []
    var receivedObservers: [@Sendable (Int) -> Void] = []
    var stallObservers: [@Sendable () -> Void] = []

    init(operation: OSSOperation, logger: Logger) {
        self.operation = operation.name
        bucket = operation.bucket
        key = operation.key
        attempt = 0
        self.logger = logger
        isAuthenticationRequired = operation.isAuthenticationRequired
        record = OSSOperationRecord()
    }

    /// How many attempts the operation has made so far (read it after `next` returns or throws, in operation
    /// middleware, to learn the retry count: attempts - 1).
    public var attemptsMade: Int { record.attempts }

    /// Calls `observe` with the head of the response to this request (every status, errors included), before the
    /// operation reads its body; what `observe` throws ends the attempt. Observers run in the order they were
    /// added, outer middleware first.
    public mutating func onResponse(_ observe: @escaping @Sendable (OSSHTTPResponse) async throws -> Void) {
        responseObservers.append(observe)
    }

    /// Calls `observe` with the size of each body chunk as it is handed to the network.
    public mutating func onBodyBytesSent(_ observe: @escaping @Sendable (Int) -> Void) {
        sentObservers.append(observe)
    }

    /// Calls `observe` with the size of each response body chunk as the operation reads it (a body left unread is
    /// not counted).
    public mutating func onBodyBytesReceived(_ observe: @escaping @Sendable (Int) -> Void) {
        receivedObservers.append(observe)
    }

    /// Calls `observe` when stall detection abandons this attempt (no bytes moved for
    /// ``OSSClientConfiguration/Timeouts/stall``).
    public mutating func onStall(_ observe: @escaping @Sendable () -> Void) {
        stallObservers.append(observe)
    }
}

/// The attempts of one operation, counted by the retry layer.
final class OSSOperationRecord: Sendable {
    private let count = OSSLockedValue(0)

    var attempts: Int { count.withLockedValue { $0 } }

    func startAttempt(_ number: Int) {
        count.withLockedValue { $0 = number }
    }
}

/// A chain of middleware built once per client; ``run(_:context:terminal:)`` sends a request through it and then
/// through `terminal` (the transport).
struct OSSMiddlewareChain: Sendable {
    let middleware: [any OSSMiddleware]

    func run<Result: Sendable>(
        _ request: OSSMiddlewareRequest, context: OSSMiddlewareContext,
        terminal: (OSSMiddlewareRequest, OSSMiddlewareContext) async throws -> Result
    ) async throws -> Result {
        try await run(request, context: context, from: 0, terminal: terminal)
    }

    private func run<Result: Sendable>(
        _ request: OSSMiddlewareRequest, context: OSSMiddlewareContext, from index: Int,
        terminal: (OSSMiddlewareRequest, OSSMiddlewareContext) async throws -> Result
    ) async throws -> Result {
        guard index < middleware.count else { return try await terminal(request, context) }
        return try await middleware[index].handle(request, context: context) { request, context in
            try await run(request, context: context, from: index + 1, terminal: terminal)
        }
    }
}
