import AliyunOSS
import ArgumentParser

struct Remove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm",
        abstract: "Delete objects: oss rm oss://bucket/key [oss://bucket/key2 ...] | oss rm --recursive oss://bucket/folder",
        discussion: helpProse("""
            Several objects of one bucket are deleted with DeleteMultipleObjects, 1000 per request. With
            --recursive oss://bucket/folder names the folder folder/ (with or without the trailing slash: never
            folder-backup/ or folderX.txt), oss://bucket the whole bucket; every object under it is listed, and
            deleted after a yes at a terminal or with --force. Each deleted object is printed on standard output.

            \(DeleteConfirmation.helpText)
            """))

    @Argument(help: "The objects, as oss://bucket/key (or one oss://bucket/folder with --recursive).")
    var objects: [String]
    @Flag(name: [.short, .long], help: "Delete every object under the folder.") var recursive = false
    @OptionGroup(title: "Deleting") var deleting: DeleteOptions
    @OptionGroup var connection: ConnectionOptions

    func validate() throws {
        guard !objects.isEmpty else { throw ValidationError("name at least one oss://bucket/key") }
        if recursive && objects.count != 1 { throw ValidationError("--recursive takes one oss://bucket/folder") }
    }

    func run() async throws {
        try await runCommand {
            if recursive { return try await removeFolder() }
            let uris = try objects.map { try parseRemote($0, requireKey: true) }
            if deleting.dryRun {
                for uri in uris { say("would delete \(uri)") }
                return
            }
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

    /// `rm -r`: the objects under the folder the URL names (``PathRule/folder(_:)``), after the confirmation.
    private func removeFolder() async throws {
        let uri = try parseRemote(objects[0], requireKey: false)
        let folder = OSSURI(bucket: uri.bucket, key: PathRule.folder(uri))
        let listing = OSSListObjectsV2Request(bucketName: folder.bucket, prefix: folder.key.isEmpty ? nil : folder.key)
        let deleting = deleting
        let count = try await withClient(connection) { client in
            if deleting.force && !deleting.dryRun {
                // Nothing to ask: page by page (at most 1000 keys held). The continuation token is a key, so
                // deleting the listed page does not disturb the next one.
                var deleted = 0
                for try await page in client.listObjectsV2Paginator(listing) {
                    let keys = page.contents.map(\.objectKey)
                    deleted += try await client.deleteObjects(keys, inBucket: folder.bucket)
                    for key in keys { say("deleted oss://\(folder.bucket)/\(key)") }
                }
                return deleted
            }
            // The question names what is deleted, so exactly the keys listed before it are deleted after it.
            var keys: [String] = []
            for try await page in client.listObjectsV2Paginator(listing) { keys += page.contents.map(\.objectKey) }
            if deleting.dryRun {
                for key in keys { say("would delete oss://\(folder.bucket)/\(key)") }
                return keys.count
            }
            try deleting.confirmation.confirm(count: keys.count, what: "objects under \(folder)", names: keys)
            return try await deleteListed(keys, bucket: folder.bucket, client: client)
        }
        let objects = "\(count) object\(count == 1 ? "" : "s")"
        printError(deleting.dryRun ? "dry run: \(objects) under \(folder) would be deleted" : "deleted \(objects) under \(folder)")
    }
}

/// Deletes `keys` of `bucket` (listed and confirmed before), 1000 per DeleteMultipleObjects request, printing each
/// deleted object; returns how many the server deleted.
func deleteListed(_ keys: [String], bucket: String, client: OSSClient) async throws -> Int {
    var deleted = 0
    for start in stride(from: 0, to: keys.count, by: 1000) {
        let page = Array(keys[start..<min(keys.count, start + 1000)])
        deleted += try await client.deleteObjects(page, inBucket: bucket)
        for key in page { say("deleted oss://\(bucket)/\(key)") }
    }
    return deleted
}
