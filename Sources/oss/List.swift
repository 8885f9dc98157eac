import AliyunOSS
import AliyunOSSEncryption
import ArgumentParser

import Foundation

struct List: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ls",
        abstract: "List buckets (oss ls), the objects under a prefix (oss ls oss://bucket/prefix) or the uploads in progress (oss ls -m oss://bucket[/prefix]).",
        discussion: helpProse("""
            --json prints one JSON object per line (JSON Lines), as each page of the listing arrives, so a listing
            of millions of objects streams into jq or a script without being held in memory: an object is
            {"url","key","size","lastModified","etag","storageClass"}, a folder (without -r) {"url","prefix"}, a
            bucket {"url","name","creationDate","location","region","storageClass"}; absent values are null. The
            count goes to standard error, the data to standard output. -h is --human-readable here; --help is the help.

            --all-versions lists every version and delete marker (versioned buckets, oss bucket-versioning), each
            key's newest first: date, size (or DELETE-MARKER), the version id, `latest` for the current one, and
            the URL. Read a version with oss cp/stat --version-id ID. With --json a version is the object's fields
            plus "versionId", "isLatest" and "isDeleteMarker".

            -m (--multipart) lists the multipart uploads in progress: started and neither completed nor aborted,
            whose parts are billed until they are (an interrupted oss cp keeps its upload to resume it). Those of
            the key named and of every key under it as a folder, at every level, each with when it was initiated,
            the parts uploaded so far and their bytes (from ListParts), the upload id and the URL, keys printed as
            oss ls prints them. With --json an upload is {"url","key","uploadId","initiated","parts","size"}.
            oss rm -m aborts them; a lifecycle rule (AbortMultipartUpload, oss bucket-config oss://bucket
            lifecycle put FILE) aborts them on the server some days after they were initiated.
            """),
        helpNames: .long)

    @Argument(help: "oss://bucket[/prefix]; omit to list buckets.") var location: String?
    @Flag(name: .shortAndLong, help: "List every object under the prefix, not just one level.") var recursive = false
    @Flag(name: [.customShort("h"), .customLong("human-readable")], help: "Sizes as 1.5 MiB (powers of 1024) instead of bytes.")
    var humanReadable = false
    @Flag(help: "One JSON object per line (JSON Lines) on standard output.") var json = false
    @Flag(help: "List every version and delete marker, with their ids (versioned buckets).") var allVersions = false
    @Flag(
        name: [.customShort("m"), .customLong("multipart")],
        help: "List the multipart uploads in progress (never completed nor aborted) under the prefix, with their upload id, initiated time, parts and bytes so far.")
    var multipart = false
    @OptionGroup var connection: ConnectionOptions

    func validate() throws {
        if multipart && allVersions { throw ValidationError("--multipart lists uploads in progress, not versions: drop --all-versions") }
        if multipart && location == nil { throw ValidationError("--multipart lists the uploads of a bucket: oss ls -m oss://bucket[/prefix]") }
    }

    func run() async throws {
        try await runCommand {
            guard let location else {
                let result = try await withClient(connection) { try await $0.listBuckets() }
                for bucket in result.buckets {
                    if json {
                        say(Self.jsonLine([
                            "url": "oss://\(bucket.name)", "name": bucket.name,
                            "creationDate": bucket.creationDate.map(OSSDateFormat.iso8601Milliseconds),
                            "location": bucket.location, "region": bucket.region, "storageClass": bucket.storageClass,
                        ]))
                    } else {
                        say("\(bucket.creationDate.map(OSSDateFormat.iso8601Milliseconds) ?? "-")  oss://\(bucket.name)")
                    }
                }
                return
            }
            let uri = try parseRemote(location, requireKey: false)
            let folder = PathRule.folder(uri)
            if allVersions { return try await listVersions(uri, folder: folder) }
            if multipart { return try await listUploads(uri, folder: folder) }
            let request = OSSListObjectsV2Request(
                bucketName: uri.bucket, prefix: folder.isEmpty ? nil : folder, delimiter: recursive ? nil : "/")
            let count = try await withClient(connection) { client in
                var count = 0
                for try await page in client.listObjectsV2Paginator(request) {
                    for prefix in page.commonPrefixes { say(folderLine(prefix, bucket: uri.bucket)) }
                    // The folder's objects; when it has none, the object named exactly (oss ls oss://b/file.txt).
                    var objects = page.contents
                    if objects.isEmpty, page.commonPrefixes.isEmpty, count == 0,
                        let exact = try await PathRule.exactObject(uri, client: client)
                    {
                        objects = [exact]
                    }
                    for object in objects {
                        say(json ? Self.jsonLine(object, bucket: uri.bucket) : line(object, bucket: uri.bucket))
                        count += 1
                    }
                }
                return count
            }
            printError("\(count) object(s)")
        }
    }

    /// A common prefix (without -r): `DIR  oss://bucket/prefix/`, or its JSON line.
    func folderLine(_ prefix: String, bucket: String) -> String {
        json
            ? Self.jsonLine(["url": "oss://\(bucket)/\(prefix)", "prefix": prefix])
            : String(repeating: " ", count: 36) + "DIR  oss://\(bucket)/\(prefix)"
    }

    /// `ls --all-versions`: every version and delete marker under the folder, page by page.
    private func listVersions(_ uri: OSSURI, folder: String) async throws {
        let bucket = uri.bucket
        let request = OSSListObjectVersionsRequest(
            bucketName: bucket, prefix: folder.isEmpty ? nil : folder, delimiter: recursive ? nil : "/")
        let count = try await withClient(connection) { client in
            var count = 0
            var folders = 0
            for try await page in client.listObjectVersionsPaginator(request) {
                for prefix in page.commonPrefixes { say(folderLine(prefix, bucket: bucket)) }
                folders += page.commonPrefixes.count
                for entry in page.entries {
                    say(json ? Self.jsonLine(entry, bucket: bucket) : line(entry, bucket: bucket))
                    count += 1
                }
            }
            // Nothing under the folder: the history of the key named exactly (oss ls --all-versions oss://b/file.txt).
            guard count == 0, folders == 0, !uri.key.isEmpty, !uri.key.hasSuffix("/") else { return count }
            let exact = OSSListObjectVersionsRequest(bucketName: bucket, prefix: uri.key)
            for try await page in client.listObjectVersionsPaginator(exact) {
                for entry in page.entries where entry.objectKey == uri.key {
                    say(json ? Self.jsonLine(entry, bucket: bucket) : line(entry, bucket: bucket))
                    count += 1
                }
            }
            return count
        }
        printError("\(count) version(s) and delete marker(s)")
    }

    /// `ls -m`: the uploads in progress of the key named and under it as a folder (of the whole bucket when it names
    /// none), page by page, each with its parts so far (ListParts, a few uploads at a time).
    private func listUploads(_ uri: OSSURI, folder: String) async throws {
        let bucket = uri.bucket
        var scopes: [Uploads.Scope] = [.folder(folder)]
        if !uri.key.isEmpty && !uri.key.hasSuffix("/") { scopes.insert(.key(uri.key), at: 0) }
        let count = try await withClient(connection) { client in
            var count = 0
            for scope in scopes {
                try await Uploads.forEachPage(scope, bucket: bucket, client: client) { uploads in
                    let progress = try await mapConcurrently(uploads) { upload in
                        try await Uploads.progress(of: upload, bucket: bucket, client: client)
                    }
                    // An upload completed or aborted since the listing is no longer in progress: not shown.
                    for (upload, progress) in zip(uploads, progress) {
                        guard let progress else { continue }
                        say(
                            json
                                ? Self.jsonLine(upload, parts: progress.parts, bytes: progress.bytes, bucket: bucket)
                                : line(upload, parts: progress.parts, bytes: progress.bytes, bucket: bucket))
                        count += 1
                    }
                }
            }
            return count
        }
        printError("\(count) upload(s) in progress")
    }

    /// `initiated  parts  bytes  uploadId  oss://bucket/key`, the bytes as `1.5 MiB` with -h.
    func line(_ upload: OSSMultipartUploadInfo, parts: Int, bytes: Int64, bucket: String) -> String {
        let date = upload.initiated.map(OSSDateFormat.iso8601Milliseconds) ?? "-"
        let count = String(parts)
        let size = humanReadable ? formatBytes(bytes) : String(bytes)
        return "\(date)  \(String(repeating: " ", count: max(0, 5 - count.count)))\(count) \(parts == 1 ? "part " : "parts")  "
            + "\(String(repeating: " ", count: max(0, 12 - size.count)))\(size)  \(upload.uploadId)  \(Uploads.url(upload, bucket: bucket))"
    }

    static func jsonLine(_ upload: OSSMultipartUploadInfo, parts: Int, bytes: Int64, bucket: String) -> String {
        jsonLine([
            "url": Uploads.url(upload, bucket: bucket), "key": upload.objectKey, "uploadId": upload.uploadId,
            "initiated": upload.initiated.map(OSSDateFormat.iso8601Milliseconds), "parts": parts, "size": bytes,
        ])
    }

    /// `date  size|DELETE-MARKER  versionId  latest  oss://bucket/key`.
    func line(_ entry: OSSObjectVersionEntry, bucket: String) -> String {
        let date = entry.lastModified.map(OSSDateFormat.iso8601Milliseconds) ?? "-"
        var size = "DELETE-MARKER"
        if case .version(let version) = entry {
            size = humanReadable ? formatBytes(version.size) : String(version.size)
        }
        let padded = String(repeating: " ", count: max(0, 13 - size.count)) + size
        return "\(date)  \(padded)  \(entry.versionId)  \(entry.isLatest ? "latest" : "      ")  oss://\(bucket)/\(entry.objectKey)"
    }

    static func jsonLine(_ entry: OSSObjectVersionEntry, bucket: String) -> String {
        var fields: [String: Any?] = [
            "url": "oss://\(bucket)/\(entry.objectKey)", "key": entry.objectKey, "versionId": entry.versionId,
            "isLatest": entry.isLatest, "isDeleteMarker": entry.isDeleteMarker,
            "lastModified": entry.lastModified.map(OSSDateFormat.iso8601Milliseconds), "size": nil, "etag": nil,
            "storageClass": nil,
        ]
        if case .version(let version) = entry {
            fields["size"] = version.size
            fields["etag"] = version.eTag
            fields["storageClass"] = version.storageClass
        }
        return jsonLine(fields)
    }

    /// `date  size  oss://bucket/key`, the size right-aligned in bytes or, with -h, as `1.5 MiB`.
    func line(_ object: OSSObjectSummary, bucket: String) -> String {
        let date = object.lastModified.map(OSSDateFormat.iso8601Milliseconds) ?? "-"
        let size = humanReadable ? formatBytes(object.size) : String(object.size)
        return "\(date)  \(String(repeating: " ", count: max(0, 12 - size.count)))\(size)  oss://\(bucket)/\(object.objectKey)"
    }

    static func jsonLine(_ object: OSSObjectSummary, bucket: String) -> String {
        jsonLine([
            "url": "oss://\(bucket)/\(object.objectKey)", "key": object.objectKey, "size": object.size,
            "lastModified": object.lastModified.map(OSSDateFormat.iso8601Milliseconds), "etag": object.eTag,
            "storageClass": object.storageClass,
        ])
    }

    /// One line of JSON with sorted keys; a nil value is `null`.
    static func jsonLine(_ fields: [String: Any?]) -> String {
        let object = fields.mapValues { $0 ?? NSNull() }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}

struct Stat: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stat", abstract: "Show an object's metadata or a bucket's: oss stat oss://bucket[/key] [--version-id ID]",
        discussion: helpProse("""
            oss stat oss://bucket shows the bucket (GetBucketInfo: region, storage class, ACL, versioning) and what it
            holds (GetBucketStat: bytes, objects, multipart uploads, by storage class), and whether its policy makes it
            public (GetBucketPolicyStatus). On a versioned bucket the current version's id is shown; --version-id describes an older version (oss
            ls --all-versions lists them). A key whose current version is a delete marker is not found (404, exit 1).
            """))

    @Argument(help: "The object, as oss://bucket/key, or the bucket, as oss://bucket.") var object: String
    @Option(help: "Describe this version of the object (versioned buckets).") var versionId: String?
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        try await runCommand {
            let uri = try parseRemote(object, requireKey: false)
            guard !uri.key.isEmpty else {
                guard versionId == nil else { throw CLIFailure(.clientError, "--version-id describes an object, not a bucket") }
                return try await Self.bucket(uri.bucket, connection)
            }
            let versionId = versionId
            let head = try await withClient(connection) {
                try await $0.headObject(OSSHeadObjectRequest(bucketName: uri.bucket, objectKey: uri.key, versionId: versionId))
            }
            say("object:         \(uri)")
            say("size:           \(head.contentLength) (\(formatBytes(head.contentLength)))")
            say("etag:           \(head.eTag ?? "-")")
            say("last-modified:  \(head.lastModified.map(OSSDateFormat.rfc1123) ?? "-")")
            say("crc64:          \(head.crc64.map(String.init) ?? "-")")
            say("content-type:   \(head.contentType ?? "-")")
            say("object-type:    \(head.objectType ?? "-")")
            if let version = head.versionId { say("version-id:     \(version)") }
            if OSSEncryptionEnvelope.isPresent(in: head.metadata) {
                say("client-side encryption: \(Self.describeEncryption(head.metadata, key: uri.key))")
            }
            for (name, value) in head.metadata.sorted(by: { $0.key < $1.key }) {
                say("meta \(name): \(Self.shown(name, value))")
            }
        }
    }
}

extension Stat {
    /// GetBucketInfo and GetBucketStat of `bucket`.
    static func bucket(_ bucket: String, _ connection: ConnectionOptions) async throws {
        let (info, stat, policyStatus) = try await withClient(connection) { client in
            (
                try await client.getBucketInfo(OSSGetBucketInfoRequest(bucketName: bucket)), try await client.getBucketStat(bucketName: bucket).stat,
                try await client.getBucketPolicyStatus(bucketName: bucket).isPublic
            )
        }
        say("bucket:         oss://\(bucket)")
        say("region:         \(info.region ?? info.location ?? "-")")
        say("created:        \(info.creationDate.map(OSSDateFormat.rfc1123) ?? "-")")
        say("storage-class:  \(info.storageClass ?? "-")")
        say("acl:            \(info.acl ?? "-")")
        let policy = policyStatus ? "public (the bucket policy grants everyone access)" : "not public"
        say("policy:         \(policy)")
        say("versioning:     \(info.versioning?.rawValue ?? "-")")
        say("endpoint:       \(info.extranetEndpoint ?? "-")")
        say("storage:        \(stat.storage) (\(formatBytes(stat.storage)))")
        say("objects:        \(stat.objectCount)")
        say("multipart:      \(stat.multipartUploadCount) uploads, \(stat.multipartPartCount ?? 0) parts")
        if let markers = stat.deleteMarkerCount, markers > 0 { say("delete-markers: \(markers)") }
        let classes: [(String, Int64?, Int64?)] = [
            ("Standard", stat.standardStorage, stat.standardObjectCount),
            ("IA", stat.infrequentAccessStorage, stat.infrequentAccessObjectCount),
            ("Archive", stat.archiveStorage, stat.archiveObjectCount),
            ("ColdArchive", stat.coldArchiveStorage, stat.coldArchiveObjectCount),
            ("DeepColdArchive", stat.deepColdArchiveStorage, stat.deepColdArchiveObjectCount),
        ]
        for (name, bytes, count) in classes where (count ?? 0) > 0 {
            say("class \(name): \(count ?? 0) objects, \(bytes ?? 0) bytes")
        }
    }

    /// A metadata value as stat prints it: the envelope's data key and IV (wrapped, yet key material) are left out.
    static func shown(_ name: String, _ value: String) -> String {
        switch name.lowercased() {
        case OSSEncryptionEnvelope.Header.key: "(the wrapped data key, not shown)"
        case OSSEncryptionEnvelope.Header.start: "(the wrapped IV, not shown)"
        default: value
        }
    }

    /// The envelope in one line: the algorithms, the master key's description and the sizes, or why it is unreadable.
    static func describeEncryption(_ metadata: [String: String], key: String) -> String {
        do {
            let envelope = try OSSEncryptionEnvelope(metadata: metadata, objectKey: key)
            var parts = ["\(envelope.contentAlgorithm), data key wrapped with \(envelope.wrapAlgorithm)"]
            if let description = envelope.materialDescription { parts.append("matdesc \(description)") }
            if let length = envelope.unencryptedContentLength { parts.append("plaintext \(length) bytes") }
            if let size = envelope.dataSize { parts.append("data size \(size)") }
            if let size = envelope.partSize { parts.append("part size \(size)") }
            return parts.joined(separator: "; ")
        } catch {
            return "unreadable envelope: \(error)"
        }
    }
}

struct Presign: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a presigned URL: oss presign oss://bucket/key [--method GET|HEAD|PUT] [--expires SECONDS] [--content-type TYPE]",
        discussion: helpProse("""
            The URL alone goes to standard output (for $(oss presign ...)); a curl command that uses it goes to
            standard error. A PUT URL signed with --content-type must be sent with exactly that Content-Type header
            (OSS signs it): any other is refused with SignatureDoesNotMatch.
            """))

    @Argument(help: "The object, as oss://bucket/key.") var object: String
    @Option(help: "GET, HEAD or PUT.") var method = "GET"
    @Option(help: "Seconds until the URL expires (V4: at most 604800).") var expires: Int = 3600
    @Option(help: "PUT: the Content-Type the upload must be sent with (signed into the URL).") var contentType: String?
    @OptionGroup var connection: ConnectionOptions

    func validate() throws {
        if contentType != nil, method.uppercased() != "PUT" {
            throw ValidationError("--content-type applies to --method PUT (the type of the object the URL uploads)")
        }
        if let contentType, contentType.isEmpty || contentType.contains(where: \.isNewline) {
            throw ValidationError("--content-type needs a media type such as text/html")
        }
    }

    func run() async throws {
        try await runCommand {
            let uri = try parseRemote(object, requireKey: true)
            let verb = method.uppercased()
            guard ["GET", "HEAD", "PUT"].contains(verb) else {
                throw CLIFailure(.clientError, "presign supports GET, HEAD and PUT, not \(method)")
            }
            let headers = contentType.map { ["Content-Type": $0] } ?? [:]
            let url = try await withClient(connection) {
                try await $0.presignConstrainURL(
                    bucket: uri.bucket, key: uri.key, method: verb, expiration: TimeInterval(expires), headers: headers)
            }
            say(url)
            printError("oss: use it with: " + Self.curlCommand(url: url, method: verb, contentType: contentType))
        }
    }

    /// The curl command that sends `method` to `url`, with the signed `Content-Type` when there is one.
    static func curlCommand(url: String, method: String, contentType: String?) -> String {
        let type = contentType.map { " -H " + shellQuoted("Content-Type: \($0)") } ?? ""
        switch method {
        case "PUT": return "curl -f -X PUT\(type) -T FILE \(shellQuoted(url))"
        case "HEAD": return "curl -f -I \(shellQuoted(url))"
        default: return "curl -f -o FILE \(shellQuoted(url))"
        }
    }

    /// `text` in single quotes for a POSIX shell.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
