import AliyunOSS
import ArgumentParser

struct RemoveBucket: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rb",
        abstract: "Remove a bucket: oss rb oss://bucket [--force] [--dry-run]",
        discussion: helpProse("""
            An empty bucket is deleted at once. A bucket that still holds objects or multipart uploads in progress
            is emptied first (the uploads aborted, the objects deleted) after a yes at a terminal, or with --force;
            without either the bucket is left as it is. A versioned bucket (oss bucket-versioning) is emptied of
            every version and delete marker, for good, since OSS deletes only a bucket without any.

            \(DeleteConfirmation.helpText)
            """))

    @Argument(help: "The bucket, as oss://bucket.") var bucket: String
    @OptionGroup(title: "Deleting") var deleting: DeleteOptions
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        try await runCommand {
            let uri = try parseRemote(bucket, requireKey: false)
            guard uri.key.isEmpty else { throw CLIFailure(.clientError, "rb takes a bucket, not an object: \(bucket)") }
            let name = uri.bucket
            let deleting = deleting
            try await withClient(connection) { client in
                // A versioned bucket holds versions and delete markers that ListObjects does not show.
                let versioned = try await Versions.status(of: name, client: client) != nil
                let versions = versioned ? try await Versions.list(bucket: name, prefix: "", client: client) : []
                var keys: [String] = []
                if !versioned {
                    for try await page in client.listObjectsV2Paginator(OSSListObjectsV2Request(bucketName: name)) {
                        keys += page.contents.map(\.objectKey)
                    }
                }
                var uploads: [OSSMultipartUploadInfo] = []
                for try await page in client.listMultipartUploadsPaginator(OSSListMultipartUploadsRequest(bucketName: name)) {
                    uploads += page.uploads
                }
                if deleting.dryRun {
                    for upload in uploads { say("would abort upload \(upload.uploadId) of oss://\(name)/\(upload.objectKey)") }
                    for key in keys { say("would delete oss://\(name)/\(key)") }
                    for entry in versions { say("would delete \(Versions.name(entry, bucket: name))") }
                    say("would remove \(uri)")
                    return
                }
                let names = keys.map { "oss://\(name)/\($0)" } + versions.map { Versions.name($0, bucket: name) }
                    + uploads.map { "upload of oss://\(name)/\($0.objectKey)" }
                try deleting.confirmation.confirm(
                    count: names.count, what: "objects and uploads in progress of \(uri), then the bucket", names: names)
                for upload in uploads {
                    try await client.abortMultipartUpload(
                        OSSAbortMultipartUploadRequest(bucketName: name, objectKey: upload.objectKey, uploadId: upload.uploadId))
                    say("aborted upload \(upload.uploadId) of oss://\(name)/\(upload.objectKey)")
                }
                _ = try await deleteListed(keys, bucket: name, client: client)
                _ = try await Versions.purge(versions, bucket: name, client: client)
                try await client.deleteBucket(OSSDeleteBucketRequest(bucketName: name))
                say("removed \(uri)")
            }
        }
    }
}
