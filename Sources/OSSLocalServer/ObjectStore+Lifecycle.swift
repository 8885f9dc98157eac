import Foundation

/// Applies a bucket's lifecycle rules at a given (possibly simulated) time, as OSS's daily run does:
/// - `Expiration` (`Days` after the last modification, `CreatedBeforeDate`): an unversioned bucket's object is
///   deleted; a versioned bucket's current version gets a delete marker on top (nothing is lost).
/// - `ExpiredObjectDeleteMarker`: a delete marker that is the only version left of its key is removed.
/// - `NoncurrentVersionExpiration`: a previous version is removed `NoncurrentDays` after a newer one replaced it.
/// - `AbortMultipartUpload` (`Days` after initiation, `CreatedBeforeDate`): the upload and its parts go.
/// - `Transition` / `NoncurrentVersionTransition`: the storage class changes (to a colder one only).
/// A rule applies when `Enabled`, to keys under its `Prefix` carrying all its `Tag`s, within its `Filter` sizes and
/// outside its `Not` exclusions. Objects the bucket's retention policy protects are left in place.
extension ObjectStore {
    static let coldness = ["Standard": 0, "IA": 1, "Archive": 2, "ColdArchive": 3, "DeepColdArchive": 4]

    /// Runs the rules of every bucket that has some (or of `only`), at `now`.
    func runLifecycle(now: Date, only: String? = nil) throws -> LocalOSSLifecycleReport {
        var report = LocalOSSLifecycleReport(now: now, actions: [], protected: [])
        for bucket in buckets.keys.sorted() where only == nil || only == bucket {
            guard let bytes = try configuration(bucket, .lifecycle), let document = try? LifecycleDocument.parse(bytes)
            else { continue }
            for rule in document.rules where rule.status == "Enabled" {
                try apply(rule, bucket: bucket, now: now, into: &report)
            }
        }
        return report
    }

    private func apply(_ rule: LifecycleDocument.Rule, bucket: String, now: Date, into report: inout LocalOSSLifecycleReport) throws {
        let prefix = rule.prefix ?? ""
        let id = rule.id ?? ""
        func record(_ action: String, _ key: String, versionId: String? = nil, uploadId: String? = nil, storageClass: String? = nil) {
            report.actions.append(.init(
                bucket: bucket, rule: id, action: action, key: key, versionId: versionId, uploadId: uploadId,
                storageClass: storageClass))
        }
        let versioned = buckets[bucket]?.record.versioning != nil
        for key in try sortedVersionedKeys(bucket) where key.utf8.starts(with: prefix.utf8) {
            var history = versions(bucket, key)
            guard let latest = history.first else { continue }
            // The current version. Expired, it gets a delete marker (versioned) and becomes noncurrent at `now`; the
            // rule's noncurrent actions below then see it so, in this same run, as OSS applies all of a rule's actions.
            if latest.deleteMarker != true, Self.selects(rule, latest) {
                if let expiration = rule.expiration, Self.due(expiration.days, expiration.before, since: latest.lastModified, now: now) {
                    do {
                        let outcome = try deleteObject(bucket, key, versionId: nil, now: now)
                        record("Expiration", key, versionId: versioned ? outcome.versionId : nil)
                        history = versions(bucket, key)
                    } catch let error as LocalOSSError where error.code == "FileImmutable" {
                        report.protected.append(bucket + "/" + key)
                    }
                } else {
                    for move in rule.transitions where Self.due(move.days, move.before, since: latest.lastModified, now: now) {
                        if try transition(bucket, latest, to: move.storageClass) {
                            record("Transition", key, versionId: latest.versionId, storageClass: move.storageClass)
                        }
                    }
                }
            }
            // A delete marker left alone.
            if latest.deleteMarker == true, history.count == 1, rule.expiration?.deleteMarker == true {
                _ = try deleteObject(bucket, key, versionId: latest.versionId ?? "null", now: now)
                record("ExpiredObjectDeleteMarker", key, versionId: latest.versionId ?? "null")
                continue
            }
            // Previous versions: each became noncurrent when the next newer one was written.
            for (newer, version) in zip(history, history.dropFirst()) where version.deleteMarker != true && Self.selects(rule, version) {
                if let noncurrent = rule.noncurrentExpiration,
                    Self.due(noncurrent.days, nil, since: newer.lastModified, now: now)
                {
                    do {
                        _ = try deleteObject(bucket, key, versionId: version.versionId ?? "null", now: now)
                        record("NoncurrentVersionExpiration", key, versionId: version.versionId ?? "null")
                    } catch let error as LocalOSSError where error.code == "FileImmutable" {
                        report.protected.append(bucket + "/" + key + "?versionId=" + (version.versionId ?? "null"))
                    }
                    continue
                }
                for move in rule.noncurrentTransitions where Self.due(move.noncurrentDays, nil, since: newer.lastModified, now: now) {
                    if try transition(bucket, version, to: move.storageClass) {
                        record("NoncurrentVersionTransition", key, versionId: version.versionId ?? "null", storageClass: move.storageClass)
                    }
                }
            }
        }
        if let abort = rule.abortUpload {
            let due = (buckets[bucket]?.uploads.values.map(\.record) ?? [])
                .filter { $0.key.utf8.starts(with: prefix.utf8) && Self.due(abort.days, abort.before, since: $0.initiated, now: now) }
                .sorted { $0.uploadId < $1.uploadId }
            for upload in due {
                try removeUpload(bucket, key: upload.key, uploadId: upload.uploadId)
                record("AbortMultipartUpload", upload.key, uploadId: upload.uploadId)
            }
        }
    }

    /// Whether an action with `days` (after `since`) or `before` (a date) is due at `now`.
    static func due(_ days: Int?, _ before: Date?, since: Int64, now: Date) -> Bool {
        if let days { return now.timeIntervalSince1970 >= Double(since) + Double(days) * 86_400 }
        if let before { return Double(since) < before.timeIntervalSince1970 }
        return false
    }

    /// Whether the rule's tags, sizes and exclusions select the object.
    static func selects(_ rule: LifecycleDocument.Rule, _ object: ObjectRecord) -> Bool {
        let tags = object.extra?.tags ?? []
        func has(_ tag: LifecycleDocument.Tag) -> Bool { tags.contains { $0.key == tag.key && $0.value == tag.value } }
        guard rule.tags.allSatisfy(has) else { return false }
        if let filter = rule.filter {
            if let larger = filter.larger, object.size <= larger { return false }
            if let smaller = filter.smaller, object.size >= smaller { return false }
            for excluded in filter.excluded where object.key.utf8.starts(with: excluded.prefix.utf8) {
                if excluded.tag.map(has) ?? true { return false }
            }
        }
        return true
    }

    /// Moves a version to a colder storage class; `false` when it is already there or colder.
    private func transition(_ bucket: String, _ version: ObjectRecord, to storageClass: String) throws -> Bool {
        let current = Self.coldness[version.extra?.storageClassName ?? "Standard"] ?? 0
        guard let target = Self.coldness[storageClass], target > current else { return false }
        try updateObject(bucket, version.key, versionId: version.versionId ?? "null") {
            var extra = $0.extra ?? ObjectExtra()
            extra.storageClass = storageClass
            $0.extra = extra
        }
        return true
    }
}
