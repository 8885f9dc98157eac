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
                    source, bucketName: "bkt", objectKey: "big", partSize: 102_400, recordURL: recordURL,
                    threadNum: 1
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
                source, bucketName: "bkt", objectKey: "big", partSize: 102_400, recordURL: recordURL,
                    threadNum: 1
            ) { number in await sent.add(number) }
            #expect(await sent.values == [3, 4, 5, 6])
            #expect(!FileManager.default.fileExists(atPath: recordURL.path))
            let parts = try await client.listMultipartUploads(OSSListMultipartUploadsRequest(bucketName: "bkt"))
            #expect(parts.uploads.isEmpty)
            #expect(try await second.getObject(.init(bucketName: "bkt", objectKey: "big")).content == plaintext)
        }
    }

    @Test("a second run on the same encrypted transfer gets transferInUse at once, as a plain transfer does")
    func oneRunPerEncryptedTransfer() async throws {
        try await withEncryptionServer { server, client in
            let directory = try makeWorkDirectory("encryption-lock")
            defer { try? FileManager.default.removeItem(at: directory) }
            let source = directory.appendingPathComponent("big.bin")
            try testBytes(4 * 102_400, seed: 13).write(to: source)
            let recordURL = directory.appendingPathComponent("records/big.json")
            let encryption = OSSEncryptionClient(client: client, masterCipher: try TestKeys.first.cipher())
            // The first run holds the lock until its first part is through; it is told to go on once the second
            // run has been refused.
            let started = AsyncStream<Void>.makeStream()
            let release = AsyncStream<Void>.makeStream()
            let first = Task {
                try await encryption.uploadFile(
                    source, bucketName: "bkt", objectKey: "big", partSize: 102_400, recordURL: recordURL, threadNum: 1
                ) { number in
                    if number == 1 {
                        started.continuation.yield()
                        for await _ in release.stream { break }
                    }
                }
            }
            for await _ in started.stream { break }
            do {
                _ = try await encryption.uploadFile(
                    source, bucketName: "bkt", objectKey: "big", partSize: 102_400, recordURL: recordURL, threadNum: 1)
                Issue.record("a second run of the same encrypted upload went ahead")
            } catch let error as OSSClientError {
                #expect(error.code == .transferInUse, "\(error)")
            }
            release.continuation.yield()
            _ = try await first.value
            #expect(await server.stats()[.initiateMultipartUpload].requests == 1)
            #expect(try await client.listMultipartUploads(OSSListMultipartUploadsRequest(bucketName: "bkt")).uploads.isEmpty)
        }
    }

    @Test("a damaged encrypted-upload record is said, its upload aborted, and a fresh upload completes")
    func damagedEncryptedRecord() async throws {
        try await withEncryptionServer { _, client in
            let directory = try makeWorkDirectory("encryption-damaged")
            defer { try? FileManager.default.removeItem(at: directory) }
            let plaintext = testBytes(3 * 102_400 + 5, seed: 14)
            let source = directory.appendingPathComponent("big.bin")
            try plaintext.write(to: source)
            let recordURL = directory.appendingPathComponent("records/big.json")
            let encryption = OSSEncryptionClient(client: client, masterCipher: try TestKeys.first.cipher())
            await #expect(throws: Stop.self) {
                try await encryption.uploadFile(
                    source, bucketName: "bkt", objectKey: "big", partSize: 102_400, recordURL: recordURL, threadNum: 1
                ) { number in if number == 1 { throw Stop() } }
            }
            let abandoned = try await client.listMultipartUploads(OSSListMultipartUploadsRequest(bucketName: "bkt")).uploads
            #expect(abandoned.count == 1)
            // Cut at the end: no longer JSON, the upload id still readable in its bytes.
            let bytes = try Data(contentsOf: recordURL)
            try bytes.prefix(bytes.count - 3).write(to: recordURL)
            let notices = NoticeLog()
            var noticing = encryption
            noticing.recordNotice = { notice in notices.add(notice) }
            _ = try await noticing.uploadFile(
                source, bucketName: "bkt", objectKey: "big", partSize: 102_400, recordURL: recordURL, threadNum: 1)
            let said = notices.values
            #expect(said.count == 1)
            #expect(said.first?.recordPath == recordURL.path)
            #expect(said.first?.abortedUploadId == abandoned.first?.uploadId)
            #expect(try await client.listMultipartUploads(OSSListMultipartUploadsRequest(bucketName: "bkt")).uploads.isEmpty)
            #expect(try await encryption.getObject(.init(bucketName: "bkt", objectKey: "big")).content == plaintext)
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
                    bucketName: "bkt", objectKey: "d", to: target, partSize: 4_096, recordURL: recordURL,
                    threadNum: 1
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
                bucketName: "bkt", objectKey: "d", to: target, partSize: 4_096, recordURL: recordURL,
                    threadNum: 1
            ) { number in await log.add(number) }
            #expect(await log.values == [3, 4, 5, 6])
            #expect(try Data(contentsOf: target) == plaintext)
            #expect(!FileManager.default.fileExists(atPath: recordURL.path))

            // A stop, then the object replaced: the next run starts over instead of mixing the two.
            await #expect(throws: Stop.self) {
                try await encryption.downloadFile(
                    bucketName: "bkt", objectKey: "d", to: target, partSize: 4_096, recordURL: recordURL,
                    threadNum: 1
                ) { number in if number == 1 { throw Stop() } }
            }
            let replacement = testBytes(5 * 4_096 + 9, seed: 13)
            _ = try await encryption.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "d", data: replacement))
            let fresh = PartLog()
            _ = try await encryption.downloadFile(
                bucketName: "bkt", objectKey: "d", to: target, partSize: 4_096, recordURL: recordURL,
                    threadNum: 1
            ) { number in await fresh.add(number) }
            #expect(await fresh.values == [1, 2, 3, 4, 5, 6])
            #expect(try Data(contentsOf: target) == replacement)
        }
    }
}

extension EncryptionFailureTests {
    /// Parts go `threadNum` at a time: when the first part is done (each delayed 300 ms by the server) the others of
    /// the window are already on the server; a run stopped with parts in flight still resumes into the same object.
    @Test func partsTravelInParallelAndAStopWithPartsInFlightStillResumes() async throws {
        let cipher = try TestKeys.first.cipher()
        try await withEncryptionServer { server, client in
            let directory = try makeWorkDirectory("encryption-parallel")
            defer { try? FileManager.default.removeItem(at: directory) }
            let plaintext = testBytes(8 * 102_400 + 3, seed: 21)
            let source = directory.appendingPathComponent("p.bin")
            try plaintext.write(to: source)
            let recordURL = directory.appendingPathComponent("p.json")
            let encryption = OSSEncryptionClient(client: client, masterCipher: cipher)
            await server.addFault(LocalOSSFaultRule(operation: .uploadPart, action: .delay(milliseconds: 300)))
            let seenAtFirst = PartLog()
            await #expect(throws: Stop.self) {
                try await encryption.uploadFile(
                    source, bucketName: "bkt", objectKey: "p", partSize: 102_400, recordURL: recordURL, threadNum: 4
                ) { _ in
                    await seenAtFirst.add(Int(await server.stats()[.uploadPart].requests))
                    throw Stop()
                }
            }
            let seen = await seenAtFirst.values
            #expect(seen.first.map { $0 >= 2 } == true, "\(seen)")
            await server.clearFaults()
            _ = try await encryption.uploadFile(
                source, bucketName: "bkt", objectKey: "p", partSize: 102_400, recordURL: recordURL, threadNum: 4)
            #expect(await server.stats()[.initiateMultipartUpload].requests == 1)
            #expect(try await encryption.getObject(.init(bucketName: "bkt", objectKey: "p")).content == plaintext)

            let target = directory.appendingPathComponent("back.bin")
            let downloadRecord = directory.appendingPathComponent("back.json")
            await server.addFault(LocalOSSFaultRule(operation: .getObject, action: .delay(milliseconds: 300)))
            let baseline = Int(await server.stats()[.getObject].requests)
            let fetchedAtFirst = PartLog()
            await #expect(throws: Stop.self) {
                try await encryption.downloadFile(
                    bucketName: "bkt", objectKey: "p", to: target, partSize: 102_400, recordURL: downloadRecord,
                    threadNum: 4
                ) { _ in
                    await fetchedAtFirst.add(Int(await server.stats()[.getObject].requests) - baseline)
                    throw Stop()
                }
            }
            await server.clearFaults()
            let before = await server.stats()[.getObject].requests
            let fetched = await fetchedAtFirst.values
            #expect(fetched.first.map { $0 >= 2 } == true, "\(fetched)")
            _ = try await encryption.downloadFile(
                bucketName: "bkt", objectKey: "p", to: target, partSize: 102_400, recordURL: downloadRecord,
                threadNum: 4)
            #expect(try Data(contentsOf: target) == plaintext)
            #expect(await server.stats()[.getObject].requests - before < 9, "the parts written were not fetched again")
            await #expect(throws: OSSClientError.self) {
                try await encryption.downloadFile(bucketName: "bkt", objectKey: "p", to: target, threadNum: 0)
            }
        }
    }
}

extension EncryptionFailureTests {
    /// The error every read path of `key` throws: whole and ranged GetObject, GetObject to a file, the resumable
    /// download and the stream (at the call or, for checks that need the last byte, when its iteration ends).
    static func readErrors(_ encryption: OSSEncryptionClient, _ key: String, in directory: URL) async -> [String: String] {
        func attempt(_ body: () async throws -> Void) async -> String {
            do {
                try await body()
                return "no error"
            } catch let error as OSSEncryptionError {
                return "\(error)"
            } catch {
                return "untyped: \(error)"
            }
        }
        let target = directory.appendingPathComponent(key)
        var errors: [String: String] = [:]
        errors["get"] = await attempt { _ = try await encryption.getObject(.init(bucketName: "bkt", objectKey: key)) }
        errors["file"] = await attempt {
            _ = try await encryption.getObject(.init(bucketName: "bkt", objectKey: key), toFile: target)
        }
        errors["resumable"] = await attempt {
            _ = try await encryption.downloadFile(
                bucketName: "bkt", objectKey: key, to: target, partSize: 1_024,
                recordURL: directory.appendingPathComponent(key + ".json"))
        }
        errors["stream"] = await attempt {
            for try await _ in try await encryption.downloadStream(.init(bucketName: "bkt", objectKey: key)) {}
        }
        return errors
    }

    @Test func everyReadPathRefusesABadObjectWithTheSameTypedErrorAndWritesNothing() async throws {
        let cipher = try TestKeys.first.cipher(["k": "first"])
        try await withEncryptionServer { _, client in
            let directory = try makeWorkDirectory("encryption-every-path")
            defer { try? FileManager.default.removeItem(at: directory) }
            let encryption = OSSEncryptionClient(client: client, masterCipher: cipher)
            let plaintext = testBytes(6_000, seed: 41)
            for name in ["wrong-key", "no-alg", "alg", "wrap", "tampered"] {
                _ = try await encryption.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: name, data: plaintext))
            }
            try await Self.rewrite(client, "no-alg", change: { $0["x-oss-meta-client-side-encryption-cek-alg"] = nil })
            try await Self.rewrite(client, "alg", change: { $0["x-oss-meta-client-side-encryption-cek-alg"] = "AES/CBC/PKCS5Padding" })
            try await Self.rewrite(client, "wrap", change: { $0["x-oss-meta-client-side-encryption-wrap-alg"] = "RSA/OAEP" })
            try await Self.rewrite(client, "tampered", body: { data in
                var copy = data
                copy[5_999] ^= 1
                return copy
            })
            let expected: [String: OSSEncryptionError] = [
                "no-alg": .incompleteEnvelope(objectKey: "no-alg", missing: "x-oss-meta-client-side-encryption-cek-alg"),
                "alg": .unsupportedContentAlgorithm("AES/CBC/PKCS5Padding"),
                "wrap": .unsupportedWrapAlgorithm("RSA/OAEP"),
                "tampered": .plaintextMismatch(objectKey: "tampered", what: "MD5"),
            ]
            for (key, error) in expected {
                let errors = await Self.readErrors(encryption, key, in: directory)
                #expect(errors == ["get": "\(error)", "file": "\(error)", "resumable": "\(error)", "stream": "\(error)"], "\(key)")
            }
            let stranger = OSSEncryptionClient(client: client, masterCipher: try TestKeys.second.cipher(["k": "second"]))
            let unwrap = OSSEncryptionError.unwrapFailed(objectKey: "wrong-key", materialDescription: #"{"k":"first"}"#)
            #expect(
                await Self.readErrors(stranger, "wrong-key", in: directory)
                    == ["get": "\(unwrap)", "file": "\(unwrap)", "resumable": "\(unwrap)", "stream": "\(unwrap)"])
            // No plaintext file, partial file or record is left by any refused read.
            let left = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(left.isEmpty, "\(left)")
            // A part size that is not a multiple of 16 is refused by the resumable download too, before any request.
            await #expect(throws: OSSEncryptionError.partSizeNotAligned(1_000)) {
                try await encryption.downloadFile(
                    bucketName: "bkt", objectKey: "tampered", to: directory.appendingPathComponent("x"), partSize: 1_000)
            }
        }
    }
}

/// The part numbers a run reports.
actor PartLog {
    private(set) var values: [Int] = []
    func add(_ value: Int) { values.append(value) }
}

/// The notices a transfer gave, from any thread.
final class NoticeLog: Sendable {
    private let state = OSSLockedValue<[OSSRecordNotice]>([])
    func add(_ notice: OSSRecordNotice) { state.withLockedValue { $0.append(notice) } }
    var values: [OSSRecordNotice] { state.withLockedValue { $0 } }
}
