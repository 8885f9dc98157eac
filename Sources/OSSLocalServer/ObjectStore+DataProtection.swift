import Foundation
import OSSXML

/// The bucket retention policy (WORM) where every write and delete meets it: inside the actor, so no request
/// path (PUT, copy, multipart, append, symlink, single or multiple delete, lifecycle) can slip past it.
///
/// The policy is kept as its GetBucketWorm document in `buckets/<bucket>/config/worm`. Object-level retention and
/// legal hold (ObjectWorm, BucketConfigurationDocuments+ObjectWorm.swift) live in each version's record and are
/// met here too, by ``refuseRemoval(_:_:versionId:bypassGovernance:now:)``.
extension ObjectStore {
    nonisolated func wormPath(_ bucket: String) -> String { bucketDirectory(bucket) + "/config/worm" }

    /// The bucket's retention policy if it still lives at `now` (a lapsed InProgress policy is as good as none).
    func worm(_ bucket: String, now: Date = Date()) throws(LocalOSSError) -> WormDocument? {
        guard buckets[bucket] != nil else { throw .noSuchBucket(bucket) }
        guard let bytes = FileIO.read(wormPath(bucket)),
            let policy = try? OSSXMLDecoder().decode(WormDocument.self, from: Array(bytes), root: WormDocument.root),
            policy.isLive(at: now)
        else { return nil }
        return policy
    }

    /// Stores a policy (initiated, locked or extended), or removes it (`nil`, AbortBucketWorm).
    func setWorm(_ bucket: String, _ policy: WormDocument?) throws {
        guard buckets[bucket] != nil else { throw LocalOSSError.noSuchBucket(bucket) }
        guard let policy else { return FileIO.remove(wormPath(bucket)) }
        try FileIO.makeDirectory(bucketDirectory(bucket) + "/config")
        let document = try OSSXMLEncoder().encode(policy, root: WormDocument.root)
        try FileIO.writeAtomically(Data(document.utf8), to: wormPath(bucket), tempDirectory: tempDirectory)
    }

    /// Refuses (`FileImmutable`) to replace or remove the current object at `key` while the bucket's retention
    /// policy protects it. A key with no object, or a bucket without a live policy, passes.
    func refuseImmutable(_ bucket: String, _ key: String, now: Date = Date()) throws(LocalOSSError) {
        guard let object = buckets[bucket]?.objects[ExactKey(key)], let policy = try worm(bucket, now: now),
            policy.protects(object, at: now)
        else { return }
        throw WormDocument.immutable(key)
    }

    /// Refuses (`FileImmutable`) to remove a version: without `versionId` the current object, which the bucket's
    /// retention policy may protect (a delete that only adds a delete marker passes it in a versioned bucket); with
    /// one, that version, which its legal hold or a retention until a future date protects. COMPLIANCE retention
    /// and legal hold always refuse; GOVERNANCE retention gives way to `bypassGovernance`.
    func refuseRemoval(
        _ bucket: String, _ key: String, versionId: String?, bypassGovernance: Bool = false, now: Date = Date()
    ) throws(LocalOSSError) {
        if versionId == nil || versionId == "null" { try refuseImmutable(bucket, key, now: now) }
        guard let versionId, let extra = (try? object(bucket, key, versionId: versionId, allowMarker: true))?.extra
        else { return }
        if extra.legalHold == true { throw .retained(key, "a legal hold") }
        if let retention = extra.retention, retention.isActive(at: now),
            retention.mode == ObjectRetention.compliance || !bypassGovernance
        {
            throw .retained(key, "\(retention.mode) retention")
        }
    }

    /// The bucket's ObjectWorm configuration, if it has one.
    func objectWorm(_ bucket: String) -> ObjectWormDocument? {
        guard let bytes = try? configuration(bucket, .objectWorm) else { return nil }
        return try? ObjectWormDocument.parse(bytes)
    }

    /// Gives a new version (not a delete marker) the default retention of the bucket's ObjectWorm configuration.
    func applyDefaultRetention(_ bucket: String, _ record: inout ObjectRecord, now: Date = Date()) {
        guard record.deleteMarker != true, let retention = objectWorm(bucket)?.defaultRetention(from: now) else { return }
        var extra = record.extra ?? ObjectExtra()
        extra.retention = retention
        record.extra = extra
    }

    /// AppendObject in a bucket with ObjectWorm: refused, as OSS disables appendable uploads there.
    func refuseAppendUnderObjectWorm(_ bucket: String) throws(LocalOSSError) {
        guard objectWorm(bucket) != nil else { return }
        throw LocalOSSError(
            409, "InvalidBucketState", "AppendObject is not supported in a bucket with ObjectWorm.",
            fields: [("BucketName", bucket)])
    }
}
