import AliyunOSS
import Foundation
import NIOConcurrencyHelpers
import OSSLocalServer
import Testing

#if canImport(CNIOLinux)
// stat(): with MemberImportVisibility its declaration belongs to the C module that loaded <sys/stat.h> first, which
// can be NIO's shim.
import CNIOLinux
#endif

/// A fresh directory for one resumable-download test (destination, record directory), removed by `cleanup()`.
struct RDScratch {
    let root: URL

    init() throws {
        root = FileManager.default.temporaryDirectory
            .appendingPathComponent("aliyun-oss-rd-tests", isDirectory: true)
            .appendingPathComponent(UUID().uuidString, isDirectory: true)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    var destination: URL { root.appendingPathComponent("download.bin") }
    var recordDirectory: String { root.appendingPathComponent("records").path }

    /// The files in the destination's directory other than the destination and the record directory.
    func leftovers() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: root.path)
            .filter { $0 != "download.bin" && $0 != "records" }.sorted()
    }

    /// The temporary files beside the destination.
    func temporaryFiles() throws -> [String] {
        try leftovers().filter { $0.hasPrefix("download.bin.osstmp-") }
    }

    /// The download records in the record directory.
    func records() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: recordDirectory)) ?? [])
            .filter { $0.hasSuffix(".download.record") }
    }

    func destinationBytes() throws -> [UInt8] {
        Array(try Data(contentsOf: destination))
    }

    func cleanup() {
        try? FileManager.default.removeItem(at: root)
    }
}

/// Counts progress callbacks and can cancel a request after a given number of them.
final class RDProgressLog: Sendable {
    private struct State {
        var reports: [(Int64, Int64, Int64)] = []
    }

    private let state = NIOLockedValueBox(State())

    var reports: [(step: Int64, total: Int64, expected: Int64)] {
        state.withLockedValue { $0.reports.map { (step: $0.0, total: $0.1, expected: $0.2) } }
    }

    /// A handler that logs, and calls `action` with the report count after each report.
    func handler(_ action: @escaping @Sendable (Int) -> Void = { _ in }) -> OSSProgressHandler {
        { step, total, expected in
            let count = self.state.withLockedValue { state -> Int in
                state.reports.append((step, total, expected))
                return state.reports.count
            }
            action(count)
        }
    }

    /// Checks that progress never ran backwards, steps add up, and the last report is `expected`/`expected`.
    func verifyMonotonic(startingAt start: Int64 = 0, expected: Int64) {
        var previous = start
        for report in reports {
            #expect(report.total >= previous)
            #expect(report.total - report.step == previous)
            #expect(report.expected == expected)
            previous = report.total
        }
        if expected > start { #expect(previous == expected) }
    }
}

let rdPartSize: Int64 = 102_400

/// Puts `bytes` as `key` in bucket `bkt`.
func rdPut(_ client: OSSClient, _ key: String, _ bytes: [UInt8]) async throws {
    _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: key, data: Data(bytes)))
}

/// The bytes GetObject sent since the last stats reset.
func rdGetBytes(_ server: LocalOSSServer) async -> Int64 {
    await server.stats()[.getObject].responseBodyBytes
}

func rdRequest(
    _ key: String, _ scratch: RDScratch, record: Bool = true, partSize: Int64 = rdPartSize, threads: Int = 3,
    range: OSSObjectRange? = nil, policy: OSSDownloadObjectChangedPolicy = .fail, progress: OSSProgressHandler? = nil
) -> OSSResumableDownloadRequest {
    OSSResumableDownloadRequest(
        bucketName: "bkt", objectKey: key, downloadToFileURL: scratch.destination, partSize: partSize,
        threadNum: threads, recordDirectoryPath: record ? scratch.recordDirectory : nil, range: range,
        objectChangedPolicy: policy, downloadProgress: progress)
}


/// How many bytes of `object` a temporary file `file` holds at their place: for each part of `partSize`, the length
/// of its longest prefix equal to the object's bytes (what a resume could keep).
func rdHeldBytes(_ file: Data, of object: [UInt8], partSize: Int64) -> Int64 {
    let block = 4096
    return file.withUnsafeBytes { left in
        object.withUnsafeBytes { source in
            var held = 0
            for start in stride(from: 0, to: min(left.count, source.count), by: Int(partSize)) {
                let end = min(start + Int(partSize), left.count, source.count)
                var position = start
                while position < end {
                    let count = min(block, end - position)
                    if memcmp(left.baseAddress! + position, source.baseAddress! + position, count) == 0 {
                        position += count
                        continue
                    }
                    while position < end, left[position] == source[position] { position += 1 }
                    break
                }
                held += position - start
            }
            return Int64(held)
        }
    }
}

/// The bytes written so far into the download's (sparse) temporary file: its allocated blocks; 0 when there is none.
func rdAllocatedBytes(_ scratch: RDScratch) -> Int64 {
    guard let name = try? scratch.temporaryFiles().first else { return 0 }
    var status = stat()
    guard stat(scratch.root.appendingPathComponent(name).path, &status) == 0 else { return 0 }
    return Int64(status.st_blocks) * 512
}
