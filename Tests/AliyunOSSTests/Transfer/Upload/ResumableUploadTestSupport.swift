import AliyunOSS
import Foundation
import NIOConcurrencyHelpers
import OSSLocalServer
import Testing

/// A fresh directory for one resumable-upload test (source file, record directory), removed by `cleanup()`.
struct RUScratch {
    let root: URL

    init() throws {
        root = FileManager.default.temporaryDirectory
            .appendingPathComponent("aliyun-oss-ru-tests", isDirectory: true)
            .appendingPathComponent(UUID().uuidString, isDirectory: true)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    var source: URL { root.appendingPathComponent("source.bin") }
    var recordDirectory: String { root.appendingPathComponent("records").path }

    func write(_ bytes: [UInt8]) throws {
        try Data(bytes).write(to: source)
    }

    /// The upload records (not lock or temporary files) in the record directory.
    func records() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: recordDirectory)) ?? [])
            .filter { $0.hasSuffix(".upload.record") }
    }

    func recordPath() throws -> String {
        let name = try #require(records().first)
        return recordDirectory + "/" + name
    }

    func cleanup() {
        try? FileManager.default.removeItem(at: root)
    }
}

/// Logs progress reports and can act after a given number of them.
final class RUProgressLog: Sendable {
    private let state = NIOLockedValueBox<[(Int64, Int64, Int64)]>([])

    var reports: [(step: Int64, total: Int64, expected: Int64)] {
        state.withLockedValue { $0.map { (step: $0.0, total: $0.1, expected: $0.2) } }
    }

    func handler(_ action: @escaping @Sendable (Int) -> Void = { _ in }) -> OSSProgressHandler {
        { step, total, expected in
            let count = self.state.withLockedValue { reports -> Int in
                reports.append((step, total, expected))
                return reports.count
            }
            action(count)
        }
    }

    /// Progress never ran backwards, the steps add up, and it ends at `expected`.
    func verify(startingAt start: Int64 = 0, expected: Int64) {
        var previous: Int64 = 0
        for (index, report) in reports.enumerated() {
            if index == 0 && start > 0 {
                #expect(report.total == start)
            }
            #expect(report.step > 0)
            #expect(report.total - report.step == previous)
            #expect(report.expected == expected)
            previous = report.total
        }
        #expect(previous == expected)
    }
}

let ruPartSize: Int64 = 102_400

func ruRequest(
    _ key: String, _ scratch: RUScratch, record: Bool = true, threads: Int = 3, deleteOnCancel: Bool = true,
    progress: OSSProgressHandler? = nil
) -> OSSResumableUploadRequest {
    OSSResumableUploadRequest(
        bucketName: "bkt", objectKey: key, uploadingFileURL: scratch.source, partSize: ruPartSize, threadNum: threads,
        recordDirectoryPath: record ? scratch.recordDirectory : nil, deleteUploadIdOnCancelling: deleteOnCancel,
        uploadProgress: progress)
}

/// The object's bytes, read back with a GET (whose CRC the client checks).
func ruObject(_ client: OSSClient, _ key: String) async throws -> [UInt8] {
    let result = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: key))
    return Array(try #require(result.content))
}

/// The multipart uploads in progress for `key`.
func ruUploads(_ client: OSSClient, _ key: String) async throws -> [String] {
    let page = try await client.listMultipartUploads(OSSListMultipartUploadsRequest(bucketName: "bkt", prefix: key))
    return page.uploads.filter { $0.objectKey == key }.map(\.uploadId)
}

/// The bytes UploadPart received since the last stats reset.
func ruPartBytes(_ server: LocalOSSServer) async -> Int64 {
    await server.stats()[.uploadPart].requestBodyBytes
}
