/// One planned part of a multipart upload or a parallel download: its 1-based number and its byte span.
///
/// For uploads the offset is into the local file; for downloads it is into the object (and the temporary file
/// holds the same bytes at `offset - range.start`).
public struct OSSPart: Sendable, Hashable, Codable, CustomStringConvertible {
    /// 1-based part number (OSS allows 1...10000 for uploads).
    public let number: Int
    /// Offset of the part's first byte.
    public let offset: Int64
    /// Number of bytes in the part.
    public let length: Int64

    public init(number: Int, offset: Int64, length: Int64) {
        self.number = number
        self.offset = offset
        self.length = length
    }

    /// One past the part's last byte.
    public var end: Int64 { offset + length }

    public var description: String { "part \(number) [\(offset), \(offset + length))" }
}
