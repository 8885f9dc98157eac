import Crypto
import Foundation

/// The server side of ``OSSRemoteSignerCredentialProvider``: holds the credentials, reads what a device asks it to
/// sign, and signs only requests its ``Policy`` allows, so it is not a signing oracle for anything else.
///
/// It signs nothing it cannot read: for V4 it gets the canonical request and checks that the string to sign is its
/// hash under this server's region and today's scope; for V1 the string to sign is readable as is. Then the request
/// must be
/// - on an object of ``Policy/bucket`` under ``Policy/keyPrefix`` (no copy from elsewhere), or, signed with V4, a
///   `GET` listing of the bucket (ListObjects, ListObjectsV2) whose `prefix` is under ``Policy/keyPrefix``, as a
///   directory download needs (V1 does not sign a listing's `prefix`, so V1 gets no bucket-level request at all),
/// - one of ``Policy/methods``, with only the query parameters of ``Policy/queryParameters``,
/// - dated within ``Policy/clockTolerance`` of now, or, presigned, expiring within ``Policy/maxPresignExpiry``.
/// Anything else is refused: an ``OSSClientError`` `invalidArgument` whose message says what (403 over HTTP).
///
/// Wire it to any HTTP framework in a few lines (a Hummingbird route shown):
///
/// ```swift
/// let authority = OSSRemoteSigningAuthority(
///     credentials: OSSDefaultCredentialProvider(), region: "cn-hangzhou",
///     policy: .init(bucket: "photos", keyPrefix: "users/\(userId)/"))
/// router.on("/oss-sign", method: .get) { _, _ in try await authority.respond(method: "GET", body: Data()) }
/// router.on("/oss-sign", method: .post) { request, _ in
///     try await authority.respond(method: "POST", body: Data(buffer: try await request.body.collect(upTo: 65_536)))
/// }
/// ```
public struct OSSRemoteSigningAuthority: Sendable {
    /// What may be signed.
    public struct Policy: Sendable, Hashable {
        public var bucket: String
        /// Every object key must start with it (`""`: the whole bucket).
        public var keyPrefix: String
        public var methods: Set<String>
        /// The longest a presigned URL may live, in seconds.
        public var maxPresignExpiry: Int64
        /// How far a request's date may be from now, in seconds.
        public var clockTolerance: TimeInterval
        /// The query parameters (sub-resources) a request may carry: by default the object and multipart ones a
        /// transfer needs, the response overrides, and the presign parameters; not `acl`, `symlink`, `tagging`...
        public var queryParameters: Set<String>

        public static let transferQueryParameters: Set<String> = [
            "uploads", "uploadId", "partNumber", "max-parts", "part-number-marker", "encoding-type", "versionId",
            "objectMeta", "sequential", "response-cache-control", "response-content-disposition",
            "response-content-encoding", "response-content-language", "response-content-type", "response-expires",
            // presigned URLs (V1 and V4)
            "OSSAccessKeyId", "Expires", "Signature", "security-token", "x-oss-signature-version", "x-oss-credential",
            "x-oss-date", "x-oss-expires", "x-oss-additional-headers", "x-oss-security-token", "x-oss-signature",
        ]

        public init(
            bucket: String, keyPrefix: String, methods: Set<String> = ["GET", "HEAD", "PUT", "POST", "DELETE"],
            maxPresignExpiry: Int64 = 3600, clockTolerance: TimeInterval = 900,
            queryParameters: Set<String> = transferQueryParameters
        ) {
            self.bucket = bucket
            self.keyPrefix = keyPrefix
            self.methods = methods
            self.maxPresignExpiry = maxPresignExpiry
            self.clockTolerance = clockTolerance
            self.queryParameters = queryParameters
        }
    }

    public let policy: Policy
    /// The region of V4 scopes (`cn-hangzhou`); `nil`: V1 only.
    public let region: String?
    private let credentials: any OSSCredentialProvider

    public init(credentials: any OSSCredentialProvider, region: String?, policy: Policy) {
        self.credentials = credentials
        self.region = region
        self.policy = policy
    }

    /// The identity devices sign as (no secret).
    public func identity() async throws -> OSSRemoteSigningIdentity {
        let current = try await credentials.credentials()
        return OSSRemoteSigningIdentity(accessKeyId: current.accessKeyId, securityToken: current.securityToken)
    }

    /// The signature of `request` once the policy allows it.
    /// - Throws: ``OSSClientError`` `invalidArgument` saying why the request is refused; the credentials' failure.
    public func sign(_ request: OSSRemoteSigningRequest, now: Date = Date()) async throws -> String {
        switch request.signatureVersion {
        case "v4":
            let scope = try verifyV4(request, now: now)
            let secret = try await credentials.credentials().accessKeySecret
            return OSSSignerV4.signature(
                stringToSign: request.stringToSign, secret: secret, day: scope.day, region: scope.region)
        case "v1":
            try verifyV1(request.stringToSign, now: now)
            return OSSSignerV1.signature(
                stringToSign: request.stringToSign, secret: try await credentials.credentials().accessKeySecret)
        default:
            throw refusal("unknown signature version \(request.signatureVersion)")
        }
    }

    /// An HTTP endpoint's answer: `GET` → the identity JSON; `POST` with an ``OSSRemoteSigningRequest`` as JSON →
    /// `{"signature": "..."}`; a refused request → 403 `{"error": "<why>"}`; anything else → 400 / 405.
    public func respond(method: String, body: Data, now: Date = Date()) async -> (status: Int, body: Data) {
        func json(_ status: Int, _ object: [String: String]) -> (Int, Data) {
            (status, (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data())
        }
        do {
            switch method.uppercased() {
            case "GET":
                return (200, try Self.encoder.encode(try await identity()))
            case "POST":
                guard let request = try? Self.decoder.decode(OSSRemoteSigningRequest.self, from: body) else {
                    return json(400, ["error": "the body is not a signing request"])
                }
                return json(200, ["signature": try await sign(request, now: now)])
            default:
                return json(405, ["error": "GET the identity or POST a signing request"])
            }
        } catch let error as OSSClientError where error.code == .invalidArgument {
            return json(403, ["error": error.message])
        } catch {
            return json(500, ["error": "the signing server's credentials failed"])
        }
    }

    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }

    static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    // MARK: Verification

    private func refusal(_ reason: String) -> OSSClientError {
        OSSClientError.invalidArgument("the signing policy refuses: \(reason)")
    }

    /// Checks a V4 request; returns its scope's day and region.
    private func verifyV4(_ request: OSSRemoteSigningRequest, now: Date) throws -> (day: String, region: String) {
        guard let region, !region.isEmpty else { throw refusal("V4 needs the authority's region") }
        guard let canonical = request.canonicalRequest else { throw refusal("a V4 request without its canonical request") }
        let lines = request.stringToSign.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard lines.count == 4, lines[0] == OSSSignerV4.algorithm, let date = OSSDateFormat.parseISO8601Basic(lines[1])
        else { throw refusal("not a V4 string to sign") }
        let day = String(lines[1].prefix(8))
        guard lines[2] == OSSSignerV4.scope(day: day, region: region) else {
            throw refusal("the scope \(lines[2]) is not this server's (\(region))")
        }
        guard OSSSignerV4.stringToSign(canonicalRequest: canonical, dateTime: lines[1], scope: lines[2]) == request.stringToSign
        else { throw refusal("the string to sign is not the hash of the canonical request given") }
        // METHOD, URI, QUERY, headers..., "", ADDITIONAL, PAYLOAD
        let parts = canonical.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 6, let blank = parts.dropFirst(3).firstIndex(of: ""), blank == parts.count - 3 else {
            throw refusal("a malformed canonical request")
        }
        try verifyMethod(parts[0])
        let path = parts[1]
        guard let decodedPath = OSSPercentEncoding.decode(path) else { throw refusal("an undecodable path") }
        let key = try key(ofPath: decodedPath)
        var query: [String: String] = [:]
        for item in parts[2].split(separator: "&") {
            let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = OSSPercentEncoding.decode(pair[0]) else { throw refusal("an undecodable query") }
            query[name] = pair.count > 1 ? OSSPercentEncoding.decode(pair[1]) ?? "" : ""
        }
        if key.isEmpty {
            try verifyListing(method: parts[0], query: query)
        } else {
            try verifyObject(path: decodedPath)
            try verifyQuery(Array(query.keys))
        }
        var headers: [String: String] = [:]
        for line in parts[3..<blank] {
            guard let colon = line.firstIndex(of: ":") else { throw refusal("a malformed canonical header") }
            headers[String(line[..<colon])] = String(line[line.index(after: colon)...])
        }
        if let expires = query["x-oss-expires"] {
            guard let seconds = Int64(expires), seconds > 0, seconds <= policy.maxPresignExpiry else {
                throw refusal("a presigned URL living \(expires) s (at most \(policy.maxPresignExpiry))")
            }
            guard query["x-oss-date"] == lines[1] else { throw refusal("the presigned URL's date is not the signed one") }
        } else {
            guard headers["x-oss-date"] == lines[1] else { throw refusal("the request's x-oss-date is not the signed one") }
        }
        try verifyTime(date, now: now)
        try verifyCopySource(headers["x-oss-copy-source"])
        return (day, region)
    }

    /// Checks a V1 string to sign: `VERB\nMD5\nTYPE\nDATE\n[x-oss-headers\n]RESOURCE`.
    private func verifyV1(_ stringToSign: String, now: Date) throws {
        let lines = stringToSign.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard lines.count >= 5 else { throw refusal("not a V1 string to sign") }
        try verifyMethod(lines[0])
        let resource = lines[lines.count - 1]
        let pathAndQuery = resource.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        try verifyObject(path: String(pathAndQuery[0]))
        if pathAndQuery.count > 1 {
            try verifyQuery(pathAndQuery[1].split(separator: "&").map { String($0.prefix { $0 != "=" }) })
        }
        var headers: [String: String] = [:]
        for line in lines[4..<(lines.count - 1)] {
            guard let colon = line.firstIndex(of: ":"), line.hasPrefix("x-oss-") else {
                throw refusal("a malformed V1 header line")
            }
            headers[String(line[..<colon])] = String(line[line.index(after: colon)...])
        }
        let dateLine = lines[3]
        if let expires = Int64(dateLine) {
            let left = TimeInterval(expires) - now.timeIntervalSince1970
            guard left > -policy.clockTolerance, left <= TimeInterval(policy.maxPresignExpiry) + policy.clockTolerance else {
                throw refusal("a presigned URL expiring in \(Int64(left)) s (at most \(policy.maxPresignExpiry))")
            }
        } else {
            guard let date = OSSDateFormat.parseRFC1123(dateLine) else { throw refusal("an unreadable date \(dateLine)") }
            try verifyTime(date, now: now)
        }
        try verifyCopySource(headers["x-oss-copy-source"])
    }

    private func verifyMethod(_ method: String) throws {
        guard policy.methods.contains(method) else { throw refusal("the method \(method)") }
    }

    /// The key of `/bucket/key` (decoded) on the policy's bucket; empty for the bucket itself.
    private func key(ofPath path: String) throws -> String {
        let bucketPrefix = "/\(policy.bucket)/"
        guard path.hasPrefix(bucketPrefix) else { throw refusal("a request outside bucket \(policy.bucket)") }
        return String(path.dropFirst(bucketPrefix.count))
    }

    /// `/bucket/key` (decoded) on the policy's bucket, with a key under its prefix.
    private func verifyObject(path: String) throws {
        let key = try key(ofPath: path)
        guard !key.isEmpty else { throw refusal("a bucket-level request") }
        guard key.hasPrefix(policy.keyPrefix) else { throw refusal("the key \(key) outside \(policy.keyPrefix)") }
    }

    /// The query parameters of a listing (ListObjects and ListObjectsV2).
    static let listingQueryParameters: Set<String> = [
        "list-type", "prefix", "delimiter", "start-after", "continuation-token", "max-keys", "encoding-type",
        "fetch-owner", "marker",
    ]

    /// A V4 bucket-level request: only a `GET` listing whose `prefix` is under the policy's prefix.
    private func verifyListing(method: String, query: [String: String]) throws {
        guard method == "GET", query.keys.allSatisfy(Self.listingQueryParameters.contains) else {
            throw refusal("a bucket-level request other than a listing")
        }
        let prefix = query["prefix"] ?? ""
        guard prefix.hasPrefix(policy.keyPrefix) else {
            throw refusal(
                "a bucket-level request: a listing of \(prefix.isEmpty ? "the whole bucket" : "prefix " + prefix), "
                    + "not under \(policy.keyPrefix)")
        }
    }

    private func verifyQuery(_ names: [String]) throws {
        for name in names where !policy.queryParameters.contains(name) {
            throw refusal("the query parameter \(name)")
        }
    }

    private func verifyTime(_ date: Date, now: Date) throws {
        guard abs(date.timeIntervalSince(now)) <= policy.clockTolerance else {
            throw refusal("a request dated \(Int(date.timeIntervalSince(now))) s from now")
        }
    }

    /// A copy's source (`/bucket/key`, URL-encoded) must be under the prefix too.
    private func verifyCopySource(_ source: String?) throws {
        guard let source else { return }
        let path = source.split(separator: "?", maxSplits: 1).first.map(String.init) ?? source
        guard let decoded = OSSPercentEncoding.decode(path) else { throw refusal("an undecodable copy source") }
        try verifyObject(path: decoded.hasPrefix("/") ? decoded : "/" + decoded)
    }
}
