// Downloads an object into a file with parallel ranged GETs; interrupted downloads resume where they stopped.
//
//   OSS_ACCESS_KEY_ID=... OSS_ACCESS_KEY_SECRET=... [OSS_SESSION_TOKEN=...] swift run resumable-download \
//       --endpoint https://oss-cn-hangzhou.aliyuncs.com --region cn-hangzhou --bucket my-bucket --key big.bin \
//       --file ./big.bin --checkpoint-dir ./.oss-records [--part-size 8388608] [--threads 4] [--signature-version v4]
//
// Without --endpoint it starts the embedded local OSS server, uploads a 32 MiB object there, and downloads it.
//
// Ctrl-C cancels through `request.cancel()`: the temporary file and the record are kept, and running the same
// command again fetches only the parts that are still missing. On failure it prints the error code and exits 1.
import AliyunOSS
import ArgumentParser
import Foundation
import OSSLocalServer

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@main
struct ResumableDownload: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resumable-download", abstract: "Download an object into a file, resumably.")

    @Option(name: .customLong("endpoint"), help: "OSS endpoint, e.g. https://oss-cn-hangzhou.aliyuncs.com (default: $OSS_ENDPOINT, else an embedded local server).")
    var endpointOption: String?
    /// The endpoint: --endpoint, else $OSS_ENDPOINT (as the oss CLI reads it), else the embedded local server.
    var endpoint: String? { endpointOption ?? ProcessInfo.processInfo.environment["OSS_ENDPOINT"] }
    @Option(name: .customLong("region"), help: "Region id (needed for V4 signatures). Default: $OSS_REGION, else cn-hangzhou.")
    var regionOption: String?
    /// The region: --region, else $OSS_REGION (as the oss CLI reads it), else cn-hangzhou.
    var region: String { regionOption ?? ProcessInfo.processInfo.environment["OSS_REGION"] ?? "cn-hangzhou" }
    @Option(help: "Bucket name (default with the local server: demo-bucket).") var bucket: String?
    @Option(help: "Object key (default with the local server: demo.bin).") var key: String?
    @Option(help: "Destination file.") var file: String
    @Option(help: "Directory for the checkpoint record.") var checkpointDir: String
    @Option(help: "Part size in bytes (at least 102400).") var partSize: Int64 = OSSResumableDownloadRequest.defaultPartSize
    @Option(help: "Parts fetched in parallel.") var threads: Int = OSSResumableDownloadRequest.defaultThreadNum
    @Option(help: "Byte range to download: a-b or a- (inclusive offsets).") var range: String?
    @Option(help: "v1 or v4.") var signatureVersion: String = "v4"
    @Flag(help: "Discard the partial download and start over once if the object changes, instead of failing.")
    var restartOnChange = false
    @Flag(help: "Do not check the CRC-64.") var noCRC = false

    func run() async throws {
        guard let version = OSSSignatureVersion(rawValue: signatureVersion) else {
            throw ValidationError("--signature-version must be v1 or v4")
        }
        if endpoint != nil, bucket == nil || key == nil {
            throw ValidationError("--bucket and --key are required with --endpoint")
        }
        let bucket = bucket ?? "demo-bucket"
        let key = key ?? "demo.bin"
        var request = OSSResumableDownloadRequest(
            bucketName: bucket, objectKey: key, downloadToFileURL: URL(fileURLWithPath: file), partSize: partSize,
            threadNum: threads, recordDirectoryPath: checkpointDir, range: try range.map(Self.parseRange),
            crcFlag: noCRC ? false : nil, objectChangedPolicy: restartOnChange ? .restartOnce : .fail)
        // Reported as parts are recorded (a resumed download's first report covers the bytes already on disk);
        // print a line per percent. The handler runs on the SDK's tasks: it hands each report to one printing task.
        let (reports, reporter) = AsyncStream.makeStream(of: (total: Int64, expected: Int64).self)
        request.downloadProgress = { _, total, expected in reporter.yield((total, expected)) }
        let printer = Task {
            var lastPercent: Int64 = -1
            for await (total, expected) in reports {
                let percent = expected > 0 ? total * 100 / expected : 100
                if percent != lastPercent { print("progress: \(total)/\(expected) bytes (\(percent)%)") }
                lastPercent = percent
            }
        }
        defer { printer.cancel() }

        // Ctrl-C → cancel(): the same path as an app's cancel button.
        signal(SIGINT, SIG_IGN)
        let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        interrupt.setEventHandler { [request] in
            FileHandle.standardError.write(Data("\ncancelling...\n".utf8))
            request.cancel()
        }
        interrupt.resume()
        defer { interrupt.cancel() }

        let configuration = OSSClientConfiguration(region: region, signatureVersion: version)
        do {
            let result: OSSResumableDownloadResult
            if let endpoint {
                result = try await withOSSClient(
                    endpoint: endpoint, credentialProvider: OSSEnvironmentCredentialProvider(), configuration: configuration
                ) { client in
                    try await client.resumableDownload(request)
                }
            } else {
                result = try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: [bucket])) { server in
                    print("Started a local OSS server at \(server.endpoint); uploading a 32 MiB object to download")
                    return try await withOSSClient(
                        endpoint: server.endpoint.absoluteString, credentialProvider: server.credentials.provider,
                        configuration: configuration
                    ) { client in
                        var bytes = [UInt8](repeating: 0, count: 32 << 20)
                        var generator = SystemRandomNumberGenerator()
                        for i in stride(from: 0, to: bytes.count, by: 8) {
                            withUnsafeBytes(of: generator.next() as UInt64) { word in
                                for j in 0..<8 { bytes[i + j] = word[j] }
                            }
                        }
                        _ = try await client.putObject(OSSPutObjectRequest(bucketName: bucket, objectKey: key, data: Data(bytes)))
                        return try await client.resumableDownload(request)
                    }
                }
            }
            reporter.finish()
            await printer.value
            print("downloaded \(result.totalBytes) bytes to \(result.fileURL.path)")
            if result.resumedBytes > 0 { print("resumed: \(result.resumedBytes) bytes were already on disk") }
            print("ETag: \(result.eTag)")
            print("CRC64: \(result.crc64)")
        } catch let error as OSSClientError {
            FileHandle.standardError.write(Data("error: \(error.code.rawValue): \(error.message)\n".utf8))
            throw ExitCode(1)
        } catch let error as OSSServerError {
            FileHandle.standardError.write(
                Data("error: \(error.code.isEmpty ? "HTTP \(error.statusCode)" : error.code): \(error.message)\n".utf8))
            throw ExitCode(1)
        }
    }

    /// Parses `a-b` or `a-`.
    static func parseRange(_ text: String) throws -> OSSObjectRange {
        let pieces = text.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard pieces.count == 2, let first = Int64(pieces[0]) else { throw ValidationError("--range must be a-b or a-") }
        if pieces[1].isEmpty { return .from(first) }
        guard let last = Int64(pieces[1]) else { throw ValidationError("--range must be a-b or a-") }
        return .closed(first, last)
    }
}
