
/// Wraps a transport so that a request whose bytes stop moving is abandoned after its
/// ``OSSHTTPRequest/stallTimeout`` instead of holding its connection for the whole read timeout.
///
/// For a watched request the exchange runs in a child task that pumps the response into an ``OSSByteChannel`` of
/// ``bufferLimit`` bytes (its waits for room do not count as a stall) while a second child watches the bytes; the caller's handler
/// reads from the channel. When nothing moves in either
/// direction for the stall timeout (and the caller is not the one holding things up), the exchange is cancelled
/// (the transport closes the connection, so a retry gets a fresh one) and the caller gets a retryable
/// `.networkError`. Requests without a stall timeout go straight to the wrapped transport.
struct OSSStallDetectingTransport: OSSHTTPTransport {
    let base: any OSSHTTPTransport

    func shutdown() async throws {
        try await base.shutdown()
    }

    func send<Result: Sendable>(
        _ request: OSSHTTPRequest,
        handler: (OSSHTTPResponse) async throws -> Result
    ) async throws -> Result {
        guard let limit = request.stallTimeout else {
            return try await base.send(request, handler: handler)
        }
        let bodyLength = request.body.length
        let monitor = OSSStallMonitor(awaitingAnswer: bodyLength == 0)
        let pump = OSSByteChannel<Head>(
            limit: Self.bufferLimit, hooks: .init(paused: { monitor.pause() }, resumed: { monitor.resume() }))
        var watched = request
        let onChunkSent = request.onChunkSent
        let sent = OSSLockedValue<Int64>(0)
        watched.onChunkSent = { chunk in
            let total = sent.withLockedValue {
                $0 += Int64(chunk.count)
                return $0
            }
            if total >= bodyLength { monitor.bodySent() } else { monitor.touch() }
            onChunkSent?(chunk)
        }
        watched.onWaitingForConnectivity = { monitor.waitForConnectivity() }
        let base = self.base
        let exchange = watched
        do {
            return try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    do {
                        try await base.send(exchange) { response in
                            try await Self.deliver(response, into: pump, monitor: monitor)
                        }
                    } catch {
                        pump.fail(error)
                    }
                    monitor.stop()
                }
                group.addTask {
                    if await monitor.waitForStall(after: limit) {
                        exchange.onStall?()
                        pump.fail(OSSClientError.stalled(after: limit))
                    }
                }
                do {
                    let head = try await pump.head()
                    let response = OSSHTTPResponse(
                        status: head.status, headers: head.headers, body: OSSResponseBody(.batches({ try await pump.next(upTo: $0) })))
                    let result = try await handler(response)
                    // A body read to its end lets the exchange finish on its own (its connection goes back to the
                    // pool): wait for the first child to end (the exchange; the watchdog only ends on a stall), then
                    // stop the watchdog. A body left unread is abandoned at once.
                    if pump.isFinished { _ = try await group.next() }
                    pump.close()
                    group.cancelAll()
                    return result
                } catch {
                    pump.close()
                    group.cancelAll()
                    throw error
                }
            }
        } catch {
            throw OSSTransportErrorMapper.map(error)
        }
    }

    /// The unread response bytes a watched exchange may hold: 256 KiB, four of the 64 KiB reads the transports hand
    /// over. Enough to keep the network busy while the caller writes a batch to disk; little to lose when the
    /// process dies (what is read but not yet written is fetched again by a resume).
    static let bufferLimit = 256 << 10

    /// A response's head, as the pump hands it to the caller.
    struct Head: Sendable {
        var status: Int
        var headers: [String: String]
    }

    /// Reads `response` into `pump`: its head, then its body chunk by chunk, each a sign of life.
    private static func deliver(_ response: OSSHTTPResponse, into pump: OSSByteChannel<Head>, monitor: OSSStallMonitor)
        async throws
    {
        monitor.answered()
        pump.setHead(Head(status: response.status, headers: response.headers))
        for try await chunk in response.body {
            monitor.touch()
            try await pump.send(chunk)
        }
        pump.finish()
    }
}

extension OSSClientError {
    /// A request abandoned because no bytes moved for `limit`: a network error, so it is retried.
    static func stalled(after limit: Duration) -> OSSClientError {
        OSSClientError(
            .networkError,
            "the connection stalled: no bytes moved in either direction for \(limit); it was abandoned")
    }
}
