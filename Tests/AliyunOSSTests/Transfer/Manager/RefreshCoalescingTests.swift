@testable import AliyunOSS
import Foundation
import Testing

@Suite("Refreshing provider: rejection coalescing")
struct RefreshCoalescingTests {
    static func provider(_ counter: TMCounter, delay: Duration = .zero) -> OSSRefreshingCredentialProvider {
        OSSRefreshingCredentialProvider {
            let n = counter.next()
            if delay > .zero { try await Task.sleep(for: delay) }
            return OSSFederationToken(
                accessKeyId: "key\(n)", accessKeySecret: "secret", securityToken: "token\(n)",
                expiration: Date().addingTimeInterval(3600))
        }
    }

    @Test("only the first rejection of a fetch's credentials invalidates them")
    func invalidateOnce() async throws {
        let counter = TMCounter()
        let provider = Self.provider(counter)
        let first = try await provider.credentialsWithEpoch()
        #expect(first.epoch == 1)
        #expect(await provider.invalidate(rejectedEpoch: 1))
        // A second rejection arriving before anyone fetched again changes nothing.
        #expect(await provider.invalidate(rejectedEpoch: 1) == false)
        let second = try await provider.credentialsWithEpoch()
        #expect(second.epoch == 2)
        #expect(second.credentials.accessKeyId == "key2")
        // A late rejection of the first credentials does not throw the second ones away.
        #expect(await provider.invalidate(rejectedEpoch: 1) == false)
        #expect(try await provider.credentialsWithEpoch().epoch == 2)
        #expect(counter.value == 2)
    }

    @Test("eight requests rejected together cause one fetch and all get the new credentials")
    func concurrentRejections() async throws {
        let counter = TMCounter()
        let provider = Self.provider(counter, delay: .milliseconds(50))
        let initial = try await provider.credentialsWithEpoch()
        let results = try await withThrowingTaskGroup(of: (Bool, Int, String).self) { group in
            for _ in 0..<8 {
                group.addTask {
                    let invalidated = await provider.invalidate(rejectedEpoch: initial.epoch)
                    let fresh = try await provider.credentialsWithEpoch()
                    return (invalidated, fresh.epoch, fresh.credentials.accessKeyId)
                }
            }
            var all: [(Bool, Int, String)] = []
            for try await result in group { all.append(result) }
            return all
        }
        #expect(results.filter(\.0).count == 1)
        #expect(results.allSatisfy { $0.1 == 2 && $0.2 == "key2" })
        #expect(counter.value == 2)
        #expect(await provider.fetchCount == 2)
    }
}
