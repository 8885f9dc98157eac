/// The parts of an HTTP request that OSS signatures cover, in their decoded form.
///
/// `key` and the query names and values are *decoded* (raw UTF-8 text): the V1 resource uses them as they
/// are and V4 percent-encodes them itself. Header names are stored lower-cased; values are kept verbatim.
/// An empty query value means a parameter without a value (`?uploads`).
public struct OSSSignableRequest: Sendable, Hashable {
    public var method: String
    public var bucket: String?
    public var key: String?
    public var query: [String: String]
    public private(set) var headers: [String: String]

    public init(
        method: String,
        bucket: String? = nil,
        key: String? = nil,
        query: [String: String] = [:],
        headers: [String: String] = [:]
    ) {
        self.method = method.utf8.contains(where: { $0 >= 0x61 && $0 <= 0x7A }) ? method.uppercased() : method
        self.bucket = bucket
        self.key = key
        self.query = query
        self.headers = Dictionary(minimumCapacity: headers.count + 4)
        for (name, value) in headers {
            self.headers[name.lowercasedHeaderName] = value
        }
    }

    /// The value of a header, looked up case-insensitively.
    public subscript(header name: String) -> String? {
        get { headers[name.lowercasedHeaderName] }
        set { headers[name.lowercasedHeaderName] = newValue }
    }
}

extension String {
    /// The name lower-cased, without allocating when it already is (the common case: names are written lower-case).
    @inline(__always)
    var lowercasedHeaderName: String {
        utf8.contains(where: { ($0 >= 0x41 && $0 <= 0x5A) || $0 >= 0x80 }) ? lowercased() : self
    }
}
