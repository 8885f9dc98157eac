import AliyunOSS
import ArgumentParser
import Dispatch

import Foundation

#if canImport(Glibc)
import Glibc
import Synchronization
#elseif canImport(Darwin)
import Darwin
import os
#endif

/// `oss cp - oss://bucket/key` (standard input, streamed up as it arrives) and `oss cp oss://bucket/key -` (the
/// object streamed to standard output, nothing else written there). No checkpoint: a stream cannot be resumed by
/// running the command again. Ctrl-C aborts the upload (nothing is left on the server) or stops the download;
/// the exit status is 130.
extension Copy {
    func copyStream() async throws {
        if trafficLimit != nil || contentMD5 {
            throw CLIFailure(.clientError, "--traffic-limit and --content-md5 apply to files, not to - (a stream)")
        }
        if source == "-" {
            try await uploadStandardInput()
        } else {
            try await downloadToStandardOutput()
        }
    }

    private func uploadStandardInput() async throws {
        let target = try parseRemote(destination, requireKey: true)
        var options = OSSStreamUploadOptions(concurrency: threads)
        if let partSize { options.partSize = Int(partSize) }
        options.metadata = try objects.metadata()
        let upload = options
        let result = try await withClient(connection) { client in
            try await runInterruptibly {
                try await client.uploadStream(StandardInputChunks(), bucket: target.bucket, key: target.key, options: upload)
            }
        }
        say("uploaded standard input to \(target) (\(formatBytes(result.totalBytes)), "
            + "\(result.partCount == 0 ? "one request" : "\(result.partCount) parts")) etag \(result.eTag ?? "-") "
            + "crc64 \(result.crc64.map(String.init) ?? "-")")
    }

    private func downloadToStandardOutput() async throws {
        let origin = try parseRemote(source, requireKey: true)
        // A closed pipe is seen as EPIPE by the write below, which then ends the process quietly.
        signal(SIGPIPE, SIG_IGN)
        let (bytes, crc) = try await withClient(connection) { client in
            try await runInterruptibly {
                let stream = try await client.downloadStream(
                    OSSDownloadStreamRequest(bucketName: origin.bucket, objectKey: origin.key, versionId: versionId))
                for try await chunk in stream {
                    try await writeToStandardOutput(chunk)
                }
                return (stream.length, stream.crc64)
            }
        }
        printError("downloaded \(origin) to standard output (\(formatBytes(bytes))) crc64 \(crc.map(String.init) ?? "-")")
    }
}

/// Standard input as `Data` chunks of up to 1 MiB. Each blocking `read` runs on a Dispatch thread, never on the
/// cooperative pool; cancellation ends the wait at once (the read in progress is left to finish on its own).
struct StandardInputChunks: AsyncSequence, Sendable {
    typealias Element = Data

    struct AsyncIterator: AsyncIteratorProtocol {
        var ended = false

        mutating func next() async throws -> Data? {
            guard !ended else { return nil }
            let chunk = try await readStandardInput(upTo: 1 << 20)
            if chunk == nil { ended = true }
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator() }
}

/// One `read(0, …)` of up to `count` bytes off the cooperative pool: nil at the end of the input.
private func readStandardInput(upTo count: Int) async throws -> Data? {
    let once = OnceContinuation<Data?>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            once.set(continuation)
            DispatchQueue.global().async {
                var buffer = [UInt8](repeating: 0, count: count)
                while true {
                    let n = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, count) }
                    if n < 0, errno == EINTR { continue }
                    if n < 0 {
                        once.resume(throwing: CLIFailure(.clientError, "cannot read standard input: \(describeErrno(errno))"))
                    } else {
                        once.resume(returning: n == 0 ? nil : Data(buffer[0..<n]))
                    }
                    return
                }
            }
        }
    } onCancel: {
        once.resume(throwing: CancellationError())
    }
}

/// Writes all of `data` to standard output off the cooperative pool (a slow reader of the pipe holds the writer
/// there, and so, through the stream's bounded buffer, the download).
private func writeToStandardOutput(_ data: Data) async throws {
    let once = OnceContinuation<Void>()
    try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            once.set(continuation)
            DispatchQueue.global().async {
                let failure: Int32? = data.withUnsafeBytes { raw in
                    var written = 0
                    while written < raw.count {
                        let n = write(STDOUT_FILENO, raw.baseAddress! + written, raw.count - written)
                        if n < 0, errno == EINTR { continue }
                        if n < 0 { return errno }
                        written += n
                    }
                    return nil
                }
                if let failure {
                    // A reader that went away (`oss cp oss://b/k - | head -c 10`) ends the command quietly.
                    if failure == EPIPE { StandardStreams.readerWentAway() }
                    once.resume(throwing: CLIFailure(.clientError, "cannot write standard output: \(describeErrno(failure))"))
                } else {
                    once.resume(returning: ())
                }
            }
        }
    } onCancel: {
        once.resume(throwing: CancellationError())
    }
}

/// A continuation resumed once, by whichever comes first: the blocking call's answer or cancellation.
private final class OnceContinuation<Value: Sendable>: Sendable {
    private struct State: Sendable {
        var continuation: CheckedContinuation<Value, any Error>?
        var early: Result<Value, any Error>?
    }

    private let state = Locked(State())

    func set(_ continuation: CheckedContinuation<Value, any Error>) {
        let early: Result<Value, any Error>? = state.withLock { state in
            if let early = state.early { return early }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(with: early) }
    }

    func resume(returning value: Value) { resume(with: .success(value)) }

    func resume(throwing error: any Error) { resume(with: .failure(error)) }

    private func resume(with result: Result<Value, any Error>) {
        let continuation: CheckedContinuation<Value, any Error>? = state.withLock { state in
            if let continuation = state.continuation {
                state.continuation = nil
                state.early = .failure(CancellationError())  // resumed: later answers are dropped
                return continuation
            }
            if state.early == nil { state.early = result }
            return nil
        }
        continuation?.resume(with: result)
    }
}

/// A value behind the platform's lock (`OSAllocatedUnfairLock` on Apple platforms, where `Mutex` needs macOS 15,
/// `Mutex` elsewhere); the closure runs synchronously with the lock held.
#if canImport(Darwin)
private struct Locked<Value: Sendable>: Sendable {
    private let lock: OSAllocatedUnfairLock<Value>
    init(_ value: Value) { lock = OSAllocatedUnfairLock(initialState: value) }
    func withLock<R>(_ body: (inout Value) -> R) -> R { lock.withLockUnchecked(body) }
}
#else
private final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    func withLock<R>(_ body: (inout Value) -> R) -> R { mutex.withLock { value -> sending R in body(&value) } }
}
#endif
