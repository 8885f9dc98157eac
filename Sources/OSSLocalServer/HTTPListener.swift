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
                    return try Connection(
                        wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
                }
            }
    }
}
