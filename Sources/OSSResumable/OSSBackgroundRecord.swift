import OSSCRC64

/// What the background records share: a transfer id and parts.
public protocol OSSBackgroundRecord: OSSTransferRecord {
    var transferId: String { get }
    var parts: [OSSBackgroundPart] { get set }
}

extension OSSBackgroundRecord {
    /// Bytes of the confirmed parts: where progress starts after a relaunch.
    public var completedBytes: Int64 { parts.reduce(0) { $0 + ($1.state.isDone ? $1.length : 0) } }

    /// Whether every part is confirmed.
    public var allPartsDone: Bool { parts.allSatisfy(\.state.isDone) }

    /// The description of part `number`'s task.
    public func taskDescription(part number: Int) -> String {
        OSSBackgroundTaskDescription(transferId: transferId, partNumber: number).description
    }

    /// The CRC-64 of all parts combined, from their recorded CRCs; `nil` unless every part is done.
    public var combinedCRC64: UInt64? {
        var pieces: [(crc: UInt64, length: UInt64)] = []
        for part in parts {
            guard case .done(_, let crc) = part.state else { return nil }
            pieces.append((crc, UInt64(part.length)))
        }
        return pieces.isEmpty ? 0 : CRC64.combine(parts: pieces)
    }
}
