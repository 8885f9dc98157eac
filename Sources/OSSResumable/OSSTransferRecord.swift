/// A checkpoint record the codec and the store can handle.
public protocol OSSTransferRecord: Codable, Sendable, Hashable {
    /// The kind written in the envelope and checked on decode.
    static var recordKind: OSSRecordKind { get }
    /// The record's own kind field (checked against ``recordKind``).
    var kind: OSSRecordKind { get }
    /// Semantic checks after decoding: sizes, part numbers, ranges.
    func validate() throws(OSSResumableError)
}
