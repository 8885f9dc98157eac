import NIOCore
import OSSSigning
import OSSXML

import Foundation

/// One page of a key listing.
struct KeyListing {
    var keys: [String] = []
    var prefixes: [String] = []
    var truncated = false
    /// The last key or common prefix returned.
    var last: String?
}

enum KeyLister {
    /// Lists `sortedKeys` (UTF-8 order) after `after`, under `prefix`, grouping by `delimiter`, at most `limit` entries.
    static func list(_ sortedKeys: [String], prefix: String, delimiter: String, after: String, limit: Int) -> KeyListing {
        var listing = KeyListing()
        // First key >= prefix, and first key > after.
        let fromPrefix = lowerBound(sortedKeys) { $0.utf8.lexicographicallyPrecedes(prefix.utf8) }
        let fromAfter = after.isEmpty ? 0 : lowerBound(sortedKeys) { !after.utf8.lexicographicallyPrecedes($0.utf8) }
        let low = max(fromPrefix, fromAfter)
        let skipUnder = !delimiter.isEmpty && after.hasSuffix(delimiter) ? after : nil
        var index = low
        var lastPrefix: String?
        let prefixCount = prefix.utf8.count
        while index < sortedKeys.count {
            let key = sortedKeys[index]
            index += 1
            guard key.utf8.starts(with: prefix.utf8) else {
                if prefix.utf8.lexicographicallyPrecedes(key.utf8) { break } else { continue }
            }
            if let skipUnder, key.utf8.starts(with: skipUnder.utf8) { continue }
            var entry = key
            var isPrefix = false
            if !delimiter.isEmpty {
                let rest = key.utf8.dropFirst(prefixCount)
                if let range = findSubsequence(Array(delimiter.utf8), in: rest) {
                    entry = String(decoding: key.utf8[..<range], as: UTF8.self)
                    isPrefix = true
                }
            }
            if isPrefix && entry == lastPrefix { continue }
            if listing.keys.count + listing.prefixes.count >= limit {
                listing.truncated = true
                break
            }
            if isPrefix {
                listing.prefixes.append(entry)
                lastPrefix = entry
            } else {
                listing.keys.append(entry)
            }
            listing.last = entry
        }
        return listing
    }

    /// The first index whose element is not `before`, for a predicate true on a leading run.
    private static func lowerBound(_ keys: [String], before: (String) -> Bool) -> Int {
        var low = 0
        var high = keys.count
        while low < high {
            let mid = (low + high) / 2
            if before(keys[mid]) { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The index just past the first occurrence of `needle` in `haystack`.
    private static func findSubsequence(_ needle: [UInt8], in haystack: String.UTF8View.SubSequence) -> String.Index? {
        guard !needle.isEmpty else { return nil }
        var i = haystack.startIndex
        while i < haystack.endIndex {
            var j = i
            var k = 0
            while k < needle.count, j < haystack.endIndex, haystack[j] == needle[k] {
                j = haystack.index(after: j)
                k += 1
            }
            if k == needle.count { return j }
            i = haystack.index(after: i)
        }
        return nil
    }
}

extension RequestHandler {
    func listObjects(_ context: RequestContext, v2: Bool) async throws -> ServerResponse {
        let bucket = try requireBucket(context)
        let q = context.query
        let prefix = q["prefix"] ?? ""
        let delimiter = q["delimiter"] ?? ""
        let maxKeys = try parseLimit(q["max-keys"], name: "max-keys", defaultValue: 100)
        let encode = context.encodingTypeURL
        var after = ""
        if v2 {
            if let token = q["continuation-token"], !token.isEmpty {
                guard let decoded = Self.decodeToken(token) else {
                    throw LocalOSSError.invalidArgument("The continuation token is not valid.", name: "continuation-token", value: token)
                }
                after = decoded
            } else {
                after = q["start-after"] ?? ""
            }
        } else {
            after = q["marker"] ?? ""
        }
        let keys = try await store.sortedKeys(bucket)
        let listing = KeyLister.list(keys, prefix: prefix, delimiter: delimiter, after: after, limit: maxKeys)
        let objects = await store.objects(bucket, keys: listing.keys)
        var w = OSSXMLWriter()
        w.open("ListBucketResult")
        w.element("Name", bucket)
        w.element("Prefix", urlEncoded(prefix, encode))
        if v2 {
            if let token = q["continuation-token"] { w.element("ContinuationToken", token) }
            if let startAfter = q["start-after"] { w.element("StartAfter", urlEncoded(startAfter, encode)) }
        } else {
            w.element("Marker", urlEncoded(after, encode))
        }
        w.element("MaxKeys", String(maxKeys))
        w.element("Delimiter", urlEncoded(delimiter, encode))
        if encode { w.element("EncodingType", "url") }
        w.element("IsTruncated", listing.truncated ? "true" : "false")
        if listing.truncated, let last = listing.last {
            if v2 {
                w.element("NextContinuationToken", Self.encodeToken(last))
            } else {
                w.element("NextMarker", urlEncoded(last, encode))
            }
        }
        if v2 { w.element("KeyCount", String(listing.keys.count + listing.prefixes.count)) }
        let withOwner = !v2 || q["fetch-owner"]?.lowercased() == "true"
        for object in objects {
            w.open("Contents")
            w.element("Key", urlEncoded(object.key, encode))
            w.element("LastModified", isoDate(object.lastModified))
            w.element("ETag", object.etag)
            w.element("Type", object.objectType)
            w.element("Size", String(object.size))
            w.element("StorageClass", object.extra?.storageClassName ?? "Standard")
            if withOwner {
                w.open("Owner")
                w.element("ID", ownerId)
                w.element("DisplayName", ownerId)
                w.close("Owner")
            }
            // After Owner, as in OSS's own listings.
            if let restore = object.extra?.restoreStatus(now: context.now.timeIntervalSince1970) {
                w.element("RestoreInfo", restore)
            }
            w.close("Contents")
        }
        for commonPrefix in listing.prefixes {
            w.open("CommonPrefixes")
            w.element("Prefix", urlEncoded(commonPrefix, encode))
            w.close("CommonPrefixes")
        }
        w.close("ListBucketResult")
        return .xml(w.output)
    }

    /// Continuation tokens are the last listed entry, Base64url-encoded (opaque to clients).
    static func encodeToken(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    static func decodeToken(_ token: String) -> String? {
        var s = token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while s.count % 4 != 0 { s += "=" }
        guard let data = Data(base64Encoded: s) else { return nil }
        return String(bytes: data, encoding: .utf8)
    }

    /// `POST /?delete`: deletes the listed keys (quiet mode supported).
    func deleteMultipleObjects(_ context: RequestContext, reader: RequestBodyReader) async throws -> ServerResponse {
        let bucket = try requireBucket(context)
        _ = try await store.bucket(bucket)
        let body = try await reader.collect(limit: 2 << 20)
        try verifyContentMD5(context, body: body)
        let root: OSSXMLNode
        do { root = try OSSXMLParser.parse(body.readableBytesView, root: "Delete") } catch {
            throw LocalOSSError.malformedXML("\(error)")
        }
        let quiet = (root.string("Quiet") ?? "false").lowercased() == "true"
        let encode = context.encodingTypeURL
        let objects = root.children("Object")
        guard !objects.isEmpty, objects.count <= 1000 else {
            throw LocalOSSError.malformedXML("a Delete request names 1 to 1000 objects, not \(objects.count)")
        }
        // The whole request is checked before anything is deleted.
        var targets: [(key: String, versionId: String?)] = []
        for object in objects {
            // encoding-type=url applies to the reply only: both official Python clients send keys as plain text.
            guard let key = object.string("Key") else { continue }
            let versionId = object.child("VersionId").map { _ in object.string("VersionId") ?? "" }
            if let versionId { try Self.checkVersionId(versionId, name: "VersionId") }
            targets.append((key, versionId))
        }
        for (key, _) in targets {  // each key as a DeleteObject of its own: a policy's Deny on its prefix holds
            try await requireObjectAccess("oss:DeleteObject", bucket, key, context: context)
        }
        let bypass = bypassesGovernance(context)
        for (key, versionId) in targets {  // WORM and ObjectWorm
            try await store.refuseRemoval(bucket, key, versionId: versionId, bypassGovernance: bypass)
        }
        var deleted: [(key: String, versionId: String?, outcome: ObjectStore.DeleteOutcome)] = []
        for (key, versionId) in targets {
            deleted.append((key, versionId, try await store.deleteObject(bucket, key, versionId: versionId, bypassGovernance: bypass)))
        }
        var w = OSSXMLWriter()
        w.open("DeleteResult")
        if encode { w.element("EncodingType", "url") }
        if !quiet {
            for (key, versionId, outcome) in deleted {
                w.open("Deleted")
                w.element("Key", urlEncoded(key, encode))
                // As OSS: the version asked for, and whether a delete marker was added (its id) or removed.
                if let versionId { w.element("VersionId", versionId) }
                if outcome.deleteMarker {
                    w.element("DeleteMarker", "true")
                    w.element("DeleteMarkerVersionId", outcome.versionId ?? "null")
                }
                w.close("Deleted")
            }
        }
        w.close("DeleteResult")
        return .xml(w.output)
    }
}
