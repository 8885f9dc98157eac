import NIOCore

import Foundation

/// Reads a `multipart/form-data` body (RFC 7578) as a stream: part headers and small field values are collected
/// with a size limit, the file part is handed on chunk by chunk, so memory is bounded by the limits and the chunk
/// size, never by the file.
///
/// Used by one task (the connection's): `next` pulls the next chunk of the request body, `nil` at its end.
final class MultipartFormParser {
    /// One part's headers.
    struct PartHead: Sendable, Equatable {
        /// The `name` parameter of `Content-Disposition: form-data`.
        var name: String
        /// The `filename` parameter, for a file.
        var fileName: String?
        /// The part's own `Content-Type`.
        var contentType: String?
    }

    /// Why the body is not a well-formed form.
    struct Malformed: Error, Sendable {
        var reason: String
    }

    /// A field value longer than the limit.
    struct FieldTooLarge: Error, Sendable {
        var name: String
        var limit: Int
    }

    private let next: () async throws -> ByteBuffer?
    /// `\r\n--<boundary>`: what ends every part (the body's first delimiter has no leading CRLF; see `init`).
    private let delimiter: [UInt8]
    private var buffer = ByteBuffer()
    private var ended = false
    /// Whether the current part's data has been read up to its delimiter.
    private var partDone = true
    /// Whether the closing delimiter (`--<boundary>--`) has been read.
    private(set) var closed = false
    /// The longest part header block accepted.
    static let maximumHeaderBytes = 8 * 1024

    init(boundary: String, next: @escaping () async throws -> ByteBuffer?) {
        self.delimiter = Array("\r\n--\(boundary)".utf8)
        self.next = next
        // The first delimiter starts the body: pretend a CRLF came before it so every delimiter looks the same.
        buffer.writeBytes([0x0D, 0x0A])
    }

    /// Whether `contentType` is `multipart/form-data`, with or without a (usable) boundary.
    static func isForm(contentType: String) -> Bool {
        contentType.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() == "multipart/form-data"
    }

    /// The boundary of a `multipart/form-data` content type, or `nil` for any other type.
    static func boundary(ofContentType contentType: String) -> String? {
        let pieces = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let type = pieces.first, type.lowercased() == "multipart/form-data" else { return nil }
        for piece in pieces.dropFirst() {
            let pair = piece.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "boundary" else {
                continue
            }
            var value = pair[1].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            // RFC 2046: 1 to 70 characters.
            return (1...70).contains(value.utf8.count) ? value : nil
        }
        return nil
    }

    /// The next part's headers, or `nil` after the closing delimiter. The rest of the current part is skipped.
    func nextPart() async throws -> PartHead? {
        while !partDone { _ = try await nextChunk() }
        if closed { return nil }
        // Find the delimiter (the preamble, or nothing, comes before the first one).
        while true {
            if let index = find(delimiter, from: 0) {
                buffer.moveReaderIndex(forwardBy: index + delimiter.count)
                break
            }
            // Keep what could be the start of a delimiter, drop the rest (preamble).
            let keep = min(buffer.readableBytes, delimiter.count - 1)
            buffer.moveReaderIndex(forwardBy: buffer.readableBytes - keep)
            guard try await fill() else { throw Malformed(reason: "the body ends before its first boundary") }
        }
        // After a delimiter: `--` closes the form, otherwise optional whitespace and CRLF start a part.
        try await need(2)
        if buffer.readableBytesView.starts(with: [0x2D, 0x2D]) {
            closed = true
            buffer.moveReaderIndex(forwardBy: 2)
            return nil
        }
        let crlf: [UInt8] = [0x0D, 0x0A]
        while true {
            if let index = find(crlf, from: 0) {
                let padding = buffer.readableBytesView.prefix(index)
                guard padding.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) else {
                    throw Malformed(reason: "unexpected bytes after a boundary")
                }
                buffer.moveReaderIndex(forwardBy: index + 2)
                break
            }
            guard buffer.readableBytes < 256 else { throw Malformed(reason: "unexpected bytes after a boundary") }
            guard try await fill() else { throw Malformed(reason: "the body ends inside a boundary line") }
        }
        let head = try await readHeaderBlock()
        partDone = false
        return head
    }

    /// The next chunk of the current part's data, or `nil` at its end (its delimiter).
    func nextChunk() async throws -> ByteBuffer? {
        if partDone { return nil }
        while true {
            if let index = find(delimiter, from: 0) {
                // The delimiter stays in the buffer: nextPart() reads it.
                partDone = true
                let data = buffer.readSlice(length: index)
                return data.flatMap { $0.readableBytes > 0 ? $0 : nil }
            }
            // Everything but a possible delimiter prefix at the end is data.
            let safe = buffer.readableBytes - (delimiter.count - 1)
            if safe > 0 {
                let data = buffer.readSlice(length: safe)
                compact()
                return data
            }
            guard try await fill() else { throw Malformed(reason: "the body ends inside a part") }
        }
    }

    /// The current part's whole value, refusing more than `limit` bytes.
    func readValue(limit: Int, name: String) async throws -> ByteBuffer {
        var value = ByteBuffer()
        while var chunk = try await nextChunk() {
            guard value.readableBytes + chunk.readableBytes <= limit else {
                throw FieldTooLarge(name: name, limit: limit)
            }
            value.writeBuffer(&chunk)
        }
        return value
    }

    // MARK: - Headers

    private func readHeaderBlock() async throws -> PartHead {
        let end: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A]
        var block: String
        // A part with no headers at all starts with the blank line.
        try await need(2)
        if buffer.readableBytesView.starts(with: [0x0D, 0x0A]) {
            buffer.moveReaderIndex(forwardBy: 2)
            block = ""
        } else {
            while true {
                if let index = find(end, from: 0) {
                    block = buffer.readString(length: index) ?? ""
                    buffer.moveReaderIndex(forwardBy: 4)
                    break
                }
                guard buffer.readableBytes <= Self.maximumHeaderBytes else {
                    throw Malformed(reason: "a part's headers are longer than \(Self.maximumHeaderBytes) bytes")
                }
                guard try await fill() else { throw Malformed(reason: "the body ends inside a part's headers") }
            }
        }
        var name: String?
        var fileName: String?
        var contentType: String?
        for line in block.split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { throw Malformed(reason: "a part header has no ':'") }
            let field = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            switch field {
            case "content-disposition":
                let parameters = Self.dispositionParameters(value)
                guard parameters.type == "form-data" else {
                    throw Malformed(reason: "a part's Content-Disposition is not form-data")
                }
                name = parameters.values["name"]
                fileName = parameters.values["filename"]
            case "content-type":
                contentType = value
            default:
                continue
            }
        }
        guard let name else { throw Malformed(reason: "a part has no Content-Disposition name") }
        return PartHead(name: name, fileName: fileName, contentType: contentType)
    }

    /// `form-data; name="a"; filename="b.txt"` → type and parameters. A backslash is not an escape: browsers
    /// send `C:\fakepath\b.txt` as it is (and a quote as `%22`, per the HTML standard).
    static func dispositionParameters(_ value: String) -> (type: String, values: [String: String]) {
        var values: [String: String] = [:]
        let bytes = Array(value.utf8)
        var i = 0
        func skipSpaces() { while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 { i += 1 } }
        var typeEnd = 0
        while typeEnd < bytes.count, bytes[typeEnd] != 0x3B { typeEnd += 1 }
        let type = String(decoding: bytes[0..<typeEnd], as: UTF8.self).trimmingCharacters(in: .whitespaces).lowercased()
        i = typeEnd
        while i < bytes.count {
            i += 1  // ';'
            skipSpaces()
            var nameEnd = i
            while nameEnd < bytes.count, bytes[nameEnd] != 0x3D, bytes[nameEnd] != 0x3B { nameEnd += 1 }
            let key = String(decoding: bytes[i..<nameEnd], as: UTF8.self).trimmingCharacters(in: .whitespaces).lowercased()
            i = nameEnd
            guard i < bytes.count, bytes[i] == 0x3D else { continue }
            i += 1
            skipSpaces()
            var raw: [UInt8] = []
            if i < bytes.count, bytes[i] == 0x22 {
                i += 1
                while i < bytes.count, bytes[i] != 0x22 {
                    raw.append(bytes[i])
                    i += 1
                }
                i += 1  // closing quote
                while i < bytes.count, bytes[i] != 0x3B { i += 1 }
            } else {
                while i < bytes.count, bytes[i] != 0x3B { raw.append(bytes[i]); i += 1 }
                while let last = raw.last, last == 0x20 || last == 0x09 { raw.removeLast() }
            }
            if !key.isEmpty { values[key] = String(decoding: raw, as: UTF8.self) }
        }
        return (type, values)
    }

    // MARK: - Buffer

    /// Reads another chunk into the buffer; `false` at the end of the body.
    private func fill() async throws -> Bool {
        if ended { return false }
        guard var chunk = try await next() else {
            ended = true
            return false
        }
        compact()
        buffer.writeBuffer(&chunk)
        return true
    }

    /// Ensures `count` bytes are buffered.
    private func need(_ count: Int) async throws {
        while buffer.readableBytes < count {
            guard try await fill() else { throw Malformed(reason: "the body ends early") }
        }
    }

    private func compact() {
        if buffer.readerIndex > 64 * 1024 { buffer.discardReadBytes() }
    }

    /// The offset (from the reader index) of the first `pattern` at or after `start`.
    private func find(_ pattern: [UInt8], from start: Int) -> Int? {
        buffer.withUnsafeReadableBytes { raw -> Int? in
            guard raw.count >= pattern.count + start, let first = pattern.first else { return nil }
            var i = start
            let last = raw.count - pattern.count
            while i <= last {
                guard let found = raw[i...last].firstIndex(of: first) else { return nil }
                var matches = true
                for j in 1..<pattern.count where raw[found + j] != pattern[j] {
                    matches = false
                    break
                }
                if matches { return found }
                i = found + 1
            }
            return nil
        }
    }
}
