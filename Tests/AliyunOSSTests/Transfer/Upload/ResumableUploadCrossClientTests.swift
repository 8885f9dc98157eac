import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

@Suite("resumableUpload: cross-client check with oss2")
struct ResumableUploadCrossClientTests {
    /// The package root: the nearest directory above this file that holds Package.swift.
    static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path), url.path != "/" {
            url.deleteLastPathComponent()
        }
        return url
    }()

    @Test("a resumed multipart object is read back byte-identical by oss2 get_object_to_file with CRC checking")
    func oss2ReadsTheObject() async throws {
        let python = Self.packageRoot.appendingPathComponent(".venv/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            Issue.record("No Python venv at \(python.path): run scripts/test.sh (it creates .venv with oss2).")
            return
        }
        let scratch = try RUScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(1_300_000, seed: 77)
        try scratch.write(bytes)
        try await withServerAndClient { server, client in
            // Interrupt once (keeping the upload) so the object is assembled from a resumed upload.
            await server.addFault(LocalOSSFaultRule(operation: .uploadPart, action: .delay(milliseconds: 30)))
            var first = ruRequest("cross.bin", scratch, threads: 2, deleteOnCancel: false)
            let handle = first
            first.uploadProgress = RUProgressLog().handler { count in if count == 4 { handle.cancel() } }
            #expect(await thrownClientError { _ = try await client.resumableUpload(first) }?.code == .taskCancelled)
            await server.clearFaults()
            let result = try await client.resumableUpload(ruRequest("cross.bin", scratch))
            #expect(result.resumedBytes > 0)

            let output = scratch.root.appendingPathComponent("oss2.bin")
            let process = Process()
            process.executableURL = python
            process.arguments = [
                "-c",
                """
                import sys, oss2
                endpoint, ak, sk, path = sys.argv[1:5]
                bucket = oss2.Bucket(oss2.Auth(ak, sk), endpoint, "bkt", enable_crc=True)
                result = bucket.get_object_to_file("cross.bin", path)
                print(result.server_crc)
                """,
                server.endpoint.absoluteString, server.credentials.accessKeyId, server.credentials.accessKeySecret,
                output.path,
            ]
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            let status: Int32 = try await withCheckedThrowingContinuation { continuation in
                process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
                do { try process.run() } catch { continuation.resume(throwing: error) }
            }
            let log = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(status == 0, "oss2 failed: \(log)")
            #expect(Array(try Data(contentsOf: output)) == bytes)
            #expect(log.trimmingCharacters(in: .whitespacesAndNewlines) == result.crc64.map(String.init))
        }
    }
}
