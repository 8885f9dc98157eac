// The ```swift blocks of README.md, verbatim (DocSnippetsTests checks it), each in the context a reader gives it.
// A block that begins with imports sits in a file with exactly those imports, so a missing one fails to compile.
import AliyunOSS
import Foundation

// MARK: Quick start

func quickStart() async throws {
    let client = try OSSClient(
        endpoint: "https://oss-cn-hangzhou.aliyuncs.com",
        credentialProvider: OSSEnvironmentCredentialProvider(),   // OSS_ACCESS_KEY_ID, OSS_ACCESS_KEY_SECRET, OSS_SESSION_TOKEN
        configuration: OSSClientConfiguration(region: "cn-hangzhou", signatureVersion: .v4))

    // Resumable upload: parts in parallel, a checkpoint record after every confirmed part, CRC-64 end to end.
    var upload = OSSResumableUploadRequest(
        bucketName: "my-bucket", objectKey: "videos/big.mp4",
        uploadingFileURL: URL(fileURLWithPath: "big.mp4"),
        partSize: 8 << 20, threadNum: 4,
        recordDirectoryPath: "/var/tmp/oss-records",        // resume survives process death
        deleteUploadIdOnCancelling: false)                    // cancel() pauses instead of aborting
    upload.uploadProgress = { bytesSent, totalBytesSent, totalBytesExpectedToSend in
        print("\(totalBytesSent)/\(totalBytesExpectedToSend)")
    }
    let uploaded = try await client.resumableUpload(upload)   // call again after a failure: it resumes
    print(uploaded.eTag ?? "", uploaded.crc64 ?? 0)

    // Resumable download: ranged GETs with If-Match into a temp file, renamed into place only when complete and verified.
    let download = OSSResumableDownloadRequest(
        bucketName: "my-bucket", objectKey: "videos/big.mp4",
        downloadToFileURL: URL(fileURLWithPath: "copy.mp4"),
        recordDirectoryPath: "/var/tmp/oss-records")
    let downloaded = try await client.resumableDownload(download)
    print(downloaded.crc64)

    try await client.shutdown()   // or withOSSClient(endpoint:credentialProvider:configuration:) { client in ... }
}
