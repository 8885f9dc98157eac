import OSSCRC64

/// Watches a request body as it is sent: forwards progress so it never runs backwards across retries
/// (a retried attempt stays silent until it passes the furthest point an earlier attempt reached), and
/// computes the CRC-64 of the bytes sent in the current attempt.
final class OSSUploadObserver: Sendable {
    private struct State {
        var attemptBytes: Int64 = 0
        var highWater: Int64 = 0
        var crc = CRC64()
    }

    private let state = OSSLockedValue(State())
    private let expected: Int64
    private let progress: OSSProgressHandler?
    private let computeCRC: Bool

    init(expected: Int64, progress: OSSProgressHandler?, computeCRC: Bool) {
        self.expected = expected
        self.progress = progress
        self.computeCRC = computeCRC
    }

    /// A new attempt starts from zero.
    func startAttempt() {
        state.withLockedValue {
            $0.attemptBytes = 0
            $0.crc = CRC64()
        }
    }

    /// The CRC-64 of the bytes sent in the current attempt.
    var crc64: UInt64 { state.withLockedValue { $0.crc.value } }

    /// The number of bytes sent in the current attempt.
    var bytesSent: Int64 { state.withLockedValue { $0.attemptBytes } }

    /// A chunk was handed to the network.
    func observe(_ chunk: UnsafeRawBufferPointer) {
        let count = Int64(chunk.count)
        let report: (Int64, Int64)? = state.withLockedValue { s in
            if computeCRC {
                s.crc.update(chunk)
            }
            s.attemptBytes += count
            guard s.attemptBytes > s.highWater else { return nil }
            let delta = s.attemptBytes - s.highWater
            s.highWater = s.attemptBytes
            return (delta, s.highWater)
        }
        if let progress, let (delta, total) = report {
            progress(delta, total, expected)
        }
    }
}
