import AliyunOSS
import ArgumentParser

import Foundation

struct List: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ls", abstract: "List buckets (oss ls) or the objects under a prefix (oss ls oss://bucket/prefix).")

    @Argument(help: "oss://bucket[/prefix]; omit to list buckets.") var location: String?
    @Flag(name: .shortAndLong, help: "List every object under the prefix, not just one level.") var recursive = false
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        try await runCommand {
            guard let location else {
                let result = try await withClient(connection) { try await $0.listBuckets() }
                for bucket in result.buckets {
                    say("\(bucket.creationDate.map(OSSDateFormat.iso8601Milliseconds) ?? "-")  oss://\(bucket.name)")
                }
                return
            }
            let uri = try parseRemote(location, requireKey: false)
            let folder = PathRule.folder(uri)
            let request = OSSListObjectsV2Request(
                bucketName: uri.bucket, prefix: folder.isEmpty ? nil : folder, delimiter: recursive ? nil : "/")
            let count = try await withClient(connection) { client in
                var count = 0
                for try await page in client.listObjectsV2Paginator(request) {
                    for prefix in page.commonPrefixes {
                        say(String(repeating: " ", count: 36) + "DIR  oss://\(uri.bucket)/\(prefix)")
                    }
                    // The folder's objects; when it has none, the object named exactly (oss ls oss://b/file.txt).
                    var objects = page.contents
                    if objects.isEmpty, page.commonPrefixes.isEmpty, count == 0,
                        let exact = try await PathRule.exactObject(uri, client: client)
                    {
                        objects = [exact]
                    }
                    for object in objects {
                        let date = object.lastModified.map(OSSDateFormat.iso8601Milliseconds) ?? "-"
                        let size = String(object.size)
                        say("\(date)  \(String(repeating: " ", count: max(0, 12 - size.count)))\(size)  oss://\(uri.bucket)/\(object.objectKey)")
                        count += 1
                    }
                }
                return count
            }
            printError("\(count) object(s)")
        }
    }
}

struct Stat: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "stat", abstract: "Show an object's metadata: oss stat oss://bucket/key")

    @Argument(help: "The object, as oss://bucket/key.") var object: String
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        try await runCommand {
            let uri = try parseRemote(object, requireKey: true)
            let head = try await withClient(connection) {
                try await $0.headObject(OSSHeadObjectRequest(bucketName: uri.bucket, objectKey: uri.key))
            }
            say("object:         \(uri)")
            say("size:           \(head.contentLength) (\(formatBytes(head.contentLength)))")
            say("etag:           \(head.eTag ?? "-")")
            say("last-modified:  \(head.lastModified.map(OSSDateFormat.rfc1123) ?? "-")")
            say("crc64:          \(head.crc64.map(String.init) ?? "-")")
            say("content-type:   \(head.contentType ?? "-")")
            say("object-type:    \(head.objectType ?? "-")")
            for (name, value) in head.metadata.sorted(by: { $0.key < $1.key }) {
                say("meta \(name): \(value)")
            }
        }
    }
}

struct Presign: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a presigned URL: oss presign oss://bucket/key [--method GET|HEAD|PUT] [--expires SECONDS]")

    @Argument(help: "The object, as oss://bucket/key.") var object: String
    @Option(help: "GET, HEAD or PUT.") var method = "GET"
    @Option(help: "Seconds until the URL expires (V4: at most 604800).") var expires: Int = 3600
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        try await runCommand {
            let uri = try parseRemote(object, requireKey: true)
            guard ["GET", "HEAD", "PUT"].contains(method.uppercased()) else {
                throw CLIFailure(.clientError, "presign supports GET, HEAD and PUT, not \(method)")
            }
            let url = try await withClient(connection) {
                try await $0.presignConstrainURL(
                    bucket: uri.bucket, key: uri.key, method: method.uppercased(), expiration: TimeInterval(expires))
            }
            say(url)
        }
    }
}
