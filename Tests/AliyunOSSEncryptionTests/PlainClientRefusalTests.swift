import AliyunOSS
import AliyunOSSEncryption
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

/// An object encrypted on the client side, read by the plain client into a file or a stream without asking for
/// ciphertext: refused with `encryptedObject` before anything is written; with `acceptsCiphertext` the stored bytes.
@Suite("The plain client refuses to write ciphertext where plaintext was meant")
struct PlainClientRefusalTests {
    @Test func everyFileOrStreamPathRefusesAnEncryptedObjectAndWritesNothing() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let plaintext = testBytes(300_001, seed: 41)
        try await withEncryptionServer { server, client in
            let encryption = OSSEncryptionClient(client: client, masterCipher: try TestKeys.first.cipher())
            _ = try await encryption.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "enc.bin", data: plaintext))
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "plain.bin", data: plaintext))
            let stored = try #require(try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "enc.bin")).content)
            #expect(stored != plaintext && stored.count == plaintext.count, "stored as ciphertext")
            await server.resetStats()

            // The resumable download: refused after its HEAD, before any record, temporary file or GET.
            let records = work.appendingPathComponent("records").path
            let destination = work.appendingPathComponent("out.bin")
            let download = OSSResumableDownloadRequest(
                bucketName: "bkt", objectKey: "enc.bin", downloadToFileURL: destination, partSize: 100_000,
                recordDirectoryPath: records)
            var error = await thrownClientError { _ = try await client.resumableDownload(download) }
            #expect(error?.code == .encryptedObject, "\(String(describing: error))")
            #expect(error?.message.contains("oss://bkt/enc.bin") == true)
            #expect(try FileManager.default.contentsOfDirectory(atPath: work.path).filter { $0 != "records" }.isEmpty)
            #expect(((try? FileManager.default.contentsOfDirectory(atPath: records)) ?? []).filter { $0.hasSuffix(".record") }.isEmpty)
            #expect(await server.stats()[.getObject].requests == 0)

            // GetObject into a file: refused at the answer's headers, no file.
            let single = work.appendingPathComponent("single.bin")
            error = await thrownClientError {
                _ = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "enc.bin"), toFile: single)
            }
            #expect(error?.code == .encryptedObject)
            #expect(!FileManager.default.fileExists(atPath: single.path))

            // A stream: refused before its first byte.
            error = await thrownClientError {
                _ = try await client.downloadStream(OSSDownloadStreamRequest(bucketName: "bkt", objectKey: "enc.bin"))
            }
            #expect(error?.code == .encryptedObject)

            // Asked for: the stored bytes, on every path.
            var accepting = download
            accepting.acceptsCiphertext = true
            _ = try await client.resumableDownload(accepting)
            #expect(try Data(contentsOf: destination) == stored)
            var get = OSSGetObjectRequest(bucketName: "bkt", objectKey: "enc.bin")
            get.acceptsCiphertext = true
            _ = try await client.getObject(get, toFile: single)
            #expect(try Data(contentsOf: single) == stored)
            var streamRequest = OSSDownloadStreamRequest(bucketName: "bkt", objectKey: "enc.bin")
            streamRequest.acceptsCiphertext = true
            var streamed = Data()
            for try await chunk in try await client.downloadStream(streamRequest) { streamed.append(chunk) }
            #expect(streamed == stored)

            // A plain object is unaffected; the encryption client's own stream still decrypts.
            let plainOut = work.appendingPathComponent("plain.bin")
            _ = try await client.resumableDownload(
                OSSResumableDownloadRequest(bucketName: "bkt", objectKey: "plain.bin", downloadToFileURL: plainOut))
            #expect(try Data(contentsOf: plainOut) == plaintext)
            var decrypted = Data()
            for try await chunk in try await encryption.downloadStream(OSSDownloadStreamRequest(bucketName: "bkt", objectKey: "enc.bin")) {
                decrypted.append(chunk)
            }
            #expect(decrypted == plaintext)
        }
    }
}

/// The `OSSClientError` `body` throws; `nil` when it throws something else or nothing.
private func thrownClientError(_ body: () async throws -> Void) async -> OSSClientError? {
    do {
        try await body()
        return nil
    } catch let error as OSSClientError {
        return error
    } catch {
        return nil
    }
}
