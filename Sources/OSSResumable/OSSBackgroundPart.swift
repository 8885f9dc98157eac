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

/// Where one part of a background upload stands, as its record says.
package enum OSSBackgroundPartState: Sendable, Hashable, Codable {
    /// Not handed to the system yet (no temporary copy needed yet).
    case waiting
    /// Handed to the system as a task with this description; its outcome is not known yet.
    case queued(description: String)
    /// Confirmed: the server's `x-oss-hash-crc64ecma` equalled the part copy's CRC-64.
    case done(etag: String, crc64: UInt64)

    /// Whether the part is confirmed.
    package var isDone: Bool {
        if case .done = self { return true }
        return false
    }
}

/// What the system reported for one finished part task, as the reconciler needs it.
package struct OSSBackgroundPartCompletion: Sendable, Hashable {
    /// The task's description (`"<transfer id>/<part number>"`).
    package var description: String
    /// The HTTP status, or `nil` when the task ended without a response (network error, cancelled, force-quit).
    package var status: Int?
    /// The response's `ETag`, quotes kept.
    package var etag: String?
    /// The response's `x-oss-hash-crc64ecma`.
    package var serverCRC64: UInt64?

    package init(description: String, status: Int?, etag: String?, serverCRC64: UInt64?) {
        self.description = description
        self.status = status
        self.etag = etag
        self.serverCRC64 = serverCRC64
    }
}

/// Which parts of a background transfer go to the system next, shared by uploads and downloads.
///
/// A part recorded `queued` that the system still holds (and did not report) is in flight. One recorded
/// `queued` that the system neither holds nor reported never got there (the record was written, then the process
/// died before the submission): it becomes `waiting`. Waiting parts are submitted, in order, while fewer than
/// `maximumQueued` are in flight.
package enum OSSBackgroundPartScheduler {
    package struct Schedule: Sendable, Hashable {
        package var partsToSubmit: [Int]
        package var partsInFlight: [Int]
    }

    /// Updates `states` (indexed like `numbers`) and returns what to submit and what is in flight.
    package static func schedule(
        states: inout [OSSBackgroundPartState], numbers: [Int], reported: Set<Int>, pendingDescriptions: Set<String>,
        maximumQueued: Int
    ) -> Schedule {
        var inFlight: [Int] = []
        for index in states.indices {
            guard case .queued(let description) = states[index], !reported.contains(numbers[index]) else { continue }
            if pendingDescriptions.contains(description) {
                inFlight.append(numbers[index])
            } else {
                states[index] = .waiting
            }
        }
        let room = max(0, maximumQueued - inFlight.count)
        let waiting = states.indices.filter { states[$0] == .waiting }.prefix(room).map { numbers[$0] }
        return Schedule(partsToSubmit: Array(waiting), partsInFlight: inFlight)
    }
}

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
