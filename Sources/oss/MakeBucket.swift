import AliyunOSS
import ArgumentParser

struct MakeBucket: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "mb", abstract: "Create a bucket: oss mb oss://bucket")

    @Argument(help: "The bucket, as oss://bucket.") var bucket: String
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        try await runCommand {
            let uri = try parseRemote(bucket, requireKey: false)
            guard uri.key.isEmpty else { throw CLIFailure(.clientError, "mb takes a bucket, not an object: \(bucket)") }
            let result = try await withClient(connection) { try await $0.putBucket(OSSPutBucketRequest(bucketName: uri.bucket)) }
            say("created \(uri) (request id \(result.requestId))")
        }
    }
}
