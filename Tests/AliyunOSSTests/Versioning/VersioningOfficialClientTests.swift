import AliyunOSS
import Foundation
import OSSLocalServer
import Testing

/// The official oss2 client and the Swift SDK on one versioned bucket of the local server: oss2 writes three
/// versions and a delete marker; the SDK lists them in order, reads each byte for byte, copies the oldest back as
/// the latest and purges the rest; oss2 then sees exactly that (Tests/python/versioning_interop.py).
@Suite("Versioning with the official client")
struct VersioningOfficialClientTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Runs `versioning_interop.py <phase>` against `server`; returns its standard output (standard error on failure).
    static func oss2(_ phase: String, _ extra: [String] = [], server: LocalOSSServer) async throws -> String {
        let python = root.appendingPathComponent(".venv/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            throw SetupUnavailable(description: "no Python venv at \(python.path): run scripts/test.sh (it creates .venv with oss2)")
        }
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("interop-\(UUID().uuidString)")
        FileManager.default.createFile(atPath: out.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: out) }
        let handle = try FileHandle(forWritingTo: out)
        let process = Process()
        process.executableURL = python
        process.currentDirectoryURL = root.appendingPathComponent("Tests/python")
        process.arguments =
            [
                "versioning_interop.py", phase, "--endpoint", server.endpoint.absoluteString,
                "--access-key-id", server.credentials.accessKeyId,
                "--access-key-secret", server.credentials.accessKeySecret, "--bucket", "bkt",
            ] + extra
        process.standardOutput = handle
        process.standardError = handle
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        try handle.close()
        let output = try String(contentsOf: out, encoding: .utf8)
        #expect(status == 0, "versioning_interop.py \(phase) failed:\n\(output)")
        return output
    }

    struct Written: Decodable {
        var versions: [String]
        var marker: String
    }

    @Test func whatOSS2WritesTheSDKReadsRestoresAndPurgesAndOSS2SeesIt() async throws {
        try await withServerAndClient(version: .v4) { server, client in
            let written = try JSONDecoder().decode(
                Written.self, from: Data(try await Self.oss2("write", server: server).utf8))
            let (v1, v2, v3) = (written.versions[0], written.versions[1], written.versions[2])

            var entries: [OSSObjectVersionEntry] = []
            for try await page in client.listObjectVersionsPaginator(
                OSSListObjectVersionsRequest(bucketName: "bkt", maxKeys: 1))
            {
                entries += page.entries
            }
            #expect(entries.map(\.versionId) == [written.marker, v3, v2, v1])
            #expect(entries.map(\.isDeleteMarker) == [true, false, false, false])
            for (n, id) in [v1, v2, v3].enumerated() {
                let object = try await client.getObject(
                    OSSGetObjectRequest(bucketName: "bkt", objectKey: "doc.txt", versionId: id))
                #expect(object.content == Data("version \(n + 1)".utf8) && object.versionId == id)
            }

            let copy = try await client.copyObject(
                OSSCopyObjectRequest(
                    sourceBucketName: "bkt", sourceObjectKey: "doc.txt", sourceVersionId: v1, bucketName: "bkt",
                    objectKey: "doc.txt"))
            let restored = try #require(copy.versionId)
            let purge = entries.map { OSSObjectIdentifier(objectKey: $0.objectKey, versionId: $0.versionId) }
            let deleted = try await client.deleteObjects(purge, inBucket: "bkt")
            #expect(deleted.count == 4)

            let verdict = try await Self.oss2("check", ["--expect-version", restored], server: server)
            #expect(verdict.hasSuffix("ok\n"), "\(verdict)")
        }
    }
}
