import Foundation

/// A bucket policy as OSS reads and evaluates it: a pure value with no server state, so the rules can be tested on
/// their own (and later move to a shared module).
///
/// Grammar (OSS "Policy structure and syntax"): `{"Version":"1","Statement":[…]}`, each statement with `Effect`
/// (`Allow`/`Deny`), `Action` or `NotAction`, `Resource` or `NotResource`, `Principal`, and an optional `Condition`
/// (`{operator: {key: value(s)}}`). Values may be a string or a list of strings.
///
/// Evaluation: a statement applies when the action, the resource, the principal and every condition match. An
/// applying `Deny` wins over any `Allow`; no applying statement is ``Decision/noOpinion`` (the ACL then decides).
/// OSS's rule for the bucket owner: a statement whose principal is `*` without a condition does not apply to the
/// bucket owner; with a condition it does.
struct BucketPolicy: Sendable, Equatable {
    enum Effect: String, Sendable { case allow = "Allow", deny = "Deny" }
    enum Decision: Sendable, Equatable { case allow, deny, noOpinion }

    /// Who asks: nobody (an unsigned request) or an identity the server knows.
    enum Principal: Sendable, Equatable {
        case anonymous
        /// `uid` is what a policy's `Principal` names; `isBucketOwner` is the owner's account itself.
        case user(uid: String, isBucketOwner: Bool)
    }

    /// What a statement is matched against.
    struct Facts: Sendable {
        /// `oss:GetObject`, `oss:PutObject`, …
        var action: String
        /// `acs:oss:<region>:<owner>:<bucket>` or `acs:oss:<region>:<owner>:<bucket>/<key>`.
        var resource: String
        var principal: Principal
        /// The client's address (`acs:SourceIp`).
        var sourceIp: String?
        /// Whether the request came over TLS (`acs:SecureTransport`).
        var secureTransport: Bool = false
        /// ListObjects' `prefix` (`oss:Prefix`); `nil` for other requests.
        var prefix: String?
    }

    struct Condition: Sendable, Equatable {
        enum Operator: String, Sendable, CaseIterable {
            case stringEquals = "StringEquals", stringNotEquals = "StringNotEquals"
            case stringEqualsIgnoreCase = "StringEqualsIgnoreCase", stringNotEqualsIgnoreCase = "StringNotEqualsIgnoreCase"
            case stringLike = "StringLike", stringNotLike = "StringNotLike"
            case ipAddress = "IpAddress", notIpAddress = "NotIpAddress"
            case bool = "Bool"
        }
        var op: Operator
        /// Lower-cased (`acs:sourceip`, `acs:securetransport`, `oss:prefix`).
        var key: String
        var values: [String]
    }

    struct Statement: Sendable, Equatable {
        var effect: Effect
        var actions: [String]
        var notAction: Bool
        var resources: [String]
        var notResource: Bool
        var principals: [String]
        var conditions: [Condition]

        /// Whether the statement grants to everyone: an Allow to `*` not narrowed to a source address or VPC (OSS's
        /// definition of a public policy, which a public access block refuses and ignores).
        var isPublic: Bool {
            guard effect == .allow, principals.contains("*") else { return false }
            return !conditions.contains { c in
                (c.op == .ipAddress && c.key == "acs:sourceip" && !c.values.contains { $0 == "0.0.0.0/0" || $0 == "::/0" })
                    || c.key == "acs:sourcevpc" || c.key == "acs:sourcevpcid"
            }
        }
    }

    var statements: [Statement]

    /// Whether any statement grants public access.
    var isPublic: Bool { statements.contains { $0.isPublic } }

    /// The policy without its public statements (what applies under a public access block).
    var withoutPublicStatements: BucketPolicy { BucketPolicy(statements: statements.filter { !$0.isPublic }) }

    // MARK: - Evaluation

    func evaluate(_ facts: Facts) -> Decision {
        var allowed = false
        for statement in statements where statement.applies(to: facts) {
            if statement.effect == .deny { return .deny }
            allowed = true
        }
        return allowed ? .allow : .noOpinion
    }
}

extension BucketPolicy.Statement {
    func applies(to facts: BucketPolicy.Facts) -> Bool {
        let actionMatches = actions.contains { BucketPolicy.wildcardMatch($0, facts.action, caseInsensitive: true) }
        guard actionMatches != notAction else { return false }
        let resourceMatches = resources.contains { BucketPolicy.wildcardMatch($0, facts.resource, caseInsensitive: false) }
        guard resourceMatches != notResource else { return false }
        guard principalMatches(facts.principal, conditional: !conditions.isEmpty) else { return false }
        return conditions.allSatisfy { $0.holds(for: facts) }
    }

    private func principalMatches(_ principal: BucketPolicy.Principal, conditional: Bool) -> Bool {
        switch principal {
        case .anonymous:
            return principals.contains("*")
        case .user(let uid, let isOwner):
            if principals.contains(uid) { return true }
            guard principals.contains("*") else { return false }
            return !isOwner || conditional
        }
    }
}

extension BucketPolicy.Condition {
    func holds(for facts: BucketPolicy.Facts) -> Bool {
        let value: String?
        switch key {
        case "acs:sourceip": value = facts.sourceIp
        case "acs:securetransport": value = facts.secureTransport ? "true" : "false"
        case "oss:prefix": value = facts.prefix
        default: value = nil
        }
        // A key the request does not carry: positive operators fail, negated ones hold.
        guard let value else {
            return [.stringNotEquals, .stringNotEqualsIgnoreCase, .stringNotLike, .notIpAddress].contains(op)
        }
        switch op {
        case .stringEquals: return values.contains(value)
        case .stringNotEquals: return !values.contains(value)
        case .stringEqualsIgnoreCase: return values.contains { $0.lowercased() == value.lowercased() }
        case .stringNotEqualsIgnoreCase: return !values.contains { $0.lowercased() == value.lowercased() }
        case .stringLike: return values.contains { BucketPolicy.wildcardMatch($0, value, caseInsensitive: false) }
        case .stringNotLike: return !values.contains { BucketPolicy.wildcardMatch($0, value, caseInsensitive: false) }
        case .ipAddress: return values.contains { BucketPolicy.cidr($0, contains: value) }
        case .notIpAddress: return !values.contains { BucketPolicy.cidr($0, contains: value) }
        case .bool: return values.contains { $0.lowercased() == value }
        }
    }
}

// MARK: - Parsing and validation

extension BucketPolicy {
    /// Why a policy document is refused (PutBucketPolicy answers 400 `InvalidPolicyDocument` with this message).
    struct Invalid: Error, Equatable { var message: String }

    static let maximumSize = 16 << 10

    /// Parses and checks a policy document as OSS does at PutBucketPolicy.
    init(json body: [UInt8]) throws(Invalid) {
        guard !body.isEmpty, body.count <= Self.maximumSize else {
            throw Invalid(message: "The policy document is empty or larger than 16 KB.")
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)), let policy = object as? [String: Any] else {
            throw Invalid(message: "The policy document is not a JSON object.")
        }
        guard (policy["Version"] as? String) == "1" else {
            throw Invalid(message: "The policy Version must be the string \"1\".")
        }
        guard let list = policy["Statement"] as? [Any], !list.isEmpty else {
            throw Invalid(message: "The policy needs a non-empty Statement list.")
        }
        var statements: [Statement] = []
        for item in list {
            guard let statement = item as? [String: Any] else { throw Invalid(message: "A Statement is a JSON object.") }
            statements.append(try Self.statement(statement))
        }
        self.statements = statements
    }

    private static func statement(_ s: [String: Any]) throws(Invalid) -> Statement {
        guard let effectText = s["Effect"] as? String, let effect = Effect(rawValue: effectText) else {
            throw Invalid(message: "A Statement's Effect is Allow or Deny.")
        }
        let (actions, notAction) = try pair(s, "Action", "NotAction")
        for action in actions where !(action == "*" || action.lowercased().hasPrefix("oss:")) {
            throw Invalid(message: "The action \(action) is not an OSS action (oss:…).")
        }
        let (resources, notResource) = try pair(s, "Resource", "NotResource")
        for resource in resources where !(resource == "*" || resource.hasPrefix("acs:oss:")) {
            throw Invalid(message: "The resource \(resource) is not an OSS resource (acs:oss:…).")
        }
        guard let principalValue = s["Principal"] else { throw Invalid(message: "A Statement needs a Principal.") }
        let principals = try strings(principalValue, "Principal")
        var conditions: [Condition] = []
        if let block = s["Condition"] {
            guard let block = block as? [String: Any] else { throw Invalid(message: "Condition is a JSON object.") }
            for (opName, entries) in block {
                guard let op = Condition.Operator(rawValue: opName) else {
                    throw Invalid(message: "The condition operator \(opName) is not supported.")
                }
                guard let entries = entries as? [String: Any], !entries.isEmpty else {
                    throw Invalid(message: "The condition \(opName) needs key: value pairs.")
                }
                for (key, raw) in entries {
                    let values = try strings(raw, key, allowBool: op == .bool)
                    if op == .ipAddress || op == .notIpAddress {
                        for value in values where cidrRange(value) == nil {
                            throw Invalid(message: "\(value) is not an IP address or CIDR block.")
                        }
                    }
                    if op == .bool, values.contains(where: { $0 != "true" && $0 != "false" }) {
                        throw Invalid(message: "A Bool condition's value is true or false.")
                    }
                    conditions.append(Condition(op: op, key: key.lowercased(), values: values))
                }
            }
        }
        return Statement(
            effect: effect, actions: actions, notAction: notAction, resources: resources, notResource: notResource,
            principals: principals, conditions: conditions)
    }

    /// `Action`/`NotAction` (or `Resource`/`NotResource`): exactly one of the two, non-empty.
    private static func pair(_ s: [String: Any], _ name: String, _ negated: String) throws(Invalid) -> ([String], Bool) {
        switch (s[name], s[negated]) {
        case (let value?, nil): return (try strings(value, name), false)
        case (nil, let value?): return (try strings(value, negated), true)
        case (nil, nil): throw Invalid(message: "A Statement needs \(name) or \(negated).")
        default: throw Invalid(message: "A Statement has either \(name) or \(negated), not both.")
        }
    }

    private static func strings(_ value: Any, _ name: String, allowBool: Bool = false) throws(Invalid) -> [String] {
        func one(_ item: Any) throws(Invalid) -> String {
            if let text = item as? String, !text.isEmpty { return text }
            if allowBool, let flag = item as? Bool { return flag ? "true" : "false" }
            throw Invalid(message: "\(name) holds non-empty strings.")
        }
        if let list = value as? [Any] {
            guard !list.isEmpty else { throw Invalid(message: "\(name) is empty.") }
            var result: [String] = []
            for item in list { result.append(try one(item)) }
            return result
        }
        return [try one(value)]
    }
}

// MARK: - Matching

extension BucketPolicy {
    /// `*` matches any run of characters (also none), `?` exactly one.
    static func wildcardMatch(_ pattern: String, _ text: String, caseInsensitive: Bool) -> Bool {
        let p = Array((caseInsensitive ? pattern.lowercased() : pattern).unicodeScalars)
        let t = Array((caseInsensitive ? text.lowercased() : text).unicodeScalars)
        var (pi, ti) = (0, 0)
        var star: Int?
        var resume = 0
        while ti < t.count {
            if pi < p.count, p[pi] == "?" || p[pi] == t[ti] {
                pi += 1
                ti += 1
            } else if pi < p.count, p[pi] == "*" {
                star = pi
                resume = ti
                pi += 1
            } else if let s = star {
                pi = s + 1
                resume += 1
                ti = resume
            } else {
                return false
            }
        }
        while pi < p.count, p[pi] == "*" { pi += 1 }
        return pi == p.count
    }

    /// An IPv4 address or CIDR block as (network, mask), or an IPv6 address compared literally (mask `nil`).
    static func cidrRange(_ text: String) -> (address: UInt32, mask: UInt32)? {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count <= 2, let address = ipv4(String(parts[0])) else { return nil }
        var bits = 32
        if parts.count == 2 {
            guard let n = Int(parts[1]), (0...32).contains(n) else { return nil }
            bits = n
        }
        let mask: UInt32 = bits == 0 ? 0 : ~UInt32(0) << (32 - bits)
        return (address & mask, mask)
    }

    static func cidr(_ block: String, contains address: String) -> Bool {
        guard let range = cidrRange(block), let ip = ipv4(address) else { return false }
        return ip & range.mask == range.address
    }

    static func ipv4(_ text: String) -> UInt32? {
        let octets = text.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4 else { return nil }
        var value: UInt32 = 0
        for octet in octets {
            guard octet.count <= 3, let n = UInt32(octet), n <= 255 else { return nil }
            value = value << 8 | n
        }
        return value
    }
}
