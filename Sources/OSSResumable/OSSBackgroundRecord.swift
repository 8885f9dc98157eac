import OSSCRC64

/// What the background records share: a transfer id and parts.
package protocol OSSBackgroundRecord: OSSTransferRecord {
    var transferId: String { get }
    var version: Int { get }
    var partSize: Int64 { get }
    var maximumQueuedParts: Int { get }
    var parts: [OSSBackgroundPart] { get set }
    var pausedAt: Int64? { get set }
}

extension OSSBackgroundRecord {
    /// The checks both kinds share: kind, `version`, ids, sizes, and parts that follow each other from offset 0
    /// to `total` (empty parts allowed only when `emptyPartAllowed`); a done part needs a CRC-64.
    func validateCommon(currentVersion: Int, total: Int64, emptyPartAllowed: Bool) throws(OSSResumableError) {
        guard kind == Self.recordKind else {
            throw .recordForeign("a \(kind.rawValue) record where a \(Self.recordKind.rawValue) record was expected")
        }
        guard version == currentVersion else { throw .recordUnsupportedVersion(version) }
        guard !transferId.isEmpty, partSize > 0, total >= 0, maximumQueuedParts >= 1 else {
            throw .recordCorrupt("bad \(Self.recordKind.rawValue) record")
        }
        var expectedOffset: Int64 = 0
        for (index, part) in parts.enumerated() {
            guard part.number == index + 1, part.offset == expectedOffset, part.length >= (emptyPartAllowed ? 0 : 1),
                part.length <= partSize
            else { throw .recordCorrupt("part \(part.number) does not follow the plan") }
            expectedOffset += part.length
        }
        guard expectedOffset == total else { throw .recordCorrupt("the parts do not cover \(total) bytes") }
    }

    /// Bytes of the confirmed parts: where progress starts after a relaunch.
    package var completedBytes: Int64 { parts.reduce(0) { $0 + ($1.state.isDone ? $1.length : 0) } }

    /// How many parts the system may hold now: none while the transfer is paused.
    package var queueLimit: Int { pausedAt == nil ? maximumQueuedParts : 0 }

    /// Whether every part is confirmed.
    package var allPartsDone: Bool { parts.allSatisfy(\.state.isDone) }

    /// The description of part `number`'s task.
    package func taskDescription(part number: Int) -> String {
        OSSBackgroundTaskDescription(transferId: transferId, partNumber: number).description
    }

    /// The CRC-64 of all parts combined, from their recorded CRCs; `nil` unless every part is done.
    package var combinedCRC64: UInt64? {
        var pieces: [(crc: UInt64, length: UInt64)] = []
        for part in parts {
            guard case .done(_, let crc) = part.state else { return nil }
            pieces.append((crc, UInt64(part.length)))
        }
        return pieces.isEmpty ? 0 : CRC64.combine(parts: pieces)
    }
}
