/// Web and CDN families: CORS, referer (hotlink protection) and static website hosting.

/// `<CORSConfiguration>` (PutBucketCors, `?cors`): the cross-origin rules OSS answers preflight `OPTIONS` requests
/// from and adds `Access-Control-*` headers with. The first rule that matches a request applies.
public struct OSSCORSConfiguration: OSSDeletableBucketConfiguration, Hashable {
    public static let family = OSSBucketConfigurationFamily(name: "Cors", subresource: "cors", root: "CORSConfiguration")
    /// OSS keeps at most this many rules per bucket.
    public static let maximumRules = 20

    public var rules: [OSSCORSRule]
    /// Whether OSS adds `Vary: Origin` to its responses.
    public var responseVary: Bool?

    public init(rules: [OSSCORSRule], responseVary: Bool? = nil) {
        self.rules = rules
        self.responseVary = responseVary
    }

    enum CodingKeys: String, CodingKey {
        case rules = "CORSRule"
        case responseVary
    }

    public func validate() throws {
        guard !rules.isEmpty, rules.count <= Self.maximumRules else {
            throw OSSClientError.invalidArgument("a CORS configuration has 1 to \(Self.maximumRules) rules, not \(rules.count)")
        }
        for rule in rules where rule.allowedOrigins.isEmpty || rule.allowedMethods.isEmpty {
            throw OSSClientError.invalidArgument("a CORS rule needs at least one allowed origin and one allowed method")
        }
    }
}

/// `<CORSRule>`.
public struct OSSCORSRule: Codable, Sendable, Hashable {
    /// Origins allowed to call, each with at most one `*` (`https://*.example.com`, or `*` for any).
    public var allowedOrigins: [String]
    /// `GET`, `PUT`, `DELETE`, `POST` or `HEAD`.
    public var allowedMethods: [String]
    /// Headers a preflight may ask for (`Access-Control-Request-Headers`), each with at most one `*`.
    public var allowedHeaders: [String]
    /// Response headers a browser script may read (no wildcards).
    public var exposeHeaders: [String]
    /// How long a browser may cache the preflight's answer.
    public var maxAgeSeconds: Int?

    public init(
        allowedOrigins: [String], allowedMethods: [String], allowedHeaders: [String] = [], exposeHeaders: [String] = [],
        maxAgeSeconds: Int? = nil
    ) {
        self.allowedOrigins = allowedOrigins
        self.allowedMethods = allowedMethods
        self.allowedHeaders = allowedHeaders
        self.exposeHeaders = exposeHeaders
        self.maxAgeSeconds = maxAgeSeconds
    }

    enum CodingKeys: String, CodingKey {
        case allowedOrigins = "AllowedOrigin"
        case allowedMethods = "AllowedMethod"
        case allowedHeaders = "AllowedHeader"
        case exposeHeaders = "ExposeHeader"
        case maxAgeSeconds
    }
}

/// `<RefererConfiguration>` (PutBucketReferer, `?referer`): which `Referer` headers may fetch the bucket's objects.
/// OSS answers GetBucketReferer of a bucket never configured with the default (empty referers allowed, no list);
/// there is no delete: put the default back.
public struct OSSRefererConfiguration: OSSBucketConfiguration, Hashable {
    public static let family = OSSBucketConfigurationFamily(name: "Referer", subresource: "referer", root: "RefererConfiguration")

    /// Whether a request without a `Referer` (or with an empty one) is allowed.
    public var allowEmptyReferer: Bool
    /// Whether the query string of the `Referer` is ignored when matching.
    public var allowTruncateQueryString: Bool?
    /// Whether the path of the `Referer` is ignored when matching (needs `allowTruncateQueryString`).
    public var truncatePath: Bool?
    /// The allowed referers, with `*` and `?` wildcards.
    public var refererList: OSSRefererList
    /// Referers refused even when the list allows them.
    public var refererBlacklist: OSSRefererList?

    public init(
        allowEmptyReferer: Bool = true, allowTruncateQueryString: Bool? = nil, truncatePath: Bool? = nil,
        refererList: OSSRefererList = OSSRefererList(), refererBlacklist: OSSRefererList? = nil
    ) {
        self.allowEmptyReferer = allowEmptyReferer
        self.allowTruncateQueryString = allowTruncateQueryString
        self.truncatePath = truncatePath
        self.refererList = refererList
        self.refererBlacklist = refererBlacklist
    }
}

/// `<RefererList>` or `<RefererBlacklist>`: `<Referer>` elements.
public struct OSSRefererList: Codable, Sendable, Hashable {
    public var referers: [String]

    public init(_ referers: [String] = []) {
        self.referers = referers
    }

    enum CodingKeys: String, CodingKey { case referers = "Referer" }
}

/// `<WebsiteConfiguration>` (PutBucketWebsite, `?website`): the index and error documents of static website
/// hosting, and redirect rules.
public struct OSSWebsiteConfiguration: OSSDeletableBucketConfiguration, Hashable {
    public static let family = OSSBucketConfigurationFamily(name: "Website", subresource: "website", root: "WebsiteConfiguration")

    public var indexDocument: IndexDocument?
    public var errorDocument: ErrorDocument?
    public var routingRules: RoutingRules?

    public init(indexDocument: IndexDocument? = nil, errorDocument: ErrorDocument? = nil, routingRules: RoutingRules? = nil) {
        self.indexDocument = indexDocument
        self.errorDocument = errorDocument
        self.routingRules = routingRules
    }

    public func validate() throws {
        guard indexDocument != nil || errorDocument != nil || !(routingRules?.rules.isEmpty ?? true) else {
            throw OSSClientError.invalidArgument("a website configuration needs an index document, an error document or a routing rule")
        }
    }

    /// `<IndexDocument>`: the object served for a request that ends in `/`.
    public struct IndexDocument: Codable, Sendable, Hashable {
        /// The index object's name, `index.html`.
        public var suffix: String
        /// Whether a subdirectory's own index document is served.
        public var supportSubDir: Bool?
        /// What a request for a missing subdirectory index gets: 0, 1 or 2 (OSS's documented behaviours).
        public var type: Int?

        public init(suffix: String, supportSubDir: Bool? = nil, type: Int? = nil) {
            self.suffix = suffix
            self.supportSubDir = supportSubDir
            self.type = type
        }
    }

    /// `<ErrorDocument>`: the object served for a missing key.
    public struct ErrorDocument: Codable, Sendable, Hashable {
        public var key: String
        /// 200 or 404.
        public var httpStatus: Int?

        public init(key: String, httpStatus: Int? = nil) {
            self.key = key
            self.httpStatus = httpStatus
        }
    }

    /// `<RoutingRules>`: `<RoutingRule>` elements, applied in `ruleNumber` order.
    public struct RoutingRules: Codable, Sendable, Hashable {
        public var rules: [RoutingRule]

        public init(_ rules: [RoutingRule]) {
            self.rules = rules
        }

        enum CodingKeys: String, CodingKey { case rules = "RoutingRule" }
    }

    /// `<RoutingRule>`: when `condition` holds, `redirect` applies.
    public struct RoutingRule: Codable, Sendable, Hashable {
        public var ruleNumber: Int
        public var condition: Condition
        public var redirect: Redirect

        public init(ruleNumber: Int, condition: Condition, redirect: Redirect) {
            self.ruleNumber = ruleNumber
            self.condition = condition
            self.redirect = redirect
        }
    }

    /// `<Condition>`.
    public struct Condition: Codable, Sendable, Hashable {
        public var keyPrefixEquals: String?
        public var keySuffixEquals: String?
        public var httpErrorCodeReturnedEquals: Int?

        public init(keyPrefixEquals: String? = nil, keySuffixEquals: String? = nil, httpErrorCodeReturnedEquals: Int? = nil) {
            self.keyPrefixEquals = keyPrefixEquals
            self.keySuffixEquals = keySuffixEquals
            self.httpErrorCodeReturnedEquals = httpErrorCodeReturnedEquals
        }
    }

    /// `<Redirect>`: the common fields (mirroring-to-origin fields OSS also accepts are not modelled).
    public struct Redirect: Codable, Sendable, Hashable {
        /// `Mirror`, `External`, `Internal` or `AliCDN`.
        public var redirectType: String
        public var passQueryString: Bool?
        public var mirrorURL: String?
        public var replaceKeyWith: String?
        public var replaceKeyPrefixWith: String?
        public var enableReplacePrefix: Bool?
        /// `http` or `https`.
        public var `protocol`: String?
        public var hostName: String?
        /// 301, 302 or 307.
        public var httpRedirectCode: Int?

        public init(
            redirectType: String, passQueryString: Bool? = nil, mirrorURL: String? = nil, replaceKeyWith: String? = nil,
            replaceKeyPrefixWith: String? = nil, enableReplacePrefix: Bool? = nil, protocol: String? = nil,
            hostName: String? = nil, httpRedirectCode: Int? = nil
        ) {
            self.redirectType = redirectType
            self.passQueryString = passQueryString
            self.mirrorURL = mirrorURL
            self.replaceKeyWith = replaceKeyWith
            self.replaceKeyPrefixWith = replaceKeyPrefixWith
            self.enableReplacePrefix = enableReplacePrefix
            self.protocol = `protocol`
            self.hostName = hostName
            self.httpRedirectCode = httpRedirectCode
        }

        enum CodingKeys: String, CodingKey {
            case redirectType, passQueryString
            case mirrorURL = "MirrorURL"
            case replaceKeyWith, replaceKeyPrefixWith, enableReplacePrefix
            case `protocol` = "Protocol"
            case hostName, httpRedirectCode
        }
    }
}
