import Foundation

/// Bucket-level data beside the objects: configuration documents and statistics.
///
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

    /// Reads, changes and writes back the document under `config/<subresource>` in one turn of the actor, so two
    /// requests adding entries (inventories, replication rules) at once both keep theirs. `change` returns the new
    /// document (`nil` removes it) and what the caller wants back.
    func updateConfiguration<Result: Sendable>(
        _ bucket: String, _ subresource: String, _ change: ([UInt8]?) throws -> (document: [UInt8]?, result: Result)
    ) throws -> Result {
        guard buckets[bucket] != nil else { throw LocalOSSError.noSuchBucket(bucket) }
        let path = bucketDirectory(bucket) + "/config/" + subresource
        let (document, result) = try change(FileIO.read(path).map { Array($0) })
        if let document {
            try FileIO.makeDirectory(bucketDirectory(bucket) + "/config")
            try FileIO.writeAtomically(Data(document), to: path, tempDirectory: tempDirectory)
        } else {
            FileIO.remove(path)
        }
        return result
    }
}

/// What GetBucketStat reports: counts and sizes of what the bucket holds, by storage class.
struct BucketStatistics: Sendable {
    var storage: Int64 = 0
    var objectCount: Int64 = 0
    var multipartUploadCount: Int64 = 0
    var multipartPartCount: Int64 = 0
    var deleteMarkerCount: Int64 = 0
    var lastModified: Int64 = 0
    /// Bytes and objects per storage class (`Standard`, `IA`, `Archive`, `ColdArchive`, `DeepColdArchive`).
    var byClass: [String: (storage: Int64, count: Int64)] = [:]
}

extension ObjectStore {
    /// Counts the bucket's objects (by storage class; in a versioned bucket every version, current or not, as OSS
    /// bills them), its delete markers, multipart uploads and their parts.
    func statistics(_ bucket: String) throws(LocalOSSError) -> BucketStatistics {
        guard let b = buckets[bucket] else { throw .noSuchBucket(bucket) }
        var stat = BucketStatistics()
        var records = Array(b.history.values.joined())
        for (key, object) in b.objects where b.history[key] == nil { records.append(object) }
        for object in records {
            if object.deleteMarker == true {
                stat.deleteMarkerCount += 1
                continue
            }
            stat.storage += object.size
            stat.objectCount += 1
            stat.lastModified = max(stat.lastModified, object.lastModified)
            let storageClass = object.extra?.storageClass ?? "Standard"
            let current = stat.byClass[storageClass] ?? (0, 0)
            stat.byClass[storageClass] = (current.storage + object.size, current.count + 1)
        }
        stat.multipartUploadCount = Int64(b.uploads.count)
        stat.multipartPartCount = Int64(b.uploads.values.reduce(0) { $0 + $1.parts.count })
        return stat
    }
}

/// Account-level documents (the account's public access block): `account/<name>` beside the buckets.
extension ObjectStore {
    nonisolated func accountConfigurationPath(_ name: String) -> String { root + "/account/" + name }

    func accountConfiguration(_ name: String) -> [UInt8]? {
        FileIO.read(accountConfigurationPath(name)).map { Array($0) }
    }

    func setAccountConfiguration(_ name: String, _ document: [UInt8]) throws {
        try FileIO.makeDirectory(root + "/account")
        try FileIO.writeAtomically(Data(document), to: accountConfigurationPath(name), tempDirectory: tempDirectory)
    }

    func removeAccountConfiguration(_ name: String) {
        FileIO.remove(accountConfigurationPath(name))
    }
}
