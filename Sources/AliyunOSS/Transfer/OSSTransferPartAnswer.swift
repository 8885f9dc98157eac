import OSSResumable

/// What one part's child task of the ``OSSTransferDriver`` ended with: the machine's event, or the error.
struct OSSTransferPartAnswer<Event: Sendable>: Sendable {
    let part: OSSPart
    let result: Result<Event, any Error>
}
