// Uploads a file as a resumable multipart upload; an interrupted upload continues where it stopped.
//
//   OSS_ACCESS_KEY_ID=... OSS_ACCESS_KEY_SECRET=... [OSS_SESSION_TOKEN=...] swift run resumable-upload \
//       --endpoint https://oss-cn-hangzhou.aliyuncs.com --region cn-hangzhou --bucket my-bucket --key big.bin \
//       --file ./big.bin --checkpoint-dir ./.oss-records [--part-size 1048576] [--threads 5] \
//       [--keep-upload-on-cancel] [--signature-version v4]
//
// Without --endpoint it starts the embedded local OSS server and uploads there (the file and record directory are
// still yours to name: `swift run resumable-upload --file ./big.bin --checkpoint-dir ./.oss-records`).
//
// Ctrl-C cancels through `request.cancel()`. By default (as in the iOS SDK) a cancel aborts the multipart upload;
// with --keep-upload-on-cancel the upload and its record are kept and running the same command again sends only
// the parts the server does not have. A network failure always keeps the record. On failure it prints the error
// code and exits 1.
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
struct ResumableUpload: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resumable-upload", abstract: "Upload a file to OSS, resumably.")

    @Option(name: .customLong("endpoint"), help: "OSS endpoint, e.g. https://oss-cn-hangzhou.aliyuncs.com (default: $OSS_ENDPOINT, else an embedded local server).")
    var endpointOption: String?
    /// The endpoint: --endpoint, else $OSS_ENDPOINT (as the oss CLI reads it), else the embedded local server.
    var endpoint: String? { endpointOption ?? ProcessInfo.processInfo.environment["OSS_ENDPOINT"] }
    @Option(name: .customLong("region"), help: "Region id (needed for V4 signatures). Default: $OSS_REGION, else cn-hangzhou.")
    var regionOption: String?
    /// The region: --region, else $OSS_REGION (as the oss CLI reads it), else cn-hangzhou.
    var region: String { regionOption ?? ProcessInfo.processInfo.environment["OSS_REGION"] ?? "cn-hangzhou" }
    @Option(help: "Bucket name (default with the local server: demo-bucket).") var bucket: String?
    @Option(help: "Object key (default with the local server: the file's name).") var key: String?
    @Option(help: "The file to upload.") var file: String
    @Option(help: "Directory for the checkpoint record.") var checkpointDir: String
    @Option(help: "Part size in bytes (at least 102400).") var partSize: Int64 = OSSResumableUploadRequest.defaultPartSize
    @Option(help: "Parts sent in parallel.") var threads: Int = OSSResumableUploadRequest.defaultThreadNum
    @Option(help: "v1 or v4.") var signatureVersion: String = "v4"
    @Flag(help: "On Ctrl-C keep the multipart upload and the record, so the next run resumes.")
    var keepUploadOnCancel = false
    @Flag(help: "Do not check CRC-64.") var noCRC = false

    func run() async throws {
        guard let version = OSSSignatureVersion(rawValue: signatureVersion) else {
            throw ValidationError("--signature-version must be v1 or v4")
        }
        if endpoint != nil, bucket == nil || key == nil {
            throw ValidationError("--bucket and --key are required with --endpoint")
        }
        let bucket = bucket ?? "demo-bucket"
        let key = key ?? URL(fileURLWithPath: file).lastPathComponent
        var request = OSSResumableUploadRequest(
            bucketName: bucket, objectKey: key, uploadingFileURL: URL(fileURLWithPath: file), partSize: partSize,
            threadNum: threads, recordDirectoryPath: checkpointDir, deleteUploadIdOnCancelling: !keepUploadOnCancel,
            crcFlag: noCRC ? false : nil)
        // Reported as parts are confirmed (a resumed upload starts from the bytes already on the server).
        request.uploadProgress = { _, total, expected in
            let percent = expected > 0 ? total * 100 / expected : 100
            print("progress: \(total)/\(expected) bytes (\(percent)%)")
        }

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
            let result: OSSResumableUploadResult
            if let endpoint {
                result = try await withOSSClient(
                    endpoint: endpoint, credentialProvider: OSSEnvironmentCredentialProvider(), configuration: configuration
                ) { client in
                    try await client.resumableUpload(request)
                }
            } else {
                result = try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: [bucket])) { server in
                    print("Started a local OSS server at \(server.endpoint)")
                    return try await withOSSClient(
                        endpoint: server.endpoint.absoluteString, credentialProvider: server.credentials.provider,
                        configuration: configuration
                    ) { client in
                        try await client.resumableUpload(request)
                    }
                }
            }
            print("uploaded \(result.totalBytes) bytes to oss://\(bucket)/\(key)")
            if result.resumedBytes > 0 { print("resumed: \(result.resumedBytes) bytes were already on the server") }
            print("ETag: \(result.eTag ?? "-")")
            print("CRC64: \(result.crc64.map(String.init) ?? "-")")
        } catch let error as OSSClientError {
            FileHandle.standardError.write(Data("error: \(error.code.rawValue): \(error.message)\n".utf8))
            throw ExitCode(1)
        } catch let error as OSSServerError {
            FileHandle.standardError.write(
                Data("error: \(error.code.isEmpty ? "HTTP \(error.statusCode)" : error.code): \(error.message)\n".utf8))
            throw ExitCode(1)
        }
    }
}
