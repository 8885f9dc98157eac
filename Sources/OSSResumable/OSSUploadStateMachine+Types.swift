extension OSSUploadStateMachine {
    /// What the upload is about, and the policy knobs.
    package struct Configuration: Sendable, Hashable {
        package var bucket: String
        package var key: String
        /// Absolute path of the local file.
        package var filePath: String
        /// The part size the caller asked for (grown automatically when the file needs more than 10,000 parts).
        package var requestedPartSize: Int64
        package var crcMode: OSSCRCMode
        /// On cancel: abort the multipart upload and delete the record (`true`), or keep both for a resume.
        /// Without a record, it also decides whether a failed upload is aborted.
        package var deleteUploadIdOnCancelling: Bool
        /// Whether a record is kept (a record directory was given).
        package var persistsRecord: Bool
        /// How often one part is sent when its CRC keeps disagreeing with the server's before giving up.
        package var maximumPartAttempts: Int
        /// How often the engine starts a new upload when the server says the current one is gone.
        package var maximumUploadRestarts: Int

        package init(
            bucket: String,
            key: String,
            filePath: String,
            requestedPartSize: Int64,
            crcMode: OSSCRCMode,
            deleteUploadIdOnCancelling: Bool = true,
            persistsRecord: Bool,
            maximumPartAttempts: Int = 3,
            maximumUploadRestarts: Int = 1
        ) {
            self.bucket = bucket
            self.key = key
            self.filePath = filePath
            self.requestedPartSize = requestedPartSize
            self.crcMode = crcMode
            self.deleteUploadIdOnCancelling = deleteUploadIdOnCancelling
            self.persistsRecord = persistsRecord
            self.maximumPartAttempts = maximumPartAttempts
            self.maximumUploadRestarts = maximumUploadRestarts
        }
    }

    /// A part as ListParts reports it.
    package struct ServerPart: Sendable, Hashable {
        package let number: Int
        package let size: Int64
        package let etag: String
        /// `<HashCrc64ecma>`, when the server lists it.
        package let crc64: UInt64?

        package init(number: Int, size: Int64, etag: String, crc64: UInt64?) {
            self.number = number
            self.size = size
            self.etag = etag
            self.crc64 = crc64
        }
    }

    /// A part for the CompleteMultipartUpload body.
    package struct CompletePart: Sendable, Hashable {
        package let number: Int
        package let etag: String

        package init(number: Int, etag: String) {
            self.number = number
            self.etag = etag
        }
    }

    /// Something that happened, fed to ``OSSUploadStateMachine/handle(_:)``.
    package enum Event: Sendable, Hashable {
        /// Begin: the record as loaded (or not) and the file as it is now; for an unusable record, what could still
        /// be read from it (its multipart upload is aborted rather than left behind).
        case start(
            record: OSSRecordLoadResult<OSSUploadRecord>, file: OSSFileIdentity,
            salvage: OSSRecordSalvage = OSSRecordSalvage())
        /// InitiateMultipartUpload answered.
        case initiated(uploadId: String)
        /// The complete (all pages) ListParts answer for the recorded upload.
        case listedParts([ServerPart])
        /// The server said `NoSuchUpload` (ListParts, UploadPart or Complete).
        case uploadNotFound
        /// UploadPart answered 200. `localCRC64` is the CRC of the bytes sent, `serverCRC64` the response header.
        case partUploaded(uploadId: String, number: Int, etag: String, localCRC64: UInt64?, serverCRC64: UInt64?)
        /// A step (initiate, list, an UploadPart, complete, record write...) failed for good.
        case failed
        /// The file's identity re-read just before completing.
        case fileRechecked(OSSFileIdentity)
        /// CompleteMultipartUpload answered 200, with its `x-oss-hash-crc64ecma` if any.
        case completed(serverCRC64: UInt64?)
        /// The answer to ``Action/checkCompletedObject(size:crc64:)``: whether the object has exactly that size and
        /// CRC-64 (`false` when it does not exist or HEAD failed), and its CRC-64.
        case completedObjectChecked(matches: Bool, serverCRC64: UInt64?)
        /// The user cancelled (request.cancel() or Task cancellation): the upload is aborted and the record
        /// deleted when ``Configuration/deleteUploadIdOnCancelling`` is set, both are kept otherwise.
        case cancelled
        /// The user paused (request.pause()): like ``cancelled`` but the upload id and the record are always kept,
        /// whatever ``Configuration/deleteUploadIdOnCancelling`` says.
        case paused
    }

    /// Why the upload stopped without an object.
    package typealias Failure = OSSTransferFailure

    /// An effect the engine must perform, in order.
    package enum Action: Sendable, Hashable {
        /// InitiateMultipartUpload; answer with ``Event/initiated(uploadId:)``.
        case initiateUpload
        /// ListParts (all pages); answer with ``Event/listedParts(_:)`` or ``Event/uploadNotFound``.
        case listParts(uploadId: String)
        /// Write this record atomically (only when records are kept).
        case writeRecord(OSSUploadRecord)
        /// Delete the record (only when records are kept).
        case deleteRecord
        /// The record was unusable or foreign: log `reason` as a warning and delete it.
        case discardRecord(reason: OSSResumableError)
        /// Upload these parts (the engine bounds concurrency); answer each with ``Event/partUploaded``, or
        /// ``Event/failed`` when one fails for good.
        case uploadParts(uploadId: String, parts: [OSSPart])
        /// Report progress: `bytesSent` new confirmed bytes, `totalBytesSent` so far, of `totalBytesExpected`.
        case reportProgress(bytesSent: Int64, totalBytesSent: Int64, totalBytesExpected: Int64)
        /// Re-read the file's identity; answer with ``Event/fileRechecked(_:)``.
        case recheckFile
        /// CompleteMultipartUpload with these parts (ascending); answer with ``Event/completed(serverCRC64:)``.
        /// `expectedCRC64` is the combined CRC of all parts when every part's CRC is known.
        case complete(uploadId: String, parts: [CompletePart], expectedCRC64: UInt64?)
        /// AbortMultipartUpload (its failure, including NoSuchUpload, does not change the outcome).
        case abortUpload(uploadId: String)
        /// The upload is gone after every part was confirmed: HEAD the object and answer with
        /// ``Event/completedObjectChecked(matches:serverCRC64:)`` — whether its size and `x-oss-hash-crc64ecma` are
        /// these (an earlier Complete succeeded but its answer was lost).
        case checkCompletedObject(size: Int64, crc64: UInt64)
        /// Stop with this failure.
        case fail(Failure)
        /// Done: the object exists; `crc64` is the verified (or, without CRC mode, reported) CRC-64.
        case finish(crc64: UInt64?)
    }
}
