import NIOHTTP1
import OSSSigning

import Foundation

extension RequestHandler {
    /// Decodes the request target and headers, resolving virtual-host or path-style addressing.
    func decode(head: HTTPRequestHead, requestId: String) throws(LocalOSSError) -> RequestContext {
        let uri = head.uri
        let pathPart: Substring
        let queryPart: Substring
        if let q = uri.firstIndex(of: "?") {
            pathPart = uri[..<q]
            queryPart = uri[uri.index(after: q)...]
        } else {
            pathPart = uri[...]
            queryPart = ""
        }
        guard let path = OSSPercentEncoding.decode(pathPart, plusAsSpace: false) else {
            throw .invalidArgument("The request path is not valid percent-encoded UTF-8.")
        }
        guard let query = OSSPercentEncoding.parseQuery(queryPart) else {
            throw .invalidArgument("The query string is not valid percent-encoded UTF-8.")
        }
        var headers: [String: String] = [:]
        for (name, value) in head.headers {
            let lower = name.lowercased()
            if let existing = headers[lower] { headers[lower] = existing + "," + value } else { headers[lower] = value }
        }
        var bucket: String?
        var key: String?
        let hostBucket = virtualHostBucket(headers["host"])
        var rest = Substring(path)
        if rest.hasPrefix("/") { rest = rest.dropFirst() }
        if let hostBucket {
            bucket = hostBucket
            key = rest.isEmpty ? nil : String(rest)
        } else if !rest.isEmpty {
            if let slash = rest.firstIndex(of: "/") {
                bucket = String(rest[..<slash])
                let k = rest[rest.index(after: slash)...]
                key = k.isEmpty ? nil : String(k)
            } else {
                bucket = String(rest)
            }
        }
        return RequestContext(
            head: head, method: head.method.rawValue.uppercased(), bucket: bucket, key: key, query: query,
            headers: headers, requestId: requestId, now: Date(), hostId: headers["host"] ?? configuration.host)
    }

    /// The bucket named by a virtual-host `Host` (`bucket.localhost`, `bucket.127.0.0.1`, `bucket.<domain>`).
    private func virtualHostBucket(_ host: String?) -> String? {
        guard var host = host?.lowercased() else { return nil }
        if host.hasPrefix("[") { return nil }
        if let colon = host.lastIndex(of: ":") { host = String(host[..<colon]) }
        guard let dot = host.firstIndex(of: ".") else { return nil }
        let first = String(host[..<dot])
        let remainder = String(host[host.index(after: dot)...])
        guard Router.isValidBucketName(first) else { return nil }
        if remainder == "localhost" || Router.isIPv4(remainder) { return first }
        for domain in configuration.virtualHostDomains where remainder == domain.lowercased() {
            return first
        }
        return nil
    }

    func isAdminPath(_ uri: String) -> Bool {
        uri == "/-" || uri.hasPrefix("/-/") || uri.hasPrefix("/-?")
    }
}

enum Router {
    /// OSS object keys are 1 to 1023 bytes of UTF-8.
    static let maximumKeyLength = 1023

    /// The OSS operation a request asks for, or `nil` when the server does not implement it.
    static func operation(for context: RequestContext) throws(LocalOSSError) -> LocalOSSOperation? {
        let q = context.query
        guard let bucket = context.bucket else {
            if q["publicAccessBlock"] != nil { return RequestHandler.accountPublicAccessBlockOperation(context.method) }
            if let operation = accountListingOperation(context.method, q) { return operation }
            guard context.method == "GET" else { return nil }
            return q["regions"] != nil ? .describeRegions : .listBuckets
        }
        guard isValidBucketName(bucket) else {
            throw LocalOSSError(
                400, "InvalidBucketName", "The specified bucket is not valid.", fields: [("BucketName", bucket)])
        }
        if let key = context.key, key.utf8.count > Router.maximumKeyLength {
            throw LocalOSSError(
                400, "InvalidObjectName", "The length of the object name must be 1 to \(Router.maximumKeyLength) bytes.",
                fields: [("ObjectName", String(key.prefix(64)))])
        }
        if let key = context.key, let first = key.utf8.first, first == 0x2F || first == 0x5C {
            throw LocalOSSError(
                400, "InvalidObjectName", "The object name must not start with '/' or '\\'.",
                fields: [("ObjectName", String(key.prefix(64)))])
        }
        if context.method == "OPTIONS" { return .optionObject }
        if context.key == nil, let operation = configurationEntriesOperation(context.method, q) { return operation }
        if context.key == nil, let operation = cnameOperation(context.method, q) ?? redundancyTransitionOperation(context.method, q)
            ?? accessPointOperation(context) ?? metaQueryOperation(context.method, q)
        {
            return operation
        }
        if context.key == nil, let family = BucketConfigurationFamily.named(in: q) {
            return family.operation(for: context.method)
        }
        if context.key == nil, let worm = wormOperation(context.method, q) { return worm }
        if context.key == nil {
            switch context.method {
            case "PUT":
                if q["acl"] != nil { return .putBucketACL }
                if q["versioning"] != nil { return .putBucketVersioning }
                return q.isEmpty ? .putBucket : nil
            case "DELETE":
                return q.isEmpty ? .deleteBucket : nil
            case "GET", "HEAD":
                if q["acl"] != nil { return .getBucketACL }
                if q["uploads"] != nil { return .listMultipartUploads }
                if q["bucketInfo"] != nil { return .getBucketInfo }
                if q["stat"] != nil { return .getBucketStat }
                if q["location"] != nil { return .getBucketLocation }
                if q["live"] != nil { return .listLiveChannel }
                if q["versioning"] != nil { return .getBucketVersioning }
                if q["versions"] != nil { return .listObjectVersions }
                if q["list-type"] == "2" { return .listObjectsV2 }
                let unsupported = q.keys.contains { OSSSignerV1.subresources.contains($0) && $0 != "security-token" }
                return unsupported ? nil : .listObjects
            case "POST":
                if q["delete"] != nil { return .deleteMultipleObjects }
                // A form without a boundary is still PostObject, answered 400 MalformedPOSTRequest (not 501).
                return MultipartFormParser.isForm(contentType: context.header("content-type") ?? "") ? .postObject : nil
            default:
                return nil
            }
        }
        // Live channels (`/<channel>?live`) are RTMP ingest points, not objects.
        if q["live"] != nil {
            switch context.method {
            case "PUT": return .putLiveChannel
            case "GET": return .getLiveChannelInfo
            case "DELETE": return .deleteLiveChannel
            default: return nil
            }
        }
        switch context.method {
        case "PUT":
            if q["uploadId"] != nil || q["partNumber"] != nil {
                return context.header("x-oss-copy-source") == nil ? .uploadPart : .uploadPartCopy
            }
            if q["acl"] != nil { return .putObjectACL }
            if q["tagging"] != nil { return .putObjectTagging }
            if q["retention"] != nil { return .putObjectRetention }
            if q["legalHold"] != nil { return .putObjectLegalHold }
            if q["symlink"] != nil { return .putSymlink }
            if context.header("x-oss-copy-source") != nil { return .copyObject }
            return .putObject
        case "GET":
            if q["uploadId"] != nil { return .listParts }
            if q["objectMeta"] != nil { return .getObjectMeta }
            if q["acl"] != nil { return .getObjectACL }
            if q["tagging"] != nil { return .getObjectTagging }
            if q["retention"] != nil { return .getObjectRetention }
            if q["legalHold"] != nil { return .getObjectLegalHold }
            if q["symlink"] != nil { return .getSymlink }
            return .getObject
        case "HEAD":
            return q["objectMeta"] != nil ? .getObjectMeta : .headObject
        case "DELETE":
            if q["uploadId"] != nil { return .abortMultipartUpload }
            if q["tagging"] != nil { return .deleteObjectTagging }
            return .deleteObject
        case "POST":
            if q["uploads"] != nil { return .initiateMultipartUpload }
            if q["uploadId"] != nil { return .completeMultipartUpload }
            if q["append"] != nil { return .appendObject }
            if q["restore"] != nil { return .restoreObject }
            if q["seal"] != nil { return .sealAppendObject }
            if q["cleanRestoredObject"] != nil { return .cleanRestoredObject }
            if q["x-oss-process"] != nil { return .processObject }
            return nil
        default:
            return nil
        }
    }

    /// 3-63 characters of `[a-z0-9-]`, not starting or ending with `-`.
    static func isValidBucketName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard bytes.count >= 3, bytes.count <= 63 else { return false }
        for b in bytes {
            let ok = (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) || b == 0x2D
            if !ok { return false }
        }
        return bytes.first != 0x2D && bytes.last != 0x2D
    }

    static func isIPv4(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return false }
        return parts.allSatisfy { p in p.count <= 3 && !p.isEmpty && UInt8(p) != nil }
    }
}
