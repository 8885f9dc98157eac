/// A checkpoint record the codec and the store can handle.
package protocol OSSTransferRecord: Codable, Sendable, Hashable {
    /// The kind written in the envelope and checked on decode.
    static var recordKind: OSSRecordKind { get }
    /// The record's own kind field (checked against ``recordKind``).
    var kind: OSSRecordKind { get }
    /// Semantic checks after decoding: sizes, part numbers, ranges.
    func validate() throws(OSSResumableError)
    /// The record as it is stored with a base directory: its local paths inside `base` made relative, and
    /// nothing that a move of the directory changes (an upload's inode and device numbers).
    func relativized(to base: OSSBaseDirectory) -> Self
    /// The record with every relative local path resolved against `base`.
    ///
    /// - Throws: `recordNeedsBaseDirectory` when a path is relative and `base` is `nil`.
    func resolved(against base: OSSBaseDirectory?) throws(OSSResumableError) -> Self
}
