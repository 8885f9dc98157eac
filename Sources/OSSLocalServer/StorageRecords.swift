/// The persisted metadata of a bucket (`buckets/<name>/bucket.json`).
struct BucketRecord: Codable, Sendable {
    var name: String
    var creationDate: Int64
    /// `private`, `public-read` or `public-read-write`; `nil` is private.
    var acl: String? = nil
    /// `Enabled` or `Suspended` once versioning was configured; `nil` for a bucket that never had it (which it
    /// never becomes again).
    var versioning: String? = nil
}

/// The persisted metadata of an object (`objects/<sha256(key)>.json`); the key itself lives only here.
struct ObjectRecord: Codable, Sendable {
    var key: String
    var size: Int64
    /// Quoted, e.g. `"5EB63BBBE01EEED093CB22BB8F5ACDC3"` or `"...-3"`.
    var etag: String
    var crc64: UInt64
    /// Unix seconds.
    var lastModified: Int64
    var contentType: String
    /// Base64 MD5 of the content, for Normal objects.
    var contentMD5: String?
    /// `x-oss-meta-*` headers, names lower-cased.
    var userMetadata: [String: String]
    /// Other stored headers (`cache-control`, `content-disposition`, `content-encoding`, `content-language`, `expires`).
    var headers: [String: String]
    /// `Normal`, `Multipart` or `Appendable`.
    var objectType: String
    /// The data file's name inside the bucket's `objects` directory (empty for a manifest object).
    var dataFile: String
    /// Object ACL, storage class, tags, symlink target and restore state (ObjectRecord+Parity.swift).
    var extra: ObjectExtra? = nil
    /// For a completed multipart object: its parts' data files in order (a manifest), instead of `dataFile`.
    /// For an Appendable object: one file per append (or per merge of small appends, see ``AppendCompaction``);
    /// successive records of the object share these files. Absent in records written before manifests existed,
    /// which are single-file objects.
    var segments: [ObjectSegment]? = nil
    /// The upload this object completed; a restart removes that upload's directory if a crash left it behind.
    var completedUpload: String? = nil
    /// The version id in a versioned bucket; `nil` is the `null` version (every object of an unversioned bucket,
    /// objects written before versioning was enabled, and writes while it is suspended). See
    /// ObjectStore+Versioning.swift.
    var versionId: String? = nil
    /// Where the version stands in its key's history (larger is newer); `nil` (0) for records written while the
    /// bucket was unversioned, which are older than any version.
    var versionSequence: UInt64? = nil
    /// A delete marker: a version with no bytes that makes the key read as deleted while it is the latest.
    var deleteMarker: Bool? = nil

    /// The names of every data file this object owns, inside the bucket's `objects` directory.
    var dataFiles: [String] {
        if let segments { return segments.map(\.file) }
        return dataFile.isEmpty ? [] : [dataFile]
    }
}

/// One part of a manifest object: its data file (inside the bucket's `objects` directory), length and CRC-64.
struct ObjectSegment: Codable, Sendable {
    var file: String
    var length: Int64
    var crc64: UInt64
    /// The part number for a completed multipart object; 0 for an appended segment.
    var partNumber: Int
}

/// The persisted metadata of a multipart upload (`uploads/<uploadId>/upload.json`).
struct UploadRecord: Codable, Sendable {
    var uploadId: String
    var key: String
    var initiated: Int64
    var contentType: String
    var userMetadata: [String: String]
    var headers: [String: String]
    /// ACL, storage class and tags given at initiation, applied to the completed object.
    var extra: ObjectExtra? = nil
    /// Initiated with `?sequential`: parts arrive in ascending order and the object gets its content's MD5.
    var sequential: Bool? = nil
}

/// The persisted metadata of one uploaded part (`uploads/<uploadId>/part-<n>.json`).
struct PartRecord: Codable, Sendable {
    var partNumber: Int
    var size: Int64
    /// Upper-case hex MD5 of the part (the ETag without quotes).
    var md5Hex: String
    var crc64: UInt64
    var lastModified: Int64
    /// The data file's name inside the upload directory.
    var dataFile: String

    var etag: String { "\"\(md5Hex)\"" }
}

/// A part's record lives in its data file's name, `part-<n>.<size>.<md5 hex>.<crc64>.<last modified>.<random>.data`,
/// so that committing a part is one rename (no second file to create, sync and rename per part; the data itself
/// is synced before). Uploads written by earlier versions keep a `part-<n>.json` beside the data and still load.
extension PartRecord {
    /// The committed name of this part's data file, with `unique` to tell two uploads of one part apart.
    func committedFileName(unique: String) -> String {
        "part-\(partNumber).\(size).\(md5Hex).\(crc64).\(lastModified).\(unique).data"
    }

    /// The part a committed data file's name records; `nil` for any other name.
    init?(committedFileName name: String) {
        let fields = name.split(separator: ".", omittingEmptySubsequences: false)
        guard fields.count == 7, fields[6] == "data", fields[0].hasPrefix("part-"),
            let number = Int(fields[0].dropFirst(5)), number >= 1,
            let size = Int64(fields[1]), size >= 0,
            fields[2].utf8.count == 32, fields[2].utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains($0) }),
            let crc = UInt64(fields[3]), let modified = Int64(fields[4]), !fields[5].isEmpty
        else { return nil }
        self.init(
            partNumber: number, size: size, md5Hex: String(fields[2]), crc64: crc, lastModified: modified,
            dataFile: name)
    }
}

/// Headers stored with an object and returned by GetObject/HeadObject.
let storedObjectHeaders = ["cache-control", "content-disposition", "content-encoding", "content-language", "expires"]

/// An object key compared and hashed byte for byte (its UTF-8), as OSS compares keys.
///
/// Swift's `String` equality follows Unicode canonical equivalence, so `"é"` (U+00E9) and `"e\u{301}"` are equal
/// strings — but they are two different OSS objects.
struct ExactKey: Hashable, Sendable {
    let key: String

    init(_ key: String) {
        self.key = key
    }

    static func == (lhs: ExactKey, rhs: ExactKey) -> Bool {
        lhs.key.utf8.elementsEqual(rhs.key.utf8)
    }

    func hash(into hasher: inout Hasher) {
        var key = key
        key.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
