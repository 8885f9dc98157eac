import Logging
import NIOCore
import NIOHTTP1
import OSSSigning
import _NIOFileSystem

import Foundation

/// Serves connections: decodes each request, applies faults, authenticates, dispatches and writes the reply.
final class RequestHandler: Sendable {
    let configuration: LocalOSSServerConfiguration
    let store: ObjectStore
    let state: ServerState
    let authenticator: RequestAuthenticator
    /// Temporary credentials issued by `POST /-/sts` or ``LocalOSSServer/issueTemporaryCredentials(lifetime:)``.
    let issuer: TemporaryCredentialIssuer

    init(configuration: LocalOSSServerConfiguration, store: ObjectStore) {
        self.configuration = configuration
        self.store = store
        self.state = ServerState(faults: configuration.faults)
        let issuer = TemporaryCredentialIssuer()
        self.issuer = issuer
        self.authenticator = RequestAuthenticator(configuration: configuration, issuer: issuer)
    }

    /// Handles the requests of one connection sequentially until it closes.
    func serve(_ connection: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>) async {
        await state.connectionOpened()
        try? await connection.executeThenClose { inbound, outbound in
            let reader = RequestBodyReader(iterator: inbound.makeAsyncIterator(), outbound: outbound)
            let peer = connection.channel.remoteAddress?.ipAddress
            reader.channel = connection.channel
            while let head = try await reader.nextHead() {
                let keepAlive = await handle(head: head, peer: peer, reader: reader, outbound: outbound)
                if !keepAlive || Task.isCancelled { break }
            }
            if reader.endsAfterCompleteResponse && !Task.isCancelled {
                await Self.lingeringClose(connection.channel, outbound: outbound)
            }
        }
        await state.connectionClosed()
    }

    /// Closes a connection without losing the end of the last response: closing a NIO channel discards the writes
    /// still queued (a large body to a slow reader would be cut short). The output is half-closed once every queued
    /// byte is written (the channel is configured with outbound half-closure), then the client, which was told
    /// `Connection: close`, closes its side; after 5 s the channel is closed regardless.
    static func lingeringClose(
        _ channel: any Channel, outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>
    ) async {
        outbound.finish()
        let deadline = channel.eventLoop.scheduleTask(in: .seconds(5)) { channel.close(promise: nil) }
        try? await channel.closeFuture.get()
        deadline.cancel()
    }

    /// Handles one request; returns whether the connection may serve another one.
    private func handle(
        head: HTTPRequestHead, peer: String?, reader: RequestBodyReader, outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>
    ) async -> Bool {
        let head = Self.originForm(head)
        let requestId = RequestID.make()
        var context: RequestContext
        let operation: LocalOSSOperation?
        var response: ServerResponse
        var responseDrop: Int64?
        var responseCorrupt: Int64?
        var responseHold = false
        do {
            context = try decode(head: head, requestId: requestId)
            context = await cnameBucket(context)
            context.sourceIp = peer
            if configuration.adminEnabled, isAdminPath(head.uri) {
                response = try await handleAdmin(context, reader: reader)
                return await finish(
                    response, context: context, operation: nil, reader: reader, outbound: outbound, responseDrop: nil)
            }
            operation = try Router.operation(for: context)
        } catch let error as LocalOSSError {
            let fallback = RequestContext(
                head: head, method: head.method.rawValue, bucket: nil, key: nil, query: [:], headers: [:],
                requestId: requestId, now: Date(), hostId: hostId(head))
            return await finish(
                errorResponse(error, context: fallback), context: fallback, operation: nil, reader: reader,
                outbound: outbound, responseDrop: nil)
        } catch {
            return false
        }
        guard let operation else {
            return await finish(
                errorResponse(.notImplemented("This operation is not implemented by the local server."), context: context),
                context: context, operation: nil, reader: reader, outbound: outbound, responseDrop: nil)
        }

        let outcome = await state.begin(operation)
        if outcome.delayMilliseconds > 0 {
            do {
                // Capped at one hour so that no rule can overflow the sleep duration.
                let milliseconds = UInt64(max(0, min(outcome.delayMilliseconds, 3_600_000)))
                try await Task.sleep(nanoseconds: milliseconds * 1_000_000)
            } catch {
                await state.finish(operation, requestBytes: 0, responseBytes: 0)
                return false
            }
        }
        if outcome.clockSkewSeconds != 0 {
            context.now = context.now.addingTimeInterval(TimeInterval(outcome.clockSkewSeconds))
        }
        if let drop = outcome.dropAfter {
            if context.hasBody {
                reader.dropAfter = drop
                reader.holdBeforeDrop = outcome.holdBeforeDrop
            } else {
                responseDrop = drop
                responseHold = outcome.holdBeforeDrop
            }
            if drop == 0 && !context.hasBody {
                await state.finish(operation, requestBytes: 0, responseBytes: 0)
                if outcome.holdBeforeDrop { await ServerState.hold() }
                return false
            }
        }
        if let corrupt = outcome.corruptAt {
            if context.hasBody { reader.corruptAt = corrupt } else { responseCorrupt = corrupt }
        }
        do {
            if let throttle = outcome.throttle {
                try await reader.drain()
                throw LocalOSSError.throttled(milliseconds: throttle.milliseconds, code: throttle.code)
            }
            if let (requested, code) = outcome.status {
                let status = (300...599).contains(requested) ? requested : 500
                try await reader.drain()
                throw LocalOSSError(
                    status, code ?? LocalOSSError.defaultCode(forStatus: status),
                    "Injected fault (HTTP \(status)) by the local server.")
            }
            context.caller = try await authorize(operation, context: context)
            if context.hasBody, let limit = try TrafficShaper.limit(of: context) {
                reader.shaper = TrafficShaper(bitsPerSecond: limit)
            }
            response = try await dispatch(operation, context: context, reader: reader)
            if let shaper = reader.shaper, reader.finished, shaper.bytes > 0 {
                await state.recordTrafficLimited(shaper, request: true)
            }
        } catch let error as LocalOSSError {
            response = errorResponse(error, context: context)
        } catch is DropConnection {
            await state.finish(operation, requestBytes: reader.bytesRead, responseBytes: 0)
            return false
        } catch {
            response = errorResponse(.internalError("\(error)"), context: context)
        }
        if operation != .optionObject { response = await withCORSHeaders(response, context: context) }
        if outcome.blackHole {
            // The request took effect; its answer never comes, and the connection stays open and silent.
            await state.finish(operation, requestBytes: reader.bytesRead, responseBytes: 0)
            await ServerState.hold()
            return false
        }
        if outcome.dropReply {
            // The request took effect; only its answer is lost.
            await state.finish(operation, requestBytes: reader.bytesRead, responseBytes: 0)
            return false
        }
        return await finish(
            response, context: context, operation: operation, reader: reader, outbound: outbound,
            responseDrop: responseDrop, responseCorrupt: responseCorrupt, responseHold: responseHold)
    }

    /// Adds the common headers, settles the request body and writes the response.
    private func finish(
        _ response: ServerResponse, context: RequestContext, operation: LocalOSSOperation?, reader: RequestBodyReader,
        outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>, responseDrop: Int64?,
        responseCorrupt: Int64? = nil, responseHold: Bool = false
    ) async -> Bool {
        var response = response
        var keepAlive = context.head.isKeepAlive
        if !reader.finished {
            if reader.awaitingContinue {
                keepAlive = false  // the client has not sent the body; do not read it
            } else {
                do { try await reader.drain() } catch { keepAlive = false }
            }
        }
        if reader.broken {
            if let operation { await state.finish(operation, requestBytes: reader.bytesRead, responseBytes: 0) }
            logRequest(context, status: response.status, bytes: 0, dropped: true)
            return false
        }
        let isHead = context.head.method == .HEAD
        // Open the data file before replying: data files are never rewritten, only replaced, so an open file is
        // exactly the version the headers describe. If the object was replaced in between, ask for a retry.
        var fileHandles: [ReadFileHandle] = []
        if !isHead, let segments = response.body.fileSegments {
            do {
                for segment in segments where segment.length > 0 {
                    fileHandles.append(try await FileSystem.shared.openFile(forReadingAt: FilePath(segment.path)))
                }
            } catch {
                for handle in fileHandles { try? await handle.close() }
                fileHandles = []
                response = errorResponse(
                    LocalOSSError(503, "ServiceUnavailable", "The object was replaced while it was being read; retry."),
                    context: context)
            }
        }
        response.headers.replaceOrAdd(name: "x-oss-request-id", value: context.requestId)
        response.headers.replaceOrAdd(name: "Date", value: OSSDateFormat.rfc1123(context.now))
        response.headers.replaceOrAdd(name: "Server", value: "AliyunOSS")
        if response.status != .noContent && response.status != .notModified && !response.gzip {
            response.headers.replaceOrAdd(name: "Content-Length", value: String(response.bodyLength))
        }
        if !keepAlive { response.headers.replaceOrAdd(name: "Connection", value: "close") }
        // Counted before the reply is written, so a client that has read the reply always sees it counted.
        if let operation {
            let planned = isHead ? 0 : min(response.bodyLength, responseDrop ?? Int64.max)
            await state.finish(operation, requestBytes: reader.bytesRead, responseBytes: planned)
        }
        var dropped = false
        var shaper = operation == .getObject ? (try? TrafficShaper.limit(of: context)).flatMap(TrafficShaper.init) : nil
        do {
            try await outbound.write(.head(HTTPResponseHead(version: .http1_1, status: response.status, headers: response.headers)))
            if !isHead {
                dropped = try await writeBody(
                    response.body, files: fileHandles, limit: responseDrop, corruptAt: responseCorrupt, shaper: &shaper,
                    gzip: response.gzip, outbound: outbound, operation: operation)
            }
            if !dropped { try await outbound.write(.end(nil)) }
            if dropped && responseHold { await ServerState.hold() }
        } catch {
            dropped = true
        }
        // Closed from a task of their own: in a cancelled task (server shutdown) close() would throw without closing,
        // and an unclosed handle is a fatal error.
        let openHandles = fileHandles
        if !openHandles.isEmpty { await Task { for handle in openHandles { try? await handle.close() } }.value }
        logRequest(context, status: response.status, bytes: isHead ? 0 : response.bodyLength, dropped: dropped)
        if !keepAlive && !dropped { reader.endsAfterCompleteResponse = true }
        return keepAlive && !dropped
    }

    /// Writes a body (a file body from the already opened `files`, one per non-empty segment), stopping after
    /// `limit` bytes. Returns whether the body was cut short, in which case the caller closes the connection. With
    /// `gzip`, a file body goes out gzip-encoded (`limit`, `corruptAt` and the shaper count the object's bytes).
    private func writeBody(
        _ body: ServerResponse.Body, files: [ReadFileHandle], limit: Int64?, corruptAt: Int64?,
        shaper: inout TrafficShaper?, gzip: Bool, outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>,
        operation: LocalOSSOperation?
    ) async throws -> Bool {
        /// Writes one piece of the body and counts it as written.
        func write(_ piece: ByteBuffer) async throws {
            guard piece.readableBytes > 0 else { return }
            try await outbound.write(.body(.byteBuffer(piece)))
            if let operation { await state.written(operation, bytes: Int64(piece.readableBytes)) }
        }
        switch body {
        case .empty:
            return limit != nil
        case .buffer(var buffer):
            flipBit(in: &buffer, startingAt: 0, target: corruptAt)
            if let limit, Int64(buffer.readableBytes) >= limit {
                try await write(buffer.readSlice(length: Int(limit)) ?? ByteBuffer())
                return true
            }
            try await write(buffer)
            return false
        case .file, .segments:
            var encoder = gzip ? GzipEncoder() : nil
            /// Writes one piece of the object, encoded if the reply is gzip-encoded.
            func send(_ piece: ByteBuffer) async throws {
                guard var gzip = encoder else { return try await write(piece) }
                let encoded = gzip.encode(piece)
                encoder = gzip
                try await write(encoded)
            }
            let segments = (body.fileSegments ?? []).filter { $0.length > 0 }
            if segments.isEmpty {
                if var encoder { try await write(encoder.finish()) }
                return limit != nil
            }
            guard files.count == segments.count else { throw LocalOSSError.internalError("the data file is not open") }
            var sent: Int64 = 0
            let total = segments.reduce(Int64(0)) { $0 + $1.length }
            let chunkLength: ByteCount = shaper == nil ? .mebibytes(1) : .bytes(Int64(TrafficShaper.chunkLength))
            for (segment, file) in zip(segments, files) {
                var segmentSent: Int64 = 0
                let range = segment.offset..<(segment.offset + segment.length)
                for try await var chunk in file.readChunks(in: range, chunkLength: chunkLength) {
                    try await shaper?.pace(toTotal: sent + Int64(chunk.readableBytes))
                    if let shaper, sent + Int64(chunk.readableBytes) == total {
                        await state.recordTrafficLimited(shaper)  // before the last bytes, so a client that has them sees it
                    }
                    flipBit(in: &chunk, startingAt: sent, target: corruptAt)
                    if let limit, sent + Int64(chunk.readableBytes) >= limit {
                        try await send(chunk.readSlice(length: Int(limit - sent)) ?? ByteBuffer())
                        return true
                    }
                    sent += Int64(chunk.readableBytes)
                    segmentSent += Int64(chunk.readableBytes)
                    try await send(chunk)
                }
                if segmentSent < segment.length {
                    throw LocalOSSError.internalError("the data file is shorter than recorded")
                }
            }
            if var encoder { try await write(encoder.finish()) }
            return false
        }
    }

    /// One log line per request. The query is left out: presigned URLs carry signatures and security tokens there.
    private func logRequest(_ context: RequestContext, status: HTTPResponseStatus, bytes: Int64, dropped: Bool) {
        let level = configuration.requestLogLevel
        guard configuration.logger.logLevel <= level else { return }
        let uri = context.head.uri
        let path = uri.firstIndex(of: "?").map { String(uri[..<$0]) } ?? uri
        configuration.logger.log(
            level: level, "\(context.head.method.rawValue) \(path) \(status.code)",
            metadata: [
                "method": "\(context.head.method.rawValue)", "path": "\(path)", "status": "\(status.code)",
                "bytes": "\(bytes)", "request-id": "\(context.requestId)",
                "dropped": "\(dropped)",
            ])
    }

    /// An OSS `<Error>` reply; for HEAD the XML goes Base64-encoded into `x-oss-err`.
    func errorResponse(_ error: LocalOSSError, context: RequestContext) -> ServerResponse {
        let xml = error.xml(requestId: context.requestId, hostId: context.hostId)
        var response = ServerResponse.xml(xml, status: HTTPResponseStatus(statusCode: error.status))
        response.headers.add(name: "x-oss-ec", value: error.ec)
        for (name, value) in error.headers { response.headers.replaceOrAdd(name: name, value: value) }
        if context.head.method == .HEAD {
            response.headers.add(name: "x-oss-err", value: Data(xml.utf8).base64EncodedString())
        }
        if error.status == 304 { response.body = .empty; response.headers.remove(name: "Content-Type") }
        return response
    }

    /// A request target in absolute form (`http://host[:port]/path?query`, as a client sends it to a proxy; HTTP/1.1
    /// servers must accept it, RFC 9112 section 3.2.2) in origin form (`/path?query`), its authority becoming the
    /// `Host` header (which the authority overrides). Any other target is returned as it is.
    static func originForm(_ head: HTTPRequestHead) -> HTTPRequestHead {
        let uri = head.uri
        let scheme = uri.prefix(8).lowercased()
        let schemeLength = scheme.hasPrefix("http://") ? 7 : scheme.hasPrefix("https://") ? 8 : 0
        guard schemeLength > 0 else { return head }
        let rest = uri.dropFirst(schemeLength)
        let end = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        var authority = rest[..<end]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        var target = rest[end...]
        if let fragment = target.firstIndex(of: "#") { target = target[..<fragment] }
        var result = head
        result.uri = target.hasPrefix("/") ? String(target) : "/" + target
        if !authority.isEmpty { result.headers.replaceOrAdd(name: "Host", value: String(authority)) }
        return result
    }

    func hostId(_ head: HTTPRequestHead) -> String {
        head.headers.first(name: "host") ?? configuration.host
    }
}
