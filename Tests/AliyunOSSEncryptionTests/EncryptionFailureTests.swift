import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

@testable import AliyunOSSEncryption

/// Bad input: each a typed error, never plaintext that is silently wrong; and the plain data key stays out of the
/// resumable record.
@Suite("Client-side encryption: bad input and resumable uploads")
struct EncryptionFailureTests {
    /// Rewrites `key`'s stored object with `change` applied to its envelope headers (and `body` instead of its bytes).
    static func rewrite(
        _ client: OSSClient, _ key: String, body: ((Data) -> Data)? = nil,
        change: (inout [String: String]) -> Void = { _ in }
    ) async throws {
        let raw = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: key))
        var headers: [String: String] = [:]
        for (name, value) in raw.metadata { headers["x-oss-meta-" + name] = value }
        change(&headers)
        let content = raw.content ?? Data()
        _ = try await client.putObject(
            OSSPutObjectRequest(
                bucketName: "bkt", objectKey: key, source: .data(body?(content) ?? content), headers: headers))
    }

    @Test func badEnvelopesAndWrongKeysAreTypedErrors() async throws {
        let cipher = try TestKeys.first.cipher(["k": "first"])
        let other = try TestKeys.second.cipher(["k": "second"])
        try await withEncryptionServer { _, client in
            let encryption = OSSEncryptionClient(client: client, masterCipher: cipher)
            let plaintext = testBytes(4_000)
            for name in ["wrong-key", "no-start", "bad-start", "alg", "wrap", "tampered", "short"] {
                _ = try await encryption.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: name, data: plaintext))
            }
            let request = { (key: String) in OSSGetObjectRequest(bucketName: "bkt", objectKey: key) }

            // The wrong master key.
            let stranger = OSSEncryptionClient(client: client, masterCipher: other)
            await #expect(throws: OSSEncryptionError.unwrapFailed(objectKey: "wrong-key", materialDescription: #"{"k":"first"}"#)) {
                try await stranger.getObject(request("wrong-key"))
            }
            // A missing envelope header.
            try await Self.rewrite(client, "no-start", change: { $0["x-oss-meta-client-side-encryption-start"] = nil })
            await #expect(
                throws: OSSEncryptionError.incompleteEnvelope(
                    objectKey: "no-start", missing: "x-oss-meta-client-side-encryption-start")
            ) { try await encryption.getObject(request("no-start")) }
            // A tampered wrapped IV: not base64, then base64 of the wrong bytes.
            try await Self.rewrite(client, "bad-start", change: { $0["x-oss-meta-client-side-encryption-start"] = "%%%" })
            await #expect(throws: OSSEncryptionError.self) { try await encryption.getObject(request("bad-start")) }
            try await Self.rewrite(client, "bad-start", change: {
                $0["x-oss-meta-client-side-encryption-start"] = Data(count: 256).base64EncodedString()
            })
            await #expect(throws: OSSEncryptionError.unwrapFailed(objectKey: "bad-start", materialDescription: #"{"k":"first"}"#)) {
                try await encryption.getObject(request("bad-start"))
            }
            // Unknown algorithms.
            try await Self.rewrite(client, "alg", change: { $0["x-oss-meta-client-side-encryption-cek-alg"] = "AES/GCM/NoPadding" })
            await #expect(throws: OSSEncryptionError.unsupportedContentAlgorithm("AES/GCM/NoPadding")) {
                try await encryption.getObject(request("alg"))
            }
            try await Self.rewrite(client, "wrap", change: { $0["x-oss-meta-client-side-encryption-wrap-alg"] = "KMS/ALICLOUD" })
            await #expect(throws: OSSEncryptionError.unsupportedWrapAlgorithm("KMS/ALICLOUD")) {
                try await encryption.getObject(request("wrap"))
            }
            // Tampered ciphertext (OSS's CRC-64 is of the tampered bytes): the plaintext MD5 catches it, in memory
            // and on the way to a file, and the file is not written.
            try await Self.rewrite(client, "tampered", body: { data in
                var copy = data
                copy[100] ^= 1
                return copy
            })
            await #expect(throws: OSSEncryptionError.plaintextMismatch(objectKey: "tampered", what: "MD5")) {
                try await encryption.getObject(request("tampered"))
            }
            let directory = try makeWorkDirectory("encryption-failures")
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("out.bin")
            await #expect(throws: OSSEncryptionError.plaintextMismatch(objectKey: "tampered", what: "MD5")) {
                try await encryption.getObject(request("tampered"), toFile: file)
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
            // A truncated object disagrees with the unencrypted length.
            try await Self.rewrite(client, "short", body: { $0.prefix(3_000) })
            await #expect(throws: OSSEncryptionError.self) { try await encryption.getObject(request("short")) }
            // An object without an envelope.
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "plain", data: plaintext))
            await #expect(throws: OSSEncryptionError.notEncrypted(objectKey: "plain")) {
                try await encryption.getObject(request("plain"))
            }
            let lenient = OSSEncryptionClient(client: client, masterCipher: cipher, readsUnencryptedObjects: true)
            #expect(try await lenient.getObject(request("plain")).content == plaintext)
        }
    }

    @Test func multipartPartSizesMustBeMultiplesOf16AndPartsMustFit() async throws {
        let cipher = try TestKeys.first.cipher()
        try await withEncryptionServer { _, client in
            let encryption = OSSEncryptionClient(client: client, masterCipher: cipher)
            let request = OSSInitiateMultipartUploadRequest(bucketName: "bkt", objectKey: "m")
            for size: Int64 in [0, -16, 100, 102_401] {
                await #expect(throws: OSSEncryptionError.partSizeNotAligned(size)) {
                    try await encryption.initiateMultipartUpload(request, partSize: size, dataSize: 300_000)
                }
            }
            let upload = try await encryption.initiateMultipartUpload(request, partSize: 102_400, dataSize: 250_000)
            await #expect(throws: OSSEncryptionError.self) {
                try await encryption.uploadPart(upload, partNumber: 1, data: testBytes(1_000))
            }
            await #expect(throws: OSSEncryptionError.self) {
                try await encryption.uploadPart(upload, partNumber: 4, data: testBytes(1_000))
            }
            await #expect(throws: OSSEncryptionError.partSizeNotAligned(100)) {
                try await encryption.uploadFile(
                    URL(fileURLWithPath: "/nonexistent"), bucketName: "bkt", objectKey: "x", partSize: 100)
            }
        }
    }

    struct Stop: Error {}

    @Test func aStoppedUploadResumesTheSameObjectAndTheRecordHoldsNoPlainKey() async throws {
        let cipher = try TestKeys.first.cipher(["k": "resume"])
        try await withEncryptionServer { _, client in
            let directory = try makeWorkDirectory("encryption-resume")
            defer { try? FileManager.default.removeItem(at: directory) }
            let plaintext = testBytes(5 * 102_400 + 77, seed: 11)
            let source = directory.appendingPathComponent("big.bin")
            try plaintext.write(to: source)
            let recordURL = directory.appendingPathComponent("records/big.json")

            // Run 1 stops after its second part, as a killed process would.
            let first = OSSEncryptionClient(client: client, masterCipher: cipher)
            await #expect(throws: Stop.self) {
                try await first.uploadFile(
                    source, bucketName: "bkt", objectKey: "big", partSize: 102_400, recordURL: recordURL
                ) { number in if number == 2 { throw Stop() } }
            }
            let recordData = try Data(contentsOf: recordURL)
            let record = try JSONDecoder().decode(OSSEncryptedUploadRecord.self, from: recordData)
            // The plain data key and IV are nowhere in the record, in any encoding.
            let key = try await cipher.unwrap(try #require(Data(base64Encoded: record.wrappedKey)))
            let iv = try await cipher.unwrap(try #require(Data(base64Encoded: record.wrappedIV)))
            #expect(key.count == 32 && iv.count == 16)
            for secret in [key, iv] {
                let text = String(decoding: recordData, as: UTF8.self)
                #expect(recordData.range(of: secret) == nil)
                #expect(!text.contains(secret.base64EncodedString()))
                #expect(!text.lowercased().contains(secret.map { String(format: "%02x", $0) }.joined()))
            }

            // Run 2: a new client (a new process), the same record: the same upload, only the missing parts sent.
            let sent = PartLog()
            let second = OSSEncryptionClient(client: client, masterCipher: try TestKeys.first.cipher(["k": "resume"]))
            _ = try await second.uploadFile(
                source, bucketName: "bkt", objectKey: "big", partSize: 102_400, recordURL: recordURL
            ) { number in await sent.add(number) }
            #expect(await sent.values == [3, 4, 5, 6])
            #expect(!FileManager.default.fileExists(atPath: recordURL.path))
            let parts = try await client.listMultipartUploads(OSSListMultipartUploadsRequest(bucketName: "bkt"))
            #expect(parts.uploads.isEmpty)
            #expect(try await second.getObject(.init(bucketName: "bkt", objectKey: "big")).content == plaintext)
        }
    }

    @Test func aStoppedDownloadResumesWithTheMissingPartsOnly() async throws {
        let cipher = try TestKeys.first.cipher()
        try await withEncryptionServer { _, client in
            let directory = try makeWorkDirectory("encryption-download")
            defer { try? FileManager.default.removeItem(at: directory) }
            let encryption = OSSEncryptionClient(client: client, masterCipher: cipher)
            let plaintext = testBytes(5 * 4_096 + 9, seed: 12)
            _ = try await encryption.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "d", data: plaintext))
            let target = directory.appendingPathComponent("d.bin")
            let recordURL = directory.appendingPathComponent("d.record")
            await #expect(throws: Stop.self) {
                try await encryption.downloadFile(
                    bucketName: "bkt", objectKey: "d", to: target, partSize: 4_096, recordURL: recordURL
                ) { number in if number == 2 { throw Stop() } }
            }
            #expect(!FileManager.default.fileExists(atPath: target.path))
            let recordData = try Data(contentsOf: recordURL)
            let record = try JSONDecoder().decode(OSSEncryptedDownloadRecord.self, from: recordData)
            #expect(record.completedParts.keys.sorted() == [1, 2])
            let key = try await cipher.unwrap(try #require(Data(base64Encoded: record.wrappedKey)))
            #expect(recordData.range(of: key) == nil)
            #expect(!String(decoding: recordData, as: UTF8.self).contains(key.base64EncodedString()))

            let log = PartLog()
            _ = try await OSSEncryptionClient(client: client, masterCipher: try TestKeys.first.cipher()).downloadFile(
                bucketName: "bkt", objectKey: "d", to: target, partSize: 4_096, recordURL: recordURL
            ) { number in await log.add(number) }
            #expect(await log.values == [3, 4, 5, 6])
            #expect(try Data(contentsOf: target) == plaintext)
            #expect(!FileManager.default.fileExists(atPath: recordURL.path))

            // A stop, then the object replaced: the next run starts over instead of mixing the two.
            await #expect(throws: Stop.self) {
                try await encryption.downloadFile(
                    bucketName: "bkt", objectKey: "d", to: target, partSize: 4_096, recordURL: recordURL
                ) { number in if number == 1 { throw Stop() } }
            }
            let replacement = testBytes(5 * 4_096 + 9, seed: 13)
            _ = try await encryption.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "d", data: replacement))
            let fresh = PartLog()
            _ = try await encryption.downloadFile(
                bucketName: "bkt", objectKey: "d", to: target, partSize: 4_096, recordURL: recordURL
            ) { number in await fresh.add(number) }
            #expect(await fresh.values == [1, 2, 3, 4, 5, 6])
            #expect(try Data(contentsOf: target) == replacement)
        }
    }
}

/// The part numbers a run reports.
actor PartLog {
    private(set) var values: [Int] = []
    func add(_ value: Int) { values.append(value) }
}
