import AliyunOSS
import ArgumentParser

struct Remove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm",
        abstract: "Delete objects: oss rm oss://bucket/key [oss://bucket/key2 ...] | oss rm --recursive oss://bucket/folder | oss rm --all-versions oss://bucket/key | oss rm oss://bucket/key --version-id ID | oss rm -m [-r] oss://bucket/key",
        discussion: helpProse("""
            Several objects of one bucket are deleted with DeleteMultipleObjects, 1000 per request. With
            --recursive oss://bucket/folder names the folder folder/ (with or without the trailing slash: never
            folder-backup/ or folderX.txt), oss://bucket the whole bucket; every object under it is listed, and
            deleted after a yes at a terminal or with --force. Each deleted object is printed on standard output.

            Each object named is looked up first (HeadObject), since OSS answers a delete of a key that does not
            exist as it answers any delete: a key that does not exist is reported (no such object, exit status 1)
            while the others named are still deleted; a name that is no object but a folder holding objects
            (oss rm oss://b/site, with objects under site/) is reported with the rm -r command that deletes them
            (exit status 2), and nothing under it is deleted. --dry-run reports them too.

            Versioned buckets (oss bucket-versioning): a delete without --version-id removes nothing; it adds a
            delete marker, which hides the object, and every version stays (rm -r says so); with versioning
            suspended the marker is the version `null`, which replaces the object's null version (as an upload
            does) while versions with an id stay. A key that does not exist, or whose latest version is a delete
            marker already, is reported as no such object and gets no new delete marker: a marker over nothing
            hides nothing. --version-id ID removes that one version of one object for good (or a delete marker,
            which brings the version under it back). --all-versions removes every version and delete marker of the
            one key named (exactly that key, not keys that begin with it) for good, and rm -r --all-versions those
            of every key under the folder, after the same question; --dry-run lists them.

            Uploads in progress (-m, --multipart): multipart uploads that were started and neither completed nor
            aborted (an interrupted oss cp keeps its upload to resume it) hold parts that are billed. oss rm -m
            oss://bucket/key aborts those of that key; oss rm -m -r oss://bucket/folder those of every key under
            the folder (oss://bucket: the whole bucket). Each aborted upload is printed (aborted upload ID of
            oss://bucket/key); --dry-run lists them; more than one is aborted after the same question, or with
            --force. oss ls -m lists them with their parts and bytes; a lifecycle rule (AbortMultipartUpload,
            oss bucket-config oss://bucket lifecycle put FILE) aborts them on the server some days after they were
            initiated.

            \(DeleteConfirmation.helpText)
            """))

    @Argument(help: "The objects, as oss://bucket/key (or one oss://bucket/folder with --recursive).")
    var objects: [String]
    @Flag(name: [.short, .long], help: "Delete every object under the folder.") var recursive = false
    @Option(help: "Remove this version of the one object named, for good (versioned buckets; see oss ls --all-versions).")
    var versionId: String?
    @Flag(help: "Remove every version and delete marker of the one key named (with --recursive: of every key under the folder) for good.")
    var allVersions = false
    @Flag(
        name: [.customShort("m"), .customLong("multipart")],
        help: "Abort the multipart uploads in progress of the one key named (with --recursive: of every key under the folder) instead of deleting objects.")
    var multipart = false
    @OptionGroup(title: "Deleting") var deleting: DeleteOptions
    @OptionGroup var connection: ConnectionOptions

    func validate() throws {
        guard !objects.isEmpty else { throw ValidationError("name at least one oss://bucket/key") }
        if recursive && objects.count != 1 { throw ValidationError("--recursive takes one oss://bucket/folder") }
        if multipart {
            if objects.count != 1 {
                throw ValidationError("--multipart takes one oss://bucket/key (or, with --recursive, one oss://bucket/folder)")
            }
            if versionId != nil || allVersions {
                throw ValidationError("--multipart aborts uploads in progress: it takes no --version-id or --all-versions")
            }
        }
        if allVersions {
            if objects.count != 1 {
                throw ValidationError("--all-versions takes one oss://bucket/key (or, with --recursive, one oss://bucket/folder)")
            }
            if versionId != nil { throw ValidationError("--all-versions removes every version: drop --version-id") }
        }
        if let versionId {
            if recursive || objects.count != 1 { throw ValidationError("--version-id takes one oss://bucket/key") }
            if versionId.isEmpty { throw ValidationError("--version-id needs a version id (oss ls --all-versions)") }
        }
    }

    func run() async throws {
        try await runCommand {
            if multipart { return try await abortUploads() }
            if recursive { return try await removeFolder() }
            if allVersions { return try await removeAllVersionsOfKey() }
            try await removeObjects()
        }
    }

    /// The objects named, each looked up first (``RemoveTarget``): the missing ones and folders are reported and
    /// the others deleted; the exit status is 2 when a name was a folder, else 1 when a key did not exist.
    private func removeObjects() async throws {
        let uris = try objects.map { try parseRemote($0, requireKey: true) }
        let version = versionId.map { " version \($0)" } ?? ""
        let versionId = versionId
        let dryRun = deleting.dryRun
        let (present, problems, markers) = try await withClient(connection) { client in
            var present: [OSSURI] = []
            var problems: [RemoveTarget] = []
            // A named version is removed as it is named: the lookup is of a key's latest version.
            let targets =
                versionId == nil
                ? try await mapConcurrently(uris) { try await RemoveTarget.look(up: $0, client: client) }
                : uris.map { _ in RemoveTarget.object }
            for (uri, target) in zip(uris, targets) {
                switch target {
                case .object: present.append(uri)
                case .unchecked(let note):
                    printError(note)
                    present.append(uri)
                case .missing(let message), .folder(let message):
                    printError("oss: error: \(message)")
                    problems.append(target)
                }
            }
            if dryRun { return (present, problems, [String: String]()) }
            var byBucket: [String: [String]] = [:]
            for uri in present { byBucket[uri.bucket, default: []].append(uri.key) }
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
            return (present, problems, markers)
        }
        for uri in present {
            if dryRun {
                say("would delete \(uri)\(version)")
            } else if let marker = markers[uri.description] {
                say("deleted \(uri) (delete marker \(marker) added; \(Versions.markerKeeps(marker)))")
            } else {
                say("deleted \(uri)\(version)")
            }
        }
        guard problems.isEmpty else {
            let folder = problems.contains { if case .folder = $0 { true } else { false } }
            throw ExitCode((folder ? ExitStatus.clientError : ExitStatus.serverError).rawValue)
        }
    }

    /// `rm --all-versions oss://b/key`: every version and delete marker of exactly that key, listed, confirmed and
    /// removed for good.
    private func removeAllVersionsOfKey() async throws {
        let uri = try parseRemote(objects[0], requireKey: true)
        let deleting = deleting
        let count = try await withClient(connection) { client in
            let entries = try await Versions.list(exactKey: uri.key, bucket: uri.bucket, client: client)
            guard !entries.isEmpty else {
                let folder = OSSListObjectVersionsRequest(bucketName: uri.bucket, prefix: PathRule.folder(uri), maxKeys: 1)
                if try await !client.listObjectVersions(folder).entries.isEmpty {
                    throw CLIFailure(
                        .clientError,
                        "\(uri) has no versions of its own but is a folder: oss rm -r --all-versions \(uri) removes "
                            + "every version under it; nothing was deleted")
                }
                throw CLIFailure(.serverError, "no such object: \(uri) has no versions or delete markers; nothing was deleted")
            }
            return try await Self.purge(
                entries, bucket: uri.bucket, what: "versions and delete markers of \(uri), for good", deleting: deleting,
                client: client)
        }
        let versions = "\(count) version\(count == 1 ? "" : "s") (delete markers included)"
        printError(
            deleting.dryRun ? "dry run: \(versions) of \(uri) would be deleted for good" : "deleted \(versions) of \(uri) for good")
    }

    /// `rm -m`: the multipart uploads in progress of the key (with -r, under the folder), listed, confirmed and
    /// aborted, a few at a time, one line each.
    private func abortUploads() async throws {
        let uri = try parseRemote(objects[0], requireKey: !recursive)
        let bucket = uri.bucket
        let folder = OSSURI(bucket: bucket, key: PathRule.folder(uri))
        let scope: Uploads.Scope = recursive ? .folder(folder.key) : .key(uri.key)
        let place = recursive ? "under \(folder)" : "of \(uri)"
        let deleting = deleting
        let count = try await withClient(connection) { client in
            let uploads = try await Uploads.all(scope, bucket: bucket, client: client)
            if uploads.isEmpty, !recursive {
                let under = try await client.listMultipartUploads(
                    OSSListMultipartUploadsRequest(bucketName: bucket, prefix: folder.key, maxUploads: 1))
                if !under.uploads.isEmpty {
                    printError("oss: note: \(folder) has uploads in progress: oss rm -m -r \(uri) aborts them")
                }
            }
            if deleting.dryRun {
                for upload in uploads { say("would abort upload \(upload.uploadId) of \(Uploads.url(upload, bucket: bucket))") }
                return uploads.count
            }
            try deleting.confirmation.confirm(
                count: uploads.count, what: "multipart uploads in progress \(place)",
                names: uploads.map { "\(Uploads.url($0, bucket: bucket)) (\($0.uploadId))" }, verb: ("abort", "aborted"))
            var aborted = 0
            for start in stride(from: 0, to: uploads.count, by: 64) {
                let chunk = Array(uploads[start..<min(uploads.count, start + 64)])
                let outcomes = try await mapConcurrently(chunk) { upload -> Result<Bool, any Error> in
                    do {
                        try await client.abortMultipartUpload(
                            OSSAbortMultipartUploadRequest(bucketName: bucket, objectKey: upload.objectKey, uploadId: upload.uploadId))
                        return .success(true)
                    } catch let error as OSSServerError where error.code == "NoSuchUpload" {
                        return .success(false)
                    } catch {
                        return .failure(error)
                    }
                }
                // The lines of the uploads aborted before a failure are printed before it is thrown.
                for (upload, outcome) in zip(chunk, outcomes) {
                    switch outcome {
                    case .success(true):
                        say("aborted upload \(upload.uploadId) of \(Uploads.url(upload, bucket: bucket))")
                        aborted += 1
                    case .success(false):
                        printError(
                            "oss: note: upload \(upload.uploadId) of \(Uploads.url(upload, bucket: bucket)) is no longer in "
                                + "progress (completed or aborted since it was listed)")
                    case .failure: break
                    }
                }
                for case .failure(let error) in outcomes { throw error }
            }
            return aborted
        }
        let uploads = "\(count) multipart upload\(count == 1 ? "" : "s") in progress \(place)"
        if count == 0 && !recursive {
            printError("no multipart uploads in progress of \(uri)")
        } else {
            printError(deleting.dryRun ? "dry run: \(uploads) would be aborted" : "aborted \(uploads)")
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
            return try await Self.purge(
                entries, bucket: folder.bucket, what: "versions and delete markers under \(folder), for good",
                deleting: deleting, client: client)
        }
        let versions = "\(count) version\(count == 1 ? "" : "s") (delete markers included)"
        printError(
            deleting.dryRun ? "dry run: \(versions) under \(folder) would be deleted for good" : "deleted \(versions) under \(folder) for good")
    }

    /// Lists `entries` (a dry run) or, once confirmed, removes them for good; how many there were.
    private static func purge(
        _ entries: [OSSObjectVersionEntry], bucket: String, what: String, deleting: DeleteOptions, client: OSSClient
    ) async throws -> Int {
        let names = entries.map { Versions.name($0, bucket: bucket) }
        if deleting.dryRun {
            for name in names { say("would delete \(name)") }
            return entries.count
        }
        try deleting.confirmation.confirm(count: entries.count, what: what, names: names)
        return try await Versions.purge(entries, bucket: bucket, client: client)
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

/// What a name given to `oss rm` (without -r) is, looked up before the delete: OSS answers DeleteObject with 204
/// whether or not the key exists (and on a versioned bucket adds a delete marker either way), so the delete alone
/// cannot tell the user anything true.
enum RemoveTarget {
    /// An object: delete it.
    case object
    /// The lookup was not allowed (a user who may delete but not read): deleted anyway, with this note.
    case unchecked(String)
    /// No such object (the message says so): nothing to delete.
    case missing(String)
    /// Not an object but a folder holding objects (the message names the rm -r command): nothing deleted.
    case folder(String)

    static func look(up uri: OSSURI, client: OSSClient) async throws -> RemoveTarget {
        var marker: String?
        do {
            _ = try await client.headObject(OSSHeadObjectRequest(bucketName: uri.bucket, objectKey: uri.key))
            return .object
        } catch let error as OSSServerError where error.statusCode == 404 {
            if error.headers["x-oss-delete-marker"] == "true" { marker = error.headers["x-oss-version-id"] ?? "" }
        } catch let error as OSSServerError where error.statusCode == 403 {
            return .unchecked(
                "oss: note: cannot look \(uri) up (\(error.code.isEmpty ? "HTTP 403" : error.code)): deleting it anyway; "
                    + "OSS answers the delete of a key that does not exist as any other")
        }
        // Listed under its own name, it is an object all the same (a symbolic link whose target is gone answers
        // HEAD with 404).
        if try await PathRule.exactObject(uri, client: client) != nil { return .object }
        let under = try await client.listObjectsV2(
            OSSListObjectsV2Request(bucketName: uri.bucket, prefix: PathRule.folder(uri), maxKeys: 1000))
        if !under.contents.isEmpty {
            let count = under.contents.count
            let objects = under.isTruncated ? "more than \(count) objects" : "\(count) object\(count == 1 ? "" : "s")"
            return .folder("\(uri) is a folder holding \(objects): oss rm -r \(uri) deletes them; nothing was deleted")
        }
        if let marker {
            return .missing(
                "no such object: \(uri) (its latest version is the delete marker\(marker.isEmpty ? "" : " \(marker)"), so it is "
                    + "deleted already; oss ls --all-versions \(uri) lists its versions); nothing was deleted")
        }
        return .missing("no such object: \(uri); nothing was deleted")
    }

}
