import OSSSigning

import Foundation

/// Versioned buckets: a key's history of versions and delete markers, kept whole on disk.
///
/// Layout (besides ObjectStore.swift's):
/// ```
/// buckets/<bucket>/objects/<sha256(key)>.json                  the key's `null` version (object or delete marker)
/// buckets/<bucket>/versions/<sha256(key)>.<versionId>.json     every other version (object or delete marker)
/// ```
/// A version's bytes live in `objects/` like any object's, and a version record names only files of its own, so
/// removing one version frees exactly its files. Every change has one commit point, an atomic write or removal of
/// one record file: a new version's data is moved into place before its record is written (a crash in between
/// leaves an unreferenced file, swept at load), and a removed version's record goes before its data. An unversioned
/// bucket never has a `versions/` entry and its records carry no version fields, so it behaves exactly as before.
///
/// In memory, ``Bucket/objects`` keeps holding each key's current version (the latest, when it is not a delete
/// marker) and ``Bucket/history`` holds, for keys that have more than their `null` version, every version newest
/// first. A key without a history has at most its `null` version, in `objects`.
///
/// A version id is 16 hex digits of a sequence that only grows (microseconds since 1970, or one more than the last
/// one given, whichever is larger, also across restarts since load takes the largest one seen) followed by 16
/// random hex digits, so an id is never given twice and the sequence orders a key's history.
extension ObjectStore {
    /// What a delete did: the version it removed or the delete marker it added.
    struct DeleteOutcome: Sendable {
        /// The version removed or the delete marker added (`null` for the null version); `nil` in an unversioned
        /// bucket for a delete without a version id.
        var versionId: String?
        /// Whether a delete marker was added, or the version removed was one.
        var deleteMarker: Bool
    }

    /// One entry of a version listing.
    enum VersionEntry: Sendable {
        case version(ObjectRecord, isLatest: Bool)
        case commonPrefix(String)
    }

    /// One page of ListObjectVersions.
    struct VersionListing: Sendable {
        var entries: [VersionEntry] = []
        var truncated = false
        var nextKeyMarker: String?
        var nextVersionIdMarker: String?
    }

    nonisolated func versionsDirectory(_ bucket: String) -> String { bucketDirectory(bucket) + "/versions" }

    /// Where a record lives: the `null` version at `objects/<digest>.json`, any other under `versions/`.
    nonisolated func recordPath(_ bucket: String, _ record: ObjectRecord) -> String {
        let digest = Self.keyDigest(record.key)
        guard let id = record.versionId else { return objectsDirectory(bucket) + "/" + digest + ".json" }
        return versionsDirectory(bucket) + "/" + digest + "." + id + ".json"
    }

    static func isValidVersionId(_ id: String) -> Bool {
        id.utf8.count == 32
            && id.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x46) }
    }

    /// The sequence a version id carries; `nil` for `null` or an id this server did not give.
    static func sequence(ofVersionId id: String) -> UInt64? {
        guard isValidVersionId(id) else { return nil }
        return UInt64(id.prefix(16), radix: 16)
    }

    func nextVersionSequence() -> UInt64 {
        let now = UInt64(max(0, Date().timeIntervalSince1970 * 1_000_000))
        lastVersionSequence = max(lastVersionSequence + 1, now)
        return lastVersionSequence
    }

    /// Gives a new record its place per the bucket's versioning: a fresh id when enabled, the `null` version (newest)
    /// when suspended, nothing when the bucket never had versioning.
    func stampVersion(_ bucket: String, _ record: inout ObjectRecord) {
        guard let status = buckets[bucket]?.record.versioning else { return }
        let sequence = nextVersionSequence()
        record.versionSequence = sequence
        if status == "Enabled" {
            let hex = String(sequence, radix: 16, uppercase: true)
            record.versionId = String(repeating: "0", count: max(0, 16 - hex.count)) + hex + RequestID.make().prefix(16)
            applyDefaultRetention(bucket, &record)  // ObjectWorm
        } else {
            record.versionId = nil
        }
    }

    /// Every version of a key, newest first.
    func versions(_ bucket: String, _ key: String) -> [ObjectRecord] {
        guard let b = buckets[bucket] else { return [] }
        let k = ExactKey(key)
        if let history = b.history[k] { return history }
        return b.objects[k].map { [$0] } ?? []
    }

    /// Puts a record (already persisted) into its key's history in place of the version with the same id, and
    /// returns the version it replaced (whose files the caller frees).
    @discardableResult
    func install(_ bucket: String, _ record: ObjectRecord) -> ObjectRecord? {
        let k = ExactKey(record.key)
        if buckets[bucket]!.history[k] == nil, record.versionId == nil, record.deleteMarker != true {
            let previous = buckets[bucket]!.objects.updateValue(record, forKey: k)
            if previous == nil { buckets[bucket]!.keysChanged() }
            return previous
        }
        var list = buckets[bucket]!.history.removeValue(forKey: k) ?? buckets[bucket]!.objects[k].map { [$0] } ?? []
        var replaced: ObjectRecord?
        if let i = list.firstIndex(where: { $0.versionId == record.versionId }) { replaced = list.remove(at: i) }
        let sequence = record.versionSequence ?? 0
        list.insert(record, at: list.firstIndex { ($0.versionSequence ?? 0) < sequence } ?? list.endIndex)
        buckets[bucket]!.setHistory(k, list)
        return replaced
    }

    /// A version of a key: the current one when `versionId` is `nil` (NoSuchKey when the latest version is a delete
    /// marker, with the marker's headers, as OSS answers), else the one named (`null` for the null version;
    /// NoSuchVersion when there is none; 405 MethodNotAllowed for a delete marker unless `allowMarker`). In a
    /// versioned bucket a null version written before versioning comes with sequence 0, so that replies name it.
    func object(_ bucket: String, _ key: String, versionId: String?, allowMarker: Bool = false) throws(LocalOSSError)
        -> ObjectRecord
    {
        var found = try lookUp(bucket, key, versionId: versionId, allowMarker: allowMarker)
        if found.versionSequence == nil, buckets[bucket]?.record.versioning != nil { found.versionSequence = 0 }
        return found
    }

    private func lookUp(_ bucket: String, _ key: String, versionId: String?, allowMarker: Bool) throws(LocalOSSError)
        -> ObjectRecord
    {
        guard let b = buckets[bucket] else { throw .noSuchBucket(bucket) }
        let k = ExactKey(key)
        guard let versionId else {
            if let object = b.objects[k] { return object }
            if let latest = b.history[k]?.first, latest.deleteMarker == true {
                var error = LocalOSSError.noSuchKey(key)
                error.headers = [("x-oss-delete-marker", "true"), ("x-oss-version-id", latest.versionId ?? "null")]
                throw error
            }
            throw .noSuchKey(key)
        }
        let wanted: String? = versionId == "null" ? nil : versionId
        guard let found = versions(bucket, key).first(where: { $0.versionId == wanted }) else {
            throw .noSuchVersion(versionId)
        }
        if found.deleteMarker == true, !allowMarker {
            throw LocalOSSError(
                405, "MethodNotAllowed", "The specified method is not allowed against this resource.",
                fields: [("Method", "GET"), ("ResourceType", "DeleteMarker")],
                headers: [
                    ("x-oss-delete-marker", "true"), ("x-oss-version-id", versionId),
                    ("Last-Modified", OSSDateFormat.rfc1123(Date(timeIntervalSince1970: TimeInterval(found.lastModified)))),
                ])
        }
        return found
    }

    // MARK: - Configuration

    /// Sets a bucket's versioning status (`Enabled` or `Suspended`).
    func setVersioning(_ bucket: String, _ status: String) throws {
        guard var b = buckets[bucket] else { throw LocalOSSError.noSuchBucket(bucket) }
        try FileIO.makeDirectory(versionsDirectory(bucket))
        b.record.versioning = status
        try FileIO.writeAtomically(
            try encoder.encode(b.record), to: bucketDirectory(bucket) + "/bucket.json", tempDirectory: tempDirectory)
        buckets[bucket]!.record = b.record
    }

    // MARK: - Deleting

    /// Deletes as DeleteObject does. Without `versionId`: in an unversioned bucket the object goes, otherwise a delete
    /// marker becomes the latest version (replacing the `null` version when versioning is suspended) and no version
    /// is lost. With `versionId`: that version (or marker) goes for good; naming one that does not exist is not an
    /// error.
    @discardableResult
    func deleteObject(
        _ bucket: String, _ key: String, versionId: String?, bypassGovernance: Bool = false, now: Date = Date()
    ) throws -> DeleteOutcome {
        guard let b = buckets[bucket] else { throw LocalOSSError.noSuchBucket(bucket) }
        try refuseRemoval(bucket, key, versionId: versionId, bypassGovernance: bypassGovernance, now: now)  // WORM
        let dir = objectsDirectory(bucket)
        guard let versionId else {
            guard b.record.versioning != nil else {
                try deleteObject(bucket, key)
                return DeleteOutcome(versionId: nil, deleteMarker: false)
            }
            var marker = ObjectRecord(
                key: key, size: 0, etag: "", crc64: 0, lastModified: Int64(now.timeIntervalSince1970),
                contentType: "", contentMD5: nil, userMetadata: [:], headers: [:], objectType: "DeleteMarker",
                dataFile: "")
            marker.deleteMarker = true
            stampVersion(bucket, &marker)
            try FileIO.writeAtomically(try encoder.encode(marker), to: recordPath(bucket, marker), tempDirectory: tempDirectory)
            if let replaced = install(bucket, marker) { Self.removeFiles(replaced.dataFiles, in: dir) }
            return DeleteOutcome(versionId: marker.versionId ?? "null", deleteMarker: true)
        }
        let wanted: String? = versionId == "null" ? nil : versionId
        var list = versions(bucket, key)
        guard let index = list.firstIndex(where: { $0.versionId == wanted }) else {
            return DeleteOutcome(versionId: versionId, deleteMarker: false)
        }
        let removed = list.remove(at: index)
        FileIO.remove(recordPath(bucket, removed))  // the commit point
        buckets[bucket]!.setHistory(ExactKey(key), list)
        Self.removeFiles(removed.dataFiles, in: dir)
        return DeleteOutcome(versionId: versionId, deleteMarker: removed.deleteMarker == true)
    }

    // MARK: - Listing

    /// Every key with at least one version (delete markers included), sorted by UTF-8 bytes.
    func sortedVersionedKeys(_ bucket: String) throws(LocalOSSError) -> [String] {
        guard let b = buckets[bucket] else { throw .noSuchBucket(bucket) }
        if let keys = b.sortedVersionedKeys { return keys }
        var all = Set(b.objects.keys)
        all.formUnion(b.history.keys)
        let keys = all.map(\.key).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        buckets[bucket]!.sortedVersionedKeys = keys
        return keys
    }

    /// One page of ListObjectVersions: keys in UTF-8 order after `keyMarker` (or, with `versionIdMarker`, the
    /// versions of `keyMarker` older than that one, then the keys after it), each key's versions newest first, keys
    /// grouped by `delimiter` into common prefixes; at most `limit` entries.
    func listVersions(
        _ bucket: String, prefix: String, delimiter: String, keyMarker: String, versionIdMarker: String, limit: Int
    ) throws -> VersionListing {
        let keys = try sortedVersionedKeys(bucket)
        var listing = VersionListing()
        let resumeInKey = !versionIdMarker.isEmpty
        var start = keys.partitionIndex { !$0.utf8.lexicographicallyPrecedes(prefix.utf8) }
        if !keyMarker.isEmpty {
            let afterMarker = keys.partitionIndex {
                resumeInKey ? !$0.utf8.lexicographicallyPrecedes(keyMarker.utf8) : keyMarker.utf8.lexicographicallyPrecedes($0.utf8)
            }
            start = max(start, afterMarker)
        }
        let skipUnder = !delimiter.isEmpty && keyMarker.hasSuffix(delimiter) ? keyMarker : nil
        var lastPrefix: String?
        var count = 0
        var index = start
        scan: while index < keys.count {
            let key = keys[index]
            index += 1
            guard key.utf8.starts(with: prefix.utf8) else {
                if prefix.utf8.lexicographicallyPrecedes(key.utf8) { break } else { continue }
            }
            if let skipUnder, key.utf8.starts(with: skipUnder.utf8) { continue }
            if !delimiter.isEmpty, let group = Self.commonPrefix(key, prefix: prefix, delimiter: delimiter) {
                if group == lastPrefix { continue }
                if count >= limit {
                    listing.truncated = true
                    break
                }
                listing.entries.append(.commonPrefix(group))
                lastPrefix = group
                count += 1
                listing.nextKeyMarker = group
                listing.nextVersionIdMarker = ""
                continue
            }
            let all = versions(bucket, key)
            var pending = all[...]
            if resumeInKey, key.utf8.elementsEqual(keyMarker.utf8) {
                pending = try Self.remaining(all, after: versionIdMarker)
            }
            for version in pending {
                if count >= limit {
                    listing.truncated = true
                    break scan
                }
                listing.entries.append(.version(version, isLatest: version.versionId == all.first?.versionId))
                count += 1
                listing.nextKeyMarker = key
                listing.nextVersionIdMarker = version.versionId ?? "null"
            }
        }
        if !listing.truncated {
            listing.nextKeyMarker = nil
            listing.nextVersionIdMarker = nil
        }
        return listing
    }

    /// The versions of a history (newest first) that come after the one named `marker`; when that version is gone
    /// (removed between two pages), those older than the sequence its id carries.
    private static func remaining(_ all: [ObjectRecord], after marker: String) throws -> ArraySlice<ObjectRecord> {
        let wanted: String? = marker == "null" ? nil : marker
        if let i = all.firstIndex(where: { $0.versionId == wanted }) { return all[(i + 1)...] }
        guard let sequence = sequence(ofVersionId: marker) else {
            throw LocalOSSError.invalidArgument(
                "The version-id-marker does not name a version of the key-marker.", name: "version-id-marker",
                value: marker)
        }
        return all[(all.firstIndex { ($0.versionSequence ?? 0) < sequence } ?? all.endIndex)...]
    }

    /// The common prefix a key falls in: the prefix and the key's bytes after it up to the first `delimiter`.
    static func commonPrefix(_ key: String, prefix: String, delimiter: String) -> String? {
        let rest = key.utf8.dropFirst(prefix.utf8.count)
        let needle = Array(delimiter.utf8)
        var i = rest.startIndex
        while i < rest.endIndex {
            if rest[i...].starts(with: needle) {
                let end = key.utf8.index(i, offsetBy: needle.count)
                return String(decoding: key.utf8[..<end], as: UTF8.self)
            }
            i = rest.index(after: i)
        }
        return nil
    }
}

extension ObjectStore.Bucket {
    /// Sets a key's history (newest first), keeping ``objects`` at its current version.
    mutating func setHistory(_ key: ExactKey, _ list: [ObjectRecord]) {
        let hadObject = objects[key] != nil
        let hadKey = hadObject || history[key] != nil
        if list.isEmpty {
            history[key] = nil
            objects[key] = nil
        } else {
            history[key] = list
            objects[key] = list[0].deleteMarker == true ? nil : list[0]
        }
        if hadObject != (objects[key] != nil) { sortedKeys = nil }
        if hadKey != !list.isEmpty { sortedVersionedKeys = nil }
    }

    /// A key appeared or went.
    mutating func keysChanged() {
        sortedKeys = nil
        sortedVersionedKeys = nil
    }
}

extension LocalOSSError {
    static func noSuchVersion(_ versionId: String) -> LocalOSSError {
        LocalOSSError(
            404, "NoSuchVersion", "The specified version does not exist.", fields: [("VersionId", String(versionId.prefix(64)))])
    }
}

extension Array where Element == String {
    /// The first index whose element satisfies `isAtOrAfter`, which is false on a leading run and true after it.
    fileprivate func partitionIndex(_ isAtOrAfter: (String) -> Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let mid = (low + high) / 2
            if isAtOrAfter(self[mid]) { high = mid } else { low = mid + 1 }
        }
        return low
    }
}
