/// The description a background task carries: `"<transfer id>/<part number>"`.
///
/// The system keeps it with the task across process lifetimes (URLSession's `taskDescription`), so a completion
/// delivered to a relaunched process maps back to its transfer's record and part.
package struct OSSBackgroundTaskDescription: Sendable, Hashable, CustomStringConvertible {
    /// The transfer: the name of its background record.
    package let transferId: String
    /// The 1-based part number.
    package let partNumber: Int

    package init(transferId: String, partNumber: Int) {
        self.transferId = transferId
        self.partNumber = partNumber
    }

    /// Parses `"<transfer id>/<part number>"`; `nil` for anything else (a task this SDK did not create).
    package init?(parsing text: String) {
        guard let slash = text.lastIndex(of: "/") else { return nil }
        let id = String(text[..<slash])
        guard !id.isEmpty, let number = Int(text[text.index(after: slash)...]), number >= 1, number <= 10_000 else {
            return nil
        }
        self.init(transferId: id, partNumber: number)
    }

    package var description: String { "\(transferId)/\(partNumber)" }
}
