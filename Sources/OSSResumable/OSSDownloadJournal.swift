import OSSCRC64

/// The checkpoint journal of a resumable download: a small ring of fixed-size entries beside the record, each saying
/// that the bytes one fetch of a part wrote, from where it started, have a given CRC-64. A part's fetch writes one at
/// each checkpoint (every 128 KiB) and at its end, right after the bytes, from the part's own task.
///
/// The record is saved atomically and durably, and is fed by the transfer's driver, so it trails the bytes on disk
/// by what arrived while the driver was busy and one save (milliseconds: megabytes at loopback speed). An entry
/// costs one `pwrite` of ``entryLength`` bytes into the page cache and nothing waits for the driver, so the journal
/// trails the temporary file by at most one checkpoint interval per part: a process killed at any moment leaves
/// entries for nearly everything it wrote. The journal is only a hint: a resume adopts what an entry vouches for
/// only when it lies inside the record's plan, reaches past what the record claims, and the temporary file's bytes
/// have the entry's CRC-64 (``OSSDownloadRecord/journalSpans(_:)``, ``OSSDownloadRecord/journalReach(_:)``);
/// anything else (a torn entry, one of another object version or another plan, bytes a power cut lost) is ignored
/// and the record's own claim stands.
///
/// Entry layout (little-endian): magic `OSJ1`, the identity of the download (``identity(etag:rangeStart:)``),
/// a sequence number, the part number, the object offset where the fetch started, the bytes written from there,
/// their CRC-64, and the CRC-64 of everything before it.
package enum OSSDownloadJournal {
    /// One claim: the `bytes` bytes of part `number` from `offset` in the object (where a fetch of the part
    /// started) are in the temporary file and have CRC-64 `crc64`.
    package struct Entry: Sendable, Hashable {
        package let identity: UInt64
        package let sequence: UInt64
        package let number: Int
        package let offset: Int64
        package let bytes: Int64
        package let crc64: UInt64

        package init(identity: UInt64, sequence: UInt64, number: Int, offset: Int64, bytes: Int64, crc64: UInt64) {
            self.identity = identity
            self.sequence = sequence
            self.number = number
            self.offset = offset
            self.bytes = bytes
            self.crc64 = crc64
        }
    }

    /// The size of one entry in the file.
    package static let entryLength = 60
    /// How many entries the ring holds before it wraps (60 KiB): at 128 KiB a checkpoint, 128 MiB of progress, far
    /// more than a record save ever trails.
    package static let capacity = 1024

    private static let magic: [UInt8] = Array("OSJ1".utf8)

    /// What ties entries to one download: the object version and where the range starts (the journal sits beside
    /// the record, whose name holds the requested range). Entries of another identity (a replaced object) are never
    /// adopted.
    package static func identity(etag: String, rangeStart: Int64) -> UInt64 {
        CRC64.checksum(Array("\(etag.utf8.count):\(etag)\n\(rangeStart)\n".utf8))
    }

    /// The entry's bytes, ``entryLength`` of them.
    package static func encode(_ entry: Entry) -> [UInt8] {
        var bytes = magic
        bytes.reserveCapacity(entryLength)
        append(entry.identity, to: &bytes)
        append(entry.sequence, to: &bytes)
        append(UInt64(truncatingIfNeeded: entry.number), to: &bytes)
        append(UInt64(bitPattern: entry.offset), to: &bytes)
        append(UInt64(bitPattern: entry.bytes), to: &bytes)
        append(entry.crc64, to: &bytes)
        append(CRC64.checksum(bytes), to: &bytes)
        return bytes
    }

    /// The entry in `bytes` (exactly ``entryLength`` of them), or `nil` when they are not a whole, intact entry
    /// (never written, torn, altered).
    package static func decode(_ bytes: ArraySlice<UInt8>) -> Entry? {
        guard bytes.count == entryLength, bytes.prefix(4).elementsEqual(magic) else { return nil }
        let fields = (0..<7).map { index in word(bytes, at: bytes.startIndex + 4 + index * 8) }
        guard CRC64.checksum(bytes.prefix(entryLength - 8)) == fields[6] else { return nil }
        let number = Int64(bitPattern: fields[2])
        let offset = Int64(bitPattern: fields[3])
        let claimed = Int64(bitPattern: fields[4])
        guard number > 0, number <= Int64(Int32.max), offset >= 0, claimed > 0 else { return nil }
        return Entry(
            identity: fields[0], sequence: fields[1], number: Int(number), offset: offset, bytes: claimed,
            crc64: fields[5])
    }

    /// The intact entries of a journal file's contents, in file order.
    package static func entries(in contents: [UInt8]) -> [Entry] {
        stride(from: 0, to: contents.count - entryLength + 1, by: entryLength).compactMap { start in
            decode(contents[start..<(start + entryLength)])
        }
    }

    /// Where entry number `sequence` goes in the ring.
    package static func fileOffset(ofSequence sequence: UInt64) -> Int64 {
        Int64(sequence % UInt64(capacity)) * Int64(entryLength)
    }

    private static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    private static func word(_ bytes: ArraySlice<UInt8>, at start: Int) -> UInt64 {
        (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[start + $1]) << UInt64($1 * 8) }
    }
}

extension OSSDownloadRecord {
    /// The journal's identity of this download (``OSSDownloadJournal/identity(etag:rangeStart:)``).
    package var journalIdentity: UInt64 { OSSDownloadJournal.identity(etag: object.etag, rangeStart: range.start) }

    /// A run of bytes in the temporary file that a journal entry vouches for (`crc64` is theirs, as fetched), or
    /// a prefix of a part that a resume adopts (`crc64` read back from the file).
    package struct JournalSpan: Sendable, Hashable {
        package let number: Int
        /// Where the bytes start in the temporary file.
        package let fileOffset: Int64
        package let bytes: Int64
        package let crc64: UInt64

        package init(number: Int, fileOffset: Int64, bytes: Int64, crc64: UInt64) {
            self.number = number
            self.fileOffset = fileOffset
            self.bytes = bytes
            self.crc64 = crc64
        }

        /// One past the last byte, in the temporary file.
        package var end: Int64 { fileOffset + bytes }
    }

    /// The most spans of one part a resume checks (each check reads the span's bytes).
    package static let journalSpansPerPart = 8

    /// The journal's spans worth checking: entries of this download (same identity) inside a part of the record's
    /// plan that is not complete, reaching past what the record claims of it; for each start, the longest; at most
    /// ``journalSpansPerPart`` per part (the latest written). Sorted by part, then start.
    ///
    /// An entry covers the bytes one fetch of a part wrote from where it started (the part's start, or the first
    /// byte a resume had to fetch), so spans of successive runs chain: see ``journalReach(_:)``.
    package func journalSpans(_ entries: [OSSDownloadJournal.Entry]) -> [JournalSpan] {
        let identity = journalIdentity
        let done = Set(parts.map(\.number))
        let recorded = claims
        var longest: [Int: [Int64: OSSDownloadJournal.Entry]] = [:]
        for entry in entries where entry.identity == identity && !done.contains(entry.number) {
            guard let part = plannedPart(entry.number), entry.offset >= part.offset,
                entry.bytes <= part.end - entry.offset,
                entry.offset + entry.bytes > part.offset + (recorded[entry.number] ?? 0)
            else { continue }
            if let current = longest[entry.number]?[entry.offset], current.bytes >= entry.bytes { continue }
            longest[entry.number, default: [:]][entry.offset] = entry
        }
        return longest.keys.sorted().flatMap { number in
            longest[number]!.values.sorted { $0.sequence > $1.sequence }.prefix(Self.journalSpansPerPart)
                .sorted { $0.offset < $1.offset }
                .map { JournalSpan(number: number, fileOffset: $0.offset - range.start, bytes: $0.bytes, crc64: $0.crc64) }
        }
    }

    /// How far each part's written prefix reaches with `verified` spans (their bytes checked against the temporary
    /// file): from the record's own claim, a span that starts at or before the prefix's end and ends after it
    /// extends it, again and again. Only the parts it extends, with their new prefix length.
    package func journalReach(_ verified: [JournalSpan]) -> [Int: Int64] {
        let recorded = claims
        var reach: [Int: Int64] = [:]
        for (number, spans) in Dictionary(grouping: verified, by: \.number) {
            guard let start = journalFileOffset(ofPart: number) else { continue }
            var end = start + (recorded[number] ?? 0)
            var grew = true
            while grew {
                grew = false
                for span in spans where span.fileOffset <= end && span.end > end {
                    end = span.end
                    grew = true
                }
            }
            if end - start > recorded[number] ?? 0 { reach[number] = end - start }
        }
        return reach
    }

    /// Where part `number` of the record's plan starts in the temporary file, if the plan has it.
    package func journalFileOffset(ofPart number: Int) -> Int64? {
        plannedPart(number).map { $0.offset - range.start }
    }

    /// The record with adopted prefixes taken in (`bytes` from the part's start, `crc64` theirs): a prefix of a
    /// whole part completes it, a shorter one becomes (or replaces) the part's written prefix.
    package func adopting(_ prefixes: [JournalSpan]) -> OSSDownloadRecord {
        var record = self
        for prefix in prefixes {
            guard let part = plannedPart(prefix.number), prefix.bytes > 0, prefix.bytes <= part.length,
                !record.parts.contains(where: { $0.number == prefix.number })
            else { continue }
            record.partials.removeAll { $0.number == prefix.number }
            record.unsynced.removeAll { $0 == prefix.number }
            if prefix.bytes == part.length {
                record.parts.append(
                    CompletedPart(number: part.number, offset: part.offset, length: part.length, crc64: prefix.crc64))
                record.parts.sort { $0.number < $1.number }
            } else {
                record.partials.append(
                    PartialPart(number: part.number, offset: part.offset, bytes: prefix.bytes, crc64: prefix.crc64))
            }
        }
        return record
    }

    /// Part `number` of the record's plan (``OSSPartPlan`` of ``partSize`` over ``range``), if it has one.
    func plannedPart(_ number: Int) -> OSSPart? {
        (try? OSSPartPlan(span: range, recordedPartSize: partSize, limits: .download))?.part(number: number)
    }
}
