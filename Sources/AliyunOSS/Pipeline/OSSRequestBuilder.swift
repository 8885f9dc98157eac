/// Turns an ``OSSOperation`` into an addressed, unsigned request: validates the bucket and key, chooses
/// virtual-hosted, path-style or CNAME addressing, percent-encodes the key (keeping `/`), trims header values
/// and sets an explicit `Content-Type` whenever there is a body, so nothing below adds an unsigned one.
struct OSSRequestBuilder: Sendable {
    let endpoint: OSSEndpoint
    let addressing: OSSAddressingStyle
    let userAgent: String
    /// Hosts `.automatic` treats as OSS endpoints besides the OSS domains.
    var cnameExcludeList: [String] = []
    /// The endpoint's path, kept before the bucket or key (``OSSClientConfiguration/isCustomPathPrefixEnabled``),
    /// or `""`.
    var pathPrefix = ""
    /// ``OSSClientConfiguration/requestPayer``, sent as `x-oss-request-payer` unless the operation sets it.
    var requestPayer: String?

    func build(_ operation: OSSOperation) throws -> OSSPreparedRequest {
        if let bucket = operation.bucket {
            try Self.validateBucketName(bucket)
        }
        if let key = operation.key {
            guard operation.bucket != nil else {
                throw OSSClientError.invalidArgument("an object key needs a bucket")
            }
            try Self.validateObjectKey(key)
        }
        var headers: [String: String] = [:]
        for (name, value) in operation.headers {
            headers[name.lowercased()] = value.trimmingCharactersInWhitespace()
        }
        for (name, value) in headers where value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" }) {
            throw OSSClientError.invalidArgument("the header \(name) contains a line break")
        }
        if headers["user-agent"] == nil { headers["user-agent"] = userAgent }
        if let requestPayer, headers["x-oss-request-payer"] == nil { headers["x-oss-request-payer"] = requestPayer }
        let hasBody: Bool
        switch operation.body {
        case .empty: hasBody = false
        default: hasBody = true
        }
        if headers["content-type"] == nil, hasBody || operation.method == "PUT" || operation.method == "POST" {
            headers["content-type"] = "application/octet-stream"
        }
        let signable = OSSSignableRequest(
            method: operation.method, bucket: operation.bucket, key: operation.key, query: operation.query,
            headers: headers)
        return OSSPreparedRequest(
            signable: signable, urlWithoutQuery: urlWithoutQuery(bucket: operation.bucket, key: operation.key),
            body: operation.body)
    }

    /// `scheme://authority/path` for the bucket and key under the configured addressing.
    func urlWithoutQuery(bucket: String?, key: String?) -> String {
        let encodedKey = key.map { OSSPercentEncoding.encode($0, keepSlash: true) } ?? ""
        let base = "\(endpoint.scheme)://"
        let root = endpoint.authority + pathPrefix
        guard let bucket, !bucket.isEmpty else {
            return base + root + "/"
        }
        switch effectiveStyle {
        case .cname:
            return base + root + "/" + encodedKey
        case .pathStyle:
            return base + root + "/" + bucket + "/" + encodedKey
        case .virtualHosted, .automatic:
            return base + bucket + "." + root + "/" + encodedKey
        }
    }

    /// The addressing actually used: `.automatic` resolves to path-style for IP literals and `localhost`,
    /// virtual-hosted for the OSS domains and ``cnameExcludeList``, and CNAME for any other host.
    var effectiveStyle: OSSAddressingStyle.Kind {
        switch addressing.kind {
        case .automatic:
            if endpoint.isIPOrLocalhost { return .pathStyle }
            if OSSCustomDomain.host(endpoint.host, isUnderAnyOf: OSSCustomDomain.ossDomains + cnameExcludeList) {
                return .virtualHosted
            }
            return .cname
        case let kind: return kind
        }
    }

    /// 3–63 characters of `a-z 0-9 -`, starting and ending with a letter or digit.
    static func validateBucketName(_ name: String) throws {
        let bytes = Array(name.utf8)
        let valid =
            (3...63).contains(bytes.count)
            && bytes.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }
            && bytes.first != 0x2D && bytes.last != 0x2D
        guard valid else {
            throw OSSClientError.invalidArgument(
                "invalid bucket name '\(name)': use 3-63 characters of a-z, 0-9 and '-', not starting or ending with '-'")
        }
    }

    /// 1–1023 bytes of UTF-8, not starting with `/` or `\`.
    static func validateObjectKey(_ key: String) throws {
        let count = key.utf8.count
        guard count >= 1, count <= 1023 else {
            throw OSSClientError.invalidArgument("InvalidObjectName: an object key must be 1 to 1023 bytes long, not \(count)")
        }
        guard let first = key.utf8.first, first != 0x2F, first != 0x5C else {
            throw OSSClientError.invalidArgument("InvalidObjectName: an object key must not start with '/' or '\\'")
        }
    }
}
