import Foundation

/// Bucket configuration documents (CORS, lifecycle, policy, ...): one file per family in the bucket's directory,
/// `buckets/<bucket>/config/<sub-resource>`, written atomically (temporary file, fsync, rename) and removed with
/// the bucket. Going through the actor orders them with bucket creation and deletion.
extension ObjectStore {
    nonisolated func configurationPath(_ bucket: String, _ family: BucketConfigurationFamily) -> String {
        bucketDirectory(bucket) + "/config/" + family.subresource
    }

    /// The stored document of `family`, or `nil` when the bucket has none.
    func configuration(_ bucket: String, _ family: BucketConfigurationFamily) throws(LocalOSSError) -> [UInt8]? {
        guard buckets[bucket] != nil else { throw .noSuchBucket(bucket) }
        return FileIO.read(configurationPath(bucket, family)).map { Array($0) }
    }

    /// Replaces the document of `family`.
    func setConfiguration(_ bucket: String, _ family: BucketConfigurationFamily, _ document: [UInt8]) throws {
        guard buckets[bucket] != nil else { throw LocalOSSError.noSuchBucket(bucket) }
        try FileIO.makeDirectory(bucketDirectory(bucket) + "/config")
        try FileIO.writeAtomically(Data(document), to: configurationPath(bucket, family), tempDirectory: tempDirectory)
    }

    /// Removes the document of `family` (nothing to do when there is none).
    func removeConfiguration(_ bucket: String, _ family: BucketConfigurationFamily) throws(LocalOSSError) {
        guard buckets[bucket] != nil else { throw .noSuchBucket(bucket) }
        FileIO.remove(configurationPath(bucket, family))
    }
}
