import Logging
import NIOCore
import OSSCRC64
import OSSResumable
import _NIOFileSystem

extension OSSResumableDownloadEngine {
    /// What one part GET ended with.
    enum PartResult: Sendable {
        case downloaded(number: Int, crc64: UInt64)
        case failed(number: Int, error: any Error)
    }

    /// Fetches `parts` with at most `threadNum` in flight, feeding each completion to the machine as it
    /// arrives. The first failure stops new parts and cancels the ones in flight; parts that still finish are
    /// recorded. Then the failure is classified: cancellation, object changed (412), or a resumable or final error.
    func download(etag: String, rangeStart: Int64, path: String, parts: [OSSPart]) async {
        do {
            try await openHandle(path: path)
        } catch {
            await fail(error)
            return
        }
        guard let handle else { return }
        let client = self.client
        let bucket = request.bucketName
        let key = request.objectKey
        let byteProgress = self.byteProgress
        let expected = machine.plan?.totalLength ?? 0
        var pending = parts.makeIterator()
        var failures: [any Error] = []
        let getHeaders = self.getHeaders  // parity-b
        await withTaskGroup(of: PartResult.self) { group in
            func startNext() {
                guard let part = pending.next() else { return }
                group.addTask {
                    do {
                        let progress = OSSTransferByteProgress.callback(byteProgress, part: part, expected: expected)
                        let crc = try await Self.fetch(
                            client: client, bucket: bucket, key: key, etag: etag, part: part,
                            fileOffset: part.offset - rangeStart, handle: handle, progress: progress,
                            headers: getHeaders)
                        return .downloaded(number: part.number, crc64: crc)
                    } catch {
                        return .failed(number: part.number, error: error)
                    }
                }
            }
            for _ in 0..<threadNum { startNext() }
            var stopping = false
            while let result = await group.next() {
                switch result {
                case .downloaded(let number, let crc):
                    byteProgress?.partConfirmed(number: number)
                    await perform(machine.handle(.partDownloaded(number: number, crc64: crc)))
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
                        startNext()
                    }
                }
            }
        }
        guard outcome == nil, !failures.isEmpty || isStopping else { return }
        // Parts cancelled by `cancelAll()` after another part failed report cancellation too: only the
        // caller's cancellation (of this task, or by the request) counts as a cancel.
        if isStopping {
            await fail(failures.first(where: Self.isCancellation) ?? OSSClientError(.taskCancelled, "the task was cancelled"))
            return
        }
        failures.removeAll(where: Self.isCancellation)
        if failures.contains(where: Self.isPreconditionFailed) {
            logger.info(
                "the object changed during the download (412 on If-Match)", metadata: ["key": "\(request.objectKey)"])
            await perform(machine.handle(.objectChanged))
        } else if let terminal = failures.first(where: { !Self.isResumable($0) }) ?? failures.first {
            await fail(terminal)
        } else {
            await fail(OSSClientError(.taskCancelled, "the part downloads were cancelled"))
        }
    }

    /// One ranged GET: `If-Match` pins the object version, `x-oss-range-behavior: standard` makes the range
    /// exact; the answer must be 206 with the expected `Content-Range` and exactly `part.length` bytes, which are
    /// streamed into `handle` at `fileOffset` chunk by chunk (never a whole part in memory) while their CRC-64
    /// is computed. Network failures and 5xx are retried by the client pipeline, each attempt rewriting the
    /// part from its start.
    static func fetch(
        client: OSSClient, bucket: String, key: String, etag: String, part: OSSPart, fileOffset: Int64,
        handle: WriteFileHandle, progress: (@Sendable (Int64) -> Void)? = nil, headers: [String: String] = [:]
    ) async throws -> UInt64 {
        var get = OSSGetObjectRequest(
            bucketName: bucket, objectKey: key, range: .closed(part.offset, part.end - 1), standardRangeBehavior: true,
            ifMatch: etag)
        get.headers = headers  // parity-b: the request's headers and traffic limit
        let operation = try OSSClient.getOperation(get)
        return try await client.execute(operation) { response in
            guard response.status == 206 else {
                throw OSSClientError(
                    .exceptionCaught,
                    "GetObject \(key) answered \(response.status) to a range request for \(part); expected 206")
            }
            guard let range = response.headers["content-range"].flatMap({ OSSContentRange($0) }),
                range.start == part.offset, range.end == part.end - 1
            else {
                throw OSSClientError(
                    .exceptionCaught,
                    "GetObject \(key): Content-Range \(response.headers["content-range"] ?? "missing") does not match \(part)")
            }
            if let announced = response.headers["content-length"].flatMap({ Int64($0) }), announced != part.length {
                throw OSSClientError(
                    .exceptionCaught, "GetObject \(key): Content-Length \(announced) does not match \(part)")
            }
            var crc = CRC64()
            var received: Int64 = 0
            for try await chunk in response.body {
                let count = Int64(chunk.readableBytes)
                guard received + count <= part.length else {
                    throw OSSClientError(.exceptionCaught, "GetObject \(key) sent more bytes than \(part) holds")
                }
                chunk.withUnsafeReadableBytes { crc.update($0) }
                do {
                    try await handle.write(contentsOf: chunk, toAbsoluteOffset: fileOffset + received)
                } catch {
                    throw OSSClientError(.fileCantWrite, "cannot write \(part) to the temporary file", underlying: error)
                }
                received += count
                // Each attempt starts from zero; the part's high-water mark keeps the total from going back.
                progress?(received)
            }
            guard received == part.length else {
                throw OSSClientError(.networkError, "the body of \(part) ended after \(received) of \(part.length) bytes")
            }
            return crc.value
        }
    }
}
