import AliyunOSS
import Foundation
import OSSCRC64
import OSSLocalServer
import OSSTestSupport
import Testing

@Suite("resumableUpload: server faults")
struct ResumableUploadFaultTests {
    @Test(
        "503s and dropped connections mid-part are retried; the object is identical",
        arguments: [
            LocalOSSFaultRule(operation: .uploadPart, trigger: .everyNth(3), action: .status(503, code: nil), times: 3),
            LocalOSSFaultRule(operation: .uploadPart, trigger: .everyNth(2), action: .dropConnection(afterBytes: 50_000), times: 3),
            LocalOSSFaultRule(operation: .completeMultipartUpload, trigger: .nth(1), action: .status(500, code: "InternalError")),
            LocalOSSFaultRule(operation: .initiateMultipartUpload, trigger: .nth(1), action: .dropConnection(afterBytes: 0)),
        ])
    func faultsAreRetried(rule: LocalOSSFaultRule) async throws {
        let scratch = try RUScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(1_100_000, seed: 31)
        try scratch.write(bytes)
        try await withServerAndClient(faults: [rule]) { server, client in
            let result = try await client.resumableUpload(ruRequest("fault.bin", scratch, threads: 3))
            #expect(try await ruObject(client, "fault.bin") == bytes)
            #expect(result.crc64 == CRC64.checksum(bytes))
            #expect(scratch.records().isEmpty)
        }
    }
}
