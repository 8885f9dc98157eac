import Crypto
import NIOCore
import NIOPosix
import OSSCRC64

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

import Foundation

/// The size and digests of a body received to disk.
struct BodyDigest: Sendable {
    var size: Int64
    var md5: [UInt8]
    var crc64: UInt64
    /// Lower-case hex SHA-256 of the body, computed only when the request declared a payload hash.
    var sha256Hex: String? = nil

    var md5Hex: String { md5.map { b in (b < 16 ? "0" : "") + String(b, radix: 16, uppercase: true) }.joined() }
    var md5Base64: String { Data(md5).base64EncodedString() }
    var etag: String { "\"\(md5Hex)\"" }
}

enum BodySink {
    private struct Hashed: Sendable {
        var md5: [UInt8]
        var crc64: UInt64
        var size: Int64
        var failure: FileIO.Failure?
        var sha256Hex: String?
    }

    /// Streams the request body into the new file `path`, computing MD5 and CRC-64 on the way, then fsyncs.
    ///
    /// Two stages run concurrently: this task collects the body into 1 MiB batches while a second task hashes
    /// and writes the previous batch. At most two batches exist at a time, so memory stays bounded whatever the
    /// body size. The file is removed if anything fails.
    /// With `computeSHA256`, the body's SHA-256 is computed too (to check a V4 `x-oss-content-sha256`).
    static func receive(_ reader: RequestBodyReader, to path: String, computeSHA256: Bool = false) async throws
        -> BodyDigest
    {
        try await receive(to: path, computeSHA256: computeSHA256) { try await reader.nextChunk() }
    }

    /// ``receive(_:to:computeSHA256:)`` from any source of chunks (`next` returns `nil` at the end), e.g. the file
    /// part of a PostObject form.
    static func receive(
        to path: String, computeSHA256: Bool = false, next: () async throws -> ByteBuffer?
    ) async throws -> BodyDigest {
        let fd = try FileIO.create(path)
        let batchSize = 1 << 20
        let (batches, batchSink) = AsyncStream<ByteBuffer>.makeStream()
        let (acks, ackSink) = AsyncStream<Void>.makeStream()
        let consumer = Task<Hashed, Never> {
            var md5 = Insecure.MD5()
            var crc = CRC64()
            var sha256: SHA256? = computeSHA256 ? SHA256() : nil
            var size: Int64 = 0
            var failure: FileIO.Failure?
            for await batch in batches {
                if failure == nil {
                    batch.withUnsafeReadableBytes { raw in
                        md5.update(bufferPointer: raw)
                        crc.update(raw)
                        sha256?.update(bufferPointer: raw)
                    }
                    size += Int64(batch.readableBytes)
                    do {
                        try await ServerIO.blockingPool.runIfActive {
                            try batch.withUnsafeReadableBytes { try FileIO.writeAll(fd, $0, path: path) }
                        }
                    } catch let error as FileIO.Failure {
                        failure = error
                    } catch {
                        failure = FileIO.Failure(operation: "write", path: path, errno: EIO)
                    }
                }
                ackSink.yield()
            }
            ackSink.finish()
            let sha256Hex = sha256.map { $0.finalize().map { String(format: "%02x", $0) }.joined() }
            return Hashed(md5: Array(md5.finalize()), crc64: crc.value, size: size, failure: failure, sha256Hex: sha256Hex)
        }
        var ackIterator = acks.makeAsyncIterator()
        var outstanding = 0
        var pending = ByteBuffer()
        pending.reserveCapacity(batchSize)
        do {
            while var chunk = try await next() {
                pending.writeBuffer(&chunk)
                if pending.readableBytes >= batchSize {
                    batchSink.yield(pending)
                    pending = ByteBuffer()
                    pending.reserveCapacity(batchSize)
                    outstanding += 1
                    if outstanding >= 2 {
                        _ = await ackIterator.next()
                        outstanding -= 1
                    }
                }
            }
            if pending.readableBytes > 0 { batchSink.yield(pending) }
            batchSink.finish()
            let hashed = await consumer.value
            if let failure = hashed.failure { throw failure }
            try await ServerIO.blockingPool.runIfActive { try FileIO.sync(fd, path: path) }
            close(fd)
            return BodyDigest(size: hashed.size, md5: hashed.md5, crc64: hashed.crc64, sha256Hex: hashed.sha256Hex)
        } catch {
            batchSink.finish()
            _ = await consumer.value
            close(fd)
            FileIO.remove(path)
            throw error
        }
    }
}
