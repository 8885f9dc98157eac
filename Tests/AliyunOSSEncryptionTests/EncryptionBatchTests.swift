import AliyunOSS
import AliyunOSSEncryption
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

/// Directory transfers through the encryption client (``OSSBatchFileTransport``): the SDK's batch walks, journals,
/// pauses and resumes; every file is encrypted on its way up and decrypted on its way down.
@Suite("Client-side encryption: directory transfers")
struct EncryptionBatchTests {
    static func options() -> OSSDirectoryTransferOptions {
        var options = OSSDirectoryTransferOptions()
        options.singleRequestThreshold = 102_400
        options.partSize = 102_400
        options.partsPerFile = 3
        return options
    }

    @Test func aDirectoryGoesUpEncryptedResumesAfterAPauseAndComesBackDecrypted() async throws {
        let cipher = try TestKeys.first.cipher(["use": "batch"])
        try await withEncryptionServer { server, client in
            let work = try makeWorkDirectory("encryption-batch")
            defer { try? FileManager.default.removeItem(at: work) }
            let tree = work.appendingPathComponent("tree")
            try FileManager.default.createDirectory(at: tree.appendingPathComponent("sub"), withIntermediateDirectories: true)
            let files: [String: Data] = [
                "a.txt": testBytes(33, seed: 51), "sub/b.bin": testBytes(6 * 102_400 + 7, seed: 52),
                "sub/c.bin": testBytes(5_000, seed: 53),
            ]
            for (name, data) in files { try data.write(to: tree.appendingPathComponent(name)) }
            let records = work.appendingPathComponent("records").path
            let encryption = OSSEncryptionClient(client: client, masterCipher: cipher)
            let manager = OSSTransferManager(client: client, recordDirectoryPath: records, fileTransport: encryption)

            // Run 1 is paused while the large file's parts are under way (each delayed by the server).
            await server.addFault(LocalOSSFaultRule(operation: .uploadPart, action: .delay(milliseconds: 150)))
            let first = try await manager.uploadDirectory(tree, toBucket: "bkt", prefix: "enc/", options: Self.options())
            #expect(first.request.options.fileTransport == OSSEncryptionClient.batchTransportIdentifier)
            var waited = 0
            while await server.stats()[.uploadPart].requests < 2 && waited < 400 {
                try await Task.sleep(for: .milliseconds(25))
                waited += 1
            }
            first.pause()
            await #expect(throws: OSSClientError.self) { try await first.result() }
            await server.clearFaults()

            // A manager without the transport refuses the batch rather than send the rest in plaintext.
            let plain = OSSTransferManager(client: client, recordDirectoryPath: records)
            await #expect(throws: OSSClientError.self) { try await plain.resumeBatch(first.id) }
            let report = try await manager.resumeBatch(first.id).result()
            #expect(report.state == .completed && report.counts.failed == 0, "\(report)")
            #expect(await server.stats()[.initiateMultipartUpload].requests == 1, "the large file resumed its upload")

            for (name, data) in files {
                let raw = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "enc/" + name))
                #expect(raw.content?.count == data.count && raw.content != data, "\(name) is stored encrypted")
                #expect(raw.metadata["client-side-encryption-wrap-alg"] == "RSA/NONE/PKCS1Padding")
                #expect(raw.metadata["mtime"] != nil, "the batch's modification time travels with the envelope")
                #expect(try await encryption.getObject(.init(bucketName: "bkt", objectKey: "enc/" + name)).content == data)
            }

            // A sync by size and time finds every encrypted object unchanged.
            var sync = Self.options()
            sync.mode = .sync(.sizeAndModificationTime)
            let again = try await manager.uploadDirectory(tree, toBucket: "bkt", prefix: "enc/", options: sync).result()
            #expect(again.counts.unchanged == files.count && again.counts.uploaded == 0, "\(again.counts)")

            // Down: the plaintext again, the large file in ranged parts.
            let copy = work.appendingPathComponent("copy")
            let down = try await manager.downloadDirectory(fromBucket: "bkt", prefix: "enc/", to: copy, options: Self.options())
                .result()
            #expect(down.counts.downloaded == files.count, "\(down.counts)")
            for (name, data) in files {
                #expect(try Data(contentsOf: copy.appendingPathComponent(name)) == data, "\(name)")
            }
            // The encrypted manager refuses a batch a plain manager recorded (it would mix plain and decrypted).
            await server.addFault(LocalOSSFaultRule(operation: .getObject, action: .delay(milliseconds: 500)))
            let plainBatch = try await plain.downloadDirectory(
                fromBucket: "bkt", prefix: "enc/", to: work.appendingPathComponent("raw"), options: Self.options())
            try await Task.sleep(for: .milliseconds(100))
            plainBatch.pause()
            await #expect(throws: OSSClientError.self) { try await plainBatch.result() }
            await server.clearFaults()
            await #expect(throws: OSSClientError.self) { try await manager.resumeBatch(plainBatch.id) }
        }
    }
}
