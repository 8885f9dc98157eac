#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import OSSResumable

extension OSSResumableUploadEngine {
    /// What one part upload ended with.
    enum PartResult: Sendable {
        case uploaded(number: Int, etag: String, localCRC64: UInt64?, serverCRC64: UInt64?)
        case failed(number: Int, error: any Error)
    }

    /// Sends `parts` with at most `threadNum` in flight, feeding each confirmation to the machine as it arrives
    /// (which writes the record). Parts the machine asks to re-send (a CRC disagreement) join the queue. The first
    /// failure stops new parts and cancels the ones in flight (they are cancelled, not awaited to completion);
    /// parts that still finish are recorded. Then the failure is classified: cancellation, NoSuchUpload (a new
    /// upload), or a failure that keeps the record.
    func upload(uploadId: String, parts: [OSSPart]) async {
        let client = self.client
        let bucket = request.bucketName
        let key = request.objectKey
        let path = filePath
        let integrity = partIntegrity
        let byteProgress = self.byteProgress
        let expected = machine.totalBytes
        var queue = parts[...]
        var failures: [any Error] = []
        var followUp: [OSSUploadStateMachine.Action] = []
        let partHeaders = self.partHeaders  // parity-b
        await withTaskGroup(of: PartResult.self) { group in
            var inFlight = 0
            func startNext() {
                guard let part = queue.popFirst() else { return }
                inFlight += 1
                group.addTask {
                    do {
                        let progress = OSSTransferByteProgress.callback(byteProgress, part: part, expected: expected)
                        return try await Self.send(
                            client: client, bucket: bucket, key: key, uploadId: uploadId, part: part, path: path,
                            integrity: integrity, progress: progress, headers: partHeaders)
                    } catch {
                        return .failed(number: part.number, error: error)
                    }
                }
            }
            for _ in 0..<threadNum { startNext() }
            var stopping = false
            while let result = await group.next() {
                inFlight -= 1
                switch result {
                case .uploaded(let number, let etag, let local, let server):
                    let actions = machine.handle(
                        .partUploaded(
                            uploadId: uploadId, number: number, etag: etag, localCRC64: local, serverCRC64: server))
                    let resent = actions.contains { action in
                        if case .uploadParts(_, let again) = action { again.contains { $0.number == number } } else { false }
                    }
                    // A confirmed part counts through the machine's total from now on; a part sent again keeps its
                    // high-water mark, so its second sending is not counted twice.
                    if !resent { byteProgress?.partConfirmed(number: number) }
                    for action in actions {
                        if case .uploadParts(_, let again) = action {
                            queue.append(contentsOf: again)
                        } else if case .recheckFile = action {
                            followUp.append(action)
                        } else {
                            await perform([action])
                        }
                        if outcome != nil { break }
                    }
                    if outcome != nil && !stopping {
                        stopping = true
                        group.cancelAll()
                    }
                case .failed(_, let error):
                    failures.append(error)
                    if !stopping {
                        stopping = true
                        group.cancelAll()
                    }
                }
                if !stopping {
                    if isStopping {
                        stopping = true
                        group.cancelAll()
                    } else {
                        while inFlight < threadNum && !queue.isEmpty { startNext() }
                    }
                }
            }
        }
        guard outcome == nil else { return }
        // Siblings cancelled by cancelAll() after a real failure also report cancellation: only the user's cancel
        // (or the caller's Task cancellation) counts as a cancel; otherwise the first real failure decides.
        let realFailures = failures.filter { !Self.isCancellation($0) }
        if isStopping {
            await fail(failures.first(where: Self.isCancellation) ?? CancellationError())
        } else if realFailures.contains(where: Self.isNoSuchUpload) {
            logger.info(
                "the multipart upload vanished during the upload; starting a new one",
                metadata: ["uploadId": "\(uploadId)", "key": "\(request.objectKey)"])
            await perform(machine.handle(.uploadNotFound))
        } else if let first = realFailures.first ?? failures.first {
            await fail(first)
        } else {
            await perform(followUp)
        }
    }
}
