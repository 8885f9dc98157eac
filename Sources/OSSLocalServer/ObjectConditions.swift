import OSSSigning

import Foundation

/// Range and conditional-header evaluation for GetObject/HeadObject (oss-protocol.md §7).
enum ObjectConditions {
    enum Outcome: Equatable {
        case proceed
        case notModified
    }

    /// Applies If-Match, If-Unmodified-Since, If-None-Match, If-Modified-Since in RFC 7232 order.
    static func evaluate(_ context: RequestContext, object: ObjectRecord) throws(LocalOSSError) -> Outcome {
        let etag = unquote(object.etag).uppercased()
        if let ifMatch = context.header("if-match") {
            if !matches(ifMatch, etag: etag) { throw preconditionFailed("If-Match") }
        } else if let since = context.header("if-unmodified-since"), let date = OSSDateFormat.parseRFC1123(since) {
            if object.lastModified > Int64(date.timeIntervalSince1970) { throw preconditionFailed("If-Unmodified-Since") }
        }
        if let ifNoneMatch = context.header("if-none-match") {
            if matches(ifNoneMatch, etag: etag) { return .notModified }
        } else if let since = context.header("if-modified-since"), let date = OSSDateFormat.parseRFC1123(since) {
            if object.lastModified <= Int64(date.timeIntervalSince1970) { return .notModified }
        }
        return .proceed
    }

    private static func matches(_ header: String, etag: String) -> Bool {
        for item in header.split(separator: ",") {
            var value = String(item).trimmingWhitespace()
            if value == "*" { return true }
            if value.hasPrefix("W/") { value = String(value.dropFirst(2)) }
            if unquote(value).uppercased() == etag { return true }
        }
        return false
    }

    static func unquote(_ text: String) -> String {
        var s = Substring(text)
        if s.hasPrefix("\"") { s = s.dropFirst() }
        if s.hasSuffix("\"") { s = s.dropLast() }
        return String(s)
    }

    private static func preconditionFailed(_ condition: String) -> LocalOSSError {
        LocalOSSError(
            412, "PreconditionFailed", "At least one of the pre-conditions you specified did not hold.",
            fields: [("Condition", condition)])
    }

    /// The byte range to send: `nil` for the whole object (200), else the inclusive range (206).
    /// Legacy behaviour ignores invalid or out-of-bounds ranges; `standard` truncates the end and rejects a
    /// start beyond the object with 416 InvalidRange.
    static func range(_ header: String?, size: Int64, standard: Bool) throws(LocalOSSError) -> ClosedRange<Int64>? {
        guard let header else { return nil }
        let trimmed = header.trimmingWhitespace()
        guard trimmed.lowercased().hasPrefix("bytes=") else { return nil }
        let spec = trimmed.dropFirst(6).split(separator: ",", omittingEmptySubsequences: false).first.map {
            String($0).trimmingWhitespace()
        } ?? ""
        guard let dash = spec.firstIndex(of: "-") else { return nil }
        let startText = spec[..<dash]
        let endText = spec[spec.index(after: dash)...]
        let invalidRange = LocalOSSError(
            416, "InvalidRange", "The requested range is not satisfiable.",
            fields: [("RangeRequested", header), ("ActualObjectSize", String(size))],
            headers: [("Content-Range", "bytes */\(size)")])
        if startText.isEmpty {
            guard let n = Int64(endText), n > 0 else { return nil }
            if size == 0 { if standard { throw invalidRange } else { return nil } }
            if n > size && !standard { return nil }
            return max(0, size - n)...(size - 1)
        }
        guard let start = Int64(startText), start >= 0 else { return nil }
        var end: Int64
        if endText.isEmpty {
            end = size - 1
        } else {
            guard let e = Int64(endText) else { return nil }
            end = e
        }
        if start >= size {
            if standard { throw invalidRange }
            return nil
        }
        if end < start { return nil }
        if end >= size {
            if !standard { return nil }
            end = size - 1
        }
        return start...end
    }
}
