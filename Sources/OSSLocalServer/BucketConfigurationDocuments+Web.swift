/// The server's models of the web families (CORS, referer, website), written from OSS's API reference
/// (PutBucketCors, PutBucketReferer, PutBucketWebsite) with OSS's checks.

/// `<CORSConfiguration>`: 1 to 20 `<CORSRule>`, then an optional `<ResponseVary>`.
struct CORSDocument: ConfigurationDocument {
    static let root = "CORSConfiguration"
    static let maximumRules = 20
    static let methods: Set<String> = ["GET", "PUT", "DELETE", "POST", "HEAD"]

    var rules: [Rule]
    var responseVary: Bool?

    enum CodingKeys: String, CodingKey {
        case rules = "CORSRule"
        case responseVary = "ResponseVary"
    }

    struct Rule: Codable, Sendable {
        var origins: [String]
        var methods: [String]
        var headers: [String]
        var exposed: [String]
        var maxAge: Int?

        enum CodingKeys: String, CodingKey {
            case origins = "AllowedOrigin"
            case methods = "AllowedMethod"
            case headers = "AllowedHeader"
            case exposed = "ExposeHeader"
            case maxAge = "MaxAgeSeconds"
        }
    }

    func check(_ context: ConfigurationCheck) throws {
        guard !rules.isEmpty else { throw LocalOSSError.malformedXML("CORSConfiguration needs at least one CORSRule.") }
        guard rules.count <= Self.maximumRules else {
            throw LocalOSSError.invalidArgument("At most \(Self.maximumRules) CORS rules are allowed.", name: "CORSRule")
        }
        for rule in rules {
            guard !rule.origins.isEmpty, !rule.methods.isEmpty else {
                throw LocalOSSError.malformedXML("A CORSRule needs an AllowedOrigin and an AllowedMethod.")
            }
            for method in rule.methods where !Self.methods.contains(method) {
                throw LocalOSSError.invalidArgument("Unsupported CORS method.", name: "AllowedMethod", value: method)
            }
            for origin in rule.origins where origin.isEmpty || origin.filter({ $0 == "*" }).count > 1 {
                throw LocalOSSError.invalidArgument("An AllowedOrigin has at most one wildcard.", name: "AllowedOrigin", value: origin)
            }
            for header in rule.headers where header.isEmpty || header.filter({ $0 == "*" }).count > 1 {
                throw LocalOSSError.invalidArgument("An AllowedHeader has at most one wildcard.", name: "AllowedHeader", value: header)
            }
            for header in rule.exposed where header.isEmpty || header.contains("*") {
                throw LocalOSSError.invalidArgument("An ExposeHeader cannot contain a wildcard.", name: "ExposeHeader", value: header)
            }
            if let maxAge = rule.maxAge, maxAge < 0 {
                throw LocalOSSError.invalidArgument("MaxAgeSeconds cannot be negative.", name: "MaxAgeSeconds", value: String(maxAge))
            }
        }
    }
}

/// `<RefererConfiguration>`: `AllowEmptyReferer` and `RefererList` are required.
struct RefererDocument: ConfigurationDocument {
    static let root = "RefererConfiguration"
    static let unsetDocument = """
        <?xml version="1.0" encoding="UTF-8"?>
        <RefererConfiguration><AllowEmptyReferer>true</AllowEmptyReferer><AllowTruncateQueryString>true</AllowTruncateQueryString><TruncatePath>false</TruncatePath><RefererList/></RefererConfiguration>
        """

    var allowEmpty: Bool
    var truncateQuery: Bool?
    var truncatePath: Bool?
    var allowed: Referers
    var blocked: Referers?

    enum CodingKeys: String, CodingKey {
        case allowEmpty = "AllowEmptyReferer"
        case truncateQuery = "AllowTruncateQueryString"
        case truncatePath = "TruncatePath"
        case allowed = "RefererList"
        case blocked = "RefererBlacklist"
    }

    struct Referers: Codable, Sendable {
        var items: [String]
        enum CodingKeys: String, CodingKey { case items = "Referer" }
    }

    func check(_ context: ConfigurationCheck) throws {
        if truncatePath == true, truncateQuery == false {
            throw LocalOSSError.invalidArgument(
                "TruncatePath needs AllowTruncateQueryString.", name: "TruncatePath", value: "true")
        }
        for referer in allowed.items + (blocked?.items ?? []) where referer.isEmpty || referer.utf8.count > 1024 {
            throw LocalOSSError.invalidArgument("A Referer is 1 to 1024 bytes.", name: "Referer", value: String(referer.prefix(64)))
        }
    }
}

/// `<WebsiteConfiguration>`: an index document, an error document (only beside an index document) and routing
/// rules; at least one of them.
struct WebsiteDocument: ConfigurationDocument {
    static let root = "WebsiteConfiguration"

    var index: Index?
    var error: ErrorPage?
    var routing: Routing?

    enum CodingKeys: String, CodingKey {
        case index = "IndexDocument"
        case error = "ErrorDocument"
        case routing = "RoutingRules"
    }

    struct Index: Codable, Sendable {
        var suffix: String
        var supportSubDir: Bool?
        var type: Int?
        enum CodingKeys: String, CodingKey {
            case suffix = "Suffix"
            case supportSubDir = "SupportSubDir"
            case type = "Type"
        }
    }

    struct ErrorPage: Codable, Sendable {
        var key: String
        var status: Int?
        enum CodingKeys: String, CodingKey {
            case key = "Key"
            case status = "HttpStatus"
        }
    }

    struct Routing: Codable, Sendable {
        var rules: [Rule]
        enum CodingKeys: String, CodingKey { case rules = "RoutingRule" }
    }

    struct Rule: Codable, Sendable {
        var number: Int
        var condition: Condition
        var redirect: Redirect
        enum CodingKeys: String, CodingKey {
            case number = "RuleNumber"
            case condition = "Condition"
            case redirect = "Redirect"
        }
    }

    struct Condition: Codable, Sendable {
        var prefix: String?
        var suffix: String?
        var errorCode: Int?
        enum CodingKeys: String, CodingKey {
            case prefix = "KeyPrefixEquals"
            case suffix = "KeySuffixEquals"
            case errorCode = "HttpErrorCodeReturnedEquals"
        }
    }

    struct Redirect: Codable, Sendable {
        var type: String
        var passQueryString: Bool?
        var mirrorURL: String?
        var replaceKeyWith: String?
        var replaceKeyPrefixWith: String?
        var enableReplacePrefix: Bool?
        var scheme: String?
        var hostName: String?
        var code: Int?
        enum CodingKeys: String, CodingKey {
            case type = "RedirectType"
            case passQueryString = "PassQueryString"
            case mirrorURL = "MirrorURL"
            case replaceKeyWith = "ReplaceKeyWith"
            case replaceKeyPrefixWith = "ReplaceKeyPrefixWith"
            case enableReplacePrefix = "EnableReplacePrefix"
            case scheme = "Protocol"
            case hostName = "HostName"
            case code = "HttpRedirectCode"
        }
    }

    static let redirectTypes: Set<String> = ["Mirror", "External", "Internal", "AliCDN"]

    func check(_ context: ConfigurationCheck) throws {
        let rules = routing?.rules ?? []
        guard index != nil || error != nil || !rules.isEmpty else {
            throw LocalOSSError.malformedXML("WebsiteConfiguration needs an IndexDocument, an ErrorDocument or RoutingRules.")
        }
        if let index {
            guard !index.suffix.isEmpty, !index.suffix.contains("/") else {
                throw LocalOSSError.invalidArgument("The index document suffix is not valid.", name: "Suffix", value: index.suffix)
            }
            if let type = index.type, !(0...2).contains(type) {
                throw LocalOSSError.invalidArgument("IndexDocument Type is 0, 1 or 2.", name: "Type", value: String(type))
            }
        }
        if let error {
            guard index != nil else {
                throw LocalOSSError.invalidArgument("An ErrorDocument needs an IndexDocument.", name: "ErrorDocument")
            }
            guard !error.key.isEmpty else { throw LocalOSSError.invalidArgument("The error document key is empty.", name: "Key") }
            if let status = error.status, status != 200, status != 404 {
                throw LocalOSSError.invalidArgument("HttpStatus is 200 or 404.", name: "HttpStatus", value: String(status))
            }
        }
        var numbers = Set<Int>()
        for rule in rules {
            guard rule.number > 0, numbers.insert(rule.number).inserted else {
                throw LocalOSSError.invalidArgument(
                    "RuleNumber must be a positive integer, unique in the configuration.", name: "RuleNumber",
                    value: String(rule.number))
            }
            guard Self.redirectTypes.contains(rule.redirect.type) else {
                throw LocalOSSError.invalidArgument("Unsupported RedirectType.", name: "RedirectType", value: rule.redirect.type)
            }
            if let code = rule.redirect.code, ![301, 302, 307].contains(code) {
                throw LocalOSSError.invalidArgument("HttpRedirectCode is 301, 302 or 307.", name: "HttpRedirectCode", value: String(code))
            }
            if rule.redirect.type == "Mirror", rule.redirect.mirrorURL == nil {
                throw LocalOSSError.invalidArgument("A Mirror redirect needs a MirrorURL.", name: "MirrorURL")
            }
        }
    }
}
