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
