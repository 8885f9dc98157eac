import Foundation
import OSSResumable

extension OSSBackgroundTransferService {
    /// Hands `numbers` to the system: makes (or finds) each part's copy with its CRC-64 and MD5, records the parts
    /// as queued (durably, before the system hears of them: a crash in between only leaves parts the next attach
    /// submits again), then submits one upload task per part for a freshly presigned UploadPart URL.
    func submit(parts numbers: [Int], of record: OSSBackgroundUploadRecord) async throws -> OSSBackgroundUploadRecord {
        guard !numbers.isEmpty else { return record }
        var record = record
        let directory = partDirectory(record.transferId)
        let expiration = try await presignExpiration()
        for number in numbers {
            guard let index = record.parts.firstIndex(where: { $0.number == number }) else { continue }
            record.parts[index] = try await prepareCopy(record.parts[index], record: record, directory: directory)
            record.parts[index].state = .queued(description: record.taskDescription(part: number))
            record.parts[index].signedUntil = Self.signedUntil(expiration)
        }
        try await save(record)
        for number in numbers {
            guard let part = record.parts.first(where: { $0.number == number }), let md5 = part.contentMD5 else { continue }
            let headers = ["content-md5": md5, "content-type": "application/octet-stream"]
            let url = try await client.presignConstrainURL(
                bucket: record.bucket, key: record.key, method: "PUT", expiration: expiration,
                parameters: ["partNumber": String(number), "uploadId": record.uploadId], headers: headers)
            let source = part.copyName.map { directory + "/" + $0 } ?? record.filePath
            try await system.submit(
                .upload(url: url, headers: headers, filePath: source, taskDescription: record.taskDescription(part: number)))
        }
        return record
    }

    /// The part with its copy made and hashed. An existing copy is reused when its CRC-64 is the recorded one; a
    /// missing copy is made again from the file and must then hash to the recorded CRC-64 (else the file changed).
    /// A one-part file is copied too: a file the user picked, or one under data protection, may be unreadable to
    /// the system when it runs the task.
    private func prepareCopy(
        _ part: OSSBackgroundUploadRecord.Part, record: OSSBackgroundUploadRecord, directory: String
    ) async throws -> OSSBackgroundUploadRecord.Part {
        var part = part
        let name = String(part.number)
        let copyPath = directory + "/" + name
        let (source, offset, length) = (record.filePath, part.offset, part.length)
        if let recorded = part.crc64, FileManager.default.fileExists(atPath: copyPath) {
            if try await OSSFileDigest.crc64(path: copyPath, offset: 0, length: length) == recorded { return part }
        }
        try await OSSBlockingIO.run {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        let digest = try await Self.fileStep(.upload) { () throws(OSSResumableError) in
            try OSSPartSliceCopy.copy(source: source, offset: offset, length: length, to: copyPath)
        }
        if let recorded = part.crc64, recorded != digest.crc64 {
            throw OSSClientError(
                .invalidCRC, "\(record.filePath) changed since part \(part.number) was first copied; start the upload again")
        }
        part.crc64 = digest.crc64
        part.contentMD5 = digest.contentMD5
        part.copyName = name
        return part
    }

    /// When a URL signed now for `expiration` seconds expires (seconds since 1970).
    static func signedUntil(_ expiration: TimeInterval) -> Int64 { Int64(Date().timeIntervalSince1970 + expiration) }

    /// Replaces the tasks the system holds whose URL expires within a minute: they are cancelled, so the attach
    /// finds them neither pending nor reported and signs them again. Returns the pending descriptions afterwards.
    func withdrawExpiring(_ parts: [OSSBackgroundPart], pending: Set<String>) async throws -> Set<String> {
        let soon = Int64(Date().timeIntervalSince1970) + 60
        var expiring = Set<String>()
        for part in parts {
            guard case .queued(let description) = part.state, pending.contains(description), let until = part.signedUntil,
                until <= soon
            else { continue }
            expiring.insert(description)
        }
        guard !expiring.isEmpty else { return pending }
        try await system.cancelTasks(describedAs: expiring)
        return Set(try await system.pendingTaskDescriptions())
    }

    /// The presigned URLs' lifetime: ``urlLifetime``, never past the credentials' expiry.
    func presignExpiration() async throws -> TimeInterval {
        guard let expiry = await credentialExpiration?() else { return urlLifetime }
        let left = expiry.timeIntervalSinceNow
        guard left >= 60 else {
            throw OSSClientError(.signFailed, "the credentials expire in \(Int(left)) s: refresh them before submitting parts")
        }
        return min(urlLifetime, left)
    }

    /// CompleteMultipartUpload with the verified parts; the object's CRC-64 must equal the parts' combined CRC-64.
    /// A Complete whose answer was lost (NoSuchUpload now) is adopted when the object has the expected CRC-64.
    func complete(_ record: OSSBackgroundUploadRecord) async throws -> UInt64 {
        guard let expected = record.combinedCRC64 else {
            throw OSSClientError(.exceptionCaught, "Complete needs every part verified")
        }
        var parts: [OSSPartInfo] = []
        for part in record.parts {
            if case .done(let etag, _) = part.state { parts.append(OSSPartInfo(partNumber: part.number, eTag: etag)) }
        }
        let objectCRC: UInt64?
        do {
            let result = try await client.completeMultipartUpload(
                OSSCompleteMultipartUploadRequest(
                    bucketName: record.bucket, objectKey: record.key, uploadId: record.uploadId, parts: parts))
            objectCRC = result.crc64
        } catch let error as OSSServerError where error.code == "NoSuchUpload" {
            let head = try await client.headObject(OSSHeadObjectRequest(bucketName: record.bucket, objectKey: record.key))
            guard head.contentLength == record.fileSize, head.crc64 == expected else { throw error }
            objectCRC = head.crc64
        }
        if let objectCRC, objectCRC != expected {
            throw OSSClientError(.invalidCRC, "the object's CRC-64 \(objectCRC) is not the file's \(expected)")
        }
        return expected
    }

    /// Removes a finished transfer's part copies, then its record.
    func sweep(_ record: OSSBackgroundUploadRecord) async throws {
        let directory = partDirectory(record.transferId)
        let name = Self.recordName(record.transferId)
        try await OSSBlockingIO.run { [store] in
            if FileManager.default.fileExists(atPath: directory) { try FileManager.default.removeItem(atPath: directory) }
            try store.delete(name: name)
        }
    }
}
