import AliyunOSS
import Foundation
import NIOConcurrencyHelpers
import OSSCRC64
import OSSLocalServer
import OSSTestSupport
import Testing

/// An object replaced while a resumable download runs, at seeded timings: the destination is never a mix of the
/// two versions. It is the old object, the new one (restartOnce), or absent with an error.
@Suite("Object replaced mid-download")
struct ObjectReplacementTests {
    static var timings: Int {
        Int(ProcessInfo.processInfo.environment["OSS_RELIABILITY_REPLACEMENTS"] ?? "") ?? 6
    }

    @Test("never a mixed file, whatever the timing")
    func replacedMidDownload() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("oss-replace-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        var rng = SplitMix64(seed: ReliabilityScale.seed(0x5245_504C))
        var outcomes: [String: Int] = [:]
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["bkt"])) { server in
            var configuration = OSSClientConfiguration(region: "cn-hangzhou")
            configuration.retry = .init(maxRetryCount: 3, baseDelay: .milliseconds(2), maxDelay: .milliseconds(20))
            configuration.transport = transportUnderTest
            let client = try OSSClient(
                endpoint: server.endpoint, credentialProvider: OSSStaticCredentialProvider(
                    accessKeyId: server.credentials.accessKeyId, accessKeySecret: server.credentials.accessKeySecret),
                configuration: configuration)
            do {
                for timing in 0..<Self.timings {
                    let key = "replace-\(timing).bin"
                    let old = rng.bytes(600_000 + rng.below(200_000))
                    let new = rng.bytes(500_000 + rng.below(300_000))
                    _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: key, data: Data(old)))
                    let destination = root.appendingPathComponent("out-\(timing).bin")
                    let trigger = Int64(rng.below(old.count))
                    let fired = NIOLockedValueBox<Task<Void, Never>?>(nil)
                    var request = OSSResumableDownloadRequest(
                        bucketName: "bkt", objectKey: key, downloadToFileURL: destination, partSize: 102_400,
                        threadNum: 1 + timing % 3, recordDirectoryPath: root.appendingPathComponent("records").path)
                    request.objectChangedPolicy = timing % 2 == 0 ? .fail : .restartOnce
                    request.downloadProgress = { _, total, _ in
                        guard total >= trigger else { return }
                        fired.withLockedValue { task in
                            guard task == nil else { return }
                            task = Task {
                                _ = try? await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: key, data: Data(new)))
                            }
                        }
                    }
                    var outcome: String
                    do {
                        let result = try await client.resumableDownload(request)
                        let bytes = Array(try Data(contentsOf: destination))
                        #expect(result.crc64 == CRC64.checksum(bytes), "timing \(timing): CRC of what was written")
                        outcome = bytes == old ? "old" : bytes == new ? "new" : "MIXED"
                    } catch {
                        outcome = "error"
                        if let bytes = try? Data(contentsOf: destination) {
                            #expect(Array(bytes) == old || Array(bytes) == new, "timing \(timing): a partial file at the destination")
                        }
                    }
                    await fired.withLockedValue { $0 }?.value
                    #expect(outcome != "MIXED", "timing \(timing) (trigger at byte \(trigger)): a mixed file")
                    outcomes[outcome, default: 0] += 1
                }
                try await client.shutdown()
            } catch {
                try? await client.shutdown()
                throw error
            }
        }
        reportFigure(
            "replacement",
            ["timings": Self.timings, "outcomes": outcomes.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ",")])
    }
}
