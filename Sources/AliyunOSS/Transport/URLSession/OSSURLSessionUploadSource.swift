import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a URLSession upload task reads its body from, and how the transport reads back the bytes the session
/// reports as sent (for progress and the CRC-64 of what went out).
///
/// Bodies up to ``OSSURLSessionTransport/inMemoryBodyLimit`` are sent from memory (a part is at most threadNum ×
/// partSize in flight, as with any transport); a whole file is sent from the file itself, and a larger range or
/// stream is first copied to a temporary file, so a body is never loaded whole when it is large.
final class OSSURLSessionUploadSource: Sendable {
    enum Storage: Sendable {
        case data(Data)
        case file(URL, descriptor: Int32, offset: Int64, temporary: Bool)
    }

    let storage: Storage
    let length: Int64

    private init(storage: Storage, length: Int64) {
        self.storage = storage
        self.length = length
    }

    deinit {
        if case .file(let url, let descriptor, _, let temporary) = storage {
            _ = close(descriptor)
            if temporary { try? FileManager.default.removeItem(at: url) }
        }
    }

    /// Prepares `body`; `nil` for a request without a body.
    static func make(for body: OSSHTTPBody, inMemoryLimit: Int64) async throws -> OSSURLSessionUploadSource? {
        switch body {
        case .empty:
            return nil
        case .bytes(let data):
            return OSSURLSessionUploadSource(storage: .data(data), length: Int64(data.count))
        case .fileRange(let path, let offset, let length):
            return try await fromFile(path: path, offset: offset, length: length, inMemoryLimit: inMemoryLimit)
        case .stream(let length, let stream):
            return try await fromStream(stream, length: length, inMemoryLimit: inMemoryLimit)
        }
    }

    private static func fromFile(
        path: String, offset: Int64, length: Int64, inMemoryLimit: Int64
    ) async throws -> OSSURLSessionUploadSource {
        let size = try await OSSFileDigest.fileSize(path: path)
        guard offset >= 0, length >= 0, offset <= size, length <= size - offset else {
            throw OSSClientError(.fileCantRead, "\(path) has \(size) bytes; the range \(offset)+\(length) is outside it")
        }
        if offset == 0, length == size {
            return try openFile(URL(fileURLWithPath: path), offset: 0, length: length, temporary: false)
        }
        if length <= inMemoryLimit {
            let chunk = try await OSSFile.withFile(path, .read) { file in
                try await file.read(at: offset, count: Int(length))
            }
            guard chunk.count == length else {
                throw OSSClientError(.fileCantRead, "\(path) became shorter while it was read")
            }
            return OSSURLSessionUploadSource(storage: .data(chunk), length: length)
        }
        let temporary = temporaryURL()
        do {
            try await OSSFile.withFile(path, .read) { input in
                try await OSSFile.withFile(temporary.path, .replace) { output in
                    var position: Int64 = 0
                    try await input.forEachChunk(in: offset..<(offset + length), chunkLength: 1 << 20) { chunk in
                        try await output.write(chunk, at: position)
                        position += Int64(chunk.count)
                    }
                }
            }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
        return try openFile(temporary, offset: 0, length: length, temporary: true)
    }

    private static func fromStream(
        _ stream: OSSBodyStream, length: Int64, inMemoryLimit: Int64
    ) async throws -> OSSURLSessionUploadSource {
        if length <= inMemoryLimit {
            var data = Data()
            data.reserveCapacity(Int(length))
            while let chunk = try await stream.next() { data.append(chunk) }
            guard Int64(data.count) == length else {
                throw OSSClientError(.invalidArgument, "the body stream gave \(data.count) bytes, not the declared \(length)")
            }
            return OSSURLSessionUploadSource(storage: .data(data), length: length)
        }
        let temporary = temporaryURL()
        let written: Int64
        do {
            written = try await OSSFile.withFile(temporary.path, .replace) { output in
                var position: Int64 = 0
                while let chunk = try await stream.next() {
                    try await output.write(chunk, at: position)
                    position += Int64(chunk.count)
                }
                return position
            }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
        guard written == length else {
            try? FileManager.default.removeItem(at: temporary)
            throw OSSClientError(.invalidArgument, "the body stream gave \(written) bytes, not the declared \(length)")
        }
        return try openFile(temporary, offset: 0, length: length, temporary: true)
    }

    private static func openFile(_ url: URL, offset: Int64, length: Int64, temporary: Bool) throws -> OSSURLSessionUploadSource {
        let descriptor = open(url.path, O_RDONLY)
        guard descriptor >= 0 else {
            if temporary { try? FileManager.default.removeItem(at: url) }
            throw OSSClientError.file(writing: false, "cannot open \(url.path)", errno: errno)
        }
        return OSSURLSessionUploadSource(
            storage: .file(url, descriptor: descriptor, offset: offset, temporary: temporary), length: length)
    }

    private static func temporaryURL() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("oss-upload-\(UUID().uuidString).part")
    }

    /// Makes the task that sends `request` with this body.
    ///
    /// On Linux a file body is streamed from an `InputStream`, not given to `uploadTask(with:fromFile:)`.
    /// FoundationNetworking (6.3) reads such a file with DispatchIO and, when a read completes, un-pauses the curl
    /// handle with `try!`. If the exchange ended first (the server answered early or dropped the connection), libcurl
    /// refuses the call (`CURLE_BAD_FUNCTION_ARGUMENT`) and the process dies
    /// (`EasyHandle.swift:484: Fatal error: 'try!' … libcurl.Easy Code=43`). A stream is read inside curl's own
    /// callback, so nothing arrives after the end. libcurl would send a stream of unknown length chunked, beside
    /// the request's Content-Length; a blank `Transfer-Encoding` turns that off (curl drops a custom header with no
    /// value and uses the Content-Length). On Apple platforms the file goes to the session as before.
    func makeTask(in session: URLSession, with request: URLRequest) -> URLSessionTask {
        switch storage {
        case .data(let data):
            return session.uploadTask(with: request, from: data)
        case .file(let url, _, _, _):
            #if canImport(FoundationNetworking)
            var streamed = request
            streamed.httpBodyStream = InputStream(url: url)
            streamed.setValue(String(length), forHTTPHeaderField: "Content-Length")
            streamed.setValue(" ", forHTTPHeaderField: "Transfer-Encoding")
            return session.dataTask(with: streamed)
            #else
            return session.uploadTask(with: request, fromFile: url)
            #endif
        }
    }

    /// The body bytes in `range` (as reported sent by the session), or nil if they cannot be read back.
    func bytes(in range: Range<Int64>) -> Data? {
        guard range.lowerBound >= 0, range.upperBound <= length, !range.isEmpty else { return nil }
        switch storage {
        case .data(let data):
            let start = data.startIndex + Int(range.lowerBound)
            return data[start..<(start + range.count)]
        case .file(_, let descriptor, let offset, _):
            var data = Data(count: range.count)
            let read = data.withUnsafeMutableBytes { pointer in
                var done = 0
                while done < range.count {
                    let result = pread(
                        descriptor, pointer.baseAddress! + done, range.count - done,
                        off_t(offset + range.lowerBound + Int64(done)))
                    if result <= 0 { break }
                    done += result
                }
                return done
            }
            return read == range.count ? data : nil
        }
    }
}
