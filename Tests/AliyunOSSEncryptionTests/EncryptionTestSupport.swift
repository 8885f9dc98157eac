import AliyunOSS
import AliyunOSSEncryption
import Foundation
import OSSLocalServer
import OSSTestSupport
import _CryptoExtras

/// A test RSA key pair made fresh for the run (no key material in the repository), in every PEM form the master
/// cipher reads.
struct TestKeyPair: Sendable {
    let pkcs1Private: String
    let pkcs8Private: String
    let spkiPublic: String
    let pkcs1Public: String

    static func make(bits: Int = 2048) throws -> TestKeyPair {
        let key = try _RSA.Signing.PrivateKey(keySize: .init(bitCount: bits))
        return TestKeyPair(
            pkcs1Private: key.pemRepresentation, pkcs8Private: key.pkcs8PEMRepresentation,
            spkiPublic: key.publicKey.pemRepresentation, pkcs1Public: key.publicKey.pkcs1PEMRepresentation)
    }

    func cipher(_ description: [String: String] = [:]) throws -> OSSRSAMasterCipher {
        try OSSRSAMasterCipher(publicKeyPEM: spkiPublic, privateKeyPEM: pkcs8Private, materialDescription: description)
    }
}

/// Two key pairs shared by the suites (2048-bit generation takes a moment on a loaded machine).
enum TestKeys {
    static let first: TestKeyPair = try! TestKeyPair.make()
    static let second: TestKeyPair = try! TestKeyPair.make()
}

/// Runs `body` with a fresh local server (bucket `bkt`) and a client of it.
func withEncryptionServer<T: Sendable>(
    _ body: (LocalOSSServer, OSSClient) async throws -> T
) async throws -> T {
    let serverConfiguration = LocalOSSServerConfiguration(region: "cn-hangzhou", buckets: ["bkt"])
    return try await withLocalOSSServer(serverConfiguration) { server in
        var configuration = OSSClientConfiguration(region: "cn-hangzhou")
        configuration.retry = .init(maxRetryCount: 3, baseDelay: .milliseconds(1), maxDelay: .milliseconds(5))
        configuration.transport = transportUnderTest
        configuration.timeouts.stall = .seconds(15)
        let client = try OSSClient(
            endpoint: server.endpoint, credentialProvider: server.credentials.provider, configuration: configuration)
        do {
            let result = try await body(server, client)
            try await client.shutdown()
            return result
        } catch {
            try? await client.shutdown()
            throw error
        }
    }
}

func testBytes(_ count: Int, seed: UInt64 = 7) -> Data { Data(patternBytes(count, seed: seed)) }
