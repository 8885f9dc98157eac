import AliyunOSS
import ArgumentParser

struct Remove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm",
        abstract: "Delete objects: oss rm oss://bucket/key [oss://bucket/key2 ...] | oss rm --recursive oss://bucket/prefix",
        discussion: """
            Several objects of one bucket are deleted with DeleteMultipleObjects, 1000 per request. With
            --recursive every object under the prefix (all of the bucket for oss://bucket) is listed and deleted.
            """)

    @Argument(help: "The objects, as oss://bucket/key (or one oss://bucket/prefix with --recursive).")
    var objects: [String]
    @Flag(name: [.short, .long], help: "Delete every object under the prefix.") var recursive = false
    @OptionGroup var connection: ConnectionOptions

    func validate() throws {
        guard !objects.isEmpty else { throw ValidationError("name at least one oss://bucket/key") }
        if recursive && objects.count != 1 { throw ValidationError("--recursive takes one oss://bucket/prefix") }
    }

    func run() async throws {
        try await runCommand {
            if recursive {
                let uri = try parseRemote(objects[0], requireKey: false)
                let count = try await withClient(connection) { client in
                    // Page by page (at most 1000 keys held): the continuation token is a key, so deleting the
                    // listed page does not disturb the next one.
                    var deleted = 0
                    for try await page in client.listObjectsV2Paginator(
                        OSSListObjectsV2Request(bucketName: uri.bucket, prefix: uri.key.isEmpty ? nil : uri.key))
                    {
                        deleted += try await client.deleteObjects(page.contents.map(\.objectKey), inBucket: uri.bucket)
                    }
                    return deleted
                }
                say("deleted \(count) object\(count == 1 ? "" : "s") under \(uri)")
                return
            }
            let uris = try objects.map { try parseRemote($0, requireKey: true) }
            var byBucket: [String: [String]] = [:]
            for uri in uris { byBucket[uri.bucket, default: []].append(uri.key) }
            try await withClient(connection) { client in
                for (bucket, keys) in byBucket.sorted(by: { $0.key < $1.key }) {
                    if keys.count == 1 {
                        try await client.deleteObject(OSSDeleteObjectRequest(bucketName: bucket, objectKey: keys[0]))
                    } else {
                        try await client.deleteObjects(keys, inBucket: bucket)
                    }
                }
            }
            for uri in uris { say("deleted \(uri)") }
        }
    }
}
