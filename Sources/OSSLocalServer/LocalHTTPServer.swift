import NIOCore
import NIOHTTP1
import NIOPosix

import Foundation

/// A small HTTP/1.1 server on a loopback address answering with a closure: the other end of upload callbacks and a
/// stand-in STS token service in tests and demos (the local OSS server itself only calls loopback callbacks).
///
/// ```swift
/// let receiver = try await LocalHTTPServer.start { request in
///     .init(status: 200, contentType: "application/json", body: Data(#"{"ok":true}"#.utf8))
/// }
/// defer { Task { try await receiver.shutdown() } }
/// print(receiver.url)  // http://127.0.0.1:<port>
/// ```
public final class LocalHTTPServer: Sendable {
    /// A received request.
    public struct Request: Sendable {
        public var method: String
        /// The path and query.
        public var uri: String
        /// Header names lower-cased; repeated headers joined with `,`.
        public var headers: [String: String]
        public var body: Data
    }

    /// The reply to send.
    public struct Response: Sendable {
        public var status: Int
        public var contentType: String
        public var body: Data
        /// How long to wait before answering (to exercise timeouts).
        public var delay: Duration

        public init(status: Int = 200, contentType: String = "application/json", body: Data = Data(), delay: Duration = .zero) {
            self.status = status
            self.contentType = contentType
            self.body = body
            self.delay = delay
        }
    }

    public typealias Handler = @Sendable (Request) async -> Response

    /// `http://127.0.0.1:<port>`.
    public let url: URL
    public let port: Int
    private let channel: NIOAsyncChannel<NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, Never>
    private let serveTask: Task<Void, Never>

    private init(
        url: URL, port: Int, channel: NIOAsyncChannel<NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, Never>,
        serveTask: Task<Void, Never>
    ) {
        self.url = url
        self.port = port
        self.channel = channel
        self.serveTask = serveTask
    }

    /// Starts listening on `host` (a loopback address) and an ephemeral port.
    public static func start(host: String = "127.0.0.1", handler: @escaping Handler) async throws -> LocalHTTPServer {
        let channel = try await HTTPListener.bind(host: host, port: 0)
        guard let port = channel.channel.localAddress?.port, let url = URL(string: "http://\(host):\(port)") else {
            try? await channel.channel.close()
            throw LocalOSSServerError("could not determine the bound port")
        }
        let serveTask = Task<Void, Never> {
            await HTTPListener.serveConnections(of: channel) { await serve($0, handler: handler) }
        }
        return LocalHTTPServer(url: url, port: port, channel: channel, serveTask: serveTask)
    }

    private static func serve(
        _ connection: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, handler: Handler
    ) async {
        try? await connection.executeThenClose { inbound, outbound in
            var head: HTTPRequestHead?
            var body = Data()
            for try await part in inbound {
                switch part {
                case .head(let h):
                    head = h
                    body = Data()
                case .body(let chunk):
                    body.append(contentsOf: chunk.readableBytesView)
                case .end:
                    guard let h = head else { continue }
                    var headers: [String: String] = [:]
                    for (name, value) in h.headers {
                        let lower = name.lowercased()
                        headers[lower] = headers[lower].map { $0 + "," + value } ?? value
                    }
                    let response = await handler(
                        Request(method: h.method.rawValue, uri: h.uri, headers: headers, body: body))
                    if response.delay > .zero { try await Task.sleep(for: response.delay) }
                    var replyHeaders = HTTPHeaders()
                    replyHeaders.add(name: "Content-Type", value: response.contentType)
                    replyHeaders.add(name: "Content-Length", value: String(response.body.count))
                    replyHeaders.add(name: "Connection", value: "close")
                    try await outbound.write(
                        .head(HTTPResponseHead(version: .http1_1, status: .init(statusCode: response.status), headers: replyHeaders)))
                    try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: response.body))))
                    try await outbound.write(.end(nil))
                    return
                }
            }
        }
    }

    /// Stops listening and closes open connections.
    public func shutdown() async throws {
        try? await channel.channel.close()
        serveTask.cancel()
        await serveTask.value
    }
}
