import AliyunOSS
import AliyunOSSEncryption
import ArgumentParser

import Foundation

/// The options `oss cp -r` and `oss sync` share: what to take, how many files at once, and how to report.
struct DirectoryOptions: ParsableArguments {
    @Option(name: .customLong("include"), help: "Only files matching this glob (relative path or name; repeatable).")
    var include: [String] = []
    @Option(name: .customLong("exclude"), help: "Leave out files and whole directories matching this glob (repeatable; wins over --include).")
    var exclude: [String] = []
    @Option(help: "Files moving at once (1-256); --threads is the parts in flight of each large file.") var jobs = 8
    @Option(help: "Files smaller than this many bytes go in one request (PutObject or GetObject; for a single cp upload too); larger ones as resumable multipart transfers. Default 8 MiB, as aws.")
    var multipartThreshold: Int64 = 8 * 1024 * 1024
    @Option(help: "Bytes the transfers' buffers may hold at once (default: the platform's, 256 MiB here).")
    var memoryBudget: Int64?
    @Flag(
        inversion: .prefixedNo,
        help: "Follow symbolic links, as aws s3 does (default; a loop or a link to nothing is skipped with a warning); --no-follow-symlinks skips every link with a warning.")
    var followSymlinks = true
    @Flag(help: "Stop at the first file that fails (default: go on and report every failure at the end).")
    var failFast = false
    @Flag(help: "Print the summary as one JSON object on standard output.") var json = false

    func validate() throws {
        guard (1...256).contains(jobs) else { throw ValidationError("--jobs must be 1...256") }
        guard multipartThreshold >= 0 else { throw ValidationError("--multipart-threshold must not be negative") }
        if let memoryBudget, memoryBudget < 1 << 20 { throw ValidationError("--memory-budget must be at least 1 MiB") }
    }

    func transferOptions(
        mode: OSSDirectoryTransferMode, deleteExtras: Bool, dryRun: Bool, threads: Int, partSize: Int64?
    ) -> OSSDirectoryTransferOptions {
        var options = OSSDirectoryTransferOptions()
        options.mode = mode
        options.deleteExtras = deleteExtras
        options.dryRun = dryRun
        options.include = include
        options.exclude = exclude
        options.symbolicLinks = followSymlinks ? .follow : .skip
        options.failurePolicy = failFast ? .stopOnFirstFailure : .continueAndReport
        options.singleRequestThreshold = multipartThreshold
        if let partSize { options.partSize = partSize }
        options.filesAtOnce = jobs
        options.partsPerFile = threads
        // The user is waiting for this command: its files are not a background batch.
        options.priority = .userInitiated
        return options
    }
}

/// Runs one directory transfer for the CLI: resumes the batch of the same request left in the checkpoint
/// directory (a run that was interrupted, killed or failed), or starts one; shows one live progress line; prints a
/// summary (or JSON) and the failures; exits non-zero when anything failed or was refused.
struct DirectoryTransferCommand {
    let source: String
    let destination: String
    let mode: OSSDirectoryTransferMode
    let deleteExtras: Bool
    let dryRun: Bool
    let options: DirectoryOptions
    let threads: Int
    let partSize: Int64?
    let recordDirectory: String
    let connection: ConnectionOptions
    /// What uploaded objects are created with (``UploadOptions``); none for a download.
    var objectMetadata: [String: String] = [:]
    /// Client-side encryption of every file (`--encryption-key`): the batch's files go through the encryption
    /// client (Encryption.swift).
    var encryption: EncryptionOptions?

    func request() throws -> OSSDirectoryTransferRequest {
        var transferOptions = options.transferOptions(
            mode: mode, deleteExtras: deleteExtras, dryRun: dryRun, threads: threads, partSize: partSize)
        if !objectMetadata.isEmpty { transferOptions.objectMetadata = objectMetadata }
        if encryption?.isEnabled == true { transferOptions.fileTransport = OSSEncryptionClient.batchTransportIdentifier }
        switch (OSSURI.isRemote(source), OSSURI.isRemote(destination)) {
        case (false, true):
            let target = try parseRemote(destination, requireKey: false)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: source, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw CLIFailure(.clientError, "\(source) is not a directory")
            }
            return .upload(
                from: URL(fileURLWithPath: source), toBucket: target.bucket, prefix: PathRule.folder(target),
                options: transferOptions)
        case (true, false):
            let origin = try parseRemote(source, requireKey: false)
            return .download(
                fromBucket: origin.bucket, prefix: PathRule.folder(origin), to: URL(fileURLWithPath: destination),
                options: transferOptions)
        default:
            throw CLIFailure(.clientError, "one side must be a local directory and the other oss://bucket[/prefix]")
        }
    }

    func run() async throws {
        let request = try request()
        try FileManager.default.createDirectory(atPath: recordDirectory, withIntermediateDirectories: true)
        let memoryBudget = options.memoryBudget
        let client = try connection.makeClient { configuration in
            if let memoryBudget { configuration.transferLimits.memoryBudget = memoryBudget }
            // Files at once is the batch's own limit; the client's must not be the smaller one.
            configuration.transferLimits.transfers = max(configuration.transferLimits.transfers, options.jobs)
            // Nor the connection pool: --jobs files at once need as many kept-alive connections.
            configuration.maxConcurrentRequestCount = max(configuration.maxConcurrentRequestCount, options.jobs)
        }
        let manager = OSSTransferManager(
            client: client, recordDirectoryPath: recordDirectory,
            fileTransport: try encryption.flatMap { $0.isEnabled ? $0 : nil }.map {
                var transport = OSSEncryptionClient(client: client, masterCipher: try $0.masterCipher())
                transport.recordNotice = { printError("oss: \($0)") }
                return transport
            })
        let json = options.json
        let outcome: Result<OSSBatchReport, any Error>
        var warnings = LinkWarningCounts()
        do {
            let batch = try await Self.startOrResume(request, manager: manager, client: client)
            let line = BatchProgressLine(quiet: json)
            let dryRun = request.options.dryRun
            let watcher = Task {
                var warnings = LinkWarningCounts()
                for await event in batch.events {
                    switch event {
                    case .progress(let progress):
                        await line.show(progress)
                    case .item(let item):
                        if dryRun, !json, Self.isPlanned(item.outcome) { await line.print(Self.describe(item)) }
                        if let warning = LinkWarning(item) {
                            warnings.count(item)
                            await line.print("oss: warning: \(warning)", toStandardError: true)
                        } else if case .failed(let failure) = item.outcome, failure.endsBatch {
                            continue  // the batch stops with it: the error names it once
                        } else if item.outcome.isFailure || Self.isRefusal(item.outcome) {
                            await line.print("oss: \(Self.describe(item))", toStandardError: true)
                        }
                    case .started, .finished:
                        break
                    }
                }
                return warnings
            }
            let result: Result<OSSBatchReport, any Error>
            do {
                result = .success(try await runInterruptibly(interrupt: { batch.pause() }) { try await batch.result() })
            } catch {
                result = .failure(error)
            }
            warnings = await watcher.value
            await line.finish()
            outcome = result
            if case .success(let report) = result, report.state == .completed, !dryRun {
                // Nothing left to resume: the journal goes (the objects and files stay).
                try? await manager.removeBatch(batch.id)
            }
        } catch {
            outcome = .failure(error)
        }
        try? await client.shutdown()
        switch outcome {
        case .success(let report):
            if json {
                say(Self.json(report, warnings: warnings.total))
            } else {
                printError(Self.summary(report, warnings: warnings))
            }
            if report.counts.failed + report.counts.refused > warnings.total {
                throw ExitCode(ExitStatus.incomplete.rawValue)
            }
        case .failure(let error):
            let checkpoints = recordDirectory
            throw CLIFailure(
                PauseReport.replacing(error) { _ in
                    ("the batch", "its journal and the transfers in flight are kept in the checkpoint directory \(checkpoints)")
                })
        }
    }

    /// The batch of the same request the checkpoint directory holds in a resumable state, resumed; else a new one.
    static func startOrResume(
        _ request: OSSDirectoryTransferRequest, manager: OSSTransferManager, client: OSSClient
    ) async throws -> OSSBatch {
        guard !request.options.dryRun else { return try await manager.startBatch(request) }
        var wanted = request
        if wanted.options.crcFlag == nil { wanted.options.crcFlag = client.configuration.crcCheckEnabled }
        // The same transfer, whatever pace it was started with (--jobs, --threads): another pace resumes it.
        for info in try await manager.batches() where info.state.isResumable {
            guard case .directory(let recorded) = info.request, recorded.isSameTransfer(as: wanted) else { continue }
            var note = "oss: resuming batch \(info.id) (\(info.counts.total) of its files ended in earlier runs)"
            if recorded.options.filesAtOnce != wanted.options.filesAtOnce
                || recorded.options.partsPerFile != wanted.options.partsPerFile
            {
                note += "; it goes on at the pace it started with, --jobs \(recorded.options.filesAtOnce) --threads "
                    + "\(recorded.options.partsPerFile)"
            }
            printError(note)
            return try await manager.resumeBatch(info.id)
        }
        return try await manager.startBatch(request)
    }

    /// An action a dry run would take.
    static func isPlanned(_ outcome: OSSBatchItemOutcome) -> Bool {
        switch outcome {
        case .wouldUpload, .wouldDownload, .wouldDelete, .wouldCreateDirectory: true
        default: false
        }
    }

    static func isRefusal(_ outcome: OSSBatchItemOutcome) -> Bool {
        if case .refused = outcome { return true }
        return false
    }

    static func describe(_ item: OSSBatchItem) -> String {
        let name = item.key.isEmpty ? item.relativePath : item.key
        switch item.outcome {
        case .uploaded: return "uploaded \(name)"
        case .downloaded: return "downloaded \(name)"
        case .unchanged: return "unchanged \(name)"
        case .deleted: return "deleted \(name)"
        case .createdDirectory: return "created directory \(item.relativePath)"
        case .failed(let failure): return "failed \(name): \(failure)"
        case .refused(let reason): return "refused \(name): \(reason)"
        case .wouldUpload: return "would upload \(name) (\(formatBytes(item.bytes)))"
        case .wouldDownload: return "would download \(name) (\(formatBytes(item.bytes)))"
        case .wouldDelete: return "would delete \(name)"
        case .wouldCreateDirectory: return "would create directory \(item.relativePath)"
        }
    }

    static func summary(_ report: OSSBatchReport, warnings: LinkWarningCounts = LinkWarningCounts()) -> String {
        let c = report.counts
        var parts: [String] = []
        if report.dryRun {
            parts = [
                "\(c.wouldUpload + c.wouldDownload) to transfer", "\(c.wouldDelete) to delete", "\(c.unchanged) unchanged",
            ]
        } else {
            let elapsed = ProgressReporter.seconds(report.duration)
            let rate = elapsed > 0 && report.bytesTransferred > 0
                ? ", \(formatBytes(Int64(Double(report.bytesTransferred) / elapsed)))/s" : ""
            parts = [
                "\(c.uploaded + c.downloaded) transferred (\(formatBytes(report.bytesTransferred))\(rate))",
                "\(c.unchanged) unchanged", "\(c.deleted) deleted",
            ]
            if c.doneInEarlierRuns > 0 { parts.append("\(c.doneInEarlierRuns) done in earlier runs") }
        }
        parts += ["\(c.failed - warnings.failed) failed", "\(c.refused - warnings.refused) refused"]
        if warnings.total > 0 { parts.append("\(warnings.total) skipped with a warning") }
        let seconds = Double(report.duration.components.seconds) + Double(report.duration.components.attoseconds) / 1e18
        return (report.dryRun ? "dry run: " : "") + parts.joined(separator: ", ")
            + String(format: " in %.1fs", seconds)
            + (report.omittedProblems > 0 ? " (\(report.omittedProblems) more problems not listed)" : "")
    }

    static func json(_ report: OSSBatchReport, warnings: Int = 0) -> String {
        let c = report.counts
        var object: [String: Any] = [
            "batch": report.batchId, "state": report.state.rawValue, "dryRun": report.dryRun,
            "counts": [
                "uploaded": c.uploaded, "downloaded": c.downloaded, "unchanged": c.unchanged, "deleted": c.deleted,
                "createdDirectories": c.createdDirectories, "failed": c.failed, "refused": c.refused,
                "wouldUpload": c.wouldUpload, "wouldDownload": c.wouldDownload, "wouldDelete": c.wouldDelete,
                "doneInEarlierRuns": c.doneInEarlierRuns,
            ],
            "bytesTransferred": report.bytesTransferred, "bytesFromEarlierRuns": report.bytesFromEarlierRuns,
            "seconds": Double(report.duration.components.seconds)
                + Double(report.duration.components.attoseconds) / 1e18,
            "problems": report.problems.map { ["key": $0.key, "path": $0.relativePath, "problem": describe($0)] },
            "omittedProblems": report.omittedProblems,
        ]
        object["ok"] = c.failed + c.refused == warnings
        object["warnings"] = warnings
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}

/// One live progress line for a batch on a terminal (files, bytes, rate of this run, ETA), redrawn at most ten
/// times a second; elsewhere a plain line every 10% of the bytes. Messages are printed above it.
actor BatchProgressLine {
    private let quiet: Bool
    private let isTerminal: Bool
    private var drawn = false
    private var lastDecile = -1

    init(quiet: Bool) {
        self.quiet = quiet
        isTerminal = isatty(STDERR_FILENO) == 1
    }

    func show(_ p: OSSBatchProgress) {
        guard !quiet else { return }
        let files = "\(p.filesDone)/\(p.filesTotal)\(p.totalsAreFinal ? "" : "+") files"
        let bytes = "\(formatBytes(p.bytesDone))/\(formatBytes(p.bytesTotal))"
        let rate = "\(formatBytes(Int64(p.bytesPerSecond)))/s"
        let eta = p.estimatedTimeRemaining.map { ProgressReporter.formatDuration(ProgressReporter.seconds($0)) } ?? "--"
        let failed = p.filesFailed > 0 ? " \(p.filesFailed) failed" : ""
        let text = "\(files) \(bytes) \(rate) ETA \(eta)\(failed)"
        if isTerminal {
            StandardStreams.writeError(Data("\r\u{1B}[K\(text)".utf8))
            drawn = true
        } else {
            let decile = p.totalsAreFinal ? Int(p.fractionCompleted * 10) : -1
            guard decile >= 0, decile != lastDecile else { return }
            lastDecile = decile
            printError(text)
        }
    }

    func print(_ message: String, toStandardError: Bool = false) {
        if drawn { StandardStreams.writeError(Data("\r\u{1B}[K".utf8)) }
        if toStandardError || quiet { printError(message) } else { say(message) }
    }

    func finish() {
        if drawn { StandardStreams.writeError(Data("\n".utf8)) }
        drawn = false
    }
}
