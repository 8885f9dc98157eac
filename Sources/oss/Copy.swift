import AliyunOSS
import ArgumentParser

import Foundation

struct Copy: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cp",
        abstract: "Copy a file to OSS or an object to a file, resumably, or an object to another on the server: oss cp LOCAL oss://bucket/key | oss cp oss://bucket/key LOCAL | oss cp oss://a/k oss://b/k2",
        discussion: helpProse("""
            A file smaller than --multipart-threshold (default 8 MiB) goes up as one PutObject, CRC-64 checked and
            without a checkpoint; a larger one as a resumable multipart upload. Both directions of a multipart
            transfer keep a checkpoint in --checkpoint-dir. Ctrl-C pauses: the upload id (or the partial
            download) and the checkpoint are kept, so running the same command again resumes where it stopped.
            Between two oss:// addresses the copy happens on the server (CopyObject, or UploadPartCopy in parts
            of --part-size for large objects); no bytes pass through this machine.
            `oss cp - oss://b/k` uploads standard input as it arrives; `oss cp oss://b/k -` writes the object to
            standard output (and nothing else). A stream keeps no checkpoint: Ctrl-C aborts it.
            --version-id ID copies that version of the source object (versioned buckets; oss ls --all-versions
            lists them): to a file (in one request, CRC-64 checked, written whole or not at all), to standard
            output, or to another object on the server, which is how an old version is restored (oss cp
            oss://b/k oss://b/k --version-id OLD makes it the latest again).
            """))

    @Argument(help: "The source: a local file or oss://bucket/key.") var source: String
    @Argument(help: "The destination: oss://bucket/key, or a local file; one ending in / (or an existing directory) means into that folder, keeping the source's name.") var destination: String
    @Option(help: "Part size in bytes (minimum 102400). Uploads default to about 64 parts of 1-64 MiB; downloads to 8 MiB.")
    var partSize: Int64?
    @Option(help: "Parts in flight.") var threads: Int = 4
    @Option(help: "Copy this version of the source object (versioned buckets).") var versionId: String?
    @Option(help: "Checkpoint directory (default: ~/.oss-swift/checkpoints).") var checkpointDir: String?
    @Flag(
        inversion: .prefixedNo,
        help: "On Ctrl-C keep the server-side upload and the checkpoint so a rerun resumes (default); with --no-keep-upload-on-cancel the upload is aborted and the checkpoint deleted.")
    var keepUploadOnCancel = true
    @Option(help: "Limit each part's transfer to this many bits per second (x-oss-traffic-limit, 819200-838860800), e.g. to leave bandwidth to others.")
    var trafficLimit: Int?
    @Flag(help: "Uploads: also send Content-MD5 with each part, so the server itself refuses damaged bytes (each part is then read twice; by default its CRC-64 is checked as it streams).")
    var contentMD5 = false
    @Flag(name: [.customShort("r"), .customLong("recursive")], help: "Copy a directory to a prefix or a prefix to a directory (oss cp -r DIR oss://bucket/prefix | oss cp -r oss://bucket/prefix DIR); every file, where `oss sync` moves only what differs.")
    var recursive = false
    @OptionGroup(title: "Directories (with --recursive)") var directory: DirectoryOptions
    @OptionGroup(title: "Uploaded objects") var objects: UploadOptions
    @OptionGroup(title: "Client-side encryption") var encryption: EncryptionOptions
    @OptionGroup var connection: ConnectionOptions

    func validate() throws {
        guard OSSURI.isRemote(source) || OSSURI.isRemote(destination) else {
            throw ValidationError("the source or the destination must be oss://bucket/key")
        }
        guard threads >= 1 else { throw ValidationError("--threads must be at least 1") }
        if let partSize, partSize < 102_400 { throw ValidationError("--part-size must be at least 102400 bytes") }
        if let trafficLimit, !(819_200...838_860_800).contains(trafficLimit) {
            throw ValidationError("--traffic-limit must be between 819200 and 838860800 bits per second")
        }
        if let versionId {
            guard OSSURI.isRemote(source), !recursive else {
                throw ValidationError("--version-id names a version of the source object: oss cp oss://bucket/key DEST --version-id ID")
            }
            if versionId.isEmpty { throw ValidationError("--version-id needs a version id (oss ls --all-versions)") }
        }
        if !objects.isEmpty, !OSSURI.isRemote(destination) || OSSURI.isRemote(source) {
            throw ValidationError("--content-type, --acl, --meta and --storage-class apply to uploads (to oss://)")
        }
    }

    var recordDirectory: String { checkpointDirectory(checkpointDir) }

    func run() async throws {
        try await runCommand {
            if OSSURI.isRemote(source) && OSSURI.isRemote(destination) {
                try await serverSideCopy()
                return
            }
            if source == "-" || destination == "-" {
                guard !encryption.isEnabled else {
                    throw CLIFailure(.clientError, "--encryption-key copies files and directories, not streams")
                }
                return try await copyStream()  // CopyStream.swift
            }
            if recursive {
                guard OSSURI.isRemote(source) != OSSURI.isRemote(destination) else {
                    throw CLIFailure(.clientError, "cp -r copies between a local directory and oss://bucket[/prefix]")
                }
                // The directory batch (journal, resume, --jobs); with --encryption-key its files go through the
                // encryption client.
                return try await DirectoryTransferCommand(
                    source: source, destination: destination, mode: .copy, deleteExtras: false, dryRun: false,
                    options: directory, threads: threads, partSize: partSize, recordDirectory: recordDirectory,
                    connection: connection, objectMetadata: try objects.metadata(), encryption: encryption
                ).run()
            }
            if encryption.isEnabled { return try await encryptedCopy() }  // Encryption.swift
            try FileManager.default.createDirectory(atPath: recordDirectory, withIntermediateDirectories: true)
            if OSSURI.isRemote(destination) {
                try await upload()
            } else {
                try await download()
            }
        }
    }

    func upload() async throws {
        let file = try PathRule.singleFileSource(source)
        let target = PathRule.remoteTarget(try parseRemote(destination, requireKey: false), sourceName: file.lastPathComponent)
        let attributes = try? FileManager.default.attributesOfItem(atPath: file.path)
        let size = (attributes?[.size] as? NSNumber)?.int64Value
        if let size, size < directory.multipartThreshold, attributes?[.type] as? FileAttributeType == .typeRegular {
            return try await uploadInOneRequest(file, size: size, to: target)
        }
        let progress = ProgressReporter(label: "upload")
        var request = OSSResumableUploadRequest(
            bucketName: target.bucket, objectKey: target.key, uploadingFileURL: file,
            threadNum: threads, recordDirectoryPath: recordDirectory,
            // Ctrl-C pauses by default: keep the upload id and the record so the next run resumes.
            deleteUploadIdOnCancelling: !keepUploadOnCancel,
            uploadProgress: { _, done, total in Task { await progress.report(done: done, total: total) } })
        request.completeMetaHeader = try objects.metadata()
        if let partSize {
            request.partSize = partSize
        } else if let size {
            request.partSize = PartSizing.uploadPartSize(fileSize: size)
        }
        request.trafficLimit = trafficLimit
        request.sendContentMD5 = contentMD5
        request.progressGranularity = .bytes
        request.recordNotice = { printError("oss: \($0)") }  // a damaged checkpoint is said, never silently replaced
        let upload = request
        // Ctrl-C pauses (upload id and checkpoint kept) unless --no-keep-upload-on-cancel asks for a cancel.
        let pauses = keepUploadOnCancel
        let interrupt: @Sendable () -> Void = {
            if pauses { upload.pause() } else { upload.cancel() }
        }
        let checkpoints = recordDirectory
        let result = try await withClient(connection) { client in
            do {
                return try await runInterruptibly(interrupt: interrupt) { try await client.resumableUpload(upload) }
            } catch {
                await progress.finish()
                throw PauseReport.replacing(error) { token in
                    guard let token, let uploadId = token.uploadId else {
                        return ("the upload to \(target) before it started", "nothing was sent")
                    }
                    return (
                        "the upload to \(target)",
                        "its upload id \(uploadId) (\(PauseReport.progress(token.bytesDone, of: token.totalBytes)) on "
                            + "the server) and its checkpoint in \(checkpoints) are kept"
                    )
                }
            }
        }
        await progress.finish()
        say("uploaded \(source) to \(target) etag \(result.eTag ?? "-") crc64 \(result.crc64.map(String.init) ?? "-")"
            + (result.resumedBytes > 0 ? " (resumed after \(formatBytes(result.resumedBytes)))" : ""))
    }

    func download() async throws {
        let origin = try parseRemote(source, requireKey: true)
        let file = try PathRule.localTarget(destination, sourceName: PathRule.name(of: origin.key))
        let progress = ProgressReporter(label: "download")
        var request = OSSResumableDownloadRequest(
            bucketName: origin.bucket, objectKey: origin.key, downloadToFileURL: file, threadNum: threads,
            recordDirectoryPath: recordDirectory,
            downloadProgress: { _, done, total in Task { await progress.report(done: done, total: total) } })
        if let partSize { request.partSize = partSize }
        request.trafficLimit = trafficLimit
        request.progressGranularity = .bytes
        request.versionId = versionId  // a named version resumes like any download (its record is of that version)
        request.recordNotice = { printError("oss: \($0)") }
        let download = request
        let checkpoints = recordDirectory
        let result = try await withClient(connection) { client in
            do {
                return try await runInterruptibly(interrupt: { download.pause() }) {
                    try await client.resumableDownload(download)
                }
            } catch {
                await progress.finish()
                throw PauseReport.replacing(error) { token in
                    guard let token else { return ("the download of \(origin) before it started", "nothing was written") }
                    return (
                        "the download of \(origin)",
                        "its temporary file beside \(file.path) (\(PauseReport.progress(token.bytesDone, of: token.totalBytes))) "
                            + "and its checkpoint in \(checkpoints) are kept"
                    )
                }
            }
        }
        await progress.finish()
        say("downloaded \(origin)\(result.versionId.map { " version \($0)" } ?? "") to \(file.path) "
            + "(\(formatBytes(result.totalBytes))) crc64 \(result.crc64)"
            + (result.resumedBytes > 0 ? " (resumed after \(formatBytes(result.resumedBytes)))" : "")
            + (result.newerVersionId.map { "; finished the version it began, the key's latest is now \($0)" } ?? ""))
    }
}

extension Copy {
    /// `oss cp oss://a/k oss://b/k2`: a server-side copy (CopyObject, or UploadPartCopy parts for objects larger
    /// than one part). A destination ending in `/` keeps the source's name.
    func serverSideCopy() async throws {
        let origin = try parseRemote(source, requireKey: true)
        let target = PathRule.remoteTarget(try parseRemote(destination, requireKey: false), sourceName: PathRule.name(of: origin.key))
        var request = OSSCopyLargeObjectRequest(
            sourceBucketName: origin.bucket, sourceObjectKey: origin.key, sourceVersionId: versionId,
            bucketName: target.bucket, objectKey: target.key, threadNum: threads)
        if let partSize { request.partSize = partSize }
        let copy = request
        let result = try await withClient(connection) { try await $0.copyLargeObject(copy) }
        say("copied \(origin)\(result.sourceVersionId.map { " version \($0)" } ?? "") to \(target) on the server etag "
            + "\(result.eTag ?? "-") crc64 \(result.crc64.map(String.init) ?? "-")"
            + (result.partCount > 0 ? " (\(result.partCount) parts)" : "")
            + (result.versionId.map { ", new version \($0)" } ?? ""))
    }
}

/// The part size `oss cp` uploads with when `--part-size` is not given: about 64 parts per file, as a power of two
/// between 1 MiB and 64 MiB.
///
/// Why (docs/BENCHMARKS.md, "Part size"): each part costs a request, a record update and, on the server, a file of
/// its own, so 1 MiB parts (the SDK's default, chosen for apps on cellular networks where a failed part should be
/// cheap to send again) make a 512 MiB upload about 1.5 times slower than 8 MiB parts on the local server, while
/// parts beyond 8-16 MiB gain nothing more. About 64 parts keeps four threads busy to the end and makes a resume
/// lose at most a few percent of the file; small files keep 1 MiB parts, so they are never one big part that a
/// failure sends again whole. The choice depends only on the file's size, so a rerun of the same command
/// resumes (the part size is part of the checkpoint's identity).
enum PartSizing {
    static let smallest: Int64 = 1 << 20
    static let largest: Int64 = 64 << 20
    static let targetParts: Int64 = 64

    static func uploadPartSize(fileSize: Int64) -> Int64 {
        var size = smallest
        while size < largest, size * targetParts < fileSize { size *= 2 }
        return size
    }
}
