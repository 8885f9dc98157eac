import Foundation

/// Why a request could not be signed.
public struct OSSSigningError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// The access key id or secret is empty.
        case missingCredentials
        /// V4 signing needs a region (`cn-hangzhou`, not `oss-cn-hangzhou`).
        case missingRegion
        /// The presign expiry is not positive, or longer than V4 allows (7 days).
        case invalidExpiration
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}

extension OSSSigningError: LocalizedError {
    /// The ``description``, so that `localizedDescription` says what happened.
    public var errorDescription: String? { description }
}
