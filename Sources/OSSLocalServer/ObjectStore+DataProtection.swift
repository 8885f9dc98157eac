import Foundation
import OSSXML

/// The bucket retention policy (WORM) where every write and delete meets it: inside the actor, so no request
/// path (PUT, copy, multipart, append, symlink, single or multiple delete, lifecycle) can slip past it.
///
/// The policy is kept as its GetBucketWorm document in `buckets/<bucket>/config/worm`.
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
}
