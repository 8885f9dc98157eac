import Foundation
import OSSLocalServer
import OSSSigning
import Testing

/// Access control on the local server, against real requests: bucket policies (principals, conditions, deny over
/// allow, validation), referer rules, public access block (bucket and account), request payment, and the ways
/// around a denial that must not work (presigned and header-signed V1/V4, anonymous, copy, append, multipart,
/// symlinks).
@Suite struct AccessControlTests {
    static let otherUser = LocalOSSUser(
        accessKeyId: "LTAIOtherAccountKey", accessKeySecret: "OtherAccountSecret", uid: "1888000000000001", sameAccount: false)
    static let ramUser = LocalOSSUser(
        accessKeyId: "LTAIRamUserKey", accessKeySecret: "RamUserSecret", uid: "2777000000000002", sameAccount: true)

    static func configuration(_ buckets: [String]) -> LocalOSSServerConfiguration {
        var configuration = LocalOSSServerConfiguration(buckets: buckets)
        configuration.users = [otherUser, ramUser]
        return configuration
    }

    static func client(_ server: LocalOSSServer, _ user: LocalOSSUser, _ version: TestClient.Version = .v1) -> TestClient {
        TestClient(
            endpointURL: server.endpoint,
            credentials: OSSCredentials(accessKeyId: user.accessKeyId, accessKeySecret: user.accessKeySecret), version: version)
    }

    static func policy(_ statements: String...) -> [UInt8] {
        Array(#"{"Version":"1","Statement":[\#(statements.joined(separator: ","))]}"#.utf8)
    }

    @Test func aPolicyGrantsOtherAccountsAndEveryoneWhatTheACLDoesNot() async throws {
        try await withLocalOSSServer(Self.configuration(["pol"])) { (server: LocalOSSServer) async throws -> Void in
            let owner = TestClient(server)
            let other = Self.client(server, Self.otherUser)
            #expect(try await owner.send("PUT", bucket: "pol", key: "pub/a", body: [1]).status == 200)
            #expect(try await owner.send("PUT", bucket: "pol", key: "priv/a", body: [2]).status == 200)
            #expect(try await other.send("GET", bucket: "pol", key: "pub/a").errorCode == "AccessDenied")
            let grant = Self.policy(
                #"{"Effect":"Allow","Action":["oss:GetObject"],"Principal":["1888000000000001"],"Resource":["acs:oss:*:*:pol/pub/*"]}"#)
            #expect(try await owner.send("PUT", bucket: "pol", query: ["policy": ""], body: grant).status == 200)
            let fetched = try await other.send("GET", bucket: "pol", key: "pub/a")
            #expect(fetched.status == 200 && fetched.body == [1])
            #expect(try await other.send("GET", bucket: "pol", key: "priv/a").errorCode == "AccessDenied")
            #expect(try await other.send("PUT", bucket: "pol", key: "pub/b", body: [3]).errorCode == "AccessDenied")
            #expect(try await owner.send("GET", bucket: "pol", key: "pub/a", sign: false).errorCode == "AccessDenied")

            let everyone = Self.policy(#"{"Effect":"Allow","Action":["oss:GetObject"],"Principal":["*"],"Resource":["acs:oss:*:*:pol/pub/*"]}"#)
            #expect(try await owner.send("PUT", bucket: "pol", query: ["policy": ""], body: everyone).status == 200)
            #expect(try await owner.send("GET", bucket: "pol", key: "pub/a", sign: false).status == 200)
            #expect(try await owner.send("GET", bucket: "pol", key: "priv/a", sign: false).errorCode == "AccessDenied")
            #expect(try await owner.send("DELETE", bucket: "pol", query: ["policy": ""]).status == 204)
            #expect(try await owner.send("GET", bucket: "pol", key: "pub/a", sign: false).errorCode == "AccessDenied")
        }
    }

    @Test func explicitDenyBeatsAllowAndTheACLButSparesTheOwnerUnlessConditional() async throws {
        try await withLocalOSSServer(Self.configuration(["deny"])) { (server: LocalOSSServer) async throws -> Void in
            let owner = TestClient(server)
            let ram = Self.client(server, Self.ramUser)
            #expect(try await owner.send("PUT", bucket: "deny", query: ["acl": ""], headers: ["x-oss-acl": "public-read-write"]).status == 200)
            #expect(try await owner.send("PUT", bucket: "deny", key: "keep/a", body: [1]).status == 200)
            #expect(try await ram.send("PUT", bucket: "deny", key: "keep/b", body: [1]).status == 200)  // same account
            let policy = Self.policy(
                #"{"Effect":"Allow","Action":["oss:*"],"Principal":["*"],"Resource":["acs:oss:*:*:deny/*"]}"#,
                #"{"Effect":"Deny","Action":["oss:DeleteObject","oss:PutObject"],"Principal":["*"],"Resource":["acs:oss:*:*:deny/keep/*"]}"#)
            #expect(try await owner.send("PUT", bucket: "deny", query: ["policy": ""], body: policy).status == 200)
            #expect(try await owner.send("DELETE", bucket: "deny", key: "keep/a", sign: false).errorCode == "AccessDenied")
            #expect(try await ram.send("DELETE", bucket: "deny", key: "keep/a").errorCode == "AccessDenied")
            #expect(try await owner.send("PUT", bucket: "deny", key: "keep/c", body: [1], sign: false).errorCode == "AccessDenied")
            #expect(try await owner.send("PUT", bucket: "deny", key: "tmp/c", body: [1], sign: false).status == 200)
            // "*" without a condition does not bind the bucket owner...
            #expect(try await owner.send("PUT", bucket: "deny", key: "keep/d", body: [1]).status == 200)
            // ...with a condition it does; the owner still manages the policy.
            let conditional = Self.policy(
                #"{"Effect":"Deny","Action":["oss:PutObject"],"Principal":["*"],"Resource":["acs:oss:*:*:deny/keep/*"],"Condition":{"IpAddress":{"acs:SourceIp":["127.0.0.0/8"]}}}"#)
            #expect(try await owner.send("PUT", bucket: "deny", query: ["policy": ""], body: conditional).status == 200)
            #expect(try await owner.send("PUT", bucket: "deny", key: "keep/e", body: [1]).errorCode == "AccessDenied")
            let notHere = Self.policy(
                #"{"Effect":"Deny","Action":["oss:*"],"Principal":["*"],"Resource":["acs:oss:*:*:deny/*"],"Condition":{"NotIpAddress":{"acs:SourceIp":["127.0.0.0/8"]}}}"#)
            #expect(try await owner.send("PUT", bucket: "deny", query: ["policy": ""], body: notHere).status == 200)
            #expect(try await owner.send("PUT", bucket: "deny", key: "keep/e", body: [1]).status == 200)
            let plainHTTP = Self.policy(
                #"{"Effect":"Deny","Action":["oss:GetObject"],"Principal":["*"],"Resource":["acs:oss:*:*:deny/*"],"Condition":{"Bool":{"acs:SecureTransport":["false"]}}}"#)
            #expect(try await owner.send("PUT", bucket: "deny", query: ["policy": ""], body: plainHTTP).status == 200)
            #expect(try await owner.send("GET", bucket: "deny", key: "keep/e").errorCode == "AccessDenied")
            #expect(try await owner.send("GET", bucket: "deny", query: ["policy": ""]).status == 200)
        }
    }

    @Test func prefixConditionsLimitListing() async throws {
        try await withLocalOSSServer(Self.configuration(["lst"])) { (server: LocalOSSServer) async throws -> Void in
            let owner = TestClient(server)
            let other = Self.client(server, Self.otherUser)
            let policy = Self.policy(
                #"{"Effect":"Allow","Action":["oss:ListObjects"],"Principal":["1888000000000001"],"Resource":["acs:oss:*:*:lst"],"Condition":{"StringLike":{"oss:Prefix":["docs/*"]}}}"#)
            #expect(try await owner.send("PUT", bucket: "lst", query: ["policy": ""], body: policy).status == 200)
            #expect(try await other.send("GET", bucket: "lst", query: ["prefix": "docs/2024/"]).status == 200)
            #expect(try await other.send("GET", bucket: "lst", query: ["prefix": "private/"]).errorCode == "AccessDenied")
            #expect(try await other.send("GET", bucket: "lst").errorCode == "AccessDenied")
            #expect(try await other.send("GET", bucket: "lst", query: ["list-type": "2", "prefix": "docs/"]).status == 200)
        }
    }

    @Test func malformedPoliciesAreRefusedAndNotStored() async throws {
        try await withLocalOSSServer(Self.configuration(["bad"])) { (server: LocalOSSServer) async throws -> Void in
            let owner = TestClient(server)
            for text in [
                "{", #"{"Version":1,"Statement":[{"Effect":"Allow","Action":["oss:*"],"Principal":["*"],"Resource":["*"]}]}"#,
                #"{"Version":"1","Statement":[{"Effect":"Permit","Action":["oss:*"],"Principal":["*"],"Resource":["*"]}]}"#,
                #"{"Version":"1","Statement":[{"Effect":"Allow","Action":["oss:*"],"Resource":["*"]}]}"#,
                #"{"Version":"1","Statement":[{"Effect":"Allow","Action":["oss:*"],"Principal":["*"],"Resource":["*"],"Condition":{"IpAddress":{"acs:SourceIp":"nowhere"}}}]}"#,
            ] {
                let put = try await owner.send("PUT", bucket: "bad", query: ["policy": ""], body: Array(text.utf8))
                #expect(put.status == 400 && put.errorCode == "InvalidPolicyDocument", "\(text)")
            }
            #expect(try await owner.send("GET", bucket: "bad", query: ["policy": ""]).errorCode == "NoSuchBucketPolicy")
        }
    }

    @Test func refererRulesApplyToAnonymousAndPresignedRequestsOnly() async throws {
        try await withLocalOSSServer(Self.configuration(["ref"])) { (server: LocalOSSServer) async throws -> Void in
            let owner = TestClient(server)
            #expect(try await owner.send("PUT", bucket: "ref", query: ["acl": ""], headers: ["x-oss-acl": "public-read"]).status == 200)
            #expect(try await owner.send("PUT", bucket: "ref", key: "img.png", body: [7]).status == 200)
            let rules = """
                <RefererConfiguration><AllowEmptyReferer>false</AllowEmptyReferer>
                <RefererList><Referer>https://*.example.com</Referer><Referer>https://exact?.org/</Referer></RefererList>
                <RefererBlacklist><Referer>https://bad.example.com</Referer></RefererBlacklist></RefererConfiguration>
                """
            #expect(try await owner.send("PUT", bucket: "ref", query: ["referer": ""], body: Array(rules.utf8)).status == 200)
            func anonymous(_ referer: String?) async throws -> TestClient.Response {
                try await owner.send("GET", bucket: "ref", key: "img.png", headers: referer.map { ["Referer": $0] } ?? [:], sign: false)
            }
            #expect(try await anonymous("https://www.example.com/page?x=1").status == 200)
            #expect(try await anonymous("https://exact1.org/index.html").status == 200)
            let refused = try await anonymous("https://evil.com/")
            #expect(refused.status == 403 && refused.errorCode == "AccessDenied" && refused.text.contains("referer"))
            #expect(try await anonymous("https://bad.example.com/x").errorCode == "AccessDenied")
            #expect(try await anonymous(nil).errorCode == "AccessDenied")
            for version in TestClient.Version.allCases {
                let signed = TestClient(server, version: version)
                let url = try signed.presignedURL("GET", bucket: "ref", key: "img.png")
                #expect(try await signed.execute("GET", url: url).errorCode == "AccessDenied", "\(version)")
                #expect(try await signed.execute("GET", url: url, headers: ["Referer": "https://a.example.com/"]).status == 200)
                // A header-signed request is not subject to referer rules.
                #expect(try await signed.send("GET", bucket: "ref", key: "img.png", headers: ["Referer": "https://evil.com/"]).status == 200)
            }
            let open = "<RefererConfiguration><AllowEmptyReferer>true</AllowEmptyReferer><RefererList/></RefererConfiguration>"
            #expect(try await owner.send("PUT", bucket: "ref", query: ["referer": ""], body: Array(open.utf8)).status == 200)
            #expect(try await anonymous("https://evil.com/").status == 200)
        }
    }

    @Test func publicAccessBlockIgnoresAndRefusesPublicGrants() async throws {
        try await withLocalOSSServer(Self.configuration(["pab"])) { (server: LocalOSSServer) async throws -> Void in
            let owner = TestClient(server)
            let other = Self.client(server, Self.otherUser)
            #expect(try await owner.send("PUT", bucket: "pab", query: ["acl": ""], headers: ["x-oss-acl": "public-read"]).status == 200)
            #expect(try await owner.send("PUT", bucket: "pab", key: "o", body: [1]).status == 200)
            let everyone = Self.policy(#"{"Effect":"Allow","Action":["oss:PutObject"],"Principal":["*"],"Resource":["acs:oss:*:*:pab/*"]}"#)
            #expect(try await owner.send("PUT", bucket: "pab", query: ["policy": ""], body: everyone).status == 200)
            #expect(try await owner.send("GET", bucket: "pab", key: "o", sign: false).status == 200)
            #expect(try await other.send("PUT", bucket: "pab", key: "w", body: [1]).status == 200)
            let unset = try await owner.send("GET", bucket: "pab", query: ["publicAccessBlock": ""])
            #expect(unset.status == 200 && xmlValue("BlockPublicAccess", in: unset.text) == "false")

            let on = "<PublicAccessBlockConfiguration><BlockPublicAccess>true</BlockPublicAccess></PublicAccessBlockConfiguration>"
            #expect(try await owner.send("PUT", bucket: "pab", query: ["publicAccessBlock": ""], body: Array(on.utf8)).status == 200)
            #expect(xmlValue("BlockPublicAccess", in: try await owner.send("GET", bucket: "pab", query: ["publicAccessBlock": ""]).text) == "true")
            #expect(try await owner.send("GET", bucket: "pab", key: "o", sign: false).errorCode == "AccessDenied")
            #expect(try await other.send("PUT", bucket: "pab", key: "w", body: [1]).errorCode == "AccessDenied")
            #expect(try await owner.send("GET", bucket: "pab", key: "o").status == 200)  // the owner is not public
            #expect(try await owner.send("PUT", bucket: "pab", query: ["acl": ""], headers: ["x-oss-acl": "public-read-write"]).errorCode == "AccessDenied")
            #expect(try await owner.send("PUT", bucket: "pab", key: "n", headers: ["x-oss-object-acl": "public-read"], body: [1]).errorCode == "AccessDenied")
            #expect(try await owner.send("PUT", bucket: "pab", key: "o", query: ["acl": ""], headers: ["x-oss-object-acl": "public-read"]).errorCode == "AccessDenied")
            #expect(try await owner.send("PUT", bucket: "pab", query: ["policy": ""], body: everyone).errorCode == "AccessDenied")
            let named = Self.policy(#"{"Effect":"Allow","Action":["oss:GetObject"],"Principal":["1888000000000001"],"Resource":["acs:oss:*:*:pab/*"]}"#)
            #expect(try await owner.send("PUT", bucket: "pab", query: ["policy": ""], body: named).status == 200)
            #expect(try await other.send("GET", bucket: "pab", key: "o").status == 200)

            #expect(try await owner.send("DELETE", bucket: "pab", query: ["publicAccessBlock": ""]).status == 204)
            #expect(try await owner.send("GET", bucket: "pab", key: "o", sign: false).status == 200)
            // The account's block covers every bucket.
            #expect(try await owner.send("PUT", query: ["publicAccessBlock": ""], body: Array(on.utf8)).status == 200)
            #expect(xmlValue("BlockPublicAccess", in: try await owner.send("GET", query: ["publicAccessBlock": ""]).text) == "true")
            #expect(try await owner.send("GET", bucket: "pab", key: "o", sign: false).errorCode == "AccessDenied")
            #expect(try await other.send("PUT", query: ["publicAccessBlock": ""], body: Array(on.utf8)).errorCode == "AccessDenied")
            #expect(try await owner.send("DELETE", query: ["publicAccessBlock": ""]).status == 204)
            #expect(try await owner.send("GET", bucket: "pab", key: "o", sign: false).status == 200)
        }
    }

    @Test func requesterPaysRefusesAnonymousAndUnwillingRequesters() async throws {
        try await withLocalOSSServer(Self.configuration(["pay"])) { (server: LocalOSSServer) async throws -> Void in
            let owner = TestClient(server)
            let other = Self.client(server, Self.otherUser)
            #expect(try await owner.send("PUT", bucket: "pay", query: ["acl": ""], headers: ["x-oss-acl": "public-read"]).status == 200)
            #expect(try await owner.send("PUT", bucket: "pay", key: "o", body: [1]).status == 200)
            #expect(try await other.send("GET", bucket: "pay", key: "o").status == 200)
            let payer = "<RequestPaymentConfiguration><Payer>Requester</Payer></RequestPaymentConfiguration>"
            #expect(try await owner.send("PUT", bucket: "pay", query: ["requestPayment": ""], body: Array(payer.utf8)).status == 200)
            #expect(try await other.send("GET", bucket: "pay", key: "o").errorCode == "AccessDenied")
            #expect(try await other.send("GET", bucket: "pay", key: "o", headers: ["x-oss-request-payer": "requester"]).status == 200)
            #expect(try await owner.send("GET", bucket: "pay", key: "o", headers: ["x-oss-request-payer": "requester"], sign: false).errorCode == "AccessDenied")
            #expect(try await owner.send("GET", bucket: "pay", key: "o").status == 200)
            #expect(try await Self.client(server, Self.ramUser).send("GET", bucket: "pay", key: "o").status == 200)
        }
    }
}
