import OSSResumable

/// The progress of one transfer: the state machine's confirmed totals, and with
/// ``OSSTransferProgressGranularity/bytes`` the bytes of the parts in flight too.
struct OSSTransferProgressReporter: Sendable {
    let handler: OSSProgressHandler?
    /// The byte-level progress, with ``OSSTransferProgressGranularity/bytes``.
    let bytes: OSSTransferByteProgress?

    init(handler: OSSProgressHandler?, granularity: OSSTransferProgressGranularity) {
        self.handler = handler
        bytes = granularity == .bytes ? handler.map(OSSTransferByteProgress.init(handler:)) : nil
    }

    /// The machine confirmed `total` of `expected` bytes, `step` of them new.
    func confirmed(step: Int64, total: Int64, expected: Int64) {
        if let bytes {
            bytes.confirmed(total: total, expected: expected)
        } else {
            handler?(step, total, expected)
        }
    }

    /// The callback for the bytes `part`'s current attempt moved; `nil` without byte-level progress.
    func callback(for part: OSSPart, expected: Int64) -> (@Sendable (Int64) -> Void)? {
        OSSTransferByteProgress.callback(bytes, part: part, expected: expected)
    }

    /// The parts start moving from scratch (what was reported stays reported).
    func restart() { bytes?.restart() }

    /// A part was confirmed: its bytes count through ``confirmed(step:total:expected:)`` from now on.
    func partConfirmed(number: Int) { bytes?.partConfirmed(number: number) }
}
