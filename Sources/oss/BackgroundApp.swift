import AliyunOSS
import ArgumentParser

import Foundation

/// `oss _background-app` (hidden): plays the app process of a background upload. `start` initiates the upload and
/// submits its part tasks (then, with `--wait-for-kill`, waits to be killed, as an app suspended and killed by
/// the system); `resume` is the relaunched app: it attaches, reconciles and, unless `--once`, keeps attaching
/// until every background upload is complete. Each attach prints one `attach:` line.
struct BackgroundApp: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "_background-app", abstract: "Simulated app process of a background upload (for tests and the demo).",
        shouldDisplay: false)

    @Argument(help: "start or resume") var mode: String
    @OptionGroup var connection: ConnectionOptions
    @Option(help: "The spool directory shared with the daemon.") var spool: String
    @Option(help: "The background session identifier.") var session: String
    @Option(help: "The directory of the background records and part copies.") var records: String
    @Option(help: "start: bucket") var bucket: String?
    @Option(help: "start: object key") var key: String?
    @Option(help: "start: the local file") var file: String?
    @Option(help: "start: part size in bytes") var partSize: Int64 = 4 << 20
    @Option(help: "start: a file created once the tasks are submitted") var submittedMarker: String?
    @Flag(help: "start: wait (forever) once the tasks are submitted") var waitForKill = false
    @Flag(help: "start: download the object to --file instead of uploading --file") var download = false
    @Flag(help: "resume: attach once") var once = false

    func run() async throws {
        try await runCommand {
            try await withClient(connection) { client in
                let service = OSSBackgroundTransferService(
                    client: client, system: OSSSimulatedTaskSystem(spoolDirectory: spool, sessionIdentifier: session),
                    recordDirectoryPath: records)
                switch mode {
                case "start": try await start(service)
                case "resume": try await resume(service)
                default: throw CLIFailure(.clientError, "mode must be start or resume, not \(mode)")
                }
            }
        }
    }

    func start(_ service: OSSBackgroundTransferService) async throws {
        guard let bucket, let key, let file else { throw CLIFailure(.clientError, "start needs --bucket, --key and --file") }
        let url = URL(fileURLWithPath: file)
        let id =
            download
            ? try await service.startDownload(
                OSSBackgroundDownloadRequest(bucketName: bucket, objectKey: key, downloadToFileURL: url, partSize: partSize))
            : try await service.startUpload(
                OSSBackgroundUploadRequest(bucketName: bucket, objectKey: key, uploadingFileURL: url, partSize: partSize))
        let status = try service.backgroundTransfers().first { $0.transferId == id }
        say("submitted: transfer \(id), \(status?.partsQueued ?? 0) of \(status?.totalParts ?? 0) part task(s)")
        if let submittedMarker { _ = FileManager.default.createFile(atPath: submittedMarker, contents: Data(id.utf8)) }
        while waitForKill { try await Task.sleep(for: .seconds(3600)) }
    }

    func resume(_ service: OSSBackgroundTransferService) async throws {
        if once {
            Self.print(try await service.reconcile())
        } else {
            try await service.reconcileUntilFinished { Self.print($0) }
        }
    }

    /// One line per upload and attach, `name=value` pairs the tests read.
    static func print(_ report: OSSBackgroundReconcileReport) {
        for transfer in report.transfers {
            let crc = transfer.completedCRC64.map(String.init) ?? "-"
            say(
                "attach: transfer=\(transfer.transferId) done-before=\(transfer.partsDoneBefore) verified=\(transfer.partsVerified.count) "
                    + "failed=\(transfer.partsFailed.count) submitted=\(transfer.partsSubmitted.count) "
                    + "in-flight=\(transfer.partsInFlight.count) parts=\(transfer.totalParts) "
                    + "bytes=\(transfer.completedBytes)/\(transfer.totalBytes) busy=\(transfer.busy) finished=\(transfer.finished) "
                    + "crc64=\(crc) kind=\(transfer.kind.rawValue) object-changed=\(transfer.objectChanged)")
            if let error = transfer.error { say("attach: transfer=\(transfer.transferId) error: \(error)") }
        }
        if report.unknownEvents > 0 { say("attach: unknown-events=\(report.unknownEvents)") }
    }
}
