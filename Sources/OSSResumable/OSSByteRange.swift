/// A contiguous span of bytes: `start` and `length` (not an inclusive end), never negative.
package struct OSSByteRange: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The offset of the first byte.
    package let start: Int64
    /// The number of bytes; `0` is an empty range.
    package let length: Int64

    /// A range, or `invalidArgument` if `start` or `length` is negative or `start + length` overflows.
    package init(start: Int64, length: Int64) throws(OSSResumableError) {
        guard start >= 0, length >= 0 else {
            throw .invalidArgument("byte range start \(start) and length \(length) must not be negative")
        }
        guard !start.addingReportingOverflow(length).overflow else {
            throw .invalidArgument("byte range start \(start) + length \(length) overflows")
        }
        self.start = start
        self.length = length
    }

    /// The whole of something `size` bytes long (negative sizes are treated as 0).
    package static func whole(size: Int64) -> OSSByteRange {
        OSSByteRange(unchecked: 0, max(0, size))
    }

    init(unchecked start: Int64, _ length: Int64) {
        self.start = start
        self.length = length
    }

    /// One past the last byte.
    package var end: Int64 { start + length }

    /// Whether the range holds no bytes.
    package var isEmpty: Bool { length == 0 }

    /// The `Range` header form, `bytes=first-last` (inclusive). `nil` for an empty range, which has no HTTP form.
    package var httpRangeHeader: String? {
        isEmpty ? nil : "bytes=\(start)-\(end - 1)"
    }

    /// Resolves a requested object range against the object's size, with OSS's `x-oss-range-behavior: standard`
    /// rules: `first` must be inside the object (`first < size`), and `last` (inclusive, `nil` = to the end) is
    /// truncated to the last byte. A request for `first == 0` on an empty object gives an empty range.
    package static func resolve(first: Int64, last: Int64?, objectSize: Int64) throws(OSSResumableError) -> OSSByteRange {
        guard objectSize >= 0 else { throw .invalidArgument("object size \(objectSize) is negative") }
        guard first >= 0 else { throw .invalidArgument("range start \(first) is negative") }
        if let last, last < first {
            throw .invalidArgument("range end \(last) is before its start \(first)")
        }
        if objectSize == 0 && first == 0 { return OSSByteRange(unchecked: 0, 0) }
        guard first < objectSize else {
            throw .invalidArgument("range start \(first) is not inside the object (\(objectSize) bytes)")
        }
        let lastByte = min(last ?? (objectSize - 1), objectSize - 1)
        return OSSByteRange(unchecked: first, lastByte - first + 1)
    }

    package var description: String { "[\(start), \(end))" }
}
