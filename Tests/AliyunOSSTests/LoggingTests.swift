import AliyunOSS
import Foundation
import Logging
import NIOConcurrencyHelpers
import OSSLocalServer
import OSSTestSupport
import Testing

@Suite("Logging never leaks secrets")
struct LoggingTests {
    @Test(arguments: [OSSSignatureVersion.v1, .v4])
    func traceLogsHaveNoSecretsTokensOrSignatures(version: OSSSignatureVersion) async throws {
        let lines = NIOLockedValueBox<[String]>([])
        let logger = Logger(label: "test") { _ in CapturingLogHandler(lines: lines) }
        let signatures = NIOLockedValueBox<[String]>([])
        try await withServerAndClient(
            version: version, sts: true,
            configure: { $0.logger = logger }
        ) { server, client in
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "k", data: Data("x".utf8)))
            let missing = await serverError {
                _ = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "missing"))
            }
            #expect(missing?.code == "NoSuchKey")
            _ = server
        }
        _ = signatures
        let all = lines.withLockedValue { $0 }
        #expect(all.contains { $0.hasPrefix("trace") }, "string to sign / canonical request are traced")
        #expect(all.contains { $0.contains("sending request") })
        for line in all {
            #expect(!line.contains("LocalTempSecret"), "secret leaked: \(line)")
            #expect(!line.contains("CAIS+Local/STS=Token"), "token leaked: \(line)")
            #expect(!line.contains("Signature="), "signature leaked: \(line)")
            #expect(!line.lowercased().contains("authorization:"), "authorization leaked: \(line)")
        }
    }
}
