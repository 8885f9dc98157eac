import Foundation
import OSSLocalServer
import OSSSigning
import Testing

@Suite struct AuthTests {
    static let sts = OSSCredentials(accessKeyId: "STS.TestKey", accessKeySecret: "StsSecret", securityToken: "CAIS+Tok/en=")

    static func configuration() -> LocalOSSServerConfiguration {
        LocalOSSServerConfiguration(stsCredentials: [sts], buckets: ["auth"])
    }

    @Test(arguments: TestClient.Version.allCases)
    func wrongSecretUnknownKeyAnonymous(version: TestClient.Version) async throws {
        try await withLocalOSSServer(Self.configuration()) { server in
            var client = TestClient(server, version: version)
            client.credentials.accessKeySecret = "wrong"
            let wrong = try await client.send("PUT", bucket: "auth", key: "k", body: [1])
            #expect(wrong.status == 403 && wrong.errorCode == "SignatureDoesNotMatch")
            #expect(xmlValue("StringToSign", in: wrong.text) != nil)
            #expect(!wrong.text.contains("wrong"))
            if version == .v4 { #expect(xmlValue("CanonicalRequest", in: wrong.text) != nil) }
            client.credentials.accessKeyId = "NoSuchKeyId"
            let unknown = try await client.send("GET", bucket: "auth", key: "k")
            #expect(unknown.status == 403 && unknown.errorCode == "InvalidAccessKeyId")
            let anonymous = try await client.send("GET", bucket: "auth", key: "k", sign: false)
            #expect(anonymous.status == 403 && anonymous.errorCode == "AccessDenied")
            let head = try await client.send("HEAD", bucket: "auth", key: "k", sign: false)
            #expect(head.status == 403 && head.errorCode == "AccessDenied" && head.header("x-oss-ec") != nil)
            #expect(try await TestClient(server, version: version).send("PUT", bucket: "auth", key: "k").status == 200)
        }
    }

    @Test(arguments: TestClient.Version.allCases)
    func clockSkew(version: TestClient.Version) async throws {
        try await withLocalOSSServer(Self.configuration()) { server in
            var client = TestClient(server, version: version)
            client.clockOffset = -1000
            let skewed = try await client.send("GET", bucket: "auth")
            #expect(skewed.status == 403 && skewed.errorCode == "RequestTimeTooSkewed")
            #expect(xmlValue("ServerTime", in: skewed.text) != nil)
            client.clockOffset = 800
            #expect(try await client.send("GET", bucket: "auth").status == 200)
        }
    }

    @Test func tamperedRequest() async throws {
        try await withLocalOSSServer(Self.configuration()) { server in
            let client = TestClient(server)
            for version in TestClient.Version.allCases {
                var c = client
                c.version = version
                var request = OSSSignableRequest(method: "GET", bucket: "auth", key: "a")
                try c.signer.sign(&request, credentials: server.credentials, date: Date())
                let r = try await c.execute("GET", url: c.url(bucket: "auth", key: "b", query: [:]), headers: request.headers)
                #expect(r.status == 403 && r.errorCode == "SignatureDoesNotMatch", "\(version)")
                var meta = request
                meta[header: "x-oss-meta-added"] = "later"
                let r2 = try await c.execute("GET", url: c.url(bucket: "auth", key: "a", query: [:]), headers: meta.headers)
                #expect(r2.status == 403 && r2.errorCode == "SignatureDoesNotMatch", "\(version)")
            }
        }
    }

    @Test(arguments: TestClient.Version.allCases)
    func presignedURLs(version: TestClient.Version) async throws {
        try await withLocalOSSServer(Self.configuration()) { server in
            let client = TestClient(server, version: version)
            let data = randomBytes(3000)
            let put = try client.presignedURL("PUT", bucket: "auth", key: "dir/pre signed+x")
            #expect(try await client.execute("PUT", url: put, body: data).status == 200)
            let get = try client.presignedURL("GET", bucket: "auth", key: "dir/pre signed+x")
            let fetched = try await client.execute("GET", url: get)
            #expect(fetched.status == 200 && fetched.body == data)
            let expired = try client.presignedURL(
                "GET", bucket: "auth", key: "dir/pre signed+x", expiresIn: 60, date: Date().addingTimeInterval(-120))
            let denied = try await client.execute("GET", url: expired)
            #expect(denied.status == 403 && denied.errorCode == "AccessDenied")
            let tampered = get.replacingOccurrences(of: "signed", with: "signez")
            #expect(try await client.execute("GET", url: tampered).errorCode == "SignatureDoesNotMatch")
        }
    }

    @Test func stsTokensInEveryForm() async throws {
        try await withLocalOSSServer(Self.configuration()) { server in
            var client = TestClient(server)
            client.credentials = Self.sts
            // x-oss-security-token header (signed), V1 and V4
            #expect(try await client.send("PUT", bucket: "auth", key: "s", body: [1]).status == 200)
            client.version = .v4
            #expect(try await client.send("GET", bucket: "auth", key: "s").status == 200)
            // presigned: security-token (V1) and x-oss-security-token (V4) query parameters
            #expect(try await client.execute("GET", url: try client.presignedURL("GET", bucket: "auth", key: "s")).status == 200)
            client.version = .v1
            #expect(try await client.execute("GET", url: try client.presignedURL("GET", bucket: "auth", key: "s")).status == 200)
            // the v2 SDK's unsigned `security-token` header
            var request = OSSSignableRequest(method: "GET", bucket: "auth", key: "s")
            try OSSSignerV1().sign(
                &request, credentials: OSSCredentials(accessKeyId: Self.sts.accessKeyId, accessKeySecret: Self.sts.accessKeySecret),
                date: Date())
            var headers = request.headers
            headers["security-token"] = Self.sts.securityToken
            #expect(try await client.execute("GET", url: client.url(bucket: "auth", key: "s", query: [:]), headers: headers).status == 200)
            headers["security-token"] = nil
            let missing = try await client.execute("GET", url: client.url(bucket: "auth", key: "s", query: [:]), headers: headers)
            #expect(missing.status == 403 && missing.errorCode == "InvalidSecurityToken")
            client.credentials.securityToken = "forged"
            let forged = try await client.send("GET", bucket: "auth", key: "s")
            #expect(forged.status == 403 && forged.errorCode == "InvalidSecurityToken")
        }
    }

    @Test func v4AuthorizationSpellingsAndAdditionalHeaders() async throws {
        try await withLocalOSSServer(Self.configuration()) { server in
            let client = TestClient(server, version: .v4)
            _ = try await client.send("PUT", bucket: "auth", key: "v4", body: Array("0123456789".utf8))
            var request = OSSSignableRequest(method: "GET", bucket: "auth", key: "v4", headers: ["range": "bytes=0-3"])
            try OSSSignerV4(region: "cn-hangzhou", additionalHeaders: ["range"])
                .sign(&request, credentials: server.credentials, date: Date())
            let authorization = try #require(request[header: "authorization"])
            #expect(authorization.contains("AdditionalHeaders=range"))
            let url = client.url(bucket: "auth", key: "v4", query: [:])
            let plain = try await client.execute("GET", url: url, headers: request.headers)
            #expect(plain.status == 206 && plain.body == Array("0123".utf8))
            // oss2's spelling: ", " separators, AdditionalHeaders after Signature
            var fields = authorization.dropFirst("OSS4-HMAC-SHA256 ".count).split(separator: ",").map(String.init)
            let additional = fields.remove(at: 1)
            fields.append(additional)
            var spaced = request.headers
            spaced["authorization"] = "OSS4-HMAC-SHA256 " + fields.joined(separator: ", ")
            #expect(try await client.execute("GET", url: url, headers: spaced).status == 206)
            // the range is signed: changing it breaks the signature
            var changed = request.headers
            changed["range"] = "bytes=0-4"
            #expect(try await client.execute("GET", url: url, headers: changed).errorCode == "SignatureDoesNotMatch")
        }
    }
}
