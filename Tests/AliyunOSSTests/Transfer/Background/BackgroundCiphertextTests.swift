@testable import AliyunOSS
import Foundation
import OSSLocalServer
import Testing

/// A background download of an object encrypted on the client side is refused before anything is recorded, as the
/// foreground download is (the envelope's metadata is what marks it; the encryption product is not needed here).
@Suite("Background download of an encrypted object")
struct BackgroundCiphertextTests {
    @Test func refusedBeforeAnythingIsRecorded() async throws {
        let work = try BackgroundTransferServiceTests.scratch()
        defer { try? FileManager.default.removeItem(at: work) }
        let spool = work.appendingPathComponent("spool").path
        let records = work.appendingPathComponent("records").path
        try await withServerAndClient(version: .v4) { server, client in
            var put = OSSPutObjectRequest(bucketName: "bkt", objectKey: "enc.bin", data: Data(count: 200_000))
            put.metadata = ["client-side-encryption-key": "d3JhcHBlZA==", "client-side-encryption-start": "c3RhcnQ="]
            _ = try await client.putObject(put)
            let service = OSSBackgroundTransferService(
                client: client, system: OSSSimulatedTaskSystem(spoolDirectory: spool, sessionIdentifier: "enc"),
                recordDirectoryPath: records)
            var request = OSSBackgroundDownloadRequest(
                bucketName: "bkt", objectKey: "enc.bin", downloadToFileURL: work.appendingPathComponent("enc.bin"),
                partSize: 102_400)
            do {
                _ = try await service.startDownload(request)
                Issue.record("an encrypted object was handed to the system")
            } catch let error as OSSClientError {
                #expect(error.code == .encryptedObject)
            }
            #expect(try service.backgroundTransfers().isEmpty)
            #expect(await server.stats()[.getObject].requests == 0)
            request.acceptsCiphertext = true
            _ = try await service.startDownload(request)
            #expect(try service.backgroundTransfers().count == 1)
        }
    }
}
