/// Progress of a transfer: (bytes in this step, total bytes so far, total bytes expected), as in the iOS SDK.
/// Never runs backwards, even when a request is retried.
public typealias OSSProgressHandler = @Sendable (_ bytesSent: Int64, _ totalBytesSent: Int64, _ totalBytesExpected: Int64) -> Void

/// One OSS API call before addressing and signing: what the operation layer produces.
///
/// Also the escape hatch for APIs this SDK does not wrap yet: build one and pass it to
/// ``OSSClient/invoke(_:decode:)``.
public struct OSSOperation: Sendable {
    /// The API name, for logs (e.g. `PutObject`).
    public var name: String
    public var method: String
    /// The bucket, or `nil` for service-level calls such as ListBuckets.
    public var bucket: String?
    /// The object key (decoded), or `nil` for bucket-level calls.
    public var key: String?
    /// Decoded query parameters; an empty value is written as the bare name (`?uploads`).
    public var query: [String: String]
    /// Request headers; names are matched case-insensitively.
    public var headers: [String: String]
    public var body: OSSHTTPBody
    /// Upload progress for the body.
    public var uploadProgress: OSSProgressHandler?
    /// Whether the request moves object data and should answer promptly, so that a stall (no bytes moving for
    /// ``OSSClientConfiguration/Timeouts/stall``) abandons and retries it. Ignored for bodies streamed from the
    /// caller and for requests with an upload callback (their answer waits for the callback server).
    public var detectsStalls = false
    /// Whether the request is signed (the iOS `isAuthenticationRequired`). `false` sends it anonymously, for
    /// objects or buckets readable (or writable) by anyone; OSS then answers 403 `AccessDenied` for others.
    public var isAuthenticationRequired = true

    public init(
        name: String, method: String, bucket: String? = nil, key: String? = nil, query: [String: String] = [:],
        headers: [String: String] = [:], body: OSSHTTPBody = .empty, uploadProgress: OSSProgressHandler? = nil
    ) {
        self.name = name
        self.method = method.uppercased()
        self.bucket = bucket
        self.key = key
        self.query = query
        self.headers = [:]
        for (k, v) in headers { self.headers[k.lowercased()] = v }
        self.body = body
        self.uploadProgress = uploadProgress
    }

    /// Sets a header (the name is lower-cased); `nil` leaves the headers unchanged.
    public mutating func setHeader(_ name: String, _ value: String?) {
        guard let value else { return }
        headers[name.lowercased()] = value
    }

    /// Sets a query parameter; `nil` leaves the query unchanged.
    public mutating func setQuery(_ name: String, _ value: String?) {
        guard let value else { return }
        query[name] = value
    }
}
