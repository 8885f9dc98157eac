import NIOCore
import NIOHTTP1
import NIOPosix

/// The listening socket both local servers use (``LocalOSSServer`` and ``LocalHTTPServer``): HTTP/1.1 with NIO's
/// protocol error handling, one `NIOAsyncChannel` per connection, outbound half-closure enabled so that a
/// connection can be ended only once its last response is written.
enum HTTPListener {
    typealias Connection = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>

    static func bind(host: String, port: Int) async throws -> NIOAsyncChannel<Connection, Never> {
        try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .bind(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    return try tearingDownOnDeinit(Connection.self, channel)
                }
            }
    }

    /// Accepts connections on `listener` until it closes or the task is cancelled, serving each one in a child task;
    /// returns once every connection has been served.
    static func serveConnections(
        of listener: NIOAsyncChannel<Connection, Never>, _ serve: @escaping @Sendable (Connection) async -> Void
    ) async {
        _ = try? await listener.executeThenClose { inbound in
            if #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) {
                await withDiscardingTaskGroup { group in
                    do {
                        for try await connection in inbound { group.addTask { await serve(connection) } }
                    } catch {}
                    group.cancelAll()
                }
            } else {
                await serveDraining(inbound, serve)
            }
        }
    }

    /// ``serveConnections(of:_:)`` before macOS 14 / iOS 17, which lack `withDiscardingTaskGroup` (the package supports
    /// macOS 13 / iOS 16): a plain task group, drained of the children that have ended before each new one is added,
    /// so that a long-running server keeps no finished tasks.
    static func serveDraining(
        _ inbound: NIOAsyncChannelInboundStream<Connection>, _ serve: @escaping @Sendable (Connection) async -> Void
    ) async {
        let ended = EndedCount()
        await withTaskGroup(of: Void.self) { group in
            do {
                for try await connection in inbound {
                    for _ in 0..<(await ended.take()) { await group.next() }
                    group.addTask {
                        await serve(connection)
                        await ended.add()
                    }
                }
            } catch {}
            group.cancelAll()
        }
    }
}

/// A connection accepted while the server shuts down can be dropped by NIO before anyone takes it from the listener's
/// stream (the stream's consumer was cancelled, or the listening channel closed before the new child's initializer
/// finished). A connection made with `init(wrappingChannelSynchronously:)` then traps ("Deinited NIOAsyncWriter
/// without calling finish()", seen as a crash of a whole test run); one that tears down on deinit is closed instead.
/// NIO deprecates that initializer only because it prefers explicit teardown, which every connection taken from the
/// stream still gets (`executeThenClose`); the protocol keeps the deprecated call out of the callers' warnings.
protocol DeinitTeardownWrapping {
    static func tearingDownOnDeinit(_ channel: any Channel) throws -> Self
}

/// Calls the requirement, not the deprecated witness.
func tearingDownOnDeinit<Wrapped: DeinitTeardownWrapping>(_: Wrapped.Type, _ channel: any Channel) throws -> Wrapped {
    try Wrapped.tearingDownOnDeinit(channel)
}

extension NIOAsyncChannel: DeinitTeardownWrapping where Inbound == HTTPServerRequestPart, Outbound == HTTPServerResponsePart {
    @available(*, deprecated, message: "deinit-based teardown, for connections NIO may drop at shutdown")
    static func tearingDownOnDeinit(_ channel: any Channel) throws -> Self {
        try Self(synchronouslyWrapping: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
    }
}

/// How many connection tasks have ended and not yet been reaped from their task group.
actor EndedCount {
    private var count = 0

    func add() { count += 1 }

    /// The count so far, which starts again from zero.
    func take() -> Int {
        defer { count = 0 }
        return count
    }
}
