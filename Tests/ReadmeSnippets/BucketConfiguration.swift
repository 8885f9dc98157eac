// README.md's "Bucket configuration" block, verbatim (DocSnippetsTests checks it).
import AliyunOSS

func bucketConfiguration(_ client: OSSClient) async throws {
    let cors = OSSCORSConfiguration(rules: [
        OSSCORSRule(allowedOrigins: ["https://*.example.com"], allowedMethods: ["GET", "PUT"],
                    allowedHeaders: ["x-oss-*", "content-type"], exposeHeaders: ["ETag"], maxAgeSeconds: 600)
    ])
    try await client.putBucketCors(cors, bucketName: "my-bucket")
    let rules = try await client.getBucketCors(bucketName: "my-bucket").configuration
    try await client.putBucketLifecycle(OSSLifecycleConfiguration(rules: [
        OSSLifecycleRule(id: "uploads", abortMultipartUpload: .init(days: 7))
    ]), bucketName: "my-bucket")
    let stat = try await client.getBucketStat(bucketName: "my-bucket").stat   // storage, object and upload counts
    print(rules, stat)
}
