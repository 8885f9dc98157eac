import AliyunOSS
import Foundation
import OSSCRC64
import OSSLocalServer
import OSSTestSupport
import Testing

@Suite("resumableUpload: failures keep the record")
struct ResumableUploadFailureTests {
    @Test("one part failing for good cancels its siblings, but that is not a user cancel: nothing is aborted")
    func siblingsCancelledByAFailureAreNotACancel() async throws {
        let scratch = try RUScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(1_024_000, seed: 45)
        try scratch.write(bytes)
        let faults = [
            LocalOSSFaultRule(operation: .uploadPart, trigger: .nth(1), action: .delay(milliseconds: 3000)),
            LocalOSSFaultRule(operation: .uploadPart, trigger: .nth(2), action: .status(403, code: "AccessDenied")),
            LocalOSSFaultRule(operation: .uploadPart, trigger: .nth(3), action: .delay(milliseconds: 3000)),
        ]
        try await withServerAndClient(faults: faults) { server, client in
            // deleteUploadIdOnCancelling is true (the default): a misread cancel would abort the upload.
            let error = await serverError { _ = try await client.resumableUpload(ruRequest("sibling.bin", scratch, threads: 3)) }
            #expect(error?.statusCode == 403)
            #expect(await server.stats()[.abortMultipartUpload].requests == 0)
            #expect(scratch.records().count == 1)
            #expect(try await ruUploads(client, "sibling.bin").count == 1)
            await server.clearFaults()
            let result = try await client.resumableUpload(ruRequest("sibling.bin", scratch))
            #expect(try await ruObject(client, "sibling.bin") == bytes)
            #expect(result.crc64 == CRC64.checksum(bytes))
        }
    }
}
