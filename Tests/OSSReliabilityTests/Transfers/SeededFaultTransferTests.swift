import AliyunOSS
import Foundation
import Logging
import NIOConcurrencyHelpers
import OSSCRC64
import OSSLocalServer
import OSSSigning
import OSSTestSupport
import Testing

/// Resumable uploads and downloads under seeded server faults (dropped connections mid-body, 503s, delays),
/// with cancellations, run with STS credentials and the SDK logger at `.trace`; afterwards every log line, record
/// file and temporary file is scanned for the secret key and the STS token.
@Suite("Seeded faults: resumable transfers, cancellations and secrets")
struct SeededFaultTransferTests {
    static let sts = OSSCredentials(
        accessKeyId: "STS.ReliabilityKey", accessKeySecret: "Reliability+Secret/Key=0123456789",
        securityToken: "CAIS+Reliability/STS=Token-9f8e7d")
    static let partSize: Int64 = 102_400

    struct Figures {
        var uploads = 0
        var downloads = 0
        var attempts = 0
        var cancellations = 0
    }

    /// Runs `body` until it succeeds, at most `limit` times (a failure after the SDK's own retries keeps the
    /// record, so calling again resumes, as an application would). Returns the attempts made.
    static func untilSuccess<T>(limit: Int = 6, _ body: () async throws -> T) async throws -> (T, Int) {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return (try await body(), attempt)
            } catch let error as OSSClientError where error.code == .cannotResumeUpload || error.code == .networkError {
                if attempt >= limit { throw error }
            } catch let error as OSSServerError where error.statusCode >= 500 {
                if attempt >= limit { throw error }
            }
        }
    }

    @Test("N uploads and N downloads under seeded faults are byte-identical; cancelled uploads leave nothing")
    func seededFaultTransfers() async throws {
        let seed = ReliabilityScale.seed(0x000F_A017)
        let runs = ReliabilityScale.transfers
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("oss-reliability-faults-\(UUID().uuidString)")
        let records = root.appendingPathComponent("records")
        let dataDirectory = root.appendingPathComponent("server-data")
        try FileManager.default.createDirectory(at: records, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let lines = NIOLockedValueBox<[String]>([])
        let logger = Logger(label: "reliability") { _ in CapturingLogHandler(lines: lines) }
        var figures = Figures()
        var rng = SplitMix64(seed: seed)
        let rules = [
            "UploadPart:random=0.1:seed=\(seed % 100_000):drop=5000",
            "GetObject:random=0.1:seed=\(seed % 100_000 + 1):drop=5000",
            "*:random=0.05:seed=\(seed % 100_000 + 2):status=503",
            "*:random=0.05:seed=\(seed % 100_000 + 3):delay=20",
        ]
        let configuration = LocalOSSServerConfiguration(
            dataDirectory: dataDirectory, stsCredentials: [Self.sts], buckets: ["bkt"])
        var fileScan: [(path: String, bytes: [UInt8])] = []
        let stats = try await withLocalOSSServer(configuration) { server in
            var clientConfiguration = OSSClientConfiguration(region: "cn-hangzhou", signatureVersion: .v4)
            clientConfiguration.retry = .init(maxRetryCount: 4, baseDelay: .milliseconds(2), maxDelay: .milliseconds(20))
            clientConfiguration.logger = logger
            clientConfiguration.transport = transportUnderTest
            let client = try OSSClient(
                endpoint: server.endpoint,
                credentialProvider: OSSStsCredentialProvider(
                    accessKeyId: Self.sts.accessKeyId, accessKeySecret: Self.sts.accessKeySecret,
                    securityToken: Self.sts.securityToken ?? ""),
                configuration: clientConfiguration)
            do {
                for rule in rules { await server.addFault(try LocalOSSFaultRule(parsing: rule)) }
                var sources: [(key: String, bytes: [UInt8])] = []
                for index in 0..<runs {
                    let size = 150_000 + rng.below(600_000)
                    let bytes = rng.bytes(size)
                    let key = "faults/object-\(index).bin"
                    let source = root.appendingPathComponent("source-\(index).bin")
                    try Data(bytes).write(to: source)
                    let request = OSSResumableUploadRequest(
                        bucketName: "bkt", objectKey: key, uploadingFileURL: source, partSize: Self.partSize,
                        threadNum: 3, recordDirectoryPath: records.path, deleteUploadIdOnCancelling: true)
                    let (result, attempts) = try await Self.untilSuccess { try await client.resumableUpload(request) }
                    figures.uploads += 1
                    figures.attempts += attempts
                    #expect(result.crc64 == CRC64.checksum(bytes), "upload \(index)")
                    sources.append((key, bytes))
                }
                // Cancelled uploads (deleteUploadIdOnCancelling = true): the upload id is aborted.
                for index in 0..<max(2, runs / 5) {
                    let source = root.appendingPathComponent("cancel-\(index).bin")
                    try Data(rng.bytes(700_000)).write(to: source)
                    // A fault may end an attempt before the cancel does (the record is kept then); calling again
                    // resumes, and the cancel fires at the first progress report.
                    var cancelled = false
                    for _ in 0..<6 where !cancelled {
                        var request = OSSResumableUploadRequest(
                            bucketName: "bkt", objectKey: "faults/cancelled-\(index).bin", uploadingFileURL: source,
                            partSize: Self.partSize, threadNum: 2, recordDirectoryPath: records.path,
                            deleteUploadIdOnCancelling: true)
                        let handle = request
                        let threshold = Int64(1 + rng.below(4)) * Self.partSize
                        request.uploadProgress = { _, total, _ in if total >= threshold { handle.cancel() } }
                        do {
                            _ = try await client.resumableUpload(request)
                            Issue.record("cancelled upload \(index) completed")
                            cancelled = true
                        } catch let error as OSSClientError where error.code == .taskCancelled {
                            cancelled = true
                        } catch {
                            figures.attempts += 1
                        }
                    }
                    #expect(cancelled, "cancelled upload \(index) never got cancelled")
                    figures.cancellations += 1
                }
                // A paused upload (deleteUploadIdOnCancelling = false) keeps its record: scanned for secrets below.
                let pausedSource = root.appendingPathComponent("paused.bin")
                try Data(rng.bytes(600_000)).write(to: pausedSource)
                var paused = OSSResumableUploadRequest(
                    bucketName: "bkt", objectKey: "faults/paused.bin", uploadingFileURL: pausedSource,
                    partSize: Self.partSize, threadNum: 1, recordDirectoryPath: records.path,
                    deleteUploadIdOnCancelling: false)
                let pausedHandle = paused
                paused.uploadProgress = { _, total, _ in if total >= 2 * Self.partSize { pausedHandle.cancel() } }
                _ = try? await client.resumableUpload(paused)
                // Downloads of every uploaded object, plus cancelled ones that leave a temporary file and record.
                for (index, source) in sources.enumerated() {
                    let destination = root.appendingPathComponent("download-\(index).bin")
                    let request = OSSResumableDownloadRequest(
                        bucketName: "bkt", objectKey: source.key, downloadToFileURL: destination,
                        partSize: Self.partSize, threadNum: 3, recordDirectoryPath: records.path)
                    let (result, attempts) = try await Self.untilSuccess { try await client.resumableDownload(request) }
                    figures.downloads += 1
                    figures.attempts += attempts
                    let downloaded = Array(try Data(contentsOf: destination))
                    #expect(downloaded.count == source.bytes.count, "download \(index) size")
                    #expect(downloaded == source.bytes, "download \(index) bytes")
                    #expect(result.crc64 == CRC64.checksum(source.bytes), "download \(index) CRC-64")
                }
                if let first = sources.first {
                    var request = OSSResumableDownloadRequest(
                        bucketName: "bkt", objectKey: first.key, downloadToFileURL: root.appendingPathComponent("paused-download.bin"),
                        partSize: Self.partSize, threadNum: 1, recordDirectoryPath: records.path)
                    let handle = request
                    request.downloadProgress = { _, total, _ in if total >= Self.partSize { handle.cancel() } }
                    _ = try? await client.resumableDownload(request)
                }
                // Scan the files while the paused record and temporary file still exist.
                fileScan = filesWithContents(under: root)
                // No orphaned multipart uploads besides the deliberately paused one.
                await server.clearFaults()
                var leftover: [String] = []
                for try await page in client.listMultipartUploadsPaginator(OSSListMultipartUploadsRequest(bucketName: "bkt")) {
                    leftover += page.uploads.map(\.objectKey)
                }
                #expect(leftover == ["faults/paused.bin"], "orphaned uploads: \(leftover)")
                try await client.shutdown()
            } catch {
                try? await client.shutdown()
                throw error
            }
            return await server.stats()
        }
        // Secrets: zero hits in every log line and every file (records, temporary files, server data).
        let logLines = lines.withLockedValue { $0 }
        #expect(logLines.contains { $0.hasPrefix("trace") }, "the trace level was really on")
        var hits = 0
        for secret in secretForms(Self.sts.accessKeySecret) + secretForms(Self.sts.securityToken ?? "") {
            for line in logLines where line.contains(secret) {
                hits += 1
                Issue.record("secret in a log line: \(line.prefix(200))")
            }
            for file in fileScan where containsBytes(file.bytes, Array(secret.utf8)) {
                hits += 1
                Issue.record("secret in \(file.path)")
            }
        }
        #expect(fileScan.contains { $0.path.hasSuffix(".upload.record") }, "a record was scanned")
        reportFigure(
            "faults",
            [
                "seed": seed, "uploads": figures.uploads, "downloads": figures.downloads,
                "cancellations": figures.cancellations, "attempts": figures.attempts,
                "faults_injected": stats.faultsInjected, "requests": stats.total.requests,
                "upload_part_requests": stats[.uploadPart].requests, "get_object_requests": stats[.getObject].requests,
            ])
        reportFigure("secrets", ["log_lines": logLines.count, "files_scanned": fileScan.count, "hits": hits])
    }
}
