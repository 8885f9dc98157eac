import AliyunOSS
import ArgumentParser

struct MakeBucket: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mb", abstract: "Create a bucket: oss mb oss://bucket",
        discussion: helpProse("""
            A bucket you own already is left as it is: mb says so and exits 0 (OSS itself answers a repeated
            PutBucket from the owner with success). A name another account holds is refused with exit status 1:
            bucket names are global across all of OSS, so choose another.
            """))

    @Argument(help: "The bucket, as oss://bucket.") var bucket: String
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        try await runCommand {
            let uri = try parseRemote(bucket, requireKey: false)
            guard uri.key.isEmpty else { throw CLIFailure(.clientError, "mb takes a bucket, not an object: \(bucket)") }
            let outcome = try await withClient(connection) { client -> String in
                // OSS answers PutBucket for a bucket its owner has already with 200 too, so ask first. Only "no such
                // bucket" (404) or "not yours" (403) goes on to PutBucket; a network failure or a cancel is the answer.
                do {
                    let info = try await client.getBucketInfo(OSSGetBucketInfoRequest(bucketName: uri.bucket))
                    let created = info.creationDate.map { ", created \(OSSDateFormat.iso8601Milliseconds($0))" } ?? ""
                    return "\(uri) already exists and is yours (location \(info.location ?? "-")\(created)): nothing was created or changed"
                } catch let error as OSSServerError where error.statusCode == 404 || error.statusCode == 403 {}
                do {
                    let result = try await client.putBucket(OSSPutBucketRequest(bucketName: uri.bucket))
                    return "created \(uri) (request id \(result.requestId))"
                } catch let error as OSSServerError where error.code == "BucketAlreadyExists" {
                    throw CLIFailure(
                        .serverError,
                        "\(uri) already exists and belongs to another account (BucketAlreadyExists, request id "
                            + "\(error.requestId.isEmpty ? "-" : error.requestId)): bucket names are global across "
                            + "all of OSS, choose another name")
                }
            }
            say(outcome)
        }
    }
}
