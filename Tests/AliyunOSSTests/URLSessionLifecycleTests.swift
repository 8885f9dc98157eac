@testable import AliyunOSS
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOConcurrencyHelpers
import OSSLocalServer
import Testing

/// The URLSession transport's run-time duties on every platform (also through FoundationNetworking here): a session
/// refused for security reasons is not retried, and a transport that goes away releases its session.
@Suite("URLSession transport: refusals and lifetime")
struct URLSessionLifecycleTests {
        /// What URLSession throws on Apple platforms when App Transport Security or TLS trust refuses a connection
    /// (FoundationNetworking reports handshake failures with an unknown code, so the refusal is thrown here as the
    /// system would throw it).
    struct RefusingTransport: OSSHTTPTransport {
        let code: URLError.Code
        let sends = NIOLockedValueBox(0)
        func send<Result: Sendable>(
            _ request: OSSHTTPRequest, handler: (OSSHTTPResponse) async throws -> Result
        ) async throws -> Result {
            sends.withLockedValue { $0 += 1 }
            throw URLError(code)
        }
        func shutdown() async throws {}
    }

    static let refusals: [URLError.Code] = [
        .appTransportSecurityRequiresSecureConnection, .secureConnectionFailed, .serverCertificateUntrusted,
        .serverCertificateHasBadDate, .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid,
        .clientCertificateRejected, .clientCertificateRequired,
    ]

    @Test("an App Transport Security or TLS trust refusal is connectionNotTrusted, sent once, never retried", arguments: refusals)
    func securityRefusalIsNotRetried(code: URLError.Code) async throws {
        var configuration = OSSClientConfiguration(region: "cn-hangzhou")
        configuration.retry = .init(maxRetryCount: 3, baseDelay: .milliseconds(1), maxDelay: .milliseconds(5))
        let transport = RefusingTransport(code: code)
        let client = try OSSClient(
            endpoint: "http://127.0.0.1:9", credentialProvider: OSSStaticCredentialProvider(accessKeyId: "id", accessKeySecret: "secret"),
            configuration: configuration, transport: transport)
        let thrown = await clientErrorCode {
            _ = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "k"))
        }
        try await client.shutdown()
        #expect(thrown == .connectionNotTrusted)
        #expect(transport.sends.withLockedValue { $0 } == 1)
    }

    @Test("a transport dropped without shutdown() invalidates its session, which then lets its delegate go")
    func droppedTransportReleasesItsSession() async throws {
        // The system keeps a session with a delegate alive until it is invalidated (on Apple platforms the app
        // cannot even reach it any more): here the test keeps it, as the system would, and watches for the
        // invalidation, after which a session lets its delegate go.
        let session: URLSession
        do {
            let transport = OSSURLSessionTransport(configuration: OSSClientConfiguration())
            session = transport.session
            #expect(session.delegate != nil)
        }
        for _ in 0..<100 where session.delegate != nil {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(session.delegate == nil, "the session still holds its delegate: it was never invalidated")
    }
}
