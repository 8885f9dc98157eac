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
        deleteRecord()
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
        if resumeRecord != nil, Self.isTempFile(record.tempFilePath, of: destinationPath) { return loaded }
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

    /// Whether `path` is `<destination>.osstmp-<hex id>`.
    /// (Or that name shortened for a long destination name: ``OSSTemporaryFileName/isTemporary(_:of:)``.)
    static func isTempFile(_ path: String, of destination: String) -> Bool {
        OSSTemporaryFileName.isTemporary(path, of: destination)
    }
}
