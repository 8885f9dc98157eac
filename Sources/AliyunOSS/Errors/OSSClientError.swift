/// A failure on the client side: bad input, a transport error, a checksum mismatch, cancellation.
///
/// Together with ``OSSServerError`` this is the only error the public API throws.
public struct OSSClientError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public var code: OSSClientErrorCode
    /// A human-readable explanation. Never contains secrets.
    public var message: String
    /// The error that caused this one, if any.
    public var underlying: (any Error)?

    public init(_ code: OSSClientErrorCode, _ message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    public var description: String {
        if let underlying {
            return "OSSClientError(\(code.rawValue)): \(message) (underlying: \(underlying))"
        }
        return "OSSClientError(\(code.rawValue)): \(message)"
    }

    static func invalidArgument(_ message: String) -> Self { Self(.invalidArgument, message) }
    static func cancelled(_ underlying: (any Error)? = nil) -> Self {
        Self(.taskCancelled, "the task was cancelled", underlying: underlying)
    }
}
