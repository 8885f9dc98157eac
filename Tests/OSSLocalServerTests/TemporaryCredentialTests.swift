import Foundation
import OSSLocalServer
import OSSSigning
import Testing

/// Temporary credentials the server issues (`POST /-/sts?seconds=N`, ``LocalOSSServer/issueTemporaryCredentials(lifetime:)``):
/// accepted with their token until they expire, then refused with 403 `SecurityTokenExpired`.
@Suite struct TemporaryCredentialTests {
    @Test func issuedCredentialsWorkUntilTheyExpire() async throws {
        try await withLocalOSSServer(.init(buckets: ["sts"])) { server in
            // Long enough for both signature versions' requests on a loaded machine (2 s were once overrun); the
            // expiry itself is checked with credentials issued already expired.
            let issued = server.issueTemporaryCredentials(lifetime: .seconds(120))
            #expect(issued.accessKeyId.hasPrefix("STS."))
            for version in TestClient.Version.allCases {
                let client = TestClient(endpointURL: server.endpoint, credentials: issued.credentials, version: version)
                #expect(try await client.send("PUT", bucket: "sts", key: "k", body: [1, 2]).status == 200)
                // The token is still required, and must be the right one.
                var tokenless = client
                tokenless.credentials = OSSCredentials(
                    accessKeyId: issued.accessKeyId, accessKeySecret: issued.accessKeySecret)
                #expect(try await tokenless.send("GET", bucket: "sts", key: "k").errorCode == "InvalidSecurityToken")
                // Credentials whose lifetime is over on the server's clock.
                let expired = server.issueTemporaryCredentials(lifetime: .zero)
                let late = TestClient(endpointURL: server.endpoint, credentials: expired.credentials, version: version)
                let refused = try await late.send("GET", bucket: "sts", key: "k")
                #expect(refused.status == 403)
                #expect(refused.errorCode == "SecurityTokenExpired")
                #expect(refused.text.contains("The security token you provided has expired."))
            }
            #expect(server.temporaryCredentialsIssued == 3)
        }
    }

    @Test func expiredOnTheServerClockAndIssuedOverTheAdminEndpoint() async throws {
        try await withLocalOSSServer(.init(buckets: ["sts"])) { server in
            let admin = TestClient(server)
            let answer = try await admin.execute("POST", url: server.endpoint.absoluteString + "/-/sts?seconds=1")
            #expect(answer.status == 200)
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            let issued = try decoder.decode(LocalOSSTemporaryCredential.self, from: Data(answer.body))
            #expect(answer.text.contains("\"SecurityToken\""))
            let client = TestClient(endpointURL: server.endpoint, credentials: issued.credentials)
            #expect(try await client.send("PUT", bucket: "sts", key: "k", body: [1]).status == 200)
            try await Task.sleep(for: .milliseconds(1100))
            #expect(try await client.send("GET", bucket: "sts", key: "k").errorCode == "SecurityTokenExpired")
        }
    }
}
