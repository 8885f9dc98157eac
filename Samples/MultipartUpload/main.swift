// Uploads a file with the multipart API by hand: initiate, upload each part from a range of the file
// (streamed), list the parts, complete. On failure the upload is aborted.
//
//   OSS_ACCESS_KEY_ID=... OSS_ACCESS_KEY_SECRET=... swift run multipart-upload \
//       --endpoint https://oss-cn-hangzhou.aliyuncs.com --region cn-hangzhou --bucket my-bucket --key big.bin \
//       --file ./big.bin --part-size 5242880
//
// Without --endpoint it starts the embedded local OSS server and uploads a generated 1 MiB file.
import AliyunOSS
import ArgumentParser
import Foundation
import OSSLocalServer

@main
struct MultipartUpload: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "multipart-upload", abstract: "Upload a file part by part.")

    @Option(name: .customLong("endpoint"), help: "OSS endpoint (default: $OSS_ENDPOINT, else an embedded local server).") var endpointOption: String?
    /// The endpoint: --endpoint, else $OSS_ENDPOINT (as the oss CLI reads it), else the embedded local server.
    var endpoint: String? { endpointOption ?? ProcessInfo.processInfo.environment["OSS_ENDPOINT"] }
    @Option(name: .customLong("region"), help: "Region id, e.g. cn-hangzhou. Default: $OSS_REGION, else cn-hangzhou.")
    var regionOption: String?
    /// The region: --region, else $OSS_REGION (as the oss CLI reads it), else cn-hangzhou.
    var region: String { regionOption ?? ProcessInfo.processInfo.environment["OSS_REGION"] ?? "cn-hangzhou" }
    @Option(help: "Bucket name.") var bucket: String = "demo"
    @Option(help: "Object key.") var key: String = "big.bin"
    @Option(help: "v1 or v4.") var signatureVersion: String = "v4"
    @Option(help: "File to upload (default: a generated 1 MiB file).") var file: String?
    @Option(help: "Part size in bytes (at least 102400).") var partSize: Int64 = 256 * 1024

    func run() async throws {
        guard let version = OSSSignatureVersion(rawValue: signatureVersion) else {
            throw ValidationError("--signature-version must be v1 or v4")
        }
        guard partSize >= 100 * 1024 else { throw ValidationError("--part-size must be at least 102400") }
        let configuration = OSSClientConfiguration(region: region, signatureVersion: version)
        var fileURL = file.map { URL(fileURLWithPath: $0) }
        if fileURL == nil {
            let generated = FileManager.default.temporaryDirectory.appendingPathComponent("multipart-sample.bin")
            try Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) }).write(to: generated)
            fileURL = generated
        }
        guard let fileURL else { return }
        if let endpoint {
            try await upload(fileURL, endpoint: endpoint, credentials: OSSEnvironmentCredentialProvider(), configuration)
        } else {
            try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: [bucket])) { server in
                try await upload(
                    fileURL, endpoint: server.endpoint.absoluteString, credentials: server.credentials.provider,
                    configuration)
            }
        }
    }

    func upload(
        _ fileURL: URL, endpoint: String, credentials: any OSSCredentialProvider, _ configuration: OSSClientConfiguration
    ) async throws {
        let size = try FileManager.default.attributesOfItem(atPath: fileURL.path)[.size] as? Int64 ?? 0
        try await withOSSClient(endpoint: endpoint, credentialProvider: credentials, configuration: configuration) {
            client in
            let upload = try await client.initiateMultipartUpload(
                OSSInitiateMultipartUploadRequest(bucketName: bucket, objectKey: key))
            print("upload id \(upload.uploadId)")
            do {
                var offset: Int64 = 0
                var partNumber = 1
                repeat {
                    let length = min(partSize, size - offset)
                    let part = try await client.uploadPart(
                        OSSUploadPartRequest(
                            bucketName: bucket, objectKey: key, uploadId: upload.uploadId, partNumber: partNumber,
                            fileURL: fileURL, offset: offset, length: length))
                    print("part \(partNumber): \(length) bytes, ETag \(part.eTag)")
                    offset += length
                    partNumber += 1
                } while offset < size
                // The server is the source of truth: complete with the parts it lists.
                let parts = try await client.listAllParts(bucketName: bucket, objectKey: key, uploadId: upload.uploadId)
                let done = try await client.completeMultipartUpload(
                    OSSCompleteMultipartUploadRequest(
                        bucketName: bucket, objectKey: key, uploadId: upload.uploadId, parts: parts))
                print("completed \(key): ETag \(done.eTag ?? "-"), CRC-64 \(done.crc64.map(String.init) ?? "-")")
            } catch {
                // Abort so the parts stop costing storage; the first error is the one to report.
                _ = try? await client.abortMultipartUpload(
                    OSSAbortMultipartUploadRequest(bucketName: bucket, objectKey: key, uploadId: upload.uploadId))
                throw error
            }
        }
    }
}
