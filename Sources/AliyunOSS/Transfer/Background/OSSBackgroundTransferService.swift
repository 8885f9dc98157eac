import Foundation
import OSSResumable

/// Background transfers: multipart uploads and ranged downloads whose parts the system carries while the app is
/// suspended or not running, reconciled when a process of the app attaches again.
///
/// ```swift
/// let service = OSSBackgroundTransferService(
///     client: client,
///     system: OSSURLSessionBackgroundTaskSystem(identifier: "com.example.oss", eventDirectory: eventsPath),
///     recordDirectoryPath: recordsPath, baseDirectoryURL: containerURL)
/// let id = try await service.startUpload(OSSBackgroundUploadRequest(bucketName: "b", objectKey: "k", uploadingFileURL: file))
/// // later, in another process lifetime (UIKit's app delegate, on the main actor):
/// service.handleEventsForBackgroundURLSession(identifier: identifier, completionHandler: completionHandler)
/// ```
///
/// The upload is initiated in the foreground; each part becomes a file-backed upload task for a presigned
/// UploadPart URL, described `"<transfer id>/<part number>"`. Every attach (``reconcile()``) maps the system's
/// completions to their parts, checks each response's CRC-64 against the part copy's, records the confirmed
/// parts durably, submits what is missing or failed (with fresh signatures), and completes the upload only when
/// every part is verified, checking the object's combined CRC-64, then removes the part copies and the record.
/// The record (``OSSBackgroundUploadRecord``) never holds credentials or URLs. Downloads
/// (``startDownload(_:)``) work the same way with one download task per range (`Range`, `If-Match`).
public final class OSSBackgroundTransferService: Sendable {
    public let client: OSSClient
    public let system: any OSSBackgroundTaskSystem
    /// Where the records and the part copies live (in the app's container on iOS).
    public let recordDirectoryPath: String
    /// The directory the records' local paths are stored relative to (``OSSBaseDirectory``), if any.
    public let baseDirectory: OSSBaseDirectory?
    /// How long a part's presigned URL stays valid (capped at 7 days for V4).
    public let urlLifetime: TimeInterval
    /// The expiry of the client's credentials when they are temporary (STS): URLs never outlive it.
    let credentialExpiration: (@Sendable () async -> Date?)?
    let store: OSSRecordStore
    /// The full attach that runs after the system's completion handler (``finishReconciling()``).
    let finishing = OSSLockedValue<Task<Void, Never>?>(nil)

    static let recordSuffix = ".bgupload.record"
    static let downloadRecordSuffix = ".bgdownload.record"

    /// - Parameters:
    ///   - recordDirectoryPath: where the records and the part copies live; relative paths are taken from
    ///     `baseDirectoryURL` when there is one.
    ///   - baseDirectoryURL: the directory the records store local paths relative to (the app's container, or a
    ///     folder in it): iOS moves the container on updates and restores, and a record written before still
    ///     names the files at their new place. `nil` stores absolute paths. Records written with absolute paths
    ///     load either way.
    ///   - urlLifetime: how long a part's presigned URL stays valid (capped at 7 days for V4).
    ///   - credentialExpiration: the expiry of temporary (STS) credentials: URLs never outlive it.
    public init(
        client: OSSClient, system: any OSSBackgroundTaskSystem, recordDirectoryPath: String, baseDirectoryURL: URL? = nil,
        urlLifetime: TimeInterval = 24 * 3600, credentialExpiration: (@Sendable () async -> Date?)? = nil
    ) {
        let base = baseDirectoryURL.flatMap { $0.isFileURL ? OSSBaseDirectory(path: $0.path) : nil }
        self.client = client
        self.system = system
        self.store = OSSRecordStore(directoryPath: recordDirectoryPath, baseDirectory: base)
        self.recordDirectoryPath = store.directoryPath
        self.baseDirectory = base
        self.urlLifetime = min(urlLifetime, 7 * 24 * 3600)
        self.credentialExpiration = credentialExpiration
    }

    /// Initiates the multipart upload (in the foreground), records it, and hands its first parts to the
    /// system. Returns the transfer id (the prefix of its tasks' descriptions).
    public func startUpload(_ request: OSSBackgroundUploadRequest) async throws -> String {
        guard request.uploadingFileURL.isFileURL, request.maximumQueuedParts >= 1 else {
            throw OSSClientError.invalidArgument("a background upload needs a file URL and maximumQueuedParts >= 1")
        }
        let path = OSSRecordStore.absolutePath(request.uploadingFileURL.path)
        let size: Int64
        do {
            size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64 ?? 0
        } catch {
            throw OSSClientError(.fileCantRead, "cannot read \(path)", underlying: error)
        }
        try OSSResumableUploadRequest.checkPartSize(request.partSize, fileSize: size)
        let plan: OSSPartPlan
        do {
            plan = try OSSPartPlan.upload(fileSize: size, preferredPartSize: request.partSize)
        } catch {
            throw OSSClientError.invalidArgument("\(error)")
        }
        _ = try await presignExpiration()  // credentials about to expire: fail before anything is initiated
        let initiated = try await client.initiateMultipartUpload(
            OSSInitiateMultipartUploadRequest(
                bucketName: request.bucketName, objectKey: request.objectKey,
                contentType: request.contentType ?? OSSMimeType.guess(request.uploadingFileURL.lastPathComponent, request.objectKey)))
        let transferId = Self.newTransferId()
        var record = OSSBackgroundUploadRecord(
            transferId: transferId, bucket: request.bucketName, key: request.objectKey, filePath: path, plan: plan,
            uploadId: initiated.uploadId, maximumQueuedParts: request.maximumQueuedParts)
        let lock = try await OSSBlockingIO.run { [store] () throws(OSSResumableError) in try store.lock(name: Self.recordName(transferId)) }
        defer { withExtendedLifetime(lock) {} }
        try await save(record)
        let first = record.parts.prefix(request.maximumQueuedParts).map(\.number)
        record = try await submit(parts: first, of: record)
        return transferId
    }

    /// The background transfers this directory holds, as their records say.
    ///
    /// - Throws: when the directory cannot be listed or a record cannot be read.
    public func backgroundTransfers() throws -> [OSSBackgroundTransferStatus] {
        try recordStatuses().compactMap { try $0.status.get() }
    }

    typealias RecordStatus = (transferId: String, kind: OSSTransferKind, status: Result<OSSBackgroundTransferStatus?, OSSResumableError>)

    /// Each record of the directory: its transfer id and direction, and its status (`nil` when it vanished
    /// meanwhile) or why it cannot be read.
    func recordStatuses() throws -> [RecordStatus] {
        try recordNames().map { name -> RecordStatus in
            let (transferId, kind) = Self.parseRecordName(name)
            let status = Result<OSSBackgroundTransferStatus?, OSSResumableError> { () throws(OSSResumableError) in
                switch kind {
                case .upload: try store.load(OSSBackgroundUploadRecord.self, name: name).map(OSSBackgroundTransferStatus.init(upload:))
                case .download:
                    try store.load(OSSBackgroundDownloadRecord.self, name: name).map(OSSBackgroundTransferStatus.init(download:))
                }
            }
            return (transferId, kind, status)
        }
    }

    /// Whether the directory holds a record of transfer `transferId`.
    func hasTransfer(_ transferId: String) throws -> Bool {
        let names = try recordNames()
        return names.contains(Self.recordName(transferId)) || names.contains(Self.downloadRecordName(transferId))
    }

    // MARK: - Records

    static func newTransferId() -> String {
        (0..<2).map { _ in String(UInt64.random(in: 0...UInt64.max), radix: 16) }.joined(separator: "-")
    }

    static func recordName(_ transferId: String) -> String { transferId + recordSuffix }

    static func downloadRecordName(_ transferId: String) -> String { transferId + downloadRecordSuffix }

    /// The transfer id and direction a record name holds.
    static func parseRecordName(_ name: String) -> (String, OSSTransferKind) {
        if name.hasSuffix(downloadRecordSuffix) { return (String(name.dropLast(downloadRecordSuffix.count)), .download) }
        return (String(name.dropLast(recordSuffix.count)), .upload)
    }

    /// The directory of a transfer's part copies.
    func partDirectory(_ transferId: String) -> String { recordDirectoryPath + "/" + transferId + ".parts" }

    func recordNames() throws -> [String] {
        guard FileManager.default.fileExists(atPath: recordDirectoryPath) else { return [] }
        do {
            return try FileManager.default.contentsOfDirectory(atPath: recordDirectoryPath)
                .filter { ($0.hasSuffix(Self.recordSuffix) || $0.hasSuffix(Self.downloadRecordSuffix)) && !$0.hasPrefix(".") }
                .sorted()
        } catch {
            throw OSSClientError(.fileCantRead, "cannot list \(recordDirectoryPath)", underlying: error)
        }
    }

    func save(_ record: OSSBackgroundUploadRecord) async throws {
        do {
            try await store.saveOffCooperativePool(record, name: Self.recordName(record.transferId))
        } catch {
            throw OSSClientError(error, in: .upload)
        }
    }

    /// Blocking file work off the cooperative pool, its errors as ``OSSClientError``.
    static func fileStep<Value: Sendable>(
        _ kind: OSSTransferKind, _ body: @escaping @Sendable () throws(OSSResumableError) -> Value
    ) async throws -> Value {
        do {
            return try await OSSBlockingIO.run(body)
        } catch {
            throw OSSClientError(error, in: kind)
        }
    }
}
