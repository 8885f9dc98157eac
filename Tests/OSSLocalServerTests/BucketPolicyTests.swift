import Foundation
import Testing

@testable import OSSLocalServer

/// The bucket policy evaluator on its own: grammar checks, action/resource/principal matching, conditions, deny over
/// allow, OSS's bucket-owner rule, and what counts as public.
@Suite struct BucketPolicyTests {
    static func policy(_ statements: String...) throws -> BucketPolicy {
        try BucketPolicy(json: Array(#"{"Version":"1","Statement":[\#(statements.joined(separator: ","))]}"#.utf8))
    }

    static let resource = "acs:oss:cn-hangzhou:owner:bkt/"
    static func facts(
        _ action: String, _ key: String?, _ principal: BucketPolicy.Principal = .anonymous, ip: String = "127.0.0.1",
        tls: Bool = false, prefix: String? = nil
    ) -> BucketPolicy.Facts {
        BucketPolicy.Facts(
            action: action, resource: "acs:oss:cn-hangzhou:owner:bkt" + (key.map { "/" + $0 } ?? ""), principal: principal,
            sourceIp: ip, secureTransport: tls, prefix: prefix)
    }
    static let other = BucketPolicy.Principal.user(uid: "1888", isBucketOwner: false)
    static let owner = BucketPolicy.Principal.user(uid: "owner", isBucketOwner: true)

    @Test func actionsResourcesAndPrincipalsMatchWithWildcards() throws {
        let p = try Self.policy(
            #"{"Effect":"Allow","Action":["oss:Get*"],"Principal":["1888"],"Resource":["acs:oss:*:*:bkt/pub/*"]}"#)
        #expect(p.evaluate(Self.facts("oss:GetObject", "pub/a.txt", Self.other)) == .allow)
        #expect(p.evaluate(Self.facts("OSS:getobject", "pub/deep/b", Self.other)) == .allow)  // actions ignore case
        #expect(p.evaluate(Self.facts("oss:GetObject", "PUB/a.txt", Self.other)) == .noOpinion)  // keys do not
        #expect(p.evaluate(Self.facts("oss:PutObject", "pub/a.txt", Self.other)) == .noOpinion)
        #expect(p.evaluate(Self.facts("oss:GetObject", "pub/a.txt", .anonymous)) == .noOpinion)
        #expect(p.evaluate(Self.facts("oss:GetObject", "pub/a.txt", .user(uid: "1999", isBucketOwner: false))) == .noOpinion)
        let q = try Self.policy(#"{"Effect":"Allow","Action":"oss:*","Principal":"*","Resource":"acs:oss:*:*:bkt/a?c"}"#)
        #expect(q.evaluate(Self.facts("oss:DeleteObject", "abc")) == .allow)
        #expect(q.evaluate(Self.facts("oss:DeleteObject", "abbc")) == .noOpinion)
        let not = try Self.policy(#"{"Effect":"Deny","NotAction":["oss:GetObject"],"Principal":["*"],"Resource":["acs:oss:*:*:bkt/*"]}"#)
        #expect(not.evaluate(Self.facts("oss:PutObject", "k")) == .deny)
        #expect(not.evaluate(Self.facts("oss:GetObject", "k")) == .noOpinion)
    }

    @Test func explicitDenyBeatsAllowAndTheOwnerRuleDependsOnConditions() throws {
        let p = try Self.policy(
            #"{"Effect":"Allow","Action":["oss:*"],"Principal":["*"],"Resource":["acs:oss:*:*:bkt/*"]}"#,
            #"{"Effect":"Deny","Action":["oss:DeleteObject"],"Principal":["*"],"Resource":["acs:oss:*:*:bkt/keep/*"]}"#)
        #expect(p.evaluate(Self.facts("oss:DeleteObject", "keep/x", Self.other)) == .deny)
        #expect(p.evaluate(Self.facts("oss:DeleteObject", "tmp/x", Self.other)) == .allow)
        // "*" without a condition leaves the bucket owner alone...
        #expect(p.evaluate(Self.facts("oss:DeleteObject", "keep/x", Self.owner)) == .noOpinion)
        // ...with a condition it covers the owner too; naming the owner always does.
        let conditional = try Self.policy(
            #"{"Effect":"Deny","Action":["oss:DeleteObject"],"Principal":["*"],"Resource":["acs:oss:*:*:bkt/*"],"Condition":{"IpAddress":{"acs:SourceIp":["127.0.0.0/8"]}}}"#)
        #expect(conditional.evaluate(Self.facts("oss:DeleteObject", "x", Self.owner)) == .deny)
        let named = try Self.policy(#"{"Effect":"Deny","Action":["oss:*"],"Principal":["owner"],"Resource":["acs:oss:*:*:bkt/*"]}"#)
        #expect(named.evaluate(Self.facts("oss:GetObject", "x", Self.owner)) == .deny)
    }

    @Test func conditionsOnSourceIpTransportAndPrefix() throws {
        let ip = try Self.policy(
            #"{"Effect":"Allow","Action":["oss:GetObject"],"Principal":["*"],"Resource":["acs:oss:*:*:bkt/*"],"Condition":{"IpAddress":{"acs:SourceIp":["10.1.0.0/16","192.168.7.7"]}}}"#)
        #expect(ip.evaluate(Self.facts("oss:GetObject", "k", ip: "10.1.200.3")) == .allow)
        #expect(ip.evaluate(Self.facts("oss:GetObject", "k", ip: "192.168.7.7")) == .allow)
        #expect(ip.evaluate(Self.facts("oss:GetObject", "k", ip: "10.2.0.1")) == .noOpinion)
        let notIp = try Self.policy(
            #"{"Effect":"Deny","Action":["oss:*"],"Principal":["*"],"Resource":["acs:oss:*:*:bkt/*"],"Condition":{"NotIpAddress":{"acs:SourceIp":"10.0.0.0/8"}}}"#)
        #expect(notIp.evaluate(Self.facts("oss:GetObject", "k", ip: "127.0.0.1")) == .deny)
        #expect(notIp.evaluate(Self.facts("oss:GetObject", "k", ip: "10.9.9.9")) == .noOpinion)
        let tls = try Self.policy(
            #"{"Effect":"Deny","Action":["oss:*"],"Principal":["*"],"Resource":["acs:oss:*:*:bkt/*"],"Condition":{"Bool":{"acs:SecureTransport":false}}}"#)
        #expect(tls.evaluate(Self.facts("oss:GetObject", "k", tls: false)) == .deny)
        #expect(tls.evaluate(Self.facts("oss:GetObject", "k", tls: true)) == .noOpinion)
        let prefix = try Self.policy(
            #"{"Effect":"Allow","Action":["oss:ListObjects"],"Principal":["1888"],"Resource":["acs:oss:*:*:bkt"],"Condition":{"StringLike":{"oss:Prefix":["docs/*"]}}}"#)
        #expect(prefix.evaluate(Self.facts("oss:ListObjects", nil, Self.other, prefix: "docs/2024/")) == .allow)
        #expect(prefix.evaluate(Self.facts("oss:ListObjects", nil, Self.other, prefix: "private/")) == .noOpinion)
        #expect(prefix.evaluate(Self.facts("oss:ListObjects", nil, Self.other, prefix: nil)) == .noOpinion)
        let equals = try Self.policy(
            #"{"Effect":"Allow","Action":["oss:ListObjects"],"Principal":["1888"],"Resource":["acs:oss:*:*:bkt"],"Condition":{"StringEquals":{"oss:Prefix":"docs/"}}}"#)
        #expect(equals.evaluate(Self.facts("oss:ListObjects", nil, Self.other, prefix: "docs/")) == .allow)
        #expect(equals.evaluate(Self.facts("oss:ListObjects", nil, Self.other, prefix: "docs/x")) == .noOpinion)
    }

    @Test func malformedPoliciesAreRefusedWithAReason() {
        let refused: [String] = [
            "{",
            "[]",
            #"{"Version":1,"Statement":[{"Effect":"Allow","Action":["oss:*"],"Principal":["*"],"Resource":["*"]}]}"#,
            #"{"Version":"2","Statement":[{"Effect":"Allow","Action":["oss:*"],"Principal":["*"],"Resource":["*"]}]}"#,
            #"{"Version":"1","Statement":[]}"#,
            #"{"Version":"1","Statement":[{"Effect":"Maybe","Action":["oss:*"],"Principal":["*"],"Resource":["*"]}]}"#,
            #"{"Version":"1","Statement":[{"Effect":"Allow","Principal":["*"],"Resource":["*"]}]}"#,
            #"{"Version":"1","Statement":[{"Effect":"Allow","Action":["oss:*"],"NotAction":["oss:GetObject"],"Principal":["*"],"Resource":["*"]}]}"#,
            #"{"Version":"1","Statement":[{"Effect":"Allow","Action":["ecs:*"],"Principal":["*"],"Resource":["*"]}]}"#,
            #"{"Version":"1","Statement":[{"Effect":"Allow","Action":["oss:*"],"Resource":["*"]}]}"#,
            #"{"Version":"1","Statement":[{"Effect":"Allow","Action":["oss:*"],"Principal":["*"],"Resource":["arn:aws:s3:::b"]}]}"#,
            #"{"Version":"1","Statement":[{"Effect":"Allow","Action":["oss:*"],"Principal":["*"],"Resource":["*"],"Condition":{"Between":{"acs:SourceIp":"1"}}}]}"#,
            #"{"Version":"1","Statement":[{"Effect":"Allow","Action":["oss:*"],"Principal":["*"],"Resource":["*"],"Condition":{"IpAddress":{"acs:SourceIp":"10.0.0.0/33"}}}]}"#,
            #"{"Version":"1","Statement":[{"Effect":"Allow","Action":["oss:*"],"Principal":["*"],"Resource":["*"],"Condition":{"Bool":{"acs:SecureTransport":"yes"}}}]}"#,
        ]
        for text in refused {
            #expect(throws: BucketPolicy.Invalid.self, "\(text)") { try BucketPolicy(json: Array(text.utf8)) }
        }
        #expect(throws: BucketPolicy.Invalid.self) { try BucketPolicy(json: Array(repeating: 0x20, count: (16 << 10) + 1)) }
    }

    @Test func publicStatementsAreAllowsToEveryoneNotNarrowedToAnAddress() throws {
        #expect(try Self.policy(#"{"Effect":"Allow","Action":["oss:GetObject"],"Principal":["*"],"Resource":["*"]}"#).isPublic)
        #expect(try !Self.policy(#"{"Effect":"Deny","Action":["oss:GetObject"],"Principal":["*"],"Resource":["*"]}"#).isPublic)
        #expect(try !Self.policy(#"{"Effect":"Allow","Action":["oss:GetObject"],"Principal":["1888"],"Resource":["*"]}"#).isPublic)
        let narrowed = try Self.policy(
            #"{"Effect":"Allow","Action":["oss:GetObject"],"Principal":["*"],"Resource":["*"],"Condition":{"IpAddress":{"acs:SourceIp":["10.0.0.0/8"]}}}"#)
        #expect(!narrowed.isPublic)
        let mixed = try Self.policy(
            #"{"Effect":"Allow","Action":["oss:GetObject"],"Principal":["*"],"Resource":["*"]}"#,
            #"{"Effect":"Allow","Action":["oss:PutObject"],"Principal":["1888"],"Resource":["*"]}"#)
        #expect(mixed.isPublic && mixed.withoutPublicStatements.statements.count == 1)
        #expect(mixed.withoutPublicStatements.evaluate(Self.facts("oss:GetObject", "k")) == .noOpinion)
    }

    @Test func wildcardsAndAddresses() {
        #expect(BucketPolicy.wildcardMatch("a*b?d", "axxxbcd", caseInsensitive: false))
        #expect(!BucketPolicy.wildcardMatch("a*b?d", "axxxbd", caseInsensitive: false))
        #expect(BucketPolicy.wildcardMatch("*", "", caseInsensitive: false))
        #expect(BucketPolicy.cidr("0.0.0.0/0", contains: "8.8.8.8"))
        #expect(!BucketPolicy.cidr("127.0.0.0/8", contains: "::1"))
        #expect(BucketPolicy.ipv4("256.1.1.1") == nil && BucketPolicy.ipv4("1.2.3") == nil)
    }
}
