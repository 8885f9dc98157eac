#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A single byte range for GetObject. Offsets are inclusive, as in the HTTP `Range` header.
public enum OSSObjectRange: Sendable, Hashable {
    /// `bytes=a-`: from `a` to the end.
    case from(Int64)
    /// `bytes=a-b`: from `a` to `b` inclusive.
    case closed(Int64, Int64)
    /// `bytes=-n`: the last `n` bytes.
    case suffix(Int64)

    /// The `Range` header value.
    public var headerValue: String {
        switch self {
        case .from(let a): "bytes=\(a)-"
        case .closed(let a, let b): "bytes=\(a)-\(b)"
        case .suffix(let n): "bytes=-\(n)"
        }
    }

    func validate() throws {
        switch self {
        case .from(let a) where a >= 0: return
        case .closed(let a, let b) where a >= 0 && b >= a: return
        case .suffix(let n) where n > 0: return
        default: throw OSSClientError.invalidArgument("invalid range \(headerValue)")
        }
    }
}

/// GetObject: downloads an object or a range of it.
public struct OSSGetObjectRequest: Sendable {
    public var bucketName: String
    public var objectKey: String
    /// The byte range to fetch; the whole object when nil.
    public var range: OSSObjectRange?
    /// Sends `x-oss-range-behavior: standard`: an end past the object is truncated and a start past it is a
    /// 416 error, instead of OSS's legacy behaviour of ignoring such a range (status 200, the whole object).
    /// Default false, as in the iOS SDK, so a ported range request gets the answer it got there.
    public var standardRangeBehavior: Bool
    /// `If-Match`: fail with 412 unless the ETag matches.
    public var ifMatch: String?
    /// `If-None-Match`: answer 304 if the ETag matches.
    public var ifNoneMatch: String?
    /// `If-Modified-Since`.
    public var ifModifiedSince: Date?
    /// `If-Unmodified-Since`.
    public var ifUnmodifiedSince: Date?
    public var versionId: String?
    /// Any other headers or query parameters (e.g. `response-content-type`).
    public var headers: [String: String]
    public var parameters: [String: String]
    /// Download progress; the expected total is the response's `Content-Length`.
    public var downloadProgress: OSSProgressHandler?
    /// Whether CRC-64 is checked for this request (the iOS per-request `crcFlag`); `nil` follows the client's
    /// ``OSSClientConfiguration/crcCheckEnabled``.
    public var crcFlag: Bool?
    /// Whether the request is signed (the iOS `isAuthenticationRequired`); `false` reads a public object
    /// anonymously (a private one is 403 `AccessDenied`). Default true.
    public var isAuthenticationRequired = true
    /// Whether ``OSSClient/getObject(_:toFile:)`` writes an object encrypted on the client side as it is stored
    /// (ciphertext). By default it refuses with ``OSSClientErrorCode/encryptedObject`` and writes nothing; read such
    /// an object with `OSSEncryptionClient`. The in-memory ``OSSClient/getObject(_:)`` always returns the stored bytes
    /// (its result's `metadata` shows the envelope).
    public var acceptsCiphertext = false

    public init(
        bucketName: String, objectKey: String, range: OSSObjectRange? = nil, standardRangeBehavior: Bool = false,
        ifMatch: String? = nil, ifNoneMatch: String? = nil, ifModifiedSince: Date? = nil,
        ifUnmodifiedSince: Date? = nil, versionId: String? = nil, headers: [String: String] = [:],
        parameters: [String: String] = [:], downloadProgress: OSSProgressHandler? = nil
    ) {
        self.bucketName = bucketName
        self.objectKey = objectKey
        self.range = range
        self.standardRangeBehavior = standardRangeBehavior
        self.ifMatch = ifMatch
        self.ifNoneMatch = ifNoneMatch
        self.ifModifiedSince = ifModifiedSince
        self.ifUnmodifiedSince = ifUnmodifiedSince
        self.versionId = versionId
        self.headers = headers
        self.parameters = parameters
        self.downloadProgress = downloadProgress
    }
}

/// `Content-Range: bytes a-b/size`, parsed.
public struct OSSContentRange: Sendable, Hashable {
    /// First byte, inclusive.
    public var start: Int64
    /// Last byte, inclusive.
    public var end: Int64
    /// The whole object's size, if the server sent it.
    public var total: Int64?

    /// Parses `bytes a-b/size` (or `bytes a-b/*`). Returns `nil` when the size is neither `*` nor a number
    /// larger than `b` (a range that ends past the object is not a valid answer).
    public init?(_ header: String) {
        guard header.hasPrefix("bytes ") else { return nil }
        let rest = header.dropFirst(6)
        let halves = rest.split(separator: "/", maxSplits: 1)
        guard halves.count == 2 else { return nil }
        let bounds = halves[0].split(separator: "-", maxSplits: 1)
        guard bounds.count == 2, let a = Int64(bounds[0]), let b = Int64(bounds[1]), a >= 0, b >= a else { return nil }
        start = a
        end = b
        if halves[1] == "*" {
            total = nil
        } else {
            guard let size = Int64(halves[1]), size > b else { return nil }
            total = size
        }
    }
}

/// The result of GetObject.
public struct OSSGetObjectResult: Sendable {
    /// The HTTP status: 200 for the whole object, 206 for a range.
    public var statusCode: Int
    /// The body, for the in-memory variant; nil when streamed to a file or to the caller.
    public var content: Data?
    /// The number of body bytes received (or announced, for the streamed variant before reading).
    public var contentLength: Int64?
    /// `Content-Range`, for 206 responses.
    public var contentRange: OSSContentRange?
    public var contentType: String?
    public var eTag: String?
    public var lastModified: Date?
    /// The CRC-64 of the whole object, from `x-oss-hash-crc64ecma`.
    public var crc64: UInt64?
    /// The CRC-64 of the bytes received (for the in-memory and file variants).
    public var receivedCRC64: UInt64?
    public var objectType: String?
    public var versionId: String?
    public var metadata: [String: String]
    public var requestId: String
    public var headers: [String: String]
}
