import Foundation

/// AppendObject's commit: an append adds one segment file to the object's manifest and never rewrites the object.
///
/// Successive records of an Appendable object share its segment files. Lifetimes and crash safety follow
/// CompleteMultipartUpload (``ObjectStore/completeUpload(_:uploadId:record:parts:)``): the new segment file is
/// moved into the bucket's `objects` directory first, then the record (previous segments, possibly minus a merged
/// tail, plus the new one) is written atomically; that write is the commit point. A crash before it leaves the
/// old record and an unreferenced segment file, which the sweep at load removes; a crash after it leaves the new
/// record and, if small segments were merged, their old files, now unreferenced and swept the same way. Files are
/// created before any record names them and removed only after no record does, so no record ever points at a
/// missing file. Replacing the record frees only the files it no longer names; overwriting or deleting the object
/// frees all of them (``ObjectStore/commitObject(_:record:tempPath:)``, ``ObjectStore/deleteObject(_:_:)``).
extension ObjectStore {
    /// Commits an append. `expected` is the data files of the object the append was built on (`nil` when there
    /// was none); if the object changed meanwhile (another append, a PUT, a delete), the append is refused with
    /// PositionNotEqualToLength and `tempPath` is removed. `keep` are the leading segments carried over unchanged;
    /// `segment` (its `file` is assigned here) describes the bytes at `tempPath`: the appended bytes, or those of
    /// a merged tail of small segments followed by them.
    func commitAppend(
        _ bucket: String, record: ObjectRecord, expected: [String]?, keep: [ObjectSegment], segment: ObjectSegment,
        tempPath: String
    ) throws -> ObjectRecord {
        // No copy of the bucket is held: it is changed in place below (see commitObject).
        guard let previous = buckets[bucket].map({ $0.objects[ExactKey(record.key)] }) else {
            FileIO.remove(tempPath)
            throw LocalOSSError.noSuchBucket(bucket)
        }
        guard previous?.dataFiles == expected else {
            FileIO.remove(tempPath)
            throw LocalOSSError.positionNotEqualToLength(previous?.size ?? 0)
        }
        do {
            try refuseImmutable(bucket, record.key)  // WORM
            try refuseAppendUnderObjectWorm(bucket)
        } catch { FileIO.remove(tempPath); throw error }
        let digest = Self.keyDigest(record.key)
        let dir = objectsDirectory(bucket)
        var segment = segment
        segment.file = digest + "." + RequestID.make() + ".data"
        do { try FileIO.rename(tempPath, dir + "/" + segment.file) } catch {
            FileIO.remove(tempPath)
            throw error
        }
        var record = record
        // ACL, tags and restore state may have changed while the body arrived (they do not change the files).
        if let previous { record.extra = previous.extra }
        // An append changes the current version in place (OSS makes no version of it); a new Appendable object is a
        // new version.
        if let previous {
            record.versionId = previous.versionId
            record.versionSequence = previous.versionSequence
        } else {
            stampVersion(bucket, &record)
        }
        record.dataFile = ""
        record.segments = keep + [segment]
        record.completedUpload = nil
        do {
            try FileIO.writeAtomically(try encoder.encode(record), to: recordPath(bucket, record), tempDirectory: tempDirectory)
        } catch {
            FileIO.remove(dir + "/" + segment.file)
            throw error
        }
        // A suspended bucket's new Appendable object replaces the `null` version, whose files go.
        let replaced = install(bucket, record)
        if previous == nil, let replaced { Self.removeFiles(replaced.dataFiles, in: dir) }
        if let previous {
            let kept = Set(record.dataFiles)
            Self.removeFiles(previous.dataFiles.filter { !kept.contains($0) }, in: dir)
        }
        return record
    }
}

extension ObjectRecord {
    /// The object's content as segments, whether it is a manifest or a single data file (an Appendable object
    /// copied by CopyObject, or written before appends kept segments).
    var contentSegments: [ObjectSegment] {
        if let segments { return segments }
        if dataFile.isEmpty { return [] }
        return [ObjectSegment(file: dataFile, length: size, crc64: crc64, partNumber: 0)]
    }
}
