// README.md's "Bucket configuration" block, verbatim (DocSnippetsTests checks it).
import AliyunOSS

func bucketConfiguration(_ client: OSSClient) async throws {
    let cors = OSSCORSConfiguration(rules: [
        OSSCORSRule(allowedOrigins: ["https://*.example.com"], allowedMethods: ["GET", "PUT"],
                    allowedHeaders: ["x-oss-*", "content-type"], exposeHeaders: ["ETag"], maxAgeSeconds: 600)
    ])
    try await client.putBucketConfiguration(cors, bucketName: "my-bucket")   // PutBucketCors
    let rules = try await client.getBucketConfiguration(OSSCORSConfiguration.self, bucketName: "my-bucket").configuration
    try await client.putBucketConfiguration(OSSLifecycleConfiguration(rules: [
        OSSLifecycleRule(id: "uploads", abortMultipartUpload: .init(days: 7))
    ]), bucketName: "my-bucket")
    let stat = try await client.getBucketStat(bucketName: "my-bucket").stat   // storage, object and upload counts
    print(rules, stat)
}
