/// How a file (upload) or an object range (download) is cut into parts.
///
/// The part size starts at the caller's preference, is raised to the minimum, and is doubled while the span
/// would need more than the maximum number of parts (as oss2's `determine_part_size` does), so the same inputs
/// always give the same plan. An empty span is planned as **one empty part** for uploads (OSS completes a
/// multipart upload of one empty part into an empty object) and as **no parts** for downloads (nothing to fetch).
package struct OSSPartPlan: Sendable, Hashable {
    /// The bounds a plan must respect.
    package struct Limits: Sendable, Hashable {
        /// The smallest part size (except for the last part).
        package var minimumPartSize: Int64
        /// The largest part size.
        package var maximumPartSize: Int64
        /// The most parts a plan may have.
        package var maximumPartCount: Int64
        /// Whether an empty span becomes one empty part (uploads) or no parts (downloads).
        package var emptySpanHasOnePart: Bool

        package init(minimumPartSize: Int64, maximumPartSize: Int64, maximumPartCount: Int64, emptySpanHasOnePart: Bool) {
            self.minimumPartSize = minimumPartSize
            self.maximumPartSize = maximumPartSize
            self.maximumPartCount = maximumPartCount
            self.emptySpanHasOnePart = emptySpanHasOnePart
        }

        /// OSS multipart upload: parts of 100 KB (102,400 bytes) to 5 GiB, at most 10,000 of them.
        package static let upload = Limits(
            minimumPartSize: 102_400,
            maximumPartSize: 5 * 1024 * 1024 * 1024,
            maximumPartCount: 10_000,
            emptySpanHasOnePart: true
        )

        /// Parallel ranged download: parts of 64 KiB to 5 GiB, at most 100,000 of them (oss2's download limit).
        package static let download = Limits(
            minimumPartSize: 64 * 1024,
            maximumPartSize: 5 * 1024 * 1024 * 1024,
            maximumPartCount: 100_000,
            emptySpanHasOnePart: false
        )
    }

    /// The span being cut: `[0, fileSize)` for uploads, the object range for downloads.
    package let span: OSSByteRange
    /// The size of every part but the last.
    package let partSize: Int64
    /// The number of parts.
    package let partCount: Int

    /// Plans an upload of a file of `fileSize` bytes with the caller's preferred part size.
    package static func upload(fileSize: Int64, preferredPartSize: Int64) throws(OSSResumableError) -> OSSPartPlan {
        try OSSPartPlan(span: OSSByteRange(start: 0, length: fileSize), preferredPartSize: preferredPartSize, limits: .upload)
    }

    /// Plans a download of `range` (of the object) with the caller's preferred part size.
    package static func download(range: OSSByteRange, preferredPartSize: Int64) throws(OSSResumableError) -> OSSPartPlan {
        try OSSPartPlan(span: range, preferredPartSize: preferredPartSize, limits: .download)
    }

    /// Plans `span` with `preferredPartSize`, growing the part size as needed to fit `limits`.
    package init(span: OSSByteRange, preferredPartSize: Int64, limits: Limits) throws(OSSResumableError) {
        guard preferredPartSize > 0 else {
            throw .invalidArgument("part size \(preferredPartSize) must be positive")
        }
        guard limits.minimumPartSize > 0, limits.maximumPartSize >= limits.minimumPartSize, limits.maximumPartCount > 0
        else { throw .invalidArgument("inconsistent part plan limits") }
        var size = min(max(preferredPartSize, limits.minimumPartSize), limits.maximumPartSize)
        while OSSPartPlan.partCount(length: span.length, partSize: size) > limits.maximumPartCount {
            let doubled = size.multipliedReportingOverflow(by: 2)
            guard !doubled.overflow, doubled.partialValue <= limits.maximumPartSize else {
                // Doubling overshoots the maximum: the maximum is the last candidate.
                guard size < limits.maximumPartSize,
                    OSSPartPlan.partCount(length: span.length, partSize: limits.maximumPartSize) <= limits.maximumPartCount
                else {
                    throw .invalidArgument(
                        "\(span.length) bytes need more than \(limits.maximumPartCount) parts of at most \(limits.maximumPartSize) bytes"
                    )
                }
                size = limits.maximumPartSize
                break
            }
            size = doubled.partialValue
        }
        self.span = span
        self.partSize = size
        let count = OSSPartPlan.partCount(length: span.length, partSize: size)
        self.partCount = Int(count == 0 && limits.emptySpanHasOnePart ? 1 : count)
    }

    /// Rebuilds a plan recorded earlier with a known (already grown) part size, checking it against `limits`.
    package init(span: OSSByteRange, recordedPartSize: Int64, limits: Limits) throws(OSSResumableError) {
        guard recordedPartSize >= limits.minimumPartSize, recordedPartSize <= limits.maximumPartSize else {
            throw .invalidArgument("recorded part size \(recordedPartSize) is outside the allowed bounds")
        }
        let count = OSSPartPlan.partCount(length: span.length, partSize: recordedPartSize)
        guard count <= limits.maximumPartCount else {
            throw .invalidArgument("recorded part size \(recordedPartSize) gives \(count) parts")
        }
        self.span = span
        self.partSize = recordedPartSize
        self.partCount = Int(count == 0 && limits.emptySpanHasOnePart ? 1 : count)
    }

    private static func partCount(length: Int64, partSize: Int64) -> Int64 {
        length / partSize + (length % partSize == 0 ? 0 : 1)
    }

    /// The total number of bytes in all parts.
    package var totalLength: Int64 { span.length }

    /// The part with 1-based `number`, or `nil` if the plan has no such part.
    package func part(number: Int) -> OSSPart? {
        guard number >= 1, number <= partCount else { return nil }
        let index = Int64(number - 1)
        let offset = span.start + index * partSize
        let length = min(partSize, span.end - offset)
        return OSSPart(number: number, offset: offset, length: max(0, length))
    }

    /// All parts, in order.
    package var parts: [OSSPart] {
        (0..<partCount).compactMap { part(number: $0 + 1) }
    }
}

/// One planned part of a multipart upload or a parallel download: its 1-based number and its byte span.
///
/// For uploads the offset is into the local file; for downloads it is into the object (and the temporary file
/// holds the same bytes at `offset - range.start`).
package struct OSSPart: Sendable, Hashable, Codable, CustomStringConvertible {
    /// 1-based part number (OSS allows 1...10000 for uploads).
    package let number: Int
    /// Offset of the part's first byte.
    package let offset: Int64
    /// Number of bytes in the part.
    package let length: Int64

    package init(number: Int, offset: Int64, length: Int64) {
        self.number = number
        self.offset = offset
        self.length = length
    }

    /// One past the part's last byte.
    package var end: Int64 { offset + length }

    package var description: String { "part \(number) [\(offset), \(offset + length))" }
}
