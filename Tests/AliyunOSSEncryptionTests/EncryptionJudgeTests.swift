import AliyunOSS
import AliyunOSSEncryption
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

/// The official Python v2 EncryptionClient judges the envelope both ways (Tests/python/judge_encryption.py): Python
/// writes one PutObject and one multipart upload and the Swift SDK reads them whole and in ranges at odd offsets;
/// the Swift SDK writes one PutObject, one multipart upload, one resumed (parallel) upload and two streams, and Python
/// reads each back byte for byte, ranged too. A mistake shared by the SDK and the local server fails one direction.
@Suite("Client-side encryption judged by the official Python client")
struct EncryptionJudgeTests {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    struct Stop: Error {}

    @Test func theOfficialClientAndTheSDKReadEachOthersObjects() async throws {
        let python = Self.packageRoot.appendingPathComponent(".venv/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            Issue.record("No Python venv at \(python.path): run scripts/test.sh (it creates .venv with alibabacloud-oss-v2).")
            return
        }
        let directory = try makeWorkDirectory("encryption-judge")
        defer { try? FileManager.default.removeItem(at: directory) }
        let keys = TestKeys.first
        let publicKey = directory.appendingPathComponent("public.pem")
        let privateKey = directory.appendingPathComponent("private.pem")
        try keys.pkcs1Public.write(to: publicKey, atomically: true, encoding: .utf8)
        try keys.pkcs8Private.write(to: privateKey, atomically: true, encoding: .utf8)
        let cipher = try keys.cipher(["judge": "swift"])

        try await withEncryptionServer { server, client in
            let encryption = OSSEncryptionClient(client: client, masterCipher: cipher)
            func run(_ phase: String, objects: [String] = []) async throws -> (Int32, String) {
                try await runPythonScript(
                    python,
                    [
                        "judge_encryption.py", "--phase", phase, "--bucket", "bkt", "--endpoint",
                        server.endpoint.absoluteString, "--access-key-id", server.credentials.accessKeyId,
                        "--access-key-secret", server.credentials.accessKeySecret, "--public-key", publicKey.path,
                        "--private-key", privateKey.path, "--matdesc", #"{"judge": "python"}"#, "--objects",
                        objects.joined(separator: ","),
                    ], in: Self.packageRoot.appendingPathComponent("Tests/python"))
            }

            // Python writes, Swift reads.
            let (written, writeLog) = try await run("write")
            #expect(written == 0, "judge_encryption.py write failed:\n\(writeLog)")
            for key in ["py/single", "py/multi"] {
                let plain = try #require(
                    try await client.getObject(.init(bucketName: "bkt", objectKey: key + ".plain")).content)
                #expect(try await encryption.getObject(.init(bucketName: "bkt", objectKey: key)).content == plain, "\(key)")
                for (a, b) in [(0, 0), (1, 16), (15, 17), (4_095, 102_409), (102_399, 102_401), (7, plain.count - 2)]
                where b < plain.count {
                    let range = try await encryption.getObject(
                        .init(bucketName: "bkt", objectKey: key, range: .closed(Int64(a), Int64(b))))
                    #expect(range.content == plain[a...b], "\(key) bytes=\(a)-\(b)")
                }
                let file = directory.appendingPathComponent("from-python.bin")
                _ = try await encryption.getObject(.init(bucketName: "bkt", objectKey: key), toFile: file)
                #expect(try Data(contentsOf: file) == plain, "\(key) to a file")
                for offset in [0, 17, 102_401] where offset < plain.count {
                    var streamed = Data()
                    for try await chunk in try await encryption.downloadStream(
                        .init(bucketName: "bkt", objectKey: key, offset: Int64(offset)))
                    {
                        streamed.append(chunk)
                    }
                    #expect(streamed == plain.dropFirst(offset), "\(key) streamed from \(offset)")
                }
            }

            // Swift writes, Python reads.
            func putPlain(_ key: String, _ data: Data) async throws {
                _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: key + ".plain", data: data))
            }
            let single = testBytes(100_003, seed: 21)
            _ = try await encryption.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "swift/single", data: single))
            try await putPlain("swift/single", single)

            let multi = testBytes(2 * 102_400 + 4_097, seed: 22)
            let upload = try await encryption.initiateMultipartUpload(
                OSSInitiateMultipartUploadRequest(bucketName: "bkt", objectKey: "swift/multi"), partSize: 102_400,
                dataSize: Int64(multi.count))
            var parts: [OSSPartInfo] = []
            for number in 1...3 {
                let start = (number - 1) * 102_400
                let result = try await encryption.uploadPart(
                    upload, partNumber: number, data: Data(multi[start..<min(start + 102_400, multi.count)]))
                parts.append(OSSPartInfo(partNumber: number, eTag: result.eTag))
            }
            _ = try await encryption.completeMultipartUpload(upload, parts: parts)
            try await putPlain("swift/multi", multi)

            let resumed = testBytes(3 * 102_400 + 1, seed: 23)
            let source = directory.appendingPathComponent("resumed.bin")
            try resumed.write(to: source)
            let record = directory.appendingPathComponent("resumed.record")
            await #expect(throws: Stop.self) {
                try await encryption.uploadFile(
                    source, bucketName: "bkt", objectKey: "swift/resumed", partSize: 102_400, recordURL: record
                ) { number in if number == 2 { throw Stop() } }
            }
            _ = try await OSSEncryptionClient(client: client, masterCipher: try keys.cipher(["judge": "swift"]))
                .uploadFile(source, bucketName: "bkt", objectKey: "swift/resumed", partSize: 102_400, recordURL: record)
            try await putPlain("swift/resumed", resumed)

            // Streams: one short enough for a single PutObject, one in parts (cut from the ciphertext stream, so
            // the envelope carries no part size).
            for (key, count) in [("swift/stream-single", 50_001), ("swift/stream-multi", 3 * 102_400 + 99)] {
                let data = testBytes(count, seed: UInt64(count))
                _ = try await encryption.uploadStream(
                    EncryptionClientTests.chunks(data, size: 9_999), bucket: "bkt", key: key,
                    options: OSSStreamUploadOptions(partSize: 102_400))
                try await putPlain(key, data)
            }

            let (checked, checkLog) = try await run(
                "check",
                objects: ["swift/single", "swift/multi", "swift/resumed", "swift/stream-single", "swift/stream-multi"])
            #expect(checked == 0, "judge_encryption.py check failed:\n\(checkLog)")
        }
    }
}
