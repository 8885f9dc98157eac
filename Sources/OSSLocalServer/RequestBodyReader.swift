import NIOCore
import NIOHTTP1

/// Pulls the parts of the requests on one connection, in order, for the connection's task only.
///
/// Request bodies are read on demand by the handler, which lets a handler stream a body to disk, and lets the
/// server answer `Expect: 100-continue` only when the body is really wanted.
final class RequestBodyReader {
    private var iterator: NIOAsyncChannelInboundStream<HTTPServerRequestPart>.AsyncIterator
    private let outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>
    /// Whether the current request's body has been read up to its end.
    private(set) var finished = true
    /// Whether the client asked for `100 Continue` and has not been sent one yet.
    private(set) var awaitingContinue = false
    /// Body bytes of the current request read so far.
    private(set) var bytesRead: Int64 = 0
    /// When set, reading past this many body bytes drops the connection.
    var dropAfter: Int64?
    /// Whether the drop at `dropAfter` first holds the connection open, reading nothing (a stall).
    var holdBeforeDrop = false
    /// When set, one bit of the body byte at this offset is flipped as it is read (an injected fault).
    var corruptAt: Int64?
    /// When set, the body is read no faster than the request's `x-oss-traffic-limit`.
    var shaper: TrafficShaper?
    /// Whether the connection failed while a body was being read (the client went away, or NIO's HTTP parser
    /// rejected the bytes). Nothing more may be written on it: NIO's protocol error handler may already have
    /// answered `400` for a parser error, and a second response would break HTTP/1.1 framing.
    private(set) var broken = false
    /// Whether the connection ends after a complete response (the client asked for it, or the request could not be
    /// read to its end): the last bytes must reach the client before the socket closes. Not set for a dropped or
    /// broken connection, which is closed at once.
    var endsAfterCompleteResponse = false
    /// The connection's channel, for ``idleTimeout``.
    var channel: (any Channel)?
    /// When set, a body that sends nothing for this long is answered with ``idleReply`` (if any) and its connection
    /// closed: a request that never ends must not hold the server. Reset with each request head.
    var idleTimeout: TimeAmount?
    var idleReply: (head: HTTPResponseHead, body: ByteBuffer)?

    init(
        iterator: NIOAsyncChannelInboundStream<HTTPServerRequestPart>.AsyncIterator,
        outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>
    ) {
        self.iterator = iterator
        self.outbound = outbound
    }

    /// The next request head, or `nil` when the client closed the connection.
    func nextHead() async throws -> HTTPRequestHead? {
        while let part = try await iterator.next() {
            if case .head(let head) = part {
                finished = false
                bytesRead = 0
                dropAfter = nil
                holdBeforeDrop = false
                corruptAt = nil
                shaper = nil
                idleTimeout = nil
                idleReply = nil
                awaitingContinue = head.headers[canonicalForm: "expect"].contains { $0.lowercased() == "100-continue" }
                return head
            }
        }
        return nil
    }

    /// The next chunk of the current body, or `nil` at its end.
    func nextChunk() async throws -> ByteBuffer? {
        if finished { return nil }
        if awaitingContinue {
            awaitingContinue = false
            try await outbound.write(.head(HTTPResponseHead(version: .http1_1, status: .continue)))
        }
        while let part = try await nextPart() {
            switch part {
            case .head:
                throw LocalOSSError(400, "BadRequest", "unexpected request head inside a body")
            case .body(var chunk):
                if let limit = dropAfter, bytesRead + Int64(chunk.readableBytes) >= limit {
                    bytesRead = max(bytesRead, limit)
                    broken = true
                    if holdBeforeDrop { await ServerState.hold() }
                    throw DropConnection()
                }
                if chunk.readableBytes == 0 { continue }
                flipBit(in: &chunk, startingAt: bytesRead, target: corruptAt)
                bytesRead += Int64(chunk.readableBytes)
                if shaper != nil { try await shaper?.pace(toTotal: bytesRead) }
                return chunk
            case .end:
                finished = true
                return nil
            }
        }
        broken = true
        throw DropConnection()
    }

    /// The next inbound part of the current body; an inbound error marks the connection broken.
    private func nextPart() async throws -> HTTPServerRequestPart? {
        let timer = scheduleIdleTimeout()
        defer { timer?.cancel() }
        do {
            return try await iterator.next()
        } catch {
            broken = true
            throw DropConnection()
        }
    }

    /// Arms ``idleTimeout``: when it fires, the reply is written straight to the channel, which is then closed (the
    /// read waiting for the body ends, and the connection task drops the request).
    private func scheduleIdleTimeout() -> Scheduled<Void>? {
        guard let idleTimeout, let channel else { return nil }
        let reply = idleReply
        return channel.eventLoop.scheduleTask(in: idleTimeout) {
            guard let reply else { return channel.close(promise: nil) }
            channel.write(HTTPServerResponsePart.head(reply.head), promise: nil)
            channel.write(HTTPServerResponsePart.body(.byteBuffer(reply.body)), promise: nil)
            channel.writeAndFlush(HTTPServerResponsePart.end(nil)).whenComplete { _ in
                channel.close(promise: nil)
            }
        }
    }

    /// Reads and discards the rest of the current body.
    func drain() async throws {
        while try await nextChunk() != nil {}
    }

    /// Reads the whole body into memory, refusing bodies larger than `limit` (XML documents).
    func collect(limit: Int) async throws -> ByteBuffer {
        var all = ByteBuffer()
        while var chunk = try await nextChunk() {
            guard all.readableBytes + chunk.readableBytes <= limit else {
                throw LocalOSSError(400, "EntityTooLarge", "The request body is larger than \(limit) bytes.")
            }
            all.writeBuffer(&chunk)
        }
        return all
    }
}

/// Flips the lowest bit of the byte at absolute body offset `target` if `chunk` (which starts at body offset
/// `start`) holds it.
func flipBit(in chunk: inout ByteBuffer, startingAt start: Int64, target: Int64?) {
    guard let target, target >= start, target - start < Int64(chunk.readableBytes) else { return }
    let index = chunk.readerIndex + Int(target - start)
    if let byte = chunk.getInteger(at: index, as: UInt8.self) {
        chunk.setInteger(byte ^ 0x01, at: index)
    }
}
