import AliyunOSS
import Crypto
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

@testable import AliyunOSSEncryption

/// OSSEncryptionClient against the local server: the envelope it writes, round trips on every path, ranged reads at
/// any offset, multipart, and the choice of master key by `matdesc`.
@Suite("Client-side encryption")
struct EncryptionClientTests {
    @Test func theCounterIsTheIVPlusTheBlockIndexAsOne128BitNumber() {
        var iv = [UInt8](repeating: 0, count: 16)
        iv[15] = 0xFF
        iv[14] = 0xFF
        iv[7] = 0xFF
        let key = OSSContentKey(key: .init(size: .bits256), iv: iv)
        #expect(key.counter(atByte: 0) == iv)
        #expect(key.counter(atByte: 15) == iv)
        var next = iv
        next[15] = 0
        next[14] = 0
        next[13] = 1
        #expect(key.counter(atByte: 16) == next)
        // All ones carries through every byte and wraps to zero (a 128-bit counter, like the official clients').
        let full = OSSContentKey(key: .init(size: .bits256), iv: [UInt8](repeating: 0xFF, count: 16))
        #expect(full.counter(atByte: 16) == [UInt8](repeating: 0, count: 16))
        #expect(full.counter(atByte: 32) == [UInt8](repeating: 0, count: 15) + [1])
        // New IVs keep bytes 8 to 11 zero, as the official clients' do.
        for _ in 0..<8 { #expect(OSSContentKey.random().iv[8..<12].allSatisfy { $0 == 0 }) }
    }

    @Test func aStreamDecryptsTheSameInChunksOfAnySizeFromAnyOffset() throws {
        let plaintext = testBytes(1000)
        let key = OSSContentKey.random()
        var whole = OSSCTRStream(key)
        let ciphertext = try whole.apply(plaintext)
        #expect(ciphertext != plaintext)
        for chunk in [1, 5, 16, 17, 333] {
            var stream = OSSCTRStream(key, offset: 3)
            var out = Data()
            var index = 3
            while index < plaintext.count {
                let end = min(index + chunk, plaintext.count)
                out.append(try stream.apply(ciphertext[index..<end]))
                index = end
            }
            #expect(out == plaintext.dropFirst(3), "chunks of \(chunk)")
        }
    }

    @Test func putWritesTheEnvelopeAndGetAndHeadReadThePlaintext() async throws {
        let cipher = try TestKeys.first.cipher(["owner": "tests"])
        try await withEncryptionServer { _, client in
            let encryption = OSSEncryptionClient(client: client, masterCipher: cipher)
            let plaintext = testBytes(100_003)
            _ = try await encryption.putObject(
                OSSPutObjectRequest(bucketName: "bkt", objectKey: "a.bin", data: plaintext))
            let raw = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "a.bin"))
            #expect(raw.content?.count == plaintext.count)
            #expect(raw.content != plaintext)
            let meta = raw.metadata
            #expect(meta["client-side-encryption-cek-alg"] == "AES/CTR/NoPadding")
            #expect(meta["client-side-encryption-wrap-alg"] == "RSA/NONE/PKCS1Padding")
            #expect(meta["client-side-encryption-matdesc"] == #"{"owner":"tests"}"#)
            #expect(Data(base64Encoded: meta["client-side-encryption-key"] ?? "")?.count == 256)
            #expect(Data(base64Encoded: meta["client-side-encryption-start"] ?? "")?.count == 256)
            #expect(meta["client-side-encryption-unencrypted-content-length"] == "100003")
            #expect(meta["client-side-encryption-unencrypted-content-md5"] != nil)

            let read = try await encryption.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "a.bin"))
            #expect(read.content == plaintext)
            let head = try await encryption.headObject(OSSHeadObjectRequest(bucketName: "bkt", objectKey: "a.bin"))
            #expect(head.plaintextLength == 100_003)
            #expect(head.envelope?.materialDescription == #"{"owner":"tests"}"#)

            // Empty objects too.
            _ = try await encryption.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "empty", data: Data()))
            #expect(try await encryption.getObject(.init(bucketName: "bkt", objectKey: "empty")).content == Data())
        }
    }

    @Test func rangedReadsAtAnyOffsetReturnExactlyTheRange() async throws {
        let cipher = try TestKeys.first.cipher()
        try await withEncryptionServer { _, client in
            let encryption = OSSEncryptionClient(client: client, masterCipher: cipher)
            let plaintext = testBytes(5_003, seed: 3)
            _ = try await encryption.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "r", data: plaintext))
            let pairs: [(Int64, Int64)] = [(0, 0), (1, 1), (15, 16), (16, 31), (17, 4095), (4999, 5002), (333, 3333)]
            for (a, b) in pairs {
                let result = try await encryption.getObject(
                    OSSGetObjectRequest(bucketName: "bkt", objectKey: "r", range: .closed(a, b)))
                #expect(result.content == plaintext[Int(a)...Int(b)], "bytes=\(a)-\(b)")
                #expect(result.contentLength == b - a + 1)
                #expect(result.contentRange?.start == a)
                #expect(result.contentRange?.end == b)
            }
            let tail = try await encryption.getObject(.init(bucketName: "bkt", objectKey: "r", range: .from(4_001)))
            #expect(tail.content == plaintext.dropFirst(4_001))
            let suffix = try await encryption.getObject(.init(bucketName: "bkt", objectKey: "r", range: .suffix(37)))
            #expect(suffix.content == plaintext.suffix(37))

            let directory = try makeWorkDirectory("encryption-ranges")
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("part.bin")
            _ = try await encryption.getObject(
                OSSGetObjectRequest(bucketName: "bkt", objectKey: "r", range: .closed(17, 2_049)), toFile: file)
            #expect(try Data(contentsOf: file) == plaintext[17...2_049])
            _ = try await encryption.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "r"), toFile: file)
            #expect(try Data(contentsOf: file) == plaintext)
        }
    }

    @Test func filesEncryptOnTheWayUpAndDecryptOnTheWayDown() async throws {
        let cipher = try TestKeys.first.cipher()
        try await withEncryptionServer { _, client in
            let encryption = OSSEncryptionClient(client: client, masterCipher: cipher)
            let directory = try makeWorkDirectory("encryption-files")
            defer { try? FileManager.default.removeItem(at: directory) }
            let plaintext = testBytes(3 << 20 | 5, seed: 9)
            let source = directory.appendingPathComponent("source.bin")
            try plaintext.write(to: source)
            _ = try await encryption.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "f", fileURL: source))
            let target = directory.appendingPathComponent("target.bin")
            _ = try await encryption.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "f"), toFile: target)
            #expect(try Data(contentsOf: target) == plaintext)
            // No temporary file left beside the target.
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["source.bin", "target.bin"])
        }
    }

    @Test func multipartPartsEncryptAtTheirOffsetAndTheObjectReadsAsOne() async throws {
        let cipher = try TestKeys.first.cipher()
        try await withEncryptionServer { _, client in
            let encryption = OSSEncryptionClient(client: client, masterCipher: cipher)
            let partSize: Int64 = 102_400
            let plaintext = testBytes(2 * 102_400 + 4_097, seed: 5)
            let upload = try await encryption.initiateMultipartUpload(
                OSSInitiateMultipartUploadRequest(bucketName: "bkt", objectKey: "m"), partSize: partSize,
                dataSize: Int64(plaintext.count))
            var parts: [OSSPartInfo] = []
            // Out of order: each part stands alone.
            for number in [3, 1, 2] {
                let start = (number - 1) * 102_400
                let data = plaintext[start..<min(start + 102_400, plaintext.count)]
                let result = try await encryption.uploadPart(upload, partNumber: number, data: Data(data))
                parts.append(OSSPartInfo(partNumber: number, eTag: result.eTag))
            }
            _ = try await encryption.completeMultipartUpload(upload, parts: parts)
            let head = try await encryption.headObject(.init(bucketName: "bkt", objectKey: "m"))
            #expect(head.envelope?.partSize == partSize)
            #expect(head.envelope?.dataSize == Int64(plaintext.count))
            #expect(try await encryption.getObject(.init(bucketName: "bkt", objectKey: "m")).content == plaintext)
            let across = try await encryption.getObject(
                .init(bucketName: "bkt", objectKey: "m", range: .closed(102_391, 204_817)))
            #expect(across.content == plaintext[102_391...204_817])
        }
    }

    @Test func readsChooseTheMasterKeyByTheMaterialDescription() async throws {
        let a = try TestKeys.first.cipher(["key": "a"])
        let b = try TestKeys.second.cipher(["key": "b"])
        try await withEncryptionServer { _, client in
            _ = try await OSSEncryptionClient(client: client, masterCipher: a).putObject(
                OSSPutObjectRequest(bucketName: "bkt", objectKey: "by-a", data: testBytes(100)))
            let reader = OSSEncryptionClient(client: client, masterCipher: b, decryptionCiphers: [a])
            #expect(try await reader.getObject(.init(bucketName: "bkt", objectKey: "by-a")).content == testBytes(100))
            // The Python SDK writes matdesc with a space after the colon; it names the same key.
            let pythonStyle = try OSSRSAMasterCipher(
                privateKeyPEM: TestKeys.first.pkcs1Private, materialDescriptionJSON: #"{"key": "a"}"#)
            let reader2 = OSSEncryptionClient(client: client, masterCipher: b, decryptionCiphers: [pythonStyle])
            #expect(try await reader2.getObject(.init(bucketName: "bkt", objectKey: "by-a")).content == testBytes(100))
        }
    }

    @Test func everyPEMFormReadsAndWrites() async throws {
        let keys = TestKeys.second
        let writers = [
            try OSSRSAMasterCipher(publicKeyPEM: keys.pkcs1Public),
            try OSSRSAMasterCipher(publicKeyPEM: keys.spkiPublic),
            try OSSRSAMasterCipher(privateKeyPEM: keys.pkcs1Private),
        ]
        let readers = [
            try OSSRSAMasterCipher(privateKeyPEM: keys.pkcs1Private),
            try OSSRSAMasterCipher(privateKeyPEM: keys.pkcs8Private),
        ]
        for writer in writers {
            let wrapped = try await writer.wrap(Data("sixteen byte key".utf8))
            for reader in readers { #expect(try await reader.unwrap(wrapped) == Data("sixteen byte key".utf8)) }
        }
        #expect(throws: OSSEncryptionError.self) { try OSSRSAMasterCipher(publicKeyPEM: "not a key") }
        #expect(throws: OSSEncryptionError.self) { try OSSRSAMasterCipher(privateKeyPEM: keys.spkiPublic) }
        #expect(throws: OSSEncryptionError.self) {
            try OSSRSAMasterCipher(publicKeyPEM: keys.spkiPublic, materialDescriptionJSON: "[1]")
        }
        await #expect(throws: OSSEncryptionError.decryptionUnavailable) {
            try await OSSRSAMasterCipher(publicKeyPEM: keys.spkiPublic).unwrap(Data(count: 256))
        }
    }
}

extension EncryptionClientTests {
    /// Chunks of odd sizes as an app's byte stream delivers them.
    static func chunks(_ data: Data, size: Int) -> AsyncStream<Data> {
        AsyncStream { continuation in
            var index = 0
            while index < data.count {
                continuation.yield(data[index..<min(index + size, data.count)])
                index += size
            }
            continuation.finish()
        }
    }

    @Test func streamsEncryptOnTheWayUpAndDecryptOnTheWayDownFromAnyOffset() async throws {
        let cipher = try TestKeys.first.cipher(["use": "stream"])
        try await withEncryptionServer { server, client in
            let encryption = OSSEncryptionClient(client: client, masterCipher: cipher)
            let large = testBytes(3 * 102_400 + 4_321, seed: 31)
            let small = testBytes(5_000, seed: 32)
            let options = OSSStreamUploadOptions(partSize: 102_400, concurrency: 3)
            let multipart = try await encryption.uploadStream(
                Self.chunks(large, size: 7_777), bucket: "bkt", key: "s/large", options: options)
            #expect(multipart.partCount == 4 && multipart.totalBytes == Int64(large.count))
            #expect(await server.stats()[.initiateMultipartUpload].requests == 1)
            let single = try await encryption.uploadStream(
                Self.chunks(small, size: 1_000), bucket: "bkt", key: "s/small", options: options)
            #expect(single.partCount == 0)

            for (key, plaintext) in [("s/large", large), ("s/small", small)] {
                // Stored encrypted with the envelope; read back whole, by GetObject and as a stream.
                let raw = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: key))
                #expect(raw.content?.count == plaintext.count && raw.content != plaintext)
                #expect(raw.metadata["client-side-encryption-matdesc"] == #"{"use":"stream"}"#)
                #expect(try await encryption.getObject(.init(bucketName: "bkt", objectKey: key)).content == plaintext)
                for offset in [0, 1, 15, 16, 4_097, plaintext.count - 1] {
                    let stream = try await encryption.downloadStream(
                        OSSDownloadStreamRequest(bucketName: "bkt", objectKey: key, offset: Int64(offset)))
                    #expect(stream.length == Int64(plaintext.count - offset))
                    var received = Data()
                    for try await chunk in stream { received.append(chunk) }
                    #expect(received == plaintext.dropFirst(offset), "\(key) from \(offset)")
                }
            }

            // A whole object streamed is checked against the envelope's MD5: tampered bytes end the stream with an
            // error, not a normal end.
            _ = try await encryption.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "s/put", data: small))
            try await EncryptionFailureTests.rewrite(client, "s/put", body: { data in
                var copy = data
                copy[4_000] ^= 0x80
                return copy
            })
            let tampered = try await encryption.downloadStream(
                OSSDownloadStreamRequest(bucketName: "bkt", objectKey: "s/put"))
            await #expect(throws: OSSEncryptionError.plaintextMismatch(objectKey: "s/put", what: "MD5")) {
                for try await _ in tampered {}
            }
        }
    }
}
