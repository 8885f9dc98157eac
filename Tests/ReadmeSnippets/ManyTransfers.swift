// The ```swift blocks of README.md, verbatim (DocSnippetsTests checks it), each in the context a reader gives it.
// A block that begins with imports sits in a file with exactly those imports, so a missing one fails to compile.
import AliyunOSS
import Foundation

// MARK: After a restart: the transfer manager

func afterARestart(client: OSSClient) async throws {
    let manager = OSSTransferManager(client: client, recordDirectoryPath: "/var/tmp/oss-records")
    for transfer in try await manager.transfers() {          // uploads and downloads with a record on disk
        print(transfer.id, transfer.kind, transfer.state, transfer.bytesDone, transfer.totalBytes)
        let token = try await manager.resumeToken(for: transfer.id)   // Codable and inspectable: restore(_:) it later
        print(String(decoding: try JSONEncoder().encode(token), as: UTF8.self))
    }
    _ = try await manager.resumeAll()                        // or resume(id), pause(id), terminate(id)
}

// MARK: Many files: directories, sync, one scheduler

func manyFiles(chunks: AsyncStream<Data>, consume: (Data) -> Void) async throws {
    // Every transfer of a client shares one scheduler: transfers at once, parts in flight, a memory budget.
    var configuration = OSSClientConfiguration(region: "cn-hangzhou", signatureVersion: .v4)
    configuration.transferLimits = OSSTransferLimits(transfers: 8, partsInFlight: 16, memoryBudget: 64 << 20)
    let client = try OSSClient(
        endpoint: "https://oss-cn-hangzhou.aliyuncs.com", credentialProvider: OSSEnvironmentCredentialProvider(),
        configuration: configuration)

    // A directory to a prefix, only what differs, resumable after a kill (its journal lives in the record directory).
    let manager = OSSTransferManager(client: client, recordDirectoryPath: "/var/tmp/oss-records")
    var options = OSSDirectoryTransferOptions()
    options.mode = .sync(.sizeAndModificationTime)     // or .copy, or .sync(.checksum) (CRC-64 against the server's)
    options.exclude = [".git", "*.tmp"]                 // an excluded directory is not even walked
    options.deleteExtras = true                         // with options.dryRun = true to see what would happen first
    let batch = try await manager.uploadDirectory(
        URL(fileURLWithPath: "/data/site"), toBucket: "my-bucket", prefix: "site/", options: options)
    // batch.progress is a Foundation Progress for a progress view; batch.events streams items and progress.
    let report = try await batch.result()
    print(report.counts.uploaded, report.counts.unchanged, report.counts.failed)
    for info in try await manager.batches() where info.state.isResumable {   // after a relaunch
        _ = try await manager.resumeBatch(info.id).result()   // finished files are not sent again
    }
    // The other way: manager.downloadDirectory(fromBucket:prefix:to:options:); a key such as "../x" is refused, never
    // written outside the directory.

    // Streams of unknown length, both ways: `chunks` is any AsyncSequence of Data (or [UInt8]).
    let uploaded = try await client.uploadStream(chunks, bucket: "my-bucket", key: "logs/today.gz")
    print(uploaded.totalBytes, uploaded.eTag ?? "")
    for try await chunk in try await client.downloadStream(bucket: "my-bucket", key: "logs/today.gz") {
        consume(chunk)                                  // backpressure: at most bufferSize bytes read ahead
    }
}
