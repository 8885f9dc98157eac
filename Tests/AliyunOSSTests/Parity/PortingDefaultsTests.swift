import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

/// Defaults a ported app relies on without a compile error: the iOS part-size rule and GetObject's range
/// behaviour.
@Suite struct PortingDefaultsTests {
    /// iOS refuses a part size under 100 KB for a file over 100 KB (it used to be raised silently here).
    @Test func aSmallPartSizeIsAnInvalidArgument() async throws {
        try await withParityServer { server, client in
            let big = try makeTemporaryFile(patternBytes(250_000))
            let small = try makeTemporaryFile(patternBytes(50_000))
            defer {
                try? FileManager.default.removeItem(at: big)
                try? FileManager.default.removeItem(at: small)
            }
            let refused = await thrownClientError {
                _ = try await client.resumableUpload(
                    OSSResumableUploadRequest(
                        bucketName: "bkt", objectKey: "big.bin", uploadingFileURL: big, partSize: 64 * 1024))
            }
            #expect(refused?.code == .invalidArgument)
            #expect(refused?.message.contains("102400") == true, "\(String(describing: refused))")
            #expect(await server.stats()[.initiateMultipartUpload].requests == 0, "refused before anything is sent")

            // A file that fits in one part may have a small part size, as on iOS.
            let one = try await client.resumableUpload(
                OSSResumableUploadRequest(
                    bucketName: "bkt", objectKey: "small.bin", uploadingFileURL: small, partSize: 64 * 1024))
            #expect(one.totalBytes == 50_000)
        }
    }

    /// iOS sends no range behaviour header: an out-of-range request returns the whole object (200). It failed
    /// here with 416 when the standard behaviour was the default.
    @Test func anOutOfRangeGetReturnsTheWholeObjectByDefault() async throws {
        try await withParityServer { _, client in
            let bytes = patternBytes(1000)
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "r", data: Data(bytes)))
            let past = try await client.getObject(
                OSSGetObjectRequest(bucketName: "bkt", objectKey: "r", range: .from(5000)))
            #expect(past.statusCode == 200)
            #expect(past.content.map(Array.init) == bytes)
            let inside = try await client.getObject(
                OSSGetObjectRequest(bucketName: "bkt", objectKey: "r", range: .closed(10, 19)))
            #expect(inside.statusCode == 206)
            #expect(inside.content.map(Array.init) == Array(bytes[10...19]))
            // Opting in keeps the standard behaviour.
            let standard = await serverError {
                _ = try await client.getObject(
                    OSSGetObjectRequest(
                        bucketName: "bkt", objectKey: "r", range: .from(5000), standardRangeBehavior: true))
            }
            #expect(standard?.statusCode == 416)
        }
    }
}
