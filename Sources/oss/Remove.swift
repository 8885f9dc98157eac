import AliyunOSS
import ArgumentParser

struct Remove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm",
        abstract: "Delete objects: oss rm oss://bucket/key [oss://bucket/key2 ...] | oss rm --recursive oss://bucket/folder [--all-versions] | oss rm oss://bucket/key --version-id ID",
        discussion: helpProse("""
            Several objects of one bucket are deleted with DeleteMultipleObjects, 1000 per request. With
            --recursive oss://bucket/folder names the folder folder/ (with or without the trailing slash: never
            folder-backup/ or folderX.txt), oss://bucket the whole bucket; every object under it is listed, and
            deleted after a yes at a terminal or with --force. Each deleted object is printed on standard output.

            Versioned buckets (oss bucket-versioning): a delete without --version-id removes nothing; it adds a
            delete marker, which hides the object, and every version stays (rm -r says so); with versioning
            suspended the marker is the version `null`, which replaces the object's null version (as an upload
            does) while versions with an id stay. --version-id ID removes
            that one version of one object for good (or a delete marker, which brings the version under it back).
            rm -r --all-versions removes every version and delete marker under the folder for good, after the same
            question; --dry-run lists them.

            \(DeleteConfirmation.helpText)
            """))

    @Argument(help: "The objects, as oss://bucket/key (or one oss://bucket/folder with --recursive).")
    var objects: [String]
    @Flag(name: [.short, .long], help: "Delete every object under the folder.") var recursive = false
    @Option(help: "Remove this version of the one object named, for good (versioned buckets; see oss ls --all-versions).")
    var versionId: String?
    @Flag(help: "With --recursive: remove every version and delete marker under the folder for good.")
    var allVersions = false
    @OptionGroup(title: "Deleting") var deleting: DeleteOptions
    @OptionGroup var connection: ConnectionOptions

    func validate() throws {
        guard !objects.isEmpty else { throw ValidationError("name at least one oss://bucket/key") }
        if recursive && objects.count != 1 { throw ValidationError("--recursive takes one oss://bucket/folder") }
        if allVersions && !recursive { throw ValidationError("--all-versions applies to --recursive") }
        if let versionId {
            if recursive || objects.count != 1 { throw ValidationError("--version-id takes one oss://bucket/key") }
            if versionId.isEmpty { throw ValidationError("--version-id needs a version id (oss ls --all-versions)") }
        }
    }

    func run() async throws {
        try await runCommand {
            if recursive { return try await removeFolder() }
            let uris = try objects.map { try parseRemote($0, requireKey: true) }
            let version = versionId.map { " version \($0)" } ?? ""
            if deleting.dryRun {
                for uri in uris { say("would delete \(uri)\(version)") }
                return
            }
            var byBucket: [String: [String]] = [:]
            for uri in uris { byBucket[uri.bucket, default: []].append(uri.key) }
            let versionId = versionId
            let markers = try await withClient(connection) { client in
                var markers: [String: String] = [:]
                for (bucket, keys) in byBucket.sorted(by: { $0.key < $1.key }) {
                    if keys.count == 1 {
                        let result = try await client.deleteObject(
                            OSSDeleteObjectRequest(bucketName: bucket, objectKey: keys[0], versionId: versionId))
                        if versionId == nil, result.deleteMarker, let id = result.versionId {
                            markers["oss://\(bucket)/\(keys[0])"] = id
                        }
                    } else {
                        let results = try await client.deleteObjects(
                            keys.map { OSSObjectIdentifier(objectKey: $0) }, inBucket: bucket)
                        for result in results where result.deleteMarker {
                            markers["oss://\(bucket)/\(result.objectKey)"] = result.deleteMarkerVersionId ?? "-"
                        }
                    }
                }
                return markers
            }
            for uri in uris {
                if let marker = markers[uri.description] {
                    say("deleted \(uri) (delete marker \(marker) added; \(Versions.markerKeeps(marker)))")
                } else {
                    say("deleted \(uri)\(version)")
                }
            }
        }
    }

    /// `rm -r`: the objects under the folder the URL names (``PathRule/folder(_:)``), after the confirmation.
    private func removeFolder() async throws {
        let uri = try parseRemote(objects[0], requireKey: false)
        let folder = OSSURI(bucket: uri.bucket, key: PathRule.folder(uri))
        if allVersions { return try await removeAllVersions(folder) }
        let listing = OSSListObjectsV2Request(bucketName: folder.bucket, prefix: folder.key.isEmpty ? nil : folder.key)
        let deleting = deleting
        let count = try await withClient(connection) { client in
            if let status = try await Versions.status(of: folder.bucket, client: client) {
                printError(Versions.markersOnlyNote(status, folder: folder))
            }
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

    /// `rm -r --all-versions`: every version and delete marker under the folder, listed, confirmed and removed for
    /// good.
    private func removeAllVersions(_ folder: OSSURI) async throws {
        let deleting = deleting
        let count = try await withClient(connection) { client in
            let entries = try await Versions.list(bucket: folder.bucket, prefix: folder.key, client: client)
            let names = entries.map { Versions.name($0, bucket: folder.bucket) }
            if deleting.dryRun {
                for name in names { say("would delete \(name)") }
                return entries.count
            }
            try deleting.confirmation.confirm(
                count: entries.count, what: "versions and delete markers under \(folder), for good", names: names)
            return try await Versions.purge(entries, bucket: folder.bucket, client: client)
        }
        let versions = "\(count) version\(count == 1 ? "" : "s") (delete markers included)"
        printError(
            deleting.dryRun ? "dry run: \(versions) under \(folder) would be deleted for good" : "deleted \(versions) under \(folder) for good")
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
