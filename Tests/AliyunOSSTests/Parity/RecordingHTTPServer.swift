import Foundation
import NIOConcurrencyHelpers
import OSSLocalServer

/// An HTTP server on 127.0.0.1 (an upload-callback receiver or an STS token service) that records what it
/// received and answers with `respond`.
final class RecordingHTTPServer: Sendable {
    let server: LocalHTTPServer
    private let received: NIOLockedValueBox<[LocalHTTPServer.Request]>

    var requests: [LocalHTTPServer.Request] { received.withLockedValue { $0 } }
    /// The server's `/callback` URL.
    var callbackURL: String { server.url.absoluteString + "/callback" }

    private init(server: LocalHTTPServer, received: NIOLockedValueBox<[LocalHTTPServer.Request]>) {
        self.server = server
        self.received = received
    }

    static func start(_ respond: @escaping @Sendable (LocalHTTPServer.Request) -> LocalHTTPServer.Response) async throws
        -> RecordingHTTPServer
    {
        let box = NIOLockedValueBox<[LocalHTTPServer.Request]>([])
        let server = try await LocalHTTPServer.start { request in
            box.withLockedValue { $0.append(request) }
            return respond(request)
        }
        return RecordingHTTPServer(server: server, received: box)
    }
}

/// Runs `body` with a started recording server and shuts it down afterwards.
func withRecordingHTTPServer<T>(
    _ respond: @escaping @Sendable (LocalHTTPServer.Request) -> LocalHTTPServer.Response = { _ in
        .init(body: Data(#"{"Status":"OK"}"#.utf8))
    },
    _ body: (RecordingHTTPServer) async throws -> T
) async throws -> T {
    let receiver = try await RecordingHTTPServer.start(respond)
    do {
        let result = try await body(receiver)
        try await receiver.server.shutdown()
        return result
    } catch {
        try? await receiver.server.shutdown()
        throw error
    }
}
