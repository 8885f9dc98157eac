import Foundation
import AliyunOSS
import Crypto
import OSSCRC64

/// Client-side encryption over an ``OSSClient``, in the envelope format of the official Go, Python and Java
/// encryption clients (each reads what the other writes): every object gets a random AES-256 data key and IV, its
/// bytes travel and rest in AES-256-CTR, and the data key and IV travel wrapped by the master key in
/// `x-oss-meta-client-side-encryption-*` headers.
///
/// Reads pick the master cipher by the object's material description (`matdesc`) among ``decryptionCiphers``, else
/// use ``masterCipher``. CRC-64 is checked on the bytes that travel (the ciphertext, as OSS computes it); the plaintext
/// is checked against the envelope's unencrypted length and MD5 whenever a whole object is read and they are there.
public struct OSSEncryptionClient: Sendable {
    /// The client that sends the (encrypted) requests.
    public let client: OSSClient
    /// Wraps the data key of every object written; unwraps when no decryption cipher matches an object's `matdesc`.
    public let masterCipher: any OSSMasterCipher
    /// Further master ciphers for reading, chosen by the object's `matdesc`.
    public let decryptionCiphers: [any OSSMasterCipher]
    /// Whether an object without an envelope is returned as is (`false`: such a read throws
    /// ``OSSEncryptionError/notEncrypted(objectKey:)``, so a missing envelope never passes for decrypted data).
    public let readsUnencryptedObjects: Bool
    /// Called when a resumable transfer's record (``uploadFile(_:bucketName:objectKey:partSize:recordURL:metadata:contentType:threadNum:partUploaded:recordNotice:)``,
    /// ``downloadFile(bucketName:objectKey:to:partSize:recordURL:threadNum:partDownloaded:recordNotice:)``, and so
    /// the batches this client carries) is there but cannot be read, unless the call passes a handler of its own.
    public var recordNotice: (@Sendable (OSSRecordNotice) -> Void)?

    public init(
        client: OSSClient, masterCipher: any OSSMasterCipher, decryptionCiphers: [any OSSMasterCipher] = [],
        readsUnencryptedObjects: Bool = false
    ) {
        self.client = client
        self.masterCipher = masterCipher
        self.decryptionCiphers = decryptionCiphers
        self.readsUnencryptedObjects = readsUnencryptedObjects
    }

    // MARK: PutObject

    /// Encrypts and uploads one object. The envelope records the plaintext's length and MD5, which reads check.
    /// A `.file` source is encrypted into a temporary file beside the system's temporary directory first (the
    /// plaintext never leaves the device); `request.metadata` and `request.headers` are kept.
    public func putObject(_ request: OSSPutObjectRequest) async throws -> OSSPutObjectResult {
        let contentKey = OSSContentKey.random()
        var encrypted = request
        switch request.source {
        case .data(let data):
            var stream = OSSCTRStream(contentKey)
            let envelope = try await makeEnvelope(
                contentKey, plaintextLength: Int64(data.count), plaintextMD5: Data(Insecure.MD5.hash(data: data)))
            encrypted.source = .data(try stream.apply(data))
            encrypted.headers.merge(envelope.headers) { _, new in new }
            return try await client.putObject(encrypted)
        case .file(let url):
            return try await putFile(request, url: url, offset: 0, length: nil, contentKey: contentKey)
        case .fileRange(let url, let offset, let length):
            return try await putFile(request, url: url, offset: offset, length: length, contentKey: contentKey)
        }
    }

    private func putFile(
        _ request: OSSPutObjectRequest, url: URL, offset: Int64, length: Int64?, contentKey: OSSContentKey
    ) async throws -> OSSPutObjectResult {
        let temporary = OSSEncryptedFile.temporaryURL()
        defer { try? FileManager.default.removeItem(at: temporary) }
        let digest = try OSSEncryptedFile.encrypt(
            url, offset: offset, length: length, into: temporary, stream: OSSCTRStream(contentKey))
        let envelope = try await makeEnvelope(
            contentKey, plaintextLength: digest.length, plaintextMD5: digest.md5)
        var encrypted = request
        encrypted.source = .file(temporary)
        if encrypted.contentType == nil && encrypted.headers["content-type"] == nil {
            encrypted.contentType = OSSMimeType.guess(for: url.lastPathComponent)
        }
        encrypted.headers.merge(envelope.headers) { _, new in new }
        return try await client.putObject(encrypted)
    }

    func makeEnvelope(
        _ contentKey: OSSContentKey, plaintextLength: Int64? = nil, plaintextMD5: Data? = nil, dataSize: Int64? = nil,
        partSize: Int64? = nil
    ) async throws -> OSSEncryptionEnvelope {
        OSSEncryptionEnvelope(
            wrappedKey: try await masterCipher.wrap(contentKey.keyBytes),
            wrappedIV: try await masterCipher.wrap(Data(contentKey.iv)),
            wrapAlgorithm: masterCipher.wrapAlgorithm, materialDescription: masterCipher.materialDescription,
            unencryptedContentLength: plaintextLength, unencryptedContentMD5: plaintextMD5?.base64EncodedString(),
            dataSize: dataSize, partSize: partSize)
    }

    // MARK: Reading

    /// The master cipher for an envelope: the decryption cipher whose description matches its `matdesc`, else
    /// ``masterCipher``.
    func cipher(for envelope: OSSEncryptionEnvelope) throws(OSSEncryptionError) -> any OSSMasterCipher {
        guard envelope.contentAlgorithm == OSSEncryptionEnvelope.contentAlgorithmAESCTR else {
            throw .unsupportedContentAlgorithm(envelope.contentAlgorithm)
        }
        let chosen =
            decryptionCiphers.first {
                $0.materialDescription != nil
                    && OSSMaterialDescription.same($0.materialDescription, envelope.materialDescription)
            } ?? masterCipher
        guard chosen.wrapAlgorithm == envelope.wrapAlgorithm else {
            throw .unsupportedWrapAlgorithm(envelope.wrapAlgorithm)
        }
        return chosen
    }

    /// Unwraps an envelope's data key and IV.
    func contentKey(for envelope: OSSEncryptionEnvelope, objectKey: String) async throws -> OSSContentKey {
        let cipher = try self.cipher(for: envelope)
        let key: Data
        let iv: Data
        do {
            key = try await cipher.unwrap(envelope.wrappedKey)
            iv = try await cipher.unwrap(envelope.wrappedIV)
        } catch let error as OSSEncryptionError {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw OSSEncryptionError.unwrapFailed(objectKey: objectKey, materialDescription: envelope.materialDescription)
        }
        return try OSSContentKey(unwrappedKey: key, unwrappedIV: iv, objectKey: objectKey)
    }

    /// The envelope in an object's metadata; `nil` for an unencrypted object when ``readsUnencryptedObjects``.
    func envelope(in metadata: [String: String], objectKey: String) throws(OSSEncryptionError) -> OSSEncryptionEnvelope? {
        guard OSSEncryptionEnvelope.isPresent(in: metadata) else {
            if readsUnencryptedObjects { return nil }
            throw .notEncrypted(objectKey: objectKey)
        }
        return try OSSEncryptionEnvelope(metadata: metadata, objectKey: objectKey)
    }

    /// HeadObject with the object's envelope and plaintext length (AES-CTR keeps the length: the ciphertext's).
    public func headObject(_ request: OSSHeadObjectRequest) async throws -> OSSEncryptedObjectInfo {
        let head = try await client.headObject(request)
        let envelope = try self.envelope(in: head.metadata, objectKey: request.objectKey)
        return OSSEncryptedObjectInfo(head: head, envelope: envelope)
    }

    /// Where an encrypted read starts on the server (the block that holds the first wanted byte) and how many
    /// decrypted bytes go before the first wanted one.
    struct AlignedRange {
        var request: OSSGetObjectRequest
        var start: Int64
        var discard: Int64
        var isRanged: Bool
    }

    func align(_ request: OSSGetObjectRequest) async throws -> AlignedRange {
        guard let range = request.range else {
            return AlignedRange(request: request, start: 0, discard: 0, isRanged: false)
        }
        var first: Int64
        var last: Int64?
        switch range {
        case .from(let a): first = a
        case .closed(let a, let b): first = a; last = b
        case .suffix(let n):
            guard n > 0 else { throw OSSClientError(.invalidArgument, "invalid range \(range.headerValue)") }
            let head = try await client.headObject(
                OSSHeadObjectRequest(bucketName: request.bucketName, objectKey: request.objectKey, versionId: request.versionId))
            first = max(0, head.contentLength - n)
        }
        guard first >= 0, last.map({ $0 >= first }) ?? true else {
            throw OSSClientError(.invalidArgument, "invalid range \(range.headerValue)")
        }
        let start = first / Int64(OSSContentKey.blockLength) * Int64(OSSContentKey.blockLength)
        var aligned = request
        aligned.range = last.map { .closed(start, $0) } ?? .from(start)
        aligned.standardRangeBehavior = true
        return AlignedRange(request: aligned, start: start, discard: first - start, isRanged: true)
    }

    /// Downloads and decrypts an object, or the range the request names (any offset: the read starts at the
    /// 16-byte block that holds it and the bytes before are dropped). `contentLength` and `contentRange` describe the
    /// plaintext returned.
    public func getObject(_ request: OSSGetObjectRequest, maxBytes: Int = OSSClient.defaultInMemoryLimit)
        async throws -> OSSGetObjectResult
    {
        let aligned = try await align(request)
        var result = try await client.getObject(aligned.request, maxBytes: maxBytes)
        guard let envelope = try self.envelope(in: result.metadata, objectKey: request.objectKey) else { return result }
        let contentKey = try await self.contentKey(for: envelope, objectKey: request.objectKey)
        let start = result.contentRange?.start ?? 0
        var stream = OSSCTRStream(contentKey, offset: start)
        var plaintext = try stream.apply(result.content ?? Data())
        let discard = Int(max(0, aligned.start + aligned.discard - start))
        if discard > 0 { plaintext = Data(plaintext.dropFirst(discard)) }
        if !aligned.isRanged || result.statusCode == 200 {
            try verify(plaintext: plaintext, envelope: envelope, objectKey: request.objectKey)
        }
        result.content = plaintext
        result.contentLength = Int64(plaintext.count)
        result.contentRange?.start += Int64(discard)
        return result
    }

    /// Downloads and decrypts an object (or a range) into a file: the plaintext goes to a temporary file beside
    /// `destination`, which replaces `destination` once the ciphertext's CRC-64 and the envelope's plaintext length
    /// and MD5 (when the whole object is read) agree.
    public func getObject(_ request: OSSGetObjectRequest, toFile destination: URL) async throws -> OSSGetObjectResult {
        let aligned = try await align(request)
        do {
            return try await decryptToFile(request, aligned: aligned, destination: destination)
        } catch let error as OSSClientError {
            // The stream's body errors come back wrapped: give the encryption's own typed error.
            if let inner = error.underlying as? OSSEncryptionError { throw inner }
            throw error
        }
    }

    private func decryptToFile(_ request: OSSGetObjectRequest, aligned: AlignedRange, destination: URL) async throws
        -> OSSGetObjectResult
    {
        try await client.withObjectStream(aligned.request) { result, body in
            guard let envelope = try self.envelope(in: result.metadata, objectKey: request.objectKey) else {
                return try await OSSEncryptedFile.write(
                    body, result: result, to: destination, stream: nil, discard: 0, verify: { _, _ in })
            }
            let contentKey = try await self.contentKey(for: envelope, objectKey: request.objectKey)
            let start = result.contentRange?.start ?? 0
            let discard = max(0, aligned.start + aligned.discard - start)
            return try await OSSEncryptedFile.write(
                body, result: result, to: destination, stream: OSSCTRStream(contentKey, offset: start), discard: discard
            ) { length, md5 in
                if !aligned.isRanged || result.statusCode == 200 {
                    try Self.verify(length: length, md5: md5, envelope: envelope, objectKey: request.objectKey)
                }
            }
        }
    }

    func verify(plaintext: Data, envelope: OSSEncryptionEnvelope, objectKey: String) throws(OSSEncryptionError) {
        let md5 = envelope.unencryptedContentMD5 == nil ? nil : Data(Insecure.MD5.hash(data: plaintext))
        try Self.verify(length: Int64(plaintext.count), md5: md5, envelope: envelope, objectKey: objectKey)
    }

    /// Checks a whole object's plaintext against the envelope's unencrypted length (else the multipart data size)
    /// and MD5.
    static func verify(length: Int64, md5: Data?, envelope: OSSEncryptionEnvelope, objectKey: String)
        throws(OSSEncryptionError)
    {
        if let expected = envelope.unencryptedContentLength ?? envelope.dataSize, expected != length {
            throw .plaintextMismatch(objectKey: objectKey, what: "length \(expected) (decrypted \(length) bytes)")
        }
        if let expected = envelope.unencryptedContentMD5, let md5, md5.base64EncodedString() != expected {
            throw .plaintextMismatch(objectKey: objectKey, what: "MD5")
        }
    }
}

/// HeadObject's answer for an encrypted object.
public struct OSSEncryptedObjectInfo: Sendable {
    public var head: OSSHeadObjectResult
    /// `nil` for an object without an envelope (read with ``OSSEncryptionClient/readsUnencryptedObjects``).
    public var envelope: OSSEncryptionEnvelope?
    /// The plaintext's length: the stored length (AES-CTR adds no padding).
    public var plaintextLength: Int64 { head.contentLength }
    public var isEncrypted: Bool { envelope != nil }
}
