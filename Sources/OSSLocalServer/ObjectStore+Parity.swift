import Foundation

/// Metadata updates and byte access used by copy, append, ACL, tagging, symlink and restore.
extension ObjectStore {
    /// The bytes of an object (or `range` of them, inclusive) as file pieces, in order. The one place new code
    /// learns where an object's bytes live.
    nonisolated func objectPieces(_ bucket: String, _ record: ObjectRecord, range: ClosedRange<Int64>? = nil)
        -> [FileIO.Piece]
    {
        let path = objectDataPath(bucket, record)
        guard let range else { return [FileIO.Piece(path: path, offset: 0, length: record.size)] }
        return [FileIO.Piece(path: path, offset: range.lowerBound, length: range.upperBound - range.lowerBound + 1)]
    }

    /// Changes an object's record (not its bytes) and persists it. `expectedDataFile`, when given, must still be
    /// the object's data file (the object was not replaced meanwhile), else `onReplaced` is thrown.
    @discardableResult
    func updateObject(
        _ bucket: String, _ key: String, _ change: @Sendable (inout ObjectRecord) throws(OSSServerError) -> Void
    ) throws -> ObjectRecord {
        guard var b = buckets[bucket] else { throw OSSServerError.noSuchBucket(bucket) }
        guard var record = b.objects[ExactKey(key)] else { throw OSSServerError.noSuchKey(key) }
        try change(&record)
        let path = objectsDirectory(bucket) + "/" + Self.keyDigest(key) + ".json"
        try FileIO.writeAtomically(try encoder.encode(record), to: path, tempDirectory: tempDirectory)
        b.objects[ExactKey(key)] = record
        buckets[bucket] = b
        return record
    }

    /// Sets a bucket's ACL.
    func setBucketACL(_ bucket: String, _ acl: String) throws {
        guard var b = buckets[bucket] else { throw OSSServerError.noSuchBucket(bucket) }
        b.record.acl = acl
        try FileIO.writeAtomically(
            try encoder.encode(b.record), to: bucketDirectory(bucket) + "/bucket.json", tempDirectory: tempDirectory)
        buckets[bucket] = b
    }

    /// Commits an appended object built at `tempPath`, provided the object is still the one it was built from
    /// (`expectedDataFile`, `nil` when there was none); otherwise a concurrent write won and the append is
    /// refused with PositionNotEqualToLength.
    func commitAppend(_ bucket: String, record: ObjectRecord, expectedDataFile: String?, tempPath: String) throws
        -> ObjectRecord
    {
        let current = buckets[bucket]?.objects[ExactKey(record.key)]
        guard current?.dataFile == expectedDataFile else {
            FileIO.remove(tempPath)
            throw OSSServerError.positionNotEqualToLength(current?.size ?? 0)
        }
        return try commitObject(bucket, record: record, tempPath: tempPath)
    }
}

extension OSSServerError {
    static func positionNotEqualToLength(_ length: Int64) -> OSSServerError {
        OSSServerError(
            409, "PositionNotEqualToLength", "Position is not equal to file length",
            headers: [("x-oss-next-append-position", String(length))])
    }
}
