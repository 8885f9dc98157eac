import Crypto
import NIOCore
import NIOPosix

import Foundation

/// The disk-backed index of buckets, objects and multipart uploads. All metadata changes go through this actor.
///
/// Layout under the data directory:
/// ```
/// tmp/                                   bodies being received, temporary metadata files
/// buckets/<bucket>/bucket.json
/// buckets/<bucket>/objects/<sha256(key)>.json         ObjectRecord (holds the key)
/// buckets/<bucket>/objects/<sha256(key)>.<random>.data      one file per object, or one per part (manifest)
/// buckets/<bucket>/versions/…                          versions of a versioned bucket (ObjectStore+Versioning.swift)
/// buckets/<bucket>/uploads/<uploadId>/upload.json     UploadRecord
/// buckets/<bucket>/uploads/<uploadId>/part-<n>.<size>.<md5>.<crc64>.<mtime>.<random>.data   a part; its name is
///                                                     its PartRecord (earlier versions: part-<n>.json beside
///                                                     part-<n>.<random>.data, still loaded)
/// ```
/// Bucket names are validated (`[a-z0-9-]`), upload ids are checked to be hex, and object keys never appear in
/// a path (only their SHA-256), so no key or id can reach outside the data directory.
///
/// Metadata writes are synchronous (temporary file, fsync, rename) so that each actor method is atomic with respect
/// to the others. On Linux the actor runs on a thread of ``ServerIO/storeLoops``, so a slow fsync never blocks
/// Swift's cooperative pool; callers simply wait for the actor.
actor ObjectStore {
    #if os(Linux)
    private let loop: any EventLoop = ServerIO.storeLoops.next()

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        loop.executor.asUnownedSerialExecutor()
    }
    #endif

    struct Upload {
        var record: UploadRecord
        var parts: [Int: PartRecord] = [:]
    }

    struct Bucket {
        var record: BucketRecord
        /// Keyed byte for byte: OSS keys are byte strings, and Swift `String` equality would merge keys that are
        /// canonically equivalent Unicode (`é` composed vs `e` + combining accent) into one object.
        var objects: [ExactKey: ObjectRecord] = [:]
        var uploads: [String: Upload] = [:]
        var sortedKeys: [String]?
        /// Each key's versions, newest first, for keys with more than a `null` version (ObjectStore+Versioning.swift).
        var history: [ExactKey: [ObjectRecord]] = [:]
        var sortedVersionedKeys: [String]?
    }

    let root: String
    let tempDirectory: String
    var buckets: [String: Bucket] = [:]
    /// The largest version sequence given or loaded (ObjectStore+Versioning.swift).
    var lastVersionSequence: UInt64 = 0
    let encoder: JSONEncoder = {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        return e
    }()

    private init(root: String) {
        self.root = root
        self.tempDirectory = root + "/tmp"
    }

    /// Opens a data directory, creating it if needed, and rebuilds the index by scanning it.
    static func open(root: String) async throws -> ObjectStore {
        let store = ObjectStore(root: root)
        try await store.load()
        return store
    }

    private func load() throws {
        try FileIO.makeDirectory(root + "/buckets")
        FileIO.remove(tempDirectory)
        try FileIO.makeDirectory(tempDirectory)
        let decoder = JSONDecoder()
        for name in FileIO.list(root + "/buckets") where Router.isValidBucketName(name) {
            let dir = bucketDirectory(name)
            guard let data = FileIO.read(dir + "/bucket.json"),
                let record = try? decoder.decode(BucketRecord.self, from: data)
            else { continue }
            var bucket = Bucket(record: record)
            let objectsDir = dir + "/objects"
            var referenced = Set<String>()
            var completedUploads = Set<String>()
            var histories: [ExactKey: [ObjectRecord]] = [:]
            for file in FileIO.list(objectsDir) where file.hasSuffix(".json") {
                guard let data = FileIO.read(objectsDir + "/" + file),
                    let object = try? decoder.decode(ObjectRecord.self, from: data)
                else { continue }
                if object.deleteMarker == true {
                    histories[ExactKey(object.key), default: []].append(object)
                } else {
                    bucket.objects[ExactKey(object.key)] = object
                }
                referenced.formUnion(object.dataFiles)
                if let id = object.completedUpload { completedUploads.insert(id) }
                lastVersionSequence = max(lastVersionSequence, object.versionSequence ?? 0)
            }
            let versionsDir = dir + "/versions"
            for file in FileIO.list(versionsDir) where file.hasSuffix(".json") {
                guard let data = FileIO.read(versionsDir + "/" + file),
                    let version = try? decoder.decode(ObjectRecord.self, from: data), version.versionId != nil
                else { continue }
                histories[ExactKey(version.key), default: []].append(version)
                referenced.formUnion(version.dataFiles)
                if let id = version.completedUpload { completedUploads.insert(id) }
                lastVersionSequence = max(lastVersionSequence, version.versionSequence ?? 0)
            }
            for (key, versions) in histories {
                let all = versions + (bucket.objects[key].map { [$0] } ?? [])
                bucket.setHistory(key, all.sorted { ($0.versionSequence ?? 0) > ($1.versionSequence ?? 0) })
            }
            // Data files no record references: a crash between linking and committing, or before freeing.
            for file in FileIO.list(objectsDir) where file.hasSuffix(".data") && !referenced.contains(file) {
                FileIO.remove(objectsDir + "/" + file)
            }
            let uploadsDir = dir + "/uploads"
            for id in FileIO.list(uploadsDir) where Self.isValidUploadId(id) {
                let udir = uploadsDir + "/" + id
                guard !completedUploads.contains(id),
                    let data = FileIO.read(udir + "/upload.json"),
                    let record = try? decoder.decode(UploadRecord.self, from: data)
                else {
                    FileIO.remove(udir)  // completed (a crash before its removal) or unreadable
                    continue
                }
                var upload = Upload(record: record)
                var partFiles = Set<String>()
                let files = FileIO.list(udir)
                for file in files where file.hasPrefix("part-") && file.hasSuffix(".json") {
                    guard let data = FileIO.read(udir + "/" + file),
                        let part = try? decoder.decode(PartRecord.self, from: data)
                    else { continue }
                    upload.parts[part.partNumber] = part
                    partFiles.insert(part.dataFile)
                }
                for file in files {
                    guard let part = PartRecord(committedFileName: file) else { continue }
                    if let legacy = upload.parts[part.partNumber], partFiles.contains(legacy.dataFile) {
                        partFiles.remove(legacy.dataFile)  // the newer format wins over a leftover JSON record
                    }
                    upload.parts[part.partNumber] = part
                    partFiles.insert(file)
                }
                for file in FileIO.list(udir) where file.hasSuffix(".data") && !partFiles.contains(file) {
                    FileIO.remove(udir + "/" + file)
                }
                bucket.uploads[id] = upload
            }
            buckets[name] = bucket
        }
    }

    // MARK: - Paths

    nonisolated func bucketDirectory(_ name: String) -> String { root + "/buckets/" + name }
    nonisolated func objectsDirectory(_ bucket: String) -> String { bucketDirectory(bucket) + "/objects" }
    nonisolated func uploadDirectory(_ bucket: String, _ uploadId: String) -> String {
        bucketDirectory(bucket) + "/uploads/" + uploadId
    }
    /// The path of a single-file object's data. Prefer ``objectSegments(_:_:offset:length:)``, which also reads
    /// manifest (completed multipart) objects.
    nonisolated func objectDataPath(_ bucket: String, _ record: ObjectRecord) -> String {
        objectsDirectory(bucket) + "/" + record.dataFile
    }

    /// The file segments holding bytes `offset..<offset+length` of an object, in order, whether the object is one
    /// data file or a manifest of parts. Data files are never rewritten, only replaced, so the segments stay valid
    /// for as long as they can be opened.
    nonisolated func objectSegments(_ bucket: String, _ record: ObjectRecord, offset: Int64, length: Int64)
        -> [FileSegment]
    {
        let dir = objectsDirectory(bucket)
        guard let segments = record.segments else {
            return [FileSegment(path: dir + "/" + record.dataFile, offset: offset, length: length)]
        }
        var result: [FileSegment] = []
        var start: Int64 = 0
        let end = offset + length
        for segment in segments {
            let segmentEnd = start + segment.length
            defer { start = segmentEnd }
            guard segmentEnd > offset, start < end else { continue }
            let from = max(offset, start)
            let to = min(end, segmentEnd)
            result.append(FileSegment(path: dir + "/" + segment.file, offset: from - start, length: to - from))
        }
        return result
    }
    nonisolated func partDataPath(_ bucket: String, _ uploadId: String, _ part: PartRecord) -> String {
        uploadDirectory(bucket, uploadId) + "/" + part.dataFile
    }
    /// A fresh path in the temporary directory for a body being received.
    nonisolated func newTempPath() -> String { tempDirectory + "/" + RequestID.make() + ".body" }

    static func keyDigest(_ key: String) -> String {
        SHA256.hash(data: Data(key.utf8)).map { b in (b < 16 ? "0" : "") + String(b, radix: 16) }.joined()
    }

    static func isValidUploadId(_ id: String) -> Bool {
        !id.isEmpty && id.count <= 64 && id.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x46) }
    }

    // MARK: - Buckets

    /// Creates a bucket; returns false if it already existed.
    func createBucket(_ name: String, now: Date) throws -> Bool {
        guard Router.isValidBucketName(name) else {
            throw LocalOSSError(400, "InvalidBucketName", "The specified bucket is not valid.", fields: [("BucketName", name)])
        }
        if buckets[name] != nil { return false }
        let record = BucketRecord(name: name, creationDate: Int64(now.timeIntervalSince1970))
        let dir = bucketDirectory(name)
        try FileIO.makeDirectory(dir + "/objects")
        try FileIO.makeDirectory(dir + "/uploads")
        try FileIO.writeAtomically(try encoder.encode(record), to: dir + "/bucket.json", tempDirectory: tempDirectory)
        buckets[name] = Bucket(record: record)
        return true
    }

    func deleteBucket(_ name: String) throws(LocalOSSError) {
        guard let bucket = buckets[name] else { throw .noSuchBucket(name) }
        guard bucket.objects.isEmpty, bucket.history.isEmpty, bucket.uploads.isEmpty else {
            throw LocalOSSError(
                409, "BucketNotEmpty", "The bucket you tried to delete is not empty.", fields: [("BucketName", name)])
        }
        buckets[name] = nil
        FileIO.remove(bucketDirectory(name))
    }

    func listBuckets() -> [BucketRecord] {
        buckets.values.map(\.record).sorted { $0.name < $1.name }
    }

    func bucket(_ name: String) throws(LocalOSSError) -> BucketRecord {
        guard let bucket = buckets[name] else { throw .noSuchBucket(name) }
        return bucket.record
    }

    // MARK: - Objects

    /// The current version of an object (see ``object(_:_:versionId:allowMarker:)`` for others).
    func object(_ bucket: String, _ key: String) throws(LocalOSSError) -> ObjectRecord {
        try object(bucket, key, versionId: nil)
    }

    func objectExists(_ bucket: String, _ key: String) -> Bool {
        buckets[bucket]?.objects[ExactKey(key)] != nil
    }

    /// Moves the received body at `tempPath` into place and records the object, replacing any previous one.
    func commitObject(_ bucket: String, record: ObjectRecord, tempPath: String) throws -> ObjectRecord {
        // The bucket is changed in place (`buckets[bucket]!`), never through a copy: a copy of its object table
        // would make every PUT cost as much as the bucket's object count.
        guard buckets[bucket] != nil else {
            FileIO.remove(tempPath)
            throw LocalOSSError.noSuchBucket(bucket)
        }
        do { try refuseImmutable(bucket, record.key) } catch { FileIO.remove(tempPath); throw error }  // WORM
        var record = record
        stampVersion(bucket, &record)
        let digest = Self.keyDigest(record.key)
        record.dataFile = digest + "." + RequestID.make() + ".data"
        let dir = objectsDirectory(bucket)
        try FileIO.rename(tempPath, dir + "/" + record.dataFile)
        try FileIO.writeAtomically(try encoder.encode(record), to: recordPath(bucket, record), tempDirectory: tempDirectory)
        // In a versioned bucket only the `null` version is ever replaced; a new version replaces nothing.
        if let previous = install(bucket, record) { Self.removeFiles(previous.dataFiles, in: dir) }
        return record
    }

    static func removeFiles(_ files: [String], in directory: String) {
        for file in files { FileIO.remove(directory + "/" + file) }
    }

    /// Deletes an object; deleting a missing key is not an error.
    func deleteObject(_ bucket: String, _ key: String) throws(LocalOSSError) {
        guard buckets[bucket] != nil else { throw .noSuchBucket(bucket) }
        guard let previous = buckets[bucket]!.objects.removeValue(forKey: ExactKey(key)) else { return }
        buckets[bucket]!.keysChanged()
        let dir = objectsDirectory(bucket)
        FileIO.remove(dir + "/" + Self.keyDigest(key) + ".json")
        Self.removeFiles(previous.dataFiles, in: dir)
    }

    /// Keys sorted by UTF-8 bytes.
    func sortedKeys(_ bucket: String) throws(LocalOSSError) -> [String] {
        guard var b = buckets[bucket] else { throw .noSuchBucket(bucket) }
        if let keys = b.sortedKeys { return keys }
        let keys = b.objects.keys.map(\.key).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        b.sortedKeys = keys
        buckets[bucket] = b
        return keys
    }

    func objects(_ bucket: String, keys: [String]) -> [ObjectRecord] {
        guard let b = buckets[bucket] else { return [] }
        return keys.compactMap { b.objects[ExactKey($0)] }
    }

    // MARK: - Multipart uploads

    func initiateUpload(_ bucket: String, record: UploadRecord) throws -> UploadRecord {
        guard var b = buckets[bucket] else { throw LocalOSSError.noSuchBucket(bucket) }
        let dir = uploadDirectory(bucket, record.uploadId)
        try FileIO.makeDirectory(dir)
        try FileIO.writeAtomically(try encoder.encode(record), to: dir + "/upload.json", tempDirectory: tempDirectory)
        b.uploads[record.uploadId] = Upload(record: record)
        buckets[bucket] = b
        return record
    }

    func upload(_ bucket: String, key: String, uploadId: String) throws(LocalOSSError) -> Upload {
        guard let b = buckets[bucket] else { throw .noSuchBucket(bucket) }
        guard let upload = b.uploads[uploadId], upload.record.key.utf8.elementsEqual(key.utf8) else { throw .noSuchUpload(uploadId) }
        return upload
    }

    func uploads(_ bucket: String) throws(LocalOSSError) -> [UploadRecord] {
        guard let b = buckets[bucket] else { throw .noSuchBucket(bucket) }
        return b.uploads.values.map(\.record)
    }

    /// Moves a received part into its upload, replacing an earlier part with the same number.
    func commitPart(_ bucket: String, key: String, uploadId: String, part: PartRecord, tempPath: String) throws {
        guard var b = buckets[bucket], var upload = b.uploads[uploadId], upload.record.key.utf8.elementsEqual(key.utf8) else {
            FileIO.remove(tempPath)
            throw LocalOSSError.noSuchUpload(uploadId)
        }
        // A sequential upload takes its parts in ascending order; the last one may be sent again (a retry).
        if upload.record.sequential == true, let highest = upload.parts.keys.max(), part.partNumber < highest {
            FileIO.remove(tempPath)
            // OSS's code for it, which oss2 raises as oss2.exceptions.PartNotSequential.
            throw LocalOSSError(
                400, "PartNotSequential",
                "For sequential multipart upload, you must upload or complete parts with sequential part number: "
                    + "part \(part.partNumber) follows part \(highest).",
                fields: [("PartNumber", String(part.partNumber))])
        }
        var part = part
        part.dataFile = part.committedFileName(unique: RequestID.make())
        let dir = uploadDirectory(bucket, uploadId)
        // The previous upload of this part goes first: a crash in between leaves no part rather than two (the
        // new UploadPart was not answered yet, so its client sends it again).
        if let previous = upload.parts[part.partNumber] {
            FileIO.remove(dir + "/" + previous.dataFile)
            FileIO.remove(dir + "/part-\(part.partNumber).json")
        }
        // The rename commits the part: its name is its record (the data was synced when received).
        try FileIO.rename(tempPath, dir + "/" + part.dataFile)
        upload.parts[part.partNumber] = part
        b.uploads[uploadId] = upload
        buckets[bucket] = b
    }

    /// Removes an upload (after abort or complete) and its files.
    func removeUpload(_ bucket: String, key: String, uploadId: String) throws(LocalOSSError) {
        guard var b = buckets[bucket] else { throw .noSuchBucket(bucket) }
        guard let upload = b.uploads[uploadId], upload.record.key.utf8.elementsEqual(key.utf8) else { throw .noSuchUpload(uploadId) }
        b.uploads[uploadId] = nil
        buckets[bucket] = b
        FileIO.remove(uploadDirectory(bucket, uploadId))
    }

    /// Completes an upload without copying: the chosen parts' data files are hard-linked into the bucket's
    /// `objects` directory and the object record (a manifest of those files) is written atomically. That write is
    /// the commit point: a crash before it leaves the old object and unreferenced links (swept at load), a crash
    /// after it leaves the new object and an upload directory that load removes (`completedUpload`). Parts not in
    /// `parts` are freed with the upload.
    func completeUpload(_ bucket: String, uploadId: String, record: ObjectRecord, parts: [PartRecord]) throws
        -> ObjectRecord
    {
        // No copy of the bucket is held: it is changed in place below (see commitObject).
        guard let upload = buckets[bucket]?.uploads[uploadId], upload.record.key.utf8.elementsEqual(record.key.utf8)
        else { throw LocalOSSError.noSuchUpload(uploadId) }
        try refuseImmutable(bucket, record.key)  // WORM
        var record = record
        stampVersion(bucket, &record)
        let digest = Self.keyDigest(record.key)
        let dir = objectsDirectory(bucket)
        let udir = uploadDirectory(bucket, uploadId)
        var segments: [ObjectSegment] = []
        do {
            for part in parts {
                let file = digest + "." + RequestID.make() + ".data"
                try FileIO.link(udir + "/" + part.dataFile, dir + "/" + file)
                segments.append(ObjectSegment(file: file, length: part.size, crc64: part.crc64, partNumber: part.partNumber))
            }
            record.dataFile = ""
            record.segments = segments
            record.completedUpload = uploadId
            try FileIO.writeAtomically(try encoder.encode(record), to: recordPath(bucket, record), tempDirectory: tempDirectory)
        } catch {
            Self.removeFiles(segments.map(\.file), in: dir)
            throw error
        }
        let previous = install(bucket, record)
        buckets[bucket]!.uploads[uploadId] = nil
        if let previous { Self.removeFiles(previous.dataFiles, in: dir) }
        FileIO.remove(udir)
        return record
    }
}

/// A byte range of one data file: a piece of an object's content.
///
/// An object stored as one file reads as one segment; a completed multipart object (kept as its part files and a
/// manifest, see ``ObjectSegment``) reads as one segment per part that the range touches.
struct FileSegment: Sendable, Equatable {
    var path: String
    var offset: Int64
    var length: Int64
}
