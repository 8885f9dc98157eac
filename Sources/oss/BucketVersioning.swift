import AliyunOSS
import ArgumentParser

struct BucketVersioning: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bucket-versioning",
        abstract: "Show or change a bucket's versioning: oss bucket-versioning oss://bucket [enable|suspend]",
        discussion: helpProse("""
            Without a state it prints Enabled, Suspended or Off (never enabled). enable keeps every version of
            every object from now on: an overwrite adds a version, and a delete without --version-id only adds a
            delete marker, so nothing is lost. suspend stops making new versions (a write replaces the version
            `null`) and keeps every version made so far. A bucket once versioned never becomes unversioned again.

            With versioning: oss ls --all-versions lists versions and delete markers with their ids; oss stat, oss
            cp and oss rm take --version-id; oss rm --all-versions removes every version of a key for good, and
            oss rm -r --all-versions every version under a folder; oss rb --force removes every version before the
            bucket.
            """))

    @Argument(help: "The bucket, as oss://bucket.") var bucket: String
    @Argument(help: "enable or suspend; omit to print the state.") var state: State?
    @OptionGroup var connection: ConnectionOptions

    enum State: String, ExpressibleByArgument, CaseIterable {
        case enable, suspend
    }

    func run() async throws {
        try await runCommand {
            let uri = try parseRemote(bucket, requireKey: false)
            guard uri.key.isEmpty else {
                throw CLIFailure(.clientError, "bucket-versioning takes a bucket, not an object: \(bucket)")
            }
            let state = state
            let line = try await withClient(connection) { client -> String in
                guard let state else {
                    let status = try await client.getBucketVersioning(OSSGetBucketVersioningRequest(bucketName: uri.bucket))
                    return status.status?.rawValue ?? "Off"
                }
                let status: OSSVersioningStatus = state == .enable ? .enabled : .suspended
                try await client.putBucketVersioning(OSSPutBucketVersioningRequest(bucketName: uri.bucket, status: status))
                return "versioning of \(uri) is \(status.rawValue)"
            }
            say(line)
        }
    }
}

/// The versioning helpers the commands share: whether a bucket keeps versions, every version under a prefix,
/// and deleting versions for good.
enum Versions {
    /// The bucket's versioning state; `nil` when it was never enabled or cannot be read (any server error:
    /// access denied, or a server that does not speak versioning). Other failures are thrown.
    static func status(of bucket: String, client: OSSClient) async throws -> OSSVersioningStatus? {
        do {
            return try await client.getBucketVersioning(OSSGetBucketVersioningRequest(bucketName: bucket)).status
        } catch is OSSServerError {
            return nil
        }
    }

    /// Every version and delete marker under `prefix` (the whole bucket when empty), in listing order.
    static func list(bucket: String, prefix: String, client: OSSClient) async throws -> [OSSObjectVersionEntry] {
        var entries: [OSSObjectVersionEntry] = []
        let request = OSSListObjectVersionsRequest(bucketName: bucket, prefix: prefix.isEmpty ? nil : prefix)
        for try await page in client.listObjectVersionsPaginator(request) { entries += page.entries }
        return entries
    }

    /// Every version and delete marker of exactly `key`, newest first. They are listed with the key as prefix: the
    /// key sorts before every longer key that begins with it, so the listing stops at the first other key.
    static func list(exactKey key: String, bucket: String, client: OSSClient) async throws -> [OSSObjectVersionEntry] {
        var entries: [OSSObjectVersionEntry] = []
        for try await page in client.listObjectVersionsPaginator(OSSListObjectVersionsRequest(bucketName: bucket, prefix: key)) {
            let ofKey = page.entries.prefix { $0.objectKey == key }
            entries += ofKey
            if ofKey.count < page.entries.count { break }
        }
        return entries
    }

    /// `oss://bucket/key version ID` (with `(delete marker)` for one).
    static func name(_ entry: OSSObjectVersionEntry, bucket: String) -> String {
        "oss://\(bucket)/\(entry.objectKey) version \(entry.versionId)" + (entry.isDeleteMarker ? " (delete marker)" : "")
    }

    /// Deletes `entries` for good, 1000 per DeleteMultipleObjects request, printing each; returns how many.
    static func purge(_ entries: [OSSObjectVersionEntry], bucket: String, client: OSSClient) async throws -> Int {
        var deleted = 0
        for start in stride(from: 0, to: entries.count, by: OSSDeleteMultipleObjectsRequest.maximumKeys) {
            let page = Array(entries[start..<min(entries.count, start + OSSDeleteMultipleObjectsRequest.maximumKeys)])
            let objects = page.map { OSSObjectIdentifier(objectKey: $0.objectKey, versionId: $0.versionId) }
            deleted += try await client.deleteObjects(objects, inBucket: bucket).count
            for entry in page { say("deleted \(name(entry, bucket: bucket))") }
        }
        return deleted
    }

    /// The note for `rm -r` without `--all-versions` on a versioned bucket.
    static func markersOnlyNote(_ status: OSSVersioningStatus, folder: OSSURI) -> String {
        let keeps = status == .suspended
            ? "adds the delete marker null per object, which replaces its null version; versions with an id stay"
            : "adds a delete marker per object and keeps every version"
        return "oss: note: versioning of oss://\(folder.bucket) is \(status.rawValue): deleting \(keeps) "
            + "(oss ls --all-versions \(folder) lists them); oss rm -r --all-versions \(folder) removes them for good"
    }

    /// What a delete that added the delete marker `markerVersionId` kept: on a suspended bucket the marker is the
    /// version `null`, and OSS keeps one null version per object, so it replaced the object's null version.
    static func markerKeeps(_ markerVersionId: String) -> String {
        markerVersionId == "null"
            ? "versioning is suspended, so it replaced the object's null version, if any; versions with an id remain"
            : "its versions remain"
    }
}
