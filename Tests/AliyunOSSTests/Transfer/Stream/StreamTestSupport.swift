@testable import AliyunOSS
import Foundation
import OSSLocalServer
import Testing

/// `bytes` as an `AsyncSequence` of `Data` chunks of `chunkSize` (the last one shorter), optionally reporting each
/// pull (the bytes handed out so far) and then failing or waiting for cancellation after `stopAfter` bytes.
struct ChunkedBytes: AsyncSequence, Sendable {
    typealias Element = Data
    enum Stop: Sendable { case end, fail, waitForCancellation }

    let bytes: [UInt8]
    let chunkSize: Int
    var stopAfter: Int?
    var stop: Stop = .end
    var onPull: (@Sendable (Int) -> Void)?
    var onBlocked: (@Sendable () -> Void)?

    struct SourceFailure: Error {}

    struct AsyncIterator: AsyncIteratorProtocol {
        let source: ChunkedBytes
        var position = 0

        mutating func next() async throws -> Data? {
            let limit = source.stopAfter ?? source.bytes.count
            if position >= limit {
                switch source.stop {
                case .end: return nil
                case .fail: throw SourceFailure()
                case .waitForCancellation:
                    source.onBlocked?()
                    try await Task.sleep(for: .seconds(600))
                    return nil
                }
            }
            let end = Swift.min(limit, position + source.chunkSize)
            let chunk = Data(source.bytes[position..<end])
            position = end
            source.onPull?(position)
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(source: self) }
}

/// `bytes` one byte at a time.
struct SingleBytes: AsyncSequence, Sendable {
    typealias Element = UInt8
    let bytes: [UInt8]

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: IndexingIterator<[UInt8]>
        mutating func next() async -> UInt8? { base.next() }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: bytes.makeIterator()) }
}

/// The object's bytes, read whole.
func objectBytes(_ client: OSSClient, _ key: String) async throws -> [UInt8] {
    let result = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: key))
    return [UInt8](result.content ?? Data())
}

/// The multipart uploads in progress in bucket `bkt`.
func uploadsInProgress(_ client: OSSClient) async throws -> [OSSMultipartUploadInfo] {
    try await client.listMultipartUploads(OSSListMultipartUploadsRequest(bucketName: "bkt")).uploads
}

/// Everything a stream yields, in order, with the error that ended it (nil for a normal end).
func drainStream(_ stream: OSSObjectStream) async -> (bytes: [UInt8], error: (any Error)?) {
    var bytes: [UInt8] = []
    do {
        for try await chunk in stream { bytes += chunk }
        return (bytes, nil)
    } catch {
        return (bytes, error)
    }
}

/// Shared by a test and the closures it hands out.
final class Box<Value: Sendable>: Sendable {
    private let state: OSSLockedValue<Value>
    init(_ value: Value) { state = OSSLockedValue(value) }
    func update<R>(_ body: (inout Value) -> R) -> R { state.withLockedValue(body) }
    var value: Value { state.withLockedValue { $0 } }
}
