import Logging
import OSSResumable

extension OSSDownloadEffects {
    /// Removes the record and the temporary file of an earlier run, if there are any and no one else holds them.
    func discardPartialDownload(reason: String) {
        guard let records, let lock = try? records.store.lock(name: records.name) else { return }
        defer { withExtendedLifetime(lock) {} }
        guard case .loaded = loadRecord() else { return }
        logger.warning(
            "removing the partial download", metadata: ["reason": "\(reason)", "key": "\(request.objectKey)"])
        OSSDownloadTempFileIO.remove(path: tempFilePath)
        deleteRecord()  // and the journal
    }

    func loadRecord() -> OSSRecordLoadResult<OSSDownloadRecord> {
        guard let records else { return .none }
        return checkTempFile(of: records.store.loadResult(OSSDownloadRecord.self, name: records.name))
    }

    /// Only ever touch our own temporary file: a record naming another path is not ours to follow. A resume
    /// token may name another temporary file of the same destination (`<destination>.osstmp-<id>`, made by a run
    /// with another record directory or none): that one is followed.
    func checkTempFile(of loaded: OSSRecordLoadResult<OSSDownloadRecord>) -> OSSRecordLoadResult<OSSDownloadRecord> {
        guard case .loaded(let record) = loaded, record.tempFilePath != tempFilePath else { return loaded }
        if resumesFromToken, Self.isTempFile(record.tempFilePath, of: destinationPath) { return loaded }
        return .unusable(.recordForeign("temporary file \(record.tempFilePath) is not \(tempFilePath)"))
    }

    /// The loaded record with its unsynced claims checked against the temporary file (their CRC-64): what the disk
    /// holds is kept, the rest is fetched again. Bytes a killed process wrote survive in the kernel's cache; a power
    /// cut may lose them, and then only the check decides.
    func verifyUnsynced(_ loaded: OSSRecordLoadResult<OSSDownloadRecord>) async -> OSSRecordLoadResult<OSSDownloadRecord> {
        guard case .loaded(let record) = loaded, !record.unsynced.isEmpty else { return loaded }
        // Bytes that cannot be read (a shorter file, a read error) are not trusted: no CRC, the claim is dropped.
        var crcs: [Int64: UInt64] = [:]
        for (offset, length) in record.unsyncedRanges {
            crcs[offset] = try? await OSSFileDigest.crc64(path: record.tempFilePath, offset: offset, length: length)
        }
        let (verified, dropped) = record.verifyingUnsynced { offset, length in crcs[offset] }
        if !dropped.isEmpty {
            logger.info(
                "parts recorded before their bytes were synced do not match the temporary file; fetching them again",
                metadata: ["key": "\(request.objectKey)", "parts": "\(dropped)"])
        }
        return .loaded(verified)
    }

    /// The checkpoint journal's path, beside the record (removed with it); `nil` without a record directory.
    var journalPath: String? { records.map { $0.store.journalPath(name: $0.name) } }

    /// Opens the checkpoint journal for parts of the object version `etag` (range from `rangeStart`), unless it is
    /// open already; without a record directory, or when it cannot be opened, parts move without one.
    func openJournal(etag: String, rangeStart: Int64) async {
        guard journal == nil, let journalPath else { return }
        journal = await OSSDownloadJournalWriter.open(
            path: journalPath, identity: OSSDownloadJournal.identity(etag: etag, rangeStart: rangeStart),
            nextSequence: journalNextSequence)
    }

    /// Closes and removes the checkpoint journal (with the record, or for a new temporary file).
    func removeJournal() {
        journal?.close()
        journal = nil
        journalNextSequence = 0
        if let journalPath { OSSDownloadJournalWriter.remove(path: journalPath) }
    }

    /// The loaded record with what the checkpoint journal vouches for beyond it taken in: each span of a part's
    /// bytes whose CRC-64 the temporary file matches extends the part's prefix (``OSSDownloadRecord/journalReach(_:)``),
    /// and the new prefix's CRC-64 is read back from the file. What a killed process wrote after its last record save
    /// is kept instead of fetched again; a span that does not match leaves the record's own claim.
    func adoptJournal(_ loaded: OSSRecordLoadResult<OSSDownloadRecord>) async -> OSSRecordLoadResult<OSSDownloadRecord> {
        guard let journalPath else { return loaded }
        let (entries, nextSequence) = await OSSDownloadJournalWriter.load(path: journalPath)
        journalNextSequence = nextSequence
        guard case .loaded(let record) = loaded else { return loaded }
        let path = record.tempFilePath
        var verified: [OSSDownloadRecord.JournalSpan] = []
        for span in record.journalSpans(entries) {
            let crc = try? await OSSFileDigest.crc64(path: path, offset: span.fileOffset, length: span.bytes)
            if crc == span.crc64 { verified.append(span) }
        }
        var prefixes: [OSSDownloadRecord.JournalSpan] = []
        for (number, bytes) in record.journalReach(verified).sorted(by: { $0.key < $1.key }) {
            guard let start = record.journalFileOffset(ofPart: number),
                let crc = try? await OSSFileDigest.crc64(path: path, offset: start, length: bytes)
            else { continue }
            prefixes.append(.init(number: number, fileOffset: start, bytes: bytes, crc64: crc))
        }
        guard !prefixes.isEmpty else { return loaded }
        let adopted = record.adopting(prefixes)
        do {
            try adopted.validate()
        } catch {
            return loaded
        }
        logger.debug(
            "the checkpoint journal vouches for bytes the record did not list yet",
            metadata: [
                "key": "\(request.objectKey)", "parts": "\(prefixes.map(\.number))",
                "bytes": "\(adopted.bytesDone - record.bytesDone)",
            ])
        return .loaded(adopted)
    }

    /// Whether `path` is `<destination>.osstmp-<hex id>`.
    /// (Or that name shortened for a long destination name: ``OSSTemporaryFileName/isTemporary(_:of:)``.)
    static func isTempFile(_ path: String, of destination: String) -> Bool {
        OSSTemporaryFileName.isTemporary(path, of: destination)
    }
}
