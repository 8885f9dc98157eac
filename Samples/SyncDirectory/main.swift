// Uploads a directory to a prefix, or downloads a prefix into a directory, as a batch that survives a relaunch.
//
//   OSS_ACCESS_KEY_ID=... OSS_ACCESS_KEY_SECRET=... [OSS_SESSION_TOKEN=...] swift run sync-directory \
//       --endpoint https://oss-cn-hangzhou.aliyuncs.com --region cn-hangzhou --bucket my-bucket --prefix site/ \
//       --dir ./site --checkpoint-dir ./.oss-records [--download] [--sync] [--checksum] [--delete] [--dry-run] \
//       [--exclude PATTERN ...] [--include PATTERN ...] [--no-follow-symlinks] [--jobs 8] [--multipart-threshold BYTES] \
//       [--part-size BYTES] [--signature-version v4]
//   swift run sync-directory ... --checkpoint-dir ./.oss-records --resume        # resume the batches left there
//
// Without --endpoint it starts the embedded local OSS server and uploads there.
//
// Ctrl-C pauses the batch (its journal and the transfers in flight are kept); --resume continues it. Prints one
// line per file that failed or was refused, then the totals; exits 1 when a file failed.
import AliyunOSS
import ArgumentParser
import Foundation
import OSSLocalServer

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@main
struct SyncDirectory: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync-directory", abstract: "Upload, download or sync a directory, resumably.")

    @Option(name: .customLong("endpoint"), help: "OSS endpoint (default: $OSS_ENDPOINT, else an embedded local server).")
    var endpointOption: String?
    var endpoint: String? { endpointOption ?? ProcessInfo.processInfo.environment["OSS_ENDPOINT"] }
    @Option(name: .customLong("region"), help: "Region id. Default: $OSS_REGION, else cn-hangzhou.")
    var regionOption: String?
    var region: String { regionOption ?? ProcessInfo.processInfo.environment["OSS_REGION"] ?? "cn-hangzhou" }
    @Option(help: "Bucket name (default with the local server: demo-bucket).") var bucket: String?
    @Option(help: "Key prefix (a directory of the bucket).") var prefix: String = ""
    @Option(help: "The local directory.") var dir: String?
    @Option(help: "Directory for the batch journals and checkpoint records.") var checkpointDir: String
    @Flag(help: "Download the prefix into the directory (default: upload the directory).") var download = false
    @Flag(help: "Transfer only what differs (size and modification time).") var sync = false
    @Flag(help: "With --sync: compare CRC-64s instead of modification times.") var checksum = false
    @Flag(help: "Delete what the destination has and the source does not.") var delete = false
    @Flag(help: "Print what would be done; do nothing.") var dryRun = false
    @Option(help: "Glob of files or directories to leave out (repeatable).") var exclude: [String] = []
    @Option(help: "Glob of files to take (repeatable).") var include: [String] = []
    @Flag(inversion: .prefixedNo, help: "Follow symbolic links, as the oss tool and aws s3 do (default).")
    var followSymlinks = true
    @Option(help: "Files at once.") var jobs: Int = 8
    @Option(help: "Files from this size go as resumable multipart transfers.") var multipartThreshold: Int64 = 8 * 1024 * 1024
    @Option(help: "Part size of the resumable transfers.") var partSize: Int64 = 8 * 1024 * 1024
    @Option(help: "Parts in flight per resumable transfer.") var threads: Int = 4
    @Flag(help: "Resume the batches left in --checkpoint-dir instead of starting one.") var resume = false
    @Option(help: "v1 or v4.") var signatureVersion: String = "v4"

    func run() async throws {
        guard let version = OSSSignatureVersion(rawValue: signatureVersion) else {
            throw ValidationError("--signature-version must be v1 or v4")
        }
        guard resume || dir != nil else { throw ValidationError("--dir is required (or --resume)") }
        let configuration = OSSClientConfiguration(region: region, signatureVersion: version)
        let succeeded: Bool
        if let endpoint {
            succeeded = try await withOSSClient(
                endpoint: endpoint, credentialProvider: OSSEnvironmentCredentialProvider(), configuration: configuration
            ) { client in
                try await transfer(client, bucket: bucket ?? "demo-bucket")
            }
        } else {
            let bucket = bucket ?? "demo-bucket"
            succeeded = try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: [bucket])) { server in
                print("Started a local OSS server at \(server.endpoint)")
                return try await withOSSClient(
                    endpoint: server.endpoint.absoluteString, credentialProvider: server.credentials.provider,
                    configuration: configuration
                ) { client in
                    try await transfer(client, bucket: bucket)
                }
            }
        }
        if !succeeded { throw ExitCode(1) }
    }

    var options: OSSDirectoryTransferOptions {
        var options = OSSDirectoryTransferOptions()
        options.mode = sync ? .sync(checksum ? .checksum : .sizeAndModificationTime) : .copy
        options.deleteExtras = delete
        options.dryRun = dryRun
        options.exclude = exclude
        options.include = include
        options.symbolicLinks = followSymlinks ? .follow : .skip
        options.filesAtOnce = jobs
        options.singleRequestThreshold = multipartThreshold
        options.partSize = partSize
        options.partsPerFile = threads
        return options
    }

    /// Runs the batch (or resumes those left) and prints what happened; `false` when a file failed.
    func transfer(_ client: OSSClient, bucket: String) async throws -> Bool {
        let manager = OSSTransferManager(client: client, recordDirectoryPath: checkpointDir)
        var batches: [OSSBatch] = []
        if resume {
            for info in try await manager.batches() where info.state.isResumable {
                batches.append(try await manager.resumeBatch(info.id))
            }
        } else {
            let directory = URL(fileURLWithPath: dir ?? ".")
            let request: OSSDirectoryTransferRequest =
                download
                ? .download(fromBucket: bucket, prefix: prefix, to: directory, options: options)
                : .upload(from: directory, toBucket: bucket, prefix: prefix, options: options)
            batches.append(try await manager.startBatch(request))
        }
        // Ctrl-C pauses: the next run with --resume continues.
        signal(SIGINT, SIG_IGN)
        let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        interrupt.setEventHandler { [batches] in
            FileHandle.standardError.write(Data("\npausing...\n".utf8))
            for batch in batches { batch.pause() }
        }
        interrupt.resume()
        defer { interrupt.cancel() }

        var succeeded = true
        for batch in batches {
            print("batch \(batch.id)")
            let printer = Task {
                for await event in batch.events {
                    switch event {
                    case .item(let item):
                        switch item.outcome {
                        case .failed(let failure): print("failed: \(item.key): \(failure)")
                        case .refused(let refusal): print("refused: \(item.key): \(refusal)")
                        default: print("\(item.outcome): \(item.key)")
                        }
                    case .progress(let progress):
                        let rate = Int(progress.bytesPerSecond)
                        print("progress: \(progress.filesDone)/\(progress.filesTotal) files, \(progress.bytesDone)/\(progress.bytesTotal) bytes, \(rate) B/s")
                    case .started, .finished:
                        break
                    }
                }
            }
            do {
                let report = try await batch.result()
                await printer.value
                let counts = report.counts
                print(
                    "\(report.state): \(counts.uploaded) uploaded, \(counts.downloaded) downloaded, \(counts.unchanged) unchanged, "
                        + "\(counts.deleted) deleted, \(counts.failed) failed, \(counts.refused) refused, "
                        + "\(counts.doneInEarlierRuns) done before; \(report.bytesTransferred) bytes moved")
                if report.hasFailures { succeeded = false }
            } catch let error as OSSClientError {
                await printer.value
                FileHandle.standardError.write(Data("error: \(error.code.rawValue): \(error.message)\n".utf8))
                succeeded = false
            }
        }
        return succeeded
    }
}
