extension OSSDownloadStateMachine {
    /// What to do when the object changes between or during parts.
    package enum ObjectChangedPolicy: String, Sendable, Hashable, Codable {
        /// Throw `objectChanged` (the partial download is discarded).
        case fail
        /// Discard the partial download and start over against the new object, once.
        case restartOnce
    }

    /// What the download is about, and the policy knobs.
    package struct Configuration: Sendable, Hashable {
        package var bucket: String
        package var key: String
        /// Absolute path of the destination file.
        package var destinationPath: String
        /// Absolute path of the temporary file for a fresh download (a resumed one uses the recorded path).
        package var tempFilePath: String
        /// The range the caller asked for; `nil` = the whole object.
        package var requestedRange: OSSRequestedRange?
        package var requestedPartSize: Int64
        package var crcMode: OSSCRCMode
        package var onObjectChanged: ObjectChangedPolicy
        /// Whether a record is kept (a record directory was given).
        package var persistsRecord: Bool
        /// The version the caller asked for; a record of another version is not this download's.
        package var versionId: String?

        package init(
            bucket: String,
            key: String,
            destinationPath: String,
            tempFilePath: String,
            requestedRange: OSSRequestedRange? = nil,
            requestedPartSize: Int64,
            crcMode: OSSCRCMode,
            onObjectChanged: ObjectChangedPolicy = .fail,
            persistsRecord: Bool,
            versionId: String? = nil
        ) {
            self.bucket = bucket
            self.key = key
            self.destinationPath = destinationPath
            self.tempFilePath = tempFilePath
            self.requestedRange = requestedRange
            self.requestedPartSize = requestedPartSize
            self.crcMode = crcMode
            self.onObjectChanged = onObjectChanged
            self.persistsRecord = persistsRecord
            self.versionId = versionId
        }
    }

    /// Something that happened, fed to ``OSSDownloadStateMachine/handle(_:)``.
    package enum Event: Sendable, Hashable {
        /// Begin: the record as loaded (or not), the object as HEAD sees it now, and the size of the recorded
        /// temporary file (`nil` when there is no record or the file is missing).
        case start(record: OSSRecordLoadResult<OSSDownloadRecord>, object: OSSObjectIdentity, recordedTempFileSize: Int64?)
        /// A part's bytes are all in the temporary file; `crc64` is the CRC of the bytes this fetch wrote (the
        /// part's remainder when it resumed a ``OSSDownloadRecord/PartialPart``, the whole part otherwise).
        case partDownloaded(number: Int, crc64: UInt64)
        /// A part in flight has written `bytes` more bytes from where its fetch started, whose CRC-64 is `crc64`:
        /// a checkpoint. The machine records the part's written prefix, so a resume fetches only the rest.
        case partProgressed(number: Int, bytes: Int64, crc64: UInt64)
        /// A ranged GET answered 412 (If-Match failed): the object was replaced.
        case objectChanged
        /// The HEAD requested by ``Action/headObject`` answered.
        case objectHeaded(OSSObjectIdentity)
        /// A step failed for good. `resumable` failures (network, 5xx after retries) keep the partial download.
        case failed(resumable: Bool)
        /// The user cancelled: the temporary file and the record are kept when records are kept; without a
        /// record the temporary file is deleted.
        case cancelled
        /// The user paused: the temporary file (and the record, when records are kept) are always kept.
        case paused
    }

    /// Why the download stopped without a file.
    package typealias Failure = OSSTransferFailure

    /// An effect the engine must perform, in order.
    package enum Action: Sendable, Hashable {
        /// Create (or truncate) the temporary file and size it to `length`.
        case prepareTempFile(path: String, length: Int64)
        /// Remove a temporary file (missing is fine).
        case deleteTempFile(path: String)
        case writeRecord(OSSDownloadRecord)
        case deleteRecord
        /// Log `reason` as a warning and delete the record.
        case discardRecord(reason: OSSResumableError)
        /// Fetch these parts with `If-Match: etag` (and of version `versionId`, when the object has one) and write
        /// each at `part.offset - rangeStart` in `tempFilePath`. A part whose prefix is already written is given as
        /// its remainder: the same number, its first missing byte as offset, the rest as length.
        case downloadParts(etag: String, versionId: String?, rangeStart: Int64, tempFilePath: String, parts: [OSSPart])
        /// HEAD the object again; answer with ``Event/objectHeaded(_:)``.
        case headObject
        case reportProgress(bytesReceived: Int64, totalBytesReceived: Int64, totalBytesExpected: Int64)
        /// fsync the temporary file and rename it over the destination.
        case commitTempFile(from: String, to: String)
        case fail(Failure)
        /// Done; `crc64` is the combined CRC of the bytes written.
        case finish(crc64: UInt64)
    }
}
