import AliyunOSS
import Foundation
import OSSCRC64
import OSSLocalServer
import OSSTestSupport
import Testing

/// Bit rot on the wire (the server's `corrupt=N` fault flips one bit of a body in transit): each part's
/// integrity mode must notice it, and nothing damaged may end up in the object.
@Suite("resumableUpload: parts damaged in transit")
struct ResumableUploadIntegrityTests {
    static let size = 1_100_000  // 11 parts of 100 KiB (the last one shorter)
    static var partCount: Int { (size + Int(ruPartSize) - 1) / Int(ruPartSize) }

    @Test("streamed CRC-64 (the default): a damaged part is noticed and re-sent, once", arguments: [false, true])
    func damagedPartIsResent(sendContentMD5: Bool) async throws {
        let scratch = try RUScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(Self.size, seed: 61)
        try scratch.write(bytes)
        try await withServerAndClient { server, client in
            await server.addFault(try LocalOSSFaultRule(parsing: "UploadPart:nth=2:corrupt=1000"))
            var request = ruRequest("rot.bin", scratch, threads: 2)
            request.sendContentMD5 = sendContentMD5
            let result = try await client.resumableUpload(request)
            #expect(try await ruObject(client, "rot.bin") == bytes)
            #expect(result.crc64 == CRC64.checksum(bytes))
            let stats = await server.stats()
            #expect(stats.faultsInjected == 1)
            // Streamed CRC: the server stored the damaged part and answered with its CRC, the state machine
            // re-sent the part. Content-MD5: the server refused it (InvalidDigest) and the pipeline retried it.
            #expect(stats[.uploadPart].requests == Self.partCount + 1)
            #expect(scratch.records().isEmpty)
        }
    }

    @Test("a part damaged on every attempt: invalidCRC after three tries; the record stays for a later resume")
    func persistentDamageFails() async throws {
        let scratch = try RUScratch()
        defer { scratch.cleanup() }
        // One part, so that every UploadPart request is the same part; its first byte is damaged three times.
        let bytes = patternBytes(60_000, seed: 62)
        try scratch.write(bytes)
        try await withServerAndClient { server, client in
            await server.addFault(try LocalOSSFaultRule(parsing: "UploadPart:always:corrupt=0:times=3"))
            let error = await thrownClientError {
                _ = try await client.resumableUpload(ruRequest("rot3.bin", scratch, threads: 1))
            }
            #expect(error?.code == .invalidCRC)
            #expect(await server.stats()[.uploadPart].requests == 3)
            #expect(scratch.records().count == 1)
            #expect(try await ruUploads(client, "rot3.bin").count == 1)
            // The damage is gone: the next call resumes with the same upload and finishes byte-identical.
            let result = try await client.resumableUpload(ruRequest("rot3.bin", scratch, threads: 1))
            #expect(try await ruObject(client, "rot3.bin") == bytes)
            #expect(result.crc64 == CRC64.checksum(bytes))
            #expect(try await ruUploads(client, "rot3.bin").isEmpty)
        }
    }
}
