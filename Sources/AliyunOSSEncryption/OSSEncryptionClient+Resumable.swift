import AliyunOSS
import Foundation
import OSSCRC64
import Logging
import OSSResumable

/// What a resumable encrypted upload keeps on disk between runs: the file it reads, the upload id and the envelope
/// (the data key and IV only wrapped by the master key). Never the plain data key: resuming unwraps it again, so
/// resuming needs the master cipher's private side. The uploaded parts are asked of OSS (ListParts) and each is
/// kept only when its size and CRC-64 match the part encrypted anew from the file.
public struct OSSEncryptedUploadRecord: Codable, Sendable, Hashable {
    public var version = 1
    public var bucketName: String
    public var objectKey: String
    public var filePath: String
    public var fileSize: Int64
    public var fileModified: Double
    public var uploadId: String
    public var partSize: Int64
    public var wrappedKey: String
    public var wrappedIV: String
    public var contentAlgorithm: String
    public var wrapAlgorithm: String
    public var materialDescription: String?

    var envelope: OSSEncryptionEnvelope? {
        guard let key = Data(base64Encoded: wrappedKey), let iv = Data(base64Encoded: wrappedIV) else { return nil }
        return OSSEncryptionEnvelope(
            wrappedKey: key, wrappedIV: iv, contentAlgorithm: contentAlgorithm, wrapAlgorithm: wrapAlgorithm,
            materialDescription: materialDescription, dataSize: fileSize > 0 ? fileSize : nil, partSize: partSize)
    }
}

extension OSSEncryptionClient {
    /// Encrypts and uploads a file in parts of `partSize` bytes (a multiple of 16), resumable: with `recordURL`, a
    /// run that stops for any reason (an error, cancellation, the process killed) leaves a record there, and the
    /// next call with the same arguments continues the same multipart upload with the same data key, re-sending
    /// only the parts OSS does not have. The record is removed once the object is complete.
    ///
    /// Parts are read, encrypted and sent `threadNum` at a time (each part's counter follows from its offset, so parts
    /// are independent); the record does not list parts, so a kill at any moment resumes from what OSS holds.
    ///
    /// - Parameter partUploaded: called after each part this run uploads, one call at a time (tests stop a run
    ///   with it; a throw cancels the parts in flight).
    public func uploadFile(
        _ fileURL: URL, bucketName: String, objectKey: String, partSize: Int64 = 1 << 20, recordURL: URL? = nil,
        metadata: [String: String] = [:], contentType: String? = nil, threadNum: Int = 4,
        partUploaded: (@Sendable (Int) async throws -> Void)? = nil,
        recordNotice: (@Sendable (OSSRecordNotice) -> Void)? = nil
    ) async throws -> OSSCompleteMultipartUploadResult {
        try Self.checkPartSize(partSize)
        try Self.checkThreadNum(threadNum)
        // The SDK's record lock: a second process or request on the same transfer gets transferInUse at once.
        let lock = try Self.lockRecord(recordURL)
        defer { withExtendedLifetime(lock) {} }
        let attributes: [FileAttributeKey: Any]
        do { attributes = try FileManager.default.attributesOfItem(atPath: fileURL.path) } catch {
            throw OSSClientError(.fileCantRead, "cannot read \(fileURL.path)")
        }
        let fileSize = (attributes[.size] as? NSNumber)?.int64Value ?? 0
        let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        let upload: OSSEncryptedMultipartUpload
        var existing: [Int: OSSPartInfo] = [:]
        let stored = Self.loadRecord(OSSEncryptedUploadRecord.self, recordURL)
        if let recordURL {
            // A record that cannot be resumed: its upload (this transfer's) is aborted, never left behind.
            switch stored {
            case .damaged(let salvage):
                let abandoned = salvage.uploadId
                if let abandoned { await abort(bucketName: bucketName, objectKey: objectKey, uploadId: abandoned) }
                say(
                    OSSRecordNotice(
                        direction: .upload, recordPath: recordURL.path, problem: "not a readable record",
                        abortedUploadId: abandoned), to: recordNotice)
            case .loaded(let record)
            where record.bucketName == bucketName && record.objectKey == objectKey
                && !(record.filePath == fileURL.path && record.fileSize == fileSize && record.fileModified == modified
                    && record.partSize == partSize && record.envelope != nil):
                await abort(bucketName: bucketName, objectKey: objectKey, uploadId: record.uploadId)
            default:
                break
            }
        }
        if recordURL != nil, case .loaded(let record) = stored, record.bucketName == bucketName,
            record.objectKey == objectKey, record.filePath == fileURL.path, record.fileSize == fileSize,
            record.fileModified == modified, record.partSize == partSize, let envelope = record.envelope
        {
            upload = try await resumeMultipartUpload(
                bucketName: bucketName, objectKey: objectKey, uploadId: record.uploadId, envelope: envelope)
            existing = try await uploadedParts(of: upload)
        } else {
            upload = try await initiateMultipartUpload(
                OSSInitiateMultipartUploadRequest(
                    bucketName: bucketName, objectKey: objectKey,
                    contentType: contentType ?? OSSMimeType.guess(for: fileURL.lastPathComponent), metadata: metadata),
                partSize: partSize, dataSize: fileSize)
            if let recordURL {
                let record = OSSEncryptedUploadRecord(
                    bucketName: bucketName, objectKey: objectKey, filePath: fileURL.path, fileSize: fileSize,
                    fileModified: modified, uploadId: upload.uploadId, partSize: partSize,
                    wrappedKey: upload.envelope.wrappedKey.base64EncodedString(),
                    wrappedIV: upload.envelope.wrappedIV.base64EncodedString(),
                    contentAlgorithm: upload.envelope.contentAlgorithm, wrapAlgorithm: upload.envelope.wrapAlgorithm,
                    materialDescription: upload.envelope.materialDescription)
                try Self.save(record, to: recordURL)
            }
        }
        let partCount = upload.partCount ?? 1
        let uploaded = existing
        var parts: [OSSPartInfo] = []
        try await Self.forEachPart(Array(1...partCount), threadNum: threadNum) { number in
            let offset = Int64(number - 1) * partSize
            let plaintext = try OSSEncryptedFile.read(fileURL, offset: offset, length: min(partSize, fileSize - offset))
            if let part = uploaded[number] {
                var stream = OSSCTRStream(upload.contentKey, offset: offset)
                let ciphertext = try stream.apply(plaintext)
                if part.size == Int64(ciphertext.count), part.crc64.map({ $0 == CRC64.checksum(ciphertext) }) ?? false {
                    return (part, false)
                }
            }
            let result = try await uploadPart(upload, partNumber: number, data: plaintext)
            return (OSSPartInfo(partNumber: number, eTag: result.eTag, size: result.size, crc64: result.crc64), true)
        } finished: { number, outcome in
            parts.append(outcome.0)
            if outcome.1 { try await partUploaded?(number) }
        }
        let completed = try await completeMultipartUpload(upload, parts: parts)
        if let recordURL { try? FileManager.default.removeItem(at: recordURL) }
        return completed
    }

    static func checkThreadNum(_ threadNum: Int) throws {
        guard (1...100).contains(threadNum) else {
            throw OSSClientError(.invalidArgument, "threadNum must be 1...100, not \(threadNum)")
        }
    }

    /// Runs `part` for each of `numbers`, at most `threadNum` at once, and `finished` with each result as it comes,
    /// one call at a time on the caller's side (where the record is kept). The first error cancels the parts still
    /// in flight and is thrown.
    static func forEachPart<Result: Sendable>(
        _ numbers: [Int], threadNum: Int, _ part: @escaping @Sendable (Int) async throws -> Result,
        finished: (Int, Result) async throws -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: (Int, Result).self) { group in
            var pending = numbers.makeIterator()
            func startNext() -> Bool {
                guard let number = pending.next() else { return false }
                group.addTask {
                    try Task.checkCancellation()
                    return (number, try await part(number))
                }
                return true
            }
            for _ in 0..<threadNum {
                guard startNext() else { break }
            }
            while let (number, result) = try await group.next() {
                try await finished(number, result)
                _ = startNext()
            }
        }
    }

    func uploadedParts(of upload: OSSEncryptedMultipartUpload) async throws -> [Int: OSSPartInfo] {
        var parts: [Int: OSSPartInfo] = [:]
        var marker: Int?
        repeat {
            let page = try await client.listParts(
                OSSListPartsRequest(
                    bucketName: upload.bucketName, objectKey: upload.objectKey, uploadId: upload.uploadId,
                    partNumberMarker: marker))
            for part in page.parts { parts[part.partNumber] = part }
            marker = page.isTruncated ? page.nextPartNumberMarker : nil
        } while marker != nil
        return parts
    }

    /// A record as read: none, one that decodes, or one that is there but does not (with what could still be read
    /// of it: its upload id).
    enum StoredRecord<Record> {
        case none
        case loaded(Record)
        case damaged(OSSRecordSalvage)
    }

    static func loadRecord<Record: Decodable>(_ type: Record.Type, _ url: URL?) -> StoredRecord<Record> {
        guard let url, let data = try? Data(contentsOf: url) else { return .none }
        if let record = try? JSONDecoder().decode(type, from: data) { return .loaded(record) }
        return .damaged(OSSRecordCodec.salvage(from: Array(data)))
    }

    /// Takes the SDK's lock of the record at `url` (beside it, `.lock`) for the run, creating its directory: a second
    /// process or request on the same transfer gets `transferInUse` at once, as a plain transfer does.
    static func lockRecord(_ url: URL?) throws -> OSSRecordLock? {
        guard let url else { return nil }
        let directory = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw OSSClientError(.fileCantWrite, "cannot create the record directory \(directory.path)", underlying: error)
        }
        do {
            return try OSSRecordLock.acquire(path: url.path + ".lock")
        } catch .recordLocked(let path) {
            throw OSSClientError.transferInUse(lockPath: path)
        } catch {
            throw OSSClientError(.fileCantWrite, "\(error)", underlying: error)
        }
    }

    /// Says a record that cannot be used: the caller's handler, and the log.
    func say(_ notice: OSSRecordNotice, to handler: (@Sendable (OSSRecordNotice) -> Void)?) {
        client.configuration.logger.warning("\(notice.description)")
        (handler ?? recordNotice)?(notice)
    }

    /// Aborts a multipart upload a record named; a failure (it is gone already) is only logged.
    func abort(bucketName: String, objectKey: String, uploadId: String) async {
        do {
            _ = try await client.abortMultipartUpload(
                OSSAbortMultipartUploadRequest(bucketName: bucketName, objectKey: objectKey, uploadId: uploadId))
        } catch {
            client.configuration.logger.warning(
                "cannot abort the multipart upload", metadata: ["uploadId": "\(uploadId)", "error": "\(error)"])
        }
    }

    /// Writes the record to a temporary file beside `url` and renames it into place, so a kill leaves the old
    /// record or the new one, never half of one.
    static func save(_ record: some Encodable, to url: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).tmp")
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try encoder.encode(record).write(to: temporary)
            try OSSEncryptedFile.replace(url, with: temporary)
        } catch {
            throw OSSClientError(.fileCantWrite, "cannot write the transfer record \(url.path)")
        }
    }
}

/// What a resumable encrypted download keeps between runs: the object's identity (ETag, size, and its wrapped data
/// key and IV, so a replaced object is never mixed with the old one's parts), the part size, and the parts already
/// decrypted into the partial file with their ciphertext CRC-64s. Never the plain data key.
public struct OSSEncryptedDownloadRecord: Codable, Sendable, Hashable {
    public var version = 1
    public var bucketName: String
    public var objectKey: String
    public var destinationPath: String
    public var eTag: String
    public var size: Int64
    public var partSize: Int64
    public var wrappedKey: String
    public var wrappedIV: String
    /// Part number (1-based) to the CRC-64 of its ciphertext.
    public var completedParts: [Int: UInt64] = [:]
}

extension OSSEncryptionClient {
    /// Downloads and decrypts an object into `destination` in ranged parts of `partSize` bytes (a multiple of 16),
    /// resumable: with `recordURL`, a stopped run leaves the partial file (`destination` + `.ossdownload`) and a
    /// record, and the next call continues with the parts not yet written, provided the object is the same (ETag,
    /// size, envelope). At the end the parts' CRC-64s, combined, must equal the object's, and the plaintext its
    /// envelope's length and MD5; only then does the file replace `destination`.
    ///
    /// Parts are fetched, decrypted and written `threadNum` at a time; each is synchronized to disk before the record
    /// names it, so a kill at any moment loses at most the parts in flight.
    ///
    /// - Parameter partDownloaded: called after each part this run writes, one call at a time (tests stop a run with
    ///   it; a throw cancels the parts in flight).
    public func downloadFile(
        bucketName: String, objectKey: String, to destination: URL, partSize: Int64 = 1 << 20,
        recordURL: URL? = nil, threadNum: Int = 4, partDownloaded: (@Sendable (Int) async throws -> Void)? = nil,
        recordNotice: (@Sendable (OSSRecordNotice) -> Void)? = nil
    ) async throws -> OSSEncryptedObjectInfo {
        try Self.checkPartSize(partSize)
        try Self.checkThreadNum(threadNum)
        let lock = try Self.lockRecord(recordURL)
        defer { withExtendedLifetime(lock) {} }
        let info = try await headObject(OSSHeadObjectRequest(bucketName: bucketName, objectKey: objectKey))
        guard let envelope = info.envelope else { throw OSSEncryptionError.notEncrypted(objectKey: objectKey) }
        let contentKey = try await self.contentKey(for: envelope, objectKey: objectKey)
        let size = info.plaintextLength
        let partial = URL(fileURLWithPath: destination.path + ".ossdownload")
        var record = OSSEncryptedDownloadRecord(
            bucketName: bucketName, objectKey: objectKey, destinationPath: destination.path,
            eTag: info.head.eTag ?? "", size: size, partSize: partSize,
            wrappedKey: envelope.wrappedKey.base64EncodedString(), wrappedIV: envelope.wrappedIV.base64EncodedString())
        let stored = Self.loadRecord(OSSEncryptedDownloadRecord.self, recordURL)
        if let recordURL, case .damaged = stored {
            say(
                OSSRecordNotice(direction: .download, recordPath: recordURL.path, problem: "not a readable record"),
                to: recordNotice)
        }
        if recordURL != nil, case .loaded(var saved) = stored, FileManager.default.fileExists(atPath: partial.path) {
            let done = saved.completedParts
            saved.completedParts = [:]
            var fresh = record
            fresh.completedParts = [:]
            if saved == fresh { record.completedParts = done }
        }
        if record.completedParts.isEmpty {
            try? FileManager.default.removeItem(at: partial)
            guard FileManager.default.createFile(atPath: partial.path, contents: nil) else {
                throw OSSClientError(.fileCantWrite, "cannot create \(partial.path)")
            }
        }
        if let recordURL { try Self.save(record, to: recordURL) }
        let partCount = size == 0 ? 0 : Int((size + partSize - 1) / partSize)
        let missing = partCount == 0 ? [] : (1...partCount).filter { record.completedParts[$0] == nil }
        let eTag = info.head.eTag
        try await Self.forEachPart(missing, threadNum: threadNum) { number in
            let offset = Int64(number - 1) * partSize
            let last = min(offset + partSize, size) - 1
            let part = try await client.getObject(
                OSSGetObjectRequest(
                    bucketName: bucketName, objectKey: objectKey, range: .closed(offset, last),
                    standardRangeBehavior: true, ifMatch: eTag))
            let ciphertext = part.content ?? Data()
            guard Int64(ciphertext.count) == last - offset + 1 else {
                throw OSSClientError(.networkError, "part \(number) of \(objectKey) came back short")
            }
            var stream = OSSCTRStream(contentKey, offset: offset)
            try OSSEncryptedFile.write(try stream.apply(ciphertext), into: partial, at: offset)
            return CRC64.checksum(ciphertext)
        } finished: { number, crc in
            // The part is on disk (synchronized) before the record names it: a kill leaves no part recorded unwritten.
            record.completedParts[number] = crc
            if let recordURL { try Self.save(record, to: recordURL) }
            try await partDownloaded?(number)
        }
        var pieces: [(crc: UInt64, length: UInt64)] = []
        for number in 1...max(partCount, 1) {
            guard let crc = record.completedParts[number] else { continue }
            let start = Int64(number - 1) * partSize
            pieces.append((crc: crc, length: UInt64(min(start + partSize, size) - start)))
        }
        let combined = CRC64.combine(parts: pieces)
        if let server = info.head.crc64, partCount > 0, combined != server {
            throw OSSClientError(.invalidCRC, "the downloaded ciphertext's CRC-64 \(combined) is not the server's \(server)")
        }
        let digest = try OSSEncryptedFile.digest(partial)
        do {
            try Self.verify(length: digest.length, md5: digest.md5, envelope: envelope, objectKey: objectKey)
        } catch {
            // The object itself disagrees with its envelope: a rerun would only decrypt the same wrong bytes.
            try? FileManager.default.removeItem(at: partial)
            if let recordURL { try? FileManager.default.removeItem(at: recordURL) }
            throw error
        }
        try OSSEncryptedFile.replace(destination, with: partial)
        if let recordURL { try? FileManager.default.removeItem(at: recordURL) }
        return info
    }
}
