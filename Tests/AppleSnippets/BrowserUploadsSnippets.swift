// The ```swift blocks of BrowserUploads.md, verbatim (DocSnippetsTests checks it), in the context a backend gives
// them. Compiled in Swift 6 language mode with strict concurrency.
import AliyunOSS
import Foundation

// MARK: A POST policy for small files

func uploadForm(for userID: String) async throws -> OSSPostPolicyForm {
    let policy = OSSPostPolicy(
        expiration: Date().addingTimeInterval(600),
        conditions: [
            .keyPrefix("users/\(userID)/"),
            .contentLengthRange(1...20 << 20),
            .contentType(.startsWith("image/")),
            .successActionStatus(201),
        ])
    return try await client.postPolicyForm(bucket: "my-bucket", policy: policy)
}

// MARK: A callback on each upload

func uploadFormWithCallback(for userID: String) async throws -> OSSPostPolicyForm {
    var policy = OSSPostPolicy(expiration: Date().addingTimeInterval(600), conditions: [.keyPrefix("users/\(userID)/")])
    try policy.addCallback(
        OSSCallback(
            url: "https://api.example.com/uploaded", body: "key=${object}&size=${size}&user=${x:user}",
            variables: ["x:user": userID]))
    return try await client.postPolicyForm(bucket: "my-bucket", policy: policy)
}

// MARK: A presigned multipart plan for large files

struct MultipartPlan: Codable {
    var uploadId: String
    var partURLs: [String]
    var listPartsURL: String
    var completeURL: String
    var abortURL: String
}

func multipartPlan(userID: String, fileName: String, size: Int64, partSize: Int64) async throws -> MultipartPlan {
    let key = "users/\(userID)/\(fileName)"
    let upload = try await client.initiateMultipartUpload(
        OSSInitiateMultipartUploadRequest(bucketName: "my-bucket", objectKey: key))
    let parts = Int((size + partSize - 1) / partSize)
    var partURLs: [String] = []
    for number in 1...max(parts, 1) {
        let part = try await client.presignUploadPart(
            bucket: "my-bucket", key: key, uploadId: upload.uploadId, partNumber: number, expiration: 3600)
        partURLs.append(part.url)
    }
    let list = try await client.presignListParts(bucket: "my-bucket", key: key, uploadId: upload.uploadId, expiration: 3600)
    let complete = try await client.presignCompleteMultipartUpload(
        bucket: "my-bucket", key: key, uploadId: upload.uploadId, expiration: 3600)
    let abort = try await client.presignAbortMultipartUpload(
        bucket: "my-bucket", key: key, uploadId: upload.uploadId, expiration: 3600)
    return MultipartPlan(
        uploadId: upload.uploadId, partURLs: partURLs, listPartsURL: list.url, completeURL: complete.url,
        abortURL: abort.url)
}

// MARK: CORS for the page's origin

func allowUploadsFromTheApp() async throws {
    let cors = OSSCORSConfiguration(rules: [
        OSSCORSRule(
            allowedOrigins: ["https://app.example.com"], allowedMethods: ["POST", "PUT", "GET", "DELETE"],
            allowedHeaders: ["*"], exposeHeaders: ["ETag", "x-oss-request-id"], maxAgeSeconds: 600)
    ])
    try await client.putBucketConfiguration(cors, bucketName: "my-bucket")
}
