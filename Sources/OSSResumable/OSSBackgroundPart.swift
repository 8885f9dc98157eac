/// One part of a background transfer: a span of the local file (upload) or of the object (download), and its
/// state. An upload part also records the CRC-64 and MD5 of the bytes handed to the system and its copy's name.
package struct OSSBackgroundPart: Sendable, Hashable, Codable {
    package let number: Int
    /// Offset of the part in the file (upload) or in the object and the temporary file (download).
    package let offset: Int64
    package let length: Int64
    /// Upload: CRC-64 of the part's bytes, computed while its copy was made (`nil` before that).
    package var crc64: UInt64?
    /// Upload: Base64 MD5 of the part's bytes (sent as `Content-MD5`, so the server refuses other bytes).
    package var contentMD5: String?
    /// Upload: the copy's file name inside the transfer's part directory; `nil` before the copy is made (and in
    /// records of releases that sent a one-part file as it is: the file itself is then sent).
    package var copyName: String?
    package var state: OSSBackgroundPartState
    /// When the presigned URL of the part's queued task expires (seconds since 1970): an attach replaces a task
    /// whose URL expires within a minute with a freshly signed one.
    package var signedUntil: Int64?

    package init(number: Int, offset: Int64, length: Int64, state: OSSBackgroundPartState = .waiting) {
        self.number = number
        self.offset = offset
        self.length = length
        self.state = state
    }
}
