@testable import AliyunOSS
import Foundation
import NIOConcurrencyHelpers
import Testing

@Suite("Credential providers")
struct CredentialProviderTests {
    @Test func staticAndSts() async throws {
        let s = try await OSSStaticCredentialProvider(accessKeyId: "ak", accessKeySecret: "sk").credentials()
        #expect(s == OSSCredentials(accessKeyId: "ak", accessKeySecret: "sk"))
        let t = try await OSSStsCredentialProvider(accessKeyId: "ak", accessKeySecret: "sk", securityToken: "tok")
            .credentials()
        #expect(t.securityToken == "tok")
    }

    @Test func environment() async throws {
        let full = OSSEnvironmentCredentialProvider(environment: [
            "OSS_ACCESS_KEY_ID": "ak", "OSS_ACCESS_KEY_SECRET": "sk", "OSS_SESSION_TOKEN": "tok",
        ])
        #expect(try await full.credentials() == OSSCredentials(accessKeyId: "ak", accessKeySecret: "sk", securityToken: "tok"))
        let noToken = OSSEnvironmentCredentialProvider(environment: ["OSS_ACCESS_KEY_ID": "ak", "OSS_ACCESS_KEY_SECRET": "sk"])
        #expect(try await noToken.credentials().securityToken == nil)
        let missing = OSSEnvironmentCredentialProvider(environment: ["OSS_ACCESS_KEY_ID": "ak"])
        do {
            _ = try await missing.credentials()
            Issue.record("expected an error")
        } catch let error as OSSClientError {
            #expect(error.code == .signFailed)
            #expect(error.message.contains("OSS_ACCESS_KEY_SECRET"))
        }
    }

    @Test func concurrentCallersShareOneRefresh() async throws {
        let calls = NIOLockedValueBox(0)
        let provider = OSSRefreshingCredentialProvider {
            let n = calls.withLockedValue { $0 += 1; return $0 }
            try await Task.sleep(for: .milliseconds(50))
            return OSSFederationToken(
                accessKeyId: "ak\(n)", accessKeySecret: "sk", securityToken: "tok",
                expiration: Date().addingTimeInterval(3600))
        }
        let ids = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<20 {
                group.addTask { try await provider.credentials().accessKeyId }
            }
            var all: [String] = []
            for try await id in group { all.append(id) }
            return all
        }
        #expect(Set(ids) == ["ak1"])
        #expect(calls.withLockedValue { $0 } == 1)
        #expect(await provider.fetchCount == 1)
        // Cached afterwards.
        #expect(try await provider.credentials().accessKeyId == "ak1")
        // invalidate() forces a new fetch.
        await provider.invalidate()
        #expect(try await provider.credentials().accessKeyId == "ak2")
    }

    @Test func refreshesAheadOfExpiry() async throws {
        let calls = NIOLockedValueBox(0)
        let clock = NIOLockedValueBox(Date(timeIntervalSince1970: 1_800_000_000))
        let provider = OSSRefreshingCredentialProvider(refreshAhead: .seconds(300), now: { clock.withLockedValue { $0 } }) {
            let n = calls.withLockedValue { $0 += 1; return $0 }
            let lifetime: TimeInterval = n == 1 ? 3600 : 120
            return OSSFederationToken(
                accessKeyId: "ak\(n)", accessKeySecret: "sk", securityToken: nil,
                expiration: clock.withLockedValue { $0 }.addingTimeInterval(lifetime))
        }
        #expect(try await provider.credentials().accessKeyId == "ak1")
        // One hour: refreshed 300 s before it expires.
        clock.withLockedValue { $0 += 3600 - 301 }
        #expect(try await provider.credentials().accessKeyId == "ak1")
        clock.withLockedValue { $0 += 2 }
        #expect(try await provider.credentials().accessKeyId == "ak2")
        // Two minutes, shorter than the refresh window: used for half its lifetime, not fetched for every call.
        #expect(try await provider.credentials().accessKeyId == "ak2")
        clock.withLockedValue { $0 += 59 }
        #expect(try await provider.credentials().accessKeyId == "ak2")
        clock.withLockedValue { $0 += 2 }
        #expect(try await provider.credentials().accessKeyId == "ak3")
        #expect(calls.withLockedValue { $0 } == 3)
    }

    @Test func fetchFailureIsTypedAndNotCached() async throws {
        struct Boom: Error {}
        let calls = NIOLockedValueBox(0)
        let provider = OSSRefreshingCredentialProvider {
            let n = calls.withLockedValue { $0 += 1; return $0 }
            if n == 1 { throw Boom() }
            return OSSFederationToken(accessKeyId: "ok", accessKeySecret: "sk", securityToken: nil, expiration: nil)
        }
        let code = await clientErrorCode { _ = try await provider.credentials() }
        #expect(code == .signFailed)
        #expect(try await provider.credentials().accessKeyId == "ok")
    }

    @Test func customSignerAnswerForms() async throws {
        let full = OSSCustomSignerCredentialProvider { _ in "OSS AK:SIG" }
        #expect(try await full.authorization(for: "x") == "OSS AK:SIG")
        let bare = OSSCustomSignerCredentialProvider(accessKeyId: "AK") { _ in "SIG" }
        #expect(try await bare.authorization(for: "x") == "OSS AK:SIG")
        let noKey = OSSCustomSignerCredentialProvider { _ in "SIG" }
        #expect(await clientErrorCode { _ = try await noKey.authorization(for: "x") } == .signFailed)
    }

    @Test func credentialsNeverPrintSecrets() {
        let c = OSSCredentials(accessKeyId: "ak", accessKeySecret: "SECRET", securityToken: "TOKEN")
        #expect(!"\(c)".contains("SECRET") && !"\(c)".contains("TOKEN"))
        let token = OSSFederationToken(accessKeyId: "ak", accessKeySecret: "SECRET", securityToken: "TOKEN", expiration: nil)
        #expect(!"\(token)".contains("SECRET") && !"\(token)".contains("TOKEN"))
    }
}
