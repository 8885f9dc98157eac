import NIOCore
import NIOHTTP1
import NIOPosix
import OSSSigning

import Foundation

/// A local, disk-backed, OSS-compatible HTTP server for development, samples and tests.
///
/// It verifies V1 and V4 signatures (headers and presigned URLs, STS tokens), stores buckets, objects and
/// multipart uploads under ``dataDirectory`` (surviving restarts), and can inject faults
/// (``LocalOSSFaultRule``) and count traffic per operation (``stats()``).
///
/// ```swift
/// try await withLocalOSSServer(.init(buckets: ["demo"])) { server in
///     // point a client at server.endpoint with server.credentials, path-style addressing
/// }
/// ```
public final class LocalOSSServer: Sendable {
    /// The base URL, e.g. `http://127.0.0.1:53211`.
    public let endpoint: URL
    /// The port actually bound.
    public let port: Int
    /// The directory holding the server's data.
    public let dataDirectory: URL
    /// The main access key pair.
    public let credentials: OSSCredentials

    private let handler: RequestHandler
    private let serverChannel: NIOAsyncChannel<NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, Never>
    private let serveTask: Task<Void, Never>
    private let deleteDataOnShutdown: Bool

    private init(
        endpoint: URL, port: Int, dataDirectory: URL, credentials: OSSCredentials, handler: RequestHandler,
        serverChannel: NIOAsyncChannel<NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, Never>,
        serveTask: Task<Void, Never>, deleteDataOnShutdown: Bool
    ) {
        self.endpoint = endpoint
        self.port = port
        self.dataDirectory = dataDirectory
        self.credentials = credentials
        self.handler = handler
        self.serverChannel = serverChannel
        self.serveTask = serveTask
        self.deleteDataOnShutdown = deleteDataOnShutdown
    }

    /// Opens (or creates) the data directory, creates the configured buckets and starts listening.
    public static func start(_ configuration: LocalOSSServerConfiguration = .init()) async throws -> LocalOSSServer {
        let dataDirectory: URL
        let temporary: Bool
        if let dir = configuration.dataDirectory {
            dataDirectory = dir
            temporary = false
        } else {
            dataDirectory = FileManager.default.temporaryDirectory
                .appendingPathComponent("oss-local-server-\(RequestID.make())", isDirectory: true)
            temporary = true
        }
        for bucket in configuration.buckets where !Router.isValidBucketName(bucket) {
            throw LocalOSSServerError("invalid bucket name '\(bucket)': use 3-63 characters of a-z, 0-9 and -")
        }
        let store: ObjectStore
        let handler: RequestHandler
        let channel: NIOAsyncChannel<NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, Never>
        do {
            store = try await ObjectStore.open(root: dataDirectory.path)
            for bucket in configuration.buckets {
                _ = try await store.createBucket(bucket, now: Date())
            }
            handler = RequestHandler(configuration: configuration, store: store)
            channel = try await HTTPListener.bind(host: configuration.host, port: configuration.port)
        } catch {
            if temporary { try? FileManager.default.removeItem(at: dataDirectory) }
            throw error
        }
        guard let boundPort = channel.channel.localAddress?.port else {
            try? await channel.channel.close()
            throw LocalOSSServerError("could not determine the bound port")
        }
        let serveTask = Task<Void, Never> {
            await HTTPListener.serveConnections(of: channel) { await handler.serve($0) }
        }
        let hostPart = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        guard let endpoint = URL(string: "http://\(hostPart):\(boundPort)") else {
            throw LocalOSSServerError("invalid host \(configuration.host)")
        }
        return LocalOSSServer(
            endpoint: endpoint, port: boundPort, dataDirectory: dataDirectory,
            credentials: OSSCredentials(
                accessKeyId: configuration.accessKeyId, accessKeySecret: configuration.accessKeySecret),
            handler: handler, serverChannel: channel, serveTask: serveTask, deleteDataOnShutdown: temporary)
    }

    /// Adds a fault rule at run time.
    public func addFault(_ rule: LocalOSSFaultRule) async {
        await handler.state.add(rule)
    }

    /// Removes every fault rule.
    public func clearFaults() async {
        await handler.state.clear()
    }

    /// The fault rules currently active.
    public func faults() async -> [LocalOSSFaultRule] {
        await handler.state.activeRules()
    }

    /// Issues temporary (STS) credentials that the server accepts until `lifetime` has passed and then refuses
    /// with 403 `SecurityTokenExpired`; also `POST /-/sts?seconds=N` on the admin endpoint.
    public func issueTemporaryCredentials(lifetime: Duration) -> LocalOSSTemporaryCredential {
        handler.issuer.issue(lifetime: lifetime)
    }

    /// The temporary credentials issued with this access key id, expired or not (for ``LocalSTSService``'s role
    /// chaining: `AssumeRole` called with them).
    public func temporaryCredential(accessKeyId: String) -> LocalOSSTemporaryCredential? {
        handler.issuer.credential(for: accessKeyId)
    }

    /// Makes every temporary credential issued so far expire now, as if its lifetime had passed: requests signed with
    /// one are refused with 403 `SecurityTokenExpired` from now on. For tests that need the expiry at a point of their
    /// choosing (after a transfer's first part) rather than after a time a loaded machine may overrun.
    public func expireTemporaryCredentials() {
        handler.issuer.expireAll()
    }

    /// Applies the buckets' lifecycle rules (of `bucket` only, when given) as OSS's daily run would at `now` (a
    /// simulated date, to see a 30-day rule act today); also `POST /-/lifecycle/run?now=…` on the admin endpoint.
    public func runLifecycle(now: Date = Date(), bucket: String? = nil) async throws -> LocalOSSLifecycleReport {
        try await handler.store.runLifecycle(now: now, only: bucket)
    }

    /// How many temporary credentials the server has issued since start.
    public var temporaryCredentialsIssued: Int { handler.issuer.count }

    /// The per-operation counters since start or the last ``resetStats()``.
    public func stats() async -> LocalOSSServerStats {
        await handler.state.snapshot()
    }

    /// Zeroes the counters, after waiting (at most 2 s) for the requests in flight to be counted: a request its
    /// client already gave up on (a cancelled or paused transfer) is counted before the reset, not after it.
    public func resetStats() async {
        await handler.state.reset()
    }

    /// Waits (at most `patience`) until every client connection has ended, and returns whether they did. After a
    /// client shut down, this is when every request it wrote has been counted, including one it gave up on after
    /// writing it: call it before ``resetStats()`` when a count must not include a previous client's requests.
    @discardableResult
    public func waitForConnectionsToEnd(patience: Duration = .seconds(5)) async -> Bool {
        await handler.state.waitForConnectionsToEnd(patience: patience)
    }

    /// Stops listening, closes open connections and, for a temporary data directory, deletes it.
    public func shutdown() async throws {
        try? await serverChannel.channel.close()
        serveTask.cancel()
        await serveTask.value
        if deleteDataOnShutdown {
            try? FileManager.default.removeItem(at: dataDirectory)
        }
    }
}

/// Starts a server, runs `body` with it and shuts it down afterwards, also when `body` throws.
public func withLocalOSSServer<T>(
    _ configuration: LocalOSSServerConfiguration = .init(),
    isolation: isolated (any Actor)? = #isolation,
    _ body: (LocalOSSServer) async throws -> T
) async throws -> T {
    let server = try await LocalOSSServer.start(configuration)
    let result: T
    do {
        result = try await body(server)
    } catch {
        try? await server.shutdown()
        throw error
    }
    try await server.shutdown()
    return result
}

/// A server start-up failure.
public struct LocalOSSServerError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public var message: String
    /// Creates an error with a message.
    public init(_ message: String) { self.message = message }
    /// `local OSS server: <message>`.
    public var description: String { "local OSS server: \(message)" }
}
