/// The checkpoint of a resumable ranged download.
///
/// It names the object (bucket, key, identity from HEAD), the byte range being fetched, the part size, the
/// temporary file the bytes go to, the parts already written there with their CRC-64, and for parts that were in
/// flight the prefix already written with its CRC-64 (``PartialPart``), so that a resume fetches only what is
/// missing. No credentials.
package struct OSSDownloadRecord: Sendable, Hashable, Codable {
    /// A part fully written to the temporary file.
    package struct CompletedPart: Sendable, Hashable, Codable {
        package let number: Int
        /// Offset in the object.
        package let offset: Int64
        package let length: Int64
        package let crc64: UInt64

        package init(number: Int, offset: Int64, length: Int64, crc64: UInt64) {
            self.number = number
            self.offset = offset
            self.length = length
            self.crc64 = crc64
        }
    }

    /// The first bytes of a part that was in flight: `bytes` bytes from the part's start are in the temporary file,
    /// and `crc64` is their CRC-64, so the part's CRC still combines when a resume fetches the rest. Bytes not yet
    /// synced when the record was saved are listed in ``OSSDownloadRecord/unsynced``.
    package struct PartialPart: Sendable, Hashable, Codable {
        package let number: Int
        /// Offset of the part's first byte in the object.
        package let offset: Int64
        /// How many bytes from `offset` on are written; more than 0 and fewer than the part's length.
        package let bytes: Int64
        package let crc64: UInt64

        package init(number: Int, offset: Int64, bytes: Int64, crc64: UInt64) {
            self.number = number
            self.offset = offset
            self.bytes = bytes
            self.crc64 = crc64
        }
    }

    /// The payload format this code writes.
    package static let currentVersion = 1

    package var version: Int
    package var kind: OSSRecordKind
    package var bucket: String
    package var key: String
    package var object: OSSObjectIdentity
    /// The resolved byte range of the object being downloaded.
    package var range: OSSByteRange
    /// The range as the caller asked for it (`nil` = whole object); part of the record's name.
    package var requestedRange: OSSRequestedRange?
    package var partSize: Int64
    package var crcMode: OSSCRCMode
    /// The final destination: an absolute path, or a path relative to the transfer's base directory (see
    /// ``OSSBaseDirectory``) as stored by a transfer that has one.
    package var destinationPath: String
    /// The temporary file the parts are written to (absolute, or relative like ``destinationPath``).
    package var tempFilePath: String
    /// Completed parts, sorted by number.
    package var parts: [CompletedPart]
    /// Stored only when there are some (records written before partial parts existed have none).
    private var partialParts: [PartialPart]?
    /// Stored only when there are some (records written before unsynced claims existed have none: all synced).
    private var unsyncedParts: [Int]?

    /// The parts (completed or partial) whose bytes were written to the temporary file but not yet synced when the
    /// record was saved. They survive the process being killed (the kernel has them) but maybe not a power cut, so a
    /// resume checks their CRC-64 against the file before trusting them (``verifyingUnsynced(_:)``); a record never
    /// waits for the disk to catch up with the network.
    package var unsynced: [Int] {
        get { unsyncedParts ?? [] }
        set { unsyncedParts = newValue.isEmpty ? nil : Array(Set(newValue)).sorted() }
    }

    /// Parts that were in flight, with the prefix already written, sorted by number.
    package var partials: [PartialPart] {
        get { partialParts ?? [] }
        set { partialParts = newValue.isEmpty ? nil : newValue.sorted { $0.number < $1.number } }
    }

    package init(
        bucket: String,
        key: String,
        object: OSSObjectIdentity,
        range: OSSByteRange,
        requestedRange: OSSRequestedRange?,
        partSize: Int64,
        crcMode: OSSCRCMode,
        destinationPath: String,
        tempFilePath: String,
        parts: [CompletedPart] = [],
        partials: [PartialPart] = []
    ) {
        self.version = OSSDownloadRecord.currentVersion
        self.kind = .download
        self.bucket = bucket
        self.key = key
        self.object = object
        self.range = range
        self.requestedRange = requestedRange
        self.partSize = partSize
        self.crcMode = crcMode
        self.destinationPath = destinationPath
        self.tempFilePath = tempFilePath
        self.parts = parts.sorted { $0.number < $1.number }
        self.partials = partials
    }
}

/// A byte range as the caller asked for it: first byte and optional last byte (inclusive), like an HTTP `Range`.
package struct OSSRequestedRange: Sendable, Hashable, Codable, CustomStringConvertible {
    package let first: Int64
    /// Inclusive; `nil` = to the end of the object.
    package let last: Int64?

    package init(first: Int64, last: Int64?) {
        self.first = first
        self.last = last
    }

    package var description: String { "\(first)-\(last.map(String.init) ?? "")" }
}

extension OSSDownloadRecord: OSSTransferRecord {
    package static var recordKind: OSSRecordKind { .download }

    /// Checks that the values make sense (the checksum only proves they were not altered).
    package func validate() throws(OSSResumableError) {
        guard kind == .download else {
            throw .recordForeign("a \(kind.rawValue) record where a download record was expected")
        }
        guard version == OSSDownloadRecord.currentVersion else { throw .recordUnsupportedVersion(version) }
        guard partSize > 0 else { throw .recordCorrupt("part size must be positive") }
        guard range.start >= 0, range.length >= 0, !range.start.addingReportingOverflow(range.length).overflow,
            object.size >= 0, range.start + range.length <= object.size
        else { throw .recordCorrupt("range \(range) does not fit the object") }
        guard !tempFilePath.isEmpty else { throw .recordCorrupt("empty temporary file path") }
        var previous = 0
        for part in parts {
            guard part.number > previous else { throw .recordCorrupt("part numbers must be ascending and unique") }
            guard part.offset >= range.start, part.length >= 0, part.length <= partSize,
                !part.offset.addingReportingOverflow(part.length).overflow, part.offset + part.length <= range.end
            else { throw .recordCorrupt("part \(part.number) lies outside the range") }
            previous = part.number
        }
        let done = Set(parts.map(\.number))
        previous = 0
        for partial in partials {
            guard partial.number > previous, !done.contains(partial.number) else {
                throw .recordCorrupt("partial part numbers must be ascending, unique and not completed")
            }
            guard partial.offset >= range.start, partial.bytes > 0, partial.bytes < partSize,
                !partial.offset.addingReportingOverflow(partial.bytes).overflow, partial.offset + partial.bytes < range.end
            else { throw .recordCorrupt("partial part \(partial.number) lies outside the range") }
            previous = partial.number
        }
        let claimed = done.union(partials.map(\.number))
        for number in unsynced where !claimed.contains(number) {
            throw .recordCorrupt("unsynced part \(number) is neither completed nor partial")
        }
    }
}

extension OSSDownloadRecord {
    /// The bytes in the temporary file that a resume keeps: the completed parts and the partial parts' prefixes.
    package var bytesDone: Int64 {
        parts.reduce(0) { $0 + $1.length } + partials.reduce(0) { $0 + $1.bytes }
    }

    /// The record with its unsynced claims checked: `crc64(offset, length)` gives the CRC-64 of `length` bytes at
    /// `offset` of the temporary file (`nil` if they cannot be read). A claim whose bytes do not match is dropped
    /// (a resume fetches that part again, or the part's whole prefix); the result lists no unsynced parts.
    ///
    /// - Returns: the verified record and the numbers of the parts dropped.
    package func verifyingUnsynced(_ crc64: (_ offset: Int64, _ length: Int64) -> UInt64?) -> (
        record: OSSDownloadRecord, dropped: [Int]
    ) {
        var record = self
        var dropped: [Int] = []
        for number in unsynced {
            if let part = parts.first(where: { $0.number == number }) {
                if crc64(part.offset - range.start, part.length) != part.crc64 {
                    record.parts.removeAll { $0.number == number }
                    dropped.append(number)
                }
            } else if let partial = partials.first(where: { $0.number == number }) {
                if crc64(partial.offset - range.start, partial.bytes) != partial.crc64 {
                    record.partials.removeAll { $0.number == number }
                    dropped.append(number)
                }
            }
        }
        record.unsynced = []
        return (record, dropped)
    }

    /// Where the unsynced claims lie in the temporary file: offset and length of each (what
    /// ``verifyingUnsynced(_:)`` asks the CRC-64 of).
    package var unsyncedRanges: [(offset: Int64, length: Int64)] {
        unsynced.compactMap { number in
            if let part = parts.first(where: { $0.number == number }) { return (part.offset - range.start, part.length) }
            if let partial = partials.first(where: { $0.number == number }) {
                return (partial.offset - range.start, partial.bytes)
            }
            return nil
        }
    }

    /// What the record claims: each completed part's length and each partial part's prefix, by part number.
    package var claims: [Int: Int64] {
        var claims: [Int: Int64] = [:]
        for part in parts { claims[part.number] = part.length }
        for partial in partials { claims[partial.number] = partial.bytes }
        return claims
    }

}

extension OSSDownloadRecord: OSSDownloadRecordPaths {}

/// The two local paths of a download record (foreground or background), stored relative to the transfer's base
/// directory when it has one (see ``OSSBaseDirectory``), so a record survives the app's container moving.
package protocol OSSDownloadRecordPaths {
    /// The final destination.
    var destinationPath: String { get set }
    /// The temporary file the parts are written to.
    var tempFilePath: String { get set }
}

extension OSSDownloadRecordPaths {
    package func relativized(to base: OSSBaseDirectory) -> Self {
        var record = self
        record.destinationPath = base.portable(destinationPath)
        record.tempFilePath = base.portable(tempFilePath)
        return record
    }

    package func resolved(against base: OSSBaseDirectory?) throws(OSSResumableError) -> Self {
        var record = self
        record.destinationPath = try OSSBaseDirectory.resolve(destinationPath, against: base)
        record.tempFilePath = try OSSBaseDirectory.resolve(tempFilePath, against: base)
        return record
    }
}
