import AliyunOSS
import Crypto
import Foundation

extension OSSEncryptionClient {
    /// Encrypts a stream of bytes as it arrives and uploads it with ``OSSClient/uploadStream(_:bucket:key:options:)``
    /// (its part sizes, concurrency, scheduler, CRC-64 checks and abort on failure): AES-CTR keeps every byte's
    /// place, so the ciphertext stream is cut into parts like any other and the object decrypts as one stream. The
    /// envelope (the wrapped data key and IV, algorithms, `matdesc`) goes with PutObject or
    /// InitiateMultipartUpload in `options.headers`; the plaintext's length and MD5 are unknown until the end, so
    /// they are not in it. The official clients read such an object like any other.
    public func uploadStream<Bytes: AsyncSequence>(
        _ bytes: Bytes, bucket: String, key: String, options: OSSStreamUploadOptions = .init()
    ) async throws -> OSSStreamUploadResult where Bytes.Element: DataProtocol {
        let contentKey = OSSContentKey.random()
        let envelope = try await makeEnvelope(contentKey)
        var options = options
        options.headers.merge(envelope.headers) { _, new in new }
        return try await client.uploadStream(
            OSSEncryptingSequence(base: bytes, stream: OSSCTRStream(contentKey)), bucket: bucket, key: key,
            options: options)
    }

    /// Streams an object's plaintext from `offset` (any byte: the read starts at the 16-byte block that holds it)
    /// with ``OSSClient/downloadStream(_:)`` (its backpressure, resume after a broken connection, `If-Match` pinning
    /// and whole-object CRC-64 check on the ciphertext). Returns once the first answer and the envelope are read, so
    /// a wrong master key or a bad envelope throws here, before any byte; a whole object (offset 0) is checked
    /// against the envelope's plaintext length and MD5 after its last byte, and a mismatch ends the iteration with
    /// ``OSSEncryptionError/plaintextMismatch(objectKey:what:)`` instead of a normal end.
    public func downloadStream(_ request: OSSDownloadStreamRequest) async throws -> OSSDecryptedObjectStream {
        guard request.offset >= 0 else {
            throw OSSClientError(.invalidArgument, "the offset must not be negative, not \(request.offset)")
        }
        var aligned = request
        aligned.offset = request.offset / Int64(OSSContentKey.blockLength) * Int64(OSSContentKey.blockLength)
        aligned.prefixCRC64 = nil
        aligned.acceptsCiphertext = true  // decrypted below
        let ciphertext = try await client.downloadStream(aligned)
        guard let envelope = try envelope(in: ciphertext.object.metadata, objectKey: request.objectKey) else {
            return OSSDecryptedObjectStream(
                ciphertext: ciphertext, stream: nil, discard: request.offset - aligned.offset, envelope: nil,
                objectKey: request.objectKey)
        }
        let contentKey = try await self.contentKey(for: envelope, objectKey: request.objectKey)
        return OSSDecryptedObjectStream(
            ciphertext: ciphertext, stream: OSSCTRStream(contentKey, offset: aligned.offset),
            discard: request.offset - aligned.offset, envelope: request.offset == 0 ? envelope : nil,
            objectKey: request.objectKey)
    }
}

/// A byte stream encrypted chunk by chunk as it is read (the chunks keep their sizes).
struct OSSEncryptingSequence<Base: AsyncSequence>: AsyncSequence where Base.Element: DataProtocol {
    typealias Element = Data
    let base: Base
    let stream: OSSCTRStream

    func makeAsyncIterator() -> Iterator { Iterator(base: base.makeAsyncIterator(), stream: stream) }

    struct Iterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        var stream: OSSCTRStream

        mutating func next() async throws -> Data? {
            guard let chunk = try await base.next() else { return nil }
            return try stream.apply(Data(chunk))
        }
    }
}

/// An encrypted object's plaintext as an `AsyncSequence` of `Data` chunks: the answer of
/// ``OSSEncryptionClient/downloadStream(_:)``. Iterate it once; treat the bytes as good only when the loop ends
/// without throwing.
public struct OSSDecryptedObjectStream: AsyncSequence, Sendable {
    public typealias Element = Data

    /// The ciphertext stream underneath (from the 16-byte block that holds the first byte asked for).
    public let ciphertext: OSSObjectStream
    let stream: OSSCTRStream?
    let discard: Int64
    /// Set only for a whole object, whose plaintext is checked against it at the end.
    let envelope: OSSEncryptionEnvelope?
    let objectKey: String

    /// The plaintext bytes the stream delivers (AES-CTR keeps the length).
    public var length: Int64 { ciphertext.length - discard }
    /// The whole object's size (the plaintext's: AES-CTR keeps the length).
    public var objectSize: Int64 { ciphertext.objectSize }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(
            base: ciphertext.makeAsyncIterator(), stream: stream, toDrop: discard, envelope: envelope,
            objectKey: objectKey)
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: OSSObjectStream.AsyncIterator
        var stream: OSSCTRStream?
        var toDrop: Int64
        let envelope: OSSEncryptionEnvelope?
        let objectKey: String
        var length: Int64 = 0
        var md5 = Insecure.MD5()
        var finished = false

        public mutating func next() async throws -> Data? {
            while !finished {
                guard let chunk = try await base.next() else {
                    finished = true
                    if let envelope {
                        let digest = envelope.unencryptedContentMD5 == nil ? nil : Data(md5.finalize())
                        try OSSEncryptionClient.verify(
                            length: length, md5: digest, envelope: envelope, objectKey: objectKey)
                    }
                    return nil
                }
                var plain = try stream?.apply(chunk) ?? chunk
                if toDrop > 0 {
                    let dropped = Int(Swift.min(toDrop, Int64(plain.count)))
                    plain = Data(plain.dropFirst(dropped))
                    toDrop -= Int64(dropped)
                }
                guard !plain.isEmpty else { continue }
                length += Int64(plain.count)
                if envelope != nil { md5.update(data: plain) }
                return plain
            }
            return nil
        }
    }
}
