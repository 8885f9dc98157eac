import Foundation

/// Metadata updates and byte access used by copy, append, ACL, tagging, symlink and restore.
extension ObjectStore {
    /// The bytes of an object (or `range` of them, inclusive) as file pieces, in order. The one place new code
    /// learns where an object's bytes live.
    nonisolated func objectPieces(_ bucket: String, _ record: ObjectRecord, range: ClosedRange<Int64>? = nil)
        -> [FileIO.Piece]
    {
        let offset = range?.lowerBound ?? 0
        let length = range.map { $0.upperBound - $0.lowerBound + 1 } ?? record.size
        // A manifest (completed multipart) object reads as one piece per part the range touches.
        return objectSegments(bucket, record, offset: offset, length: length).map {
            FileIO.Piece(path: $0.path, offset: $0.offset, length: $0.length)
        }
    }

    /// Changes a version's record (not its bytes; the current version when `versionId` is `nil`) and persists it;
    /// `change` may throw to refuse the change.
    @discardableResult
    func updateObject(
        _ bucket: String, _ key: String, versionId: String? = nil,
        _ change: @Sendable (inout ObjectRecord) throws(LocalOSSError) -> Void
    ) throws -> ObjectRecord {
        var record = try object(bucket, key, versionId: versionId)
        try change(&record)
        try FileIO.writeAtomically(try encoder.encode(record), to: recordPath(bucket, record), tempDirectory: tempDirectory)
        install(bucket, record)  // in place: no copy of the bucket's object table
        return record
    }

    /// Sets a bucket's ACL.
    func setBucketACL(_ bucket: String, _ acl: String) throws {
        guard var b = buckets[bucket] else { throw LocalOSSError.noSuchBucket(bucket) }
        b.record.acl = acl
        try FileIO.writeAtomically(
            try encoder.encode(b.record), to: bucketDirectory(bucket) + "/bucket.json", tempDirectory: tempDirectory)
        buckets[bucket] = b
    }
}

extension LocalOSSError {
    static func positionNotEqualToLength(_ length: Int64) -> LocalOSSError {
        LocalOSSError(
            409, "PositionNotEqualToLength", "Position is not equal to file length",
            headers: [("x-oss-next-append-position", String(length))])
    }
}
