#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging

/// The entry point to OSS: configure it once, share it freely (it is `Sendable` and immutable), and call
/// ``shutdown()`` when done, or use ``withOSSClient(endpoint:credentialProvider:configuration:_:)``.
///
/// ```swift
/// let client = try OSSClient(
///     endpoint: "https://oss-cn-hangzhou.aliyuncs.com",
///     credentialProvider: OSSEnvironmentCredentialProvider())
/// let result = try await client.putObject(OSSPutObjectRequest(bucketName: "b", objectKey: "k", data: Data("hi".utf8)))
/// try await client.shutdown()
/// ```
public final class OSSClient: Sendable {
    /// The endpoint requests go to.
    public let endpoint: OSSEndpoint
    /// The configuration the client was created with.
    public let configuration: OSSClientConfiguration
    /// Where credentials come from.
    public let credentialProvider: any OSSCredentialProvider

    let transport: any OSSHTTPTransport
    let builder: OSSRequestBuilder
    let signing: OSSSigningMiddleware
    let retrying: OSSRetryMiddleware
    /// Every request's way to the transport, built once: operation middleware, retry, throttle, attempt middleware,
    /// signing, error mapping (see ``OSSMiddleware``).
    let chain: OSSMiddlewareChain
    /// The one scheduler of every transfer this client runs: transfer slots, parts in flight and the memory of
    /// their buffers (``OSSClientConfiguration/transferLimits``), by priority; throttling slows it down.
    public let scheduler: OSSTransferScheduler
    let clock: OSSClockSkew
    var logger: Logger { configuration.logger }

    /// Creates a client with its own HTTP transport, chosen by `configuration.transport` (URLSession on Apple
    /// platforms, AsyncHTTPClient on Linux, by default).
    ///
    /// - Parameter endpoint: e.g. `https://oss-cn-hangzhou.aliyuncs.com` or `http://127.0.0.1:9000`
    ///   (`https` is assumed without a scheme).
    /// - Throws: ``OSSClientError`` `.invalidArgument` for a malformed endpoint, or a scheme-less one that is an IP
    ///   address, `localhost` or has a port other than 443 (the message suggests `http://`).
    public convenience init(
        endpoint: String,
        credentialProvider: any OSSCredentialProvider,
        configuration: OSSClientConfiguration = .init()
    ) throws {
        // Validate before creating the transport: an HTTP client must be shut down once created.
        _ = try Self.validate(endpoint: endpoint, configuration: configuration)
        try self.init(
            endpoint: endpoint, credentialProvider: credentialProvider, configuration: configuration,
            transport: configuration.transport.makeTransport(configuration: configuration))
    }

    /// Creates a client for `region` over `network` (``OSSEndpoint/init(region:network:scheme:)``, HTTPS); the
    /// configuration's region is set to it when it has none (V4 signs with it).
    public convenience init(
        region: String, network: OSSEndpoint.Network = .public,
        credentialProvider: any OSSCredentialProvider,
        configuration: OSSClientConfiguration = .init()
    ) throws {
        let endpoint = try OSSEndpoint(region: region, network: network)
        var configuration = configuration
        if configuration.region?.isEmpty ?? true {
            // The host's region part: `oss-<region>…`, or `<region>.oss…` for dual-stack.
            let id = region.trimmingCharactersInWhitespace().lowercased()
            configuration.region = id.hasPrefix("oss-") ? String(id.dropFirst(4)) : id
        }
        try self.init(endpoint: endpoint.description, credentialProvider: credentialProvider, configuration: configuration)
    }

    /// Creates a client for an endpoint URL.
    public convenience init(
        endpoint: URL,
        credentialProvider: any OSSCredentialProvider,
        configuration: OSSClientConfiguration = .init()
    ) throws {
        try self.init(endpoint: endpoint.absoluteString, credentialProvider: credentialProvider, configuration: configuration)
    }

    /// Creates a client that sends requests through `transport`.
    public convenience init(
        endpoint: String,
        credentialProvider: any OSSCredentialProvider,
        configuration: OSSClientConfiguration = .init(),
        transport: any OSSHTTPTransport
    ) throws {
        try self.init(
            endpoint: endpoint, credentialProvider: credentialProvider, configuration: configuration,
            transport: transport, sleeper: OSSTaskSleeper(), random: { Double.random(in: 0...1) }, clock: OSSClockSkew())
    }

    init(
        endpoint: String,
        credentialProvider: any OSSCredentialProvider,
        configuration: OSSClientConfiguration,
        transport: any OSSHTTPTransport,
        sleeper: any OSSSleeper,
        random: @escaping @Sendable () -> Double,
        clock: OSSClockSkew
    ) throws {
        let parsed = try Self.validate(endpoint: endpoint, configuration: configuration)
        self.endpoint = parsed
        self.configuration = configuration
        self.credentialProvider = credentialProvider
        self.transport = OSSStallDetectingTransport(base: transport)
        self.clock = clock
        builder = OSSRequestBuilder(
            endpoint: parsed, addressing: configuration.addressing,
            userAgent: OSSUserAgent.value(appending: configuration.userAgent),
            cnameExcludeList: configuration.cnameExcludeList,
            pathPrefix: configuration.isCustomPathPrefixEnabled ? parsed.path : "", requestPayer: configuration.requestPayer)
        signing = OSSSigningMiddleware(
            credentialProvider: credentialProvider, signatureVersion: configuration.signatureVersion,
            region: configuration.region, clock: clock, logger: configuration.logger)
        let scheduler = OSSTransferScheduler(limits: configuration.transferLimits)
        self.scheduler = scheduler
        let gate = OSSThrottleGate(onPause: { scheduler.noteThrottled() })
        retrying = OSSRetryMiddleware(
            policy: OSSRetryPolicy(configuration: configuration.retry, random: random), sleeper: sleeper, clock: clock,
            logger: configuration.logger, throttle: gate)
        let throttling = OSSThrottleMiddleware(
            gate: gate, sleeper: sleeper, maxServerDelay: configuration.retry.maxServerDelay)
        chain = OSSMiddlewareChain(
            middleware: configuration.operationMiddleware + [retrying, throttling] + configuration.attemptMiddleware
                + [signing, OSSErrorMiddleware()])
    }

    static func validate(endpoint: String, configuration: OSSClientConfiguration) throws -> OSSEndpoint {
        let parsed = try OSSEndpoint(endpoint)
        try OSSEndpoint.requireScheme(whereGuessFails: endpoint, parsed)
        if configuration.signatureVersion == .v4, (configuration.region ?? "").isEmpty {
            throw OSSClientError.invalidArgument("signature V4 needs configuration.region (e.g. \"cn-hangzhou\")")
        }
        return parsed
    }

    /// Releases the HTTP client. Requests made afterwards fail.
    public func shutdown() async throws {
        try await transport.shutdown()
    }

    /// Runs any OSS API call through the full pipeline (addressing, retry, signing, error mapping), for APIs
    /// this SDK does not wrap yet. `decode` receives only successful (2xx) responses.
    public func invoke<Result: Sendable>(
        _ operation: OSSOperation, decode: (OSSHTTPResponse) async throws -> Result
    ) async throws -> Result {
        try await execute(operation, decode: decode)
    }

    /// The pipeline: build the request, then run it through ``chain`` and the transport; `decode` reads the
    /// response (only 2xx ones reach it).
    ///
    /// - Parameter retryDecodeFailures: whether a network failure while `decode` reads the body may be retried
    ///   (true when `decode` can simply start over, false when it hands the stream to the caller).
    func execute<Result: Sendable>(
        _ operation: OSSOperation,
        retryDecodeFailures: Bool = true,
        observer: OSSUploadObserver? = nil,
        decode: (OSSHTTPResponse) async throws -> Result
    ) async throws -> Result {
        let prepared = try builder.build(operation)
        let observer =
            observer
            ?? operation.uploadProgress.map {
                OSSUploadObserver(expected: operation.body.length, progress: $0, computeCRC: false)
            }
        let context = OSSMiddlewareContext(operation: operation, logger: logger)
        return try await chain.run(OSSMiddlewareRequest(prepared), context: context) { request, context in
            try await self.send(
                request, context: context, operation: operation, observer: observer,
                retryDecodeFailures: retryDecodeFailures, decode: decode)
        }
    }

    /// The end of the chain: send one attempt, show the response head to the observers the middleware registered
    /// (error mapping last), decode.
    private func send<Result: Sendable>(
        _ request: OSSMiddlewareRequest,
        context: OSSMiddlewareContext,
        operation: OSSOperation,
        observer: OSSUploadObserver?,
        retryDecodeFailures: Bool,
        decode: (OSSHTTPResponse) async throws -> Result
    ) async throws -> Result {
        observer?.startAttempt()
        var onChunkSent: (@Sendable (UnsafeRawBufferPointer) -> Void)?
        let sentObservers = context.sentObservers
        if let observer, sentObservers.isEmpty {
            onChunkSent = { observer.observe($0) }
        } else if observer != nil || !sentObservers.isEmpty {
            onChunkSent = { chunk in
                observer?.observe(chunk)
                for observe in sentObservers { observe(chunk.count) }
            }
        }
        var http = request.prepared.httpRequest(
            timeout: configuration.timeouts.request, stallTimeout: stallTimeout(for: operation), onChunkSent: onChunkSent)
        let stallObservers = context.stallObservers
        if !stallObservers.isEmpty {
            http.onStall = { for observe in stallObservers { observe() } }
        }
        let logger = self.logger
        let name = operation.name
        let responseObservers = context.responseObservers
        let receivedObservers = context.receivedObservers
        logger.debug(
            "sending request",
            metadata: ["operation": "\(name)", "method": "\(operation.method)", "attempt": "\(context.attempt - 1)"])
        return try await transport.send(http) { response in
            var response = response
            if !receivedObservers.isEmpty {
                response.body = response.body.counting { count in
                    for observe in receivedObservers { observe(count) }
                }
            }
            logger.debug(
                "received response",
                metadata: ["operation": "\(name)", "status": "\(response.status)", "requestId": "\(response.requestId)"])
            for observe in responseObservers {
                try await observe(response)
            }
            do {
                return try await decode(response)
            } catch {
                // A failure reading the body arrives mapped by the transport (a network error: retried).
                if retryDecodeFailures, OSSClientError.passesThrough(error) { throw error }
                // What decode itself throws (a malformed body, a local file) is no network error: the transport
                // must not map it to one, and the retry policy must not see it.
                throw OSSNonRetryableFailure(error: OSSRetryMiddleware.publicError(error))
            }
        }
    }
}

extension OSSClient {
    /// The stall timeout of an attempt: only requests that move object data and answer promptly are watched.
    func stallTimeout(for operation: OSSOperation) -> Duration? {
        guard operation.detectsStalls, operation.headers["x-oss-callback"] == nil else { return nil }
        if case .stream = operation.body { return nil }
        return configuration.timeouts.stall
    }
}

/// Creates a client, runs `body` with it, and shuts the client down afterwards (also when `body` throws).
/// `body` runs in the caller's isolation.
public func withOSSClient<Result>(
    endpoint: String,
    credentialProvider: any OSSCredentialProvider,
    configuration: OSSClientConfiguration = .init(),
    isolation: isolated (any Actor)? = #isolation,
    _ body: (OSSClient) async throws -> Result
) async throws -> Result {
    let client = try OSSClient(endpoint: endpoint, credentialProvider: credentialProvider, configuration: configuration)
    let result: Result
    do {
        result = try await body(client)
    } catch {
        try? await client.shutdown()
        throw error
    }
    try await client.shutdown()
    return result
}

/// Creates a client for an endpoint URL, runs `body` with it, and shuts the client down afterwards.
public func withOSSClient<Result>(
    endpoint: URL,
    credentialProvider: any OSSCredentialProvider,
    configuration: OSSClientConfiguration = .init(),
    isolation: isolated (any Actor)? = #isolation,
    _ body: (OSSClient) async throws -> Result
) async throws -> Result {
    try await withOSSClient(
        endpoint: endpoint.absoluteString, credentialProvider: credentialProvider, configuration: configuration,
        isolation: isolation, body)
}
