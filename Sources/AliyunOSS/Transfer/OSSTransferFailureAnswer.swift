/// What a failed step (or the worst failure of a batch of parts) means for the state machine
/// (``OSSTransferEffects/failureAnswer(for:)``).
enum OSSTransferFailureAnswer<Event: Sendable> {
    /// The transfer failed: the error becomes the driver's cause (when it has none) and `event` is fed.
    case failure(Event)
    /// Not a failure of the transfer but news the machine reacts to (the upload vanished, the object was
    /// replaced): `event` is fed and the error is not kept as the cause.
    case news(Event)
}
