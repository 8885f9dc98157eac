import AliyunOSS
import AliyunOSSEncryption
import Crypto
import Foundation

// The code of the DocC article "Client-side encryption" (ClientSideEncryption.md), verbatim; run by
// ClientSideEncryptionArticleTests against the local server.

func uploadAndReadBack(client: OSSClient, privateKeyPEM: String, photo: Data) async throws -> Data {
    let master = try OSSRSAMasterCipher(
        privateKeyPEM: privateKeyPEM, materialDescription: ["key": "photos-2026"])
    let encryption = OSSEncryptionClient(client: client, masterCipher: master)

    _ = try await encryption.putObject(
        OSSPutObjectRequest(bucketName: "bkt", objectKey: "photos/1.heic", data: photo))

    // Any range: the read starts at the 16-byte block that holds byte 1000.
    let slice = try await encryption.getObject(
        OSSGetObjectRequest(bucketName: "bkt", objectKey: "photos/1.heic", range: .closed(1000, 1999)))
    return slice.content ?? Data()
}

/// A master key that never leaves the app's key store: the data key and IV are wrapped with AES key wrap
/// (RFC 3394) under a key the Keychain holds (or one derived from a Secure Enclave key agreement).
struct KeychainMasterCipher: OSSMasterCipher {
    let keyEncryptionKey: SymmetricKey  // loaded from the Keychain, never written elsewhere
    let wrapAlgorithm = "AES/KeyWrap/RFC3394"
    let materialDescription: String? = #"{"keychain":"com.example.backup"}"#

    func wrap(_ plaintext: Data) async throws -> Data {
        try AES.KeyWrap.wrap(SymmetricKey(data: plaintext), using: keyEncryptionKey)
    }

    func unwrap(_ wrapped: Data) async throws -> Data {
        try AES.KeyWrap.unwrap(wrapped, using: keyEncryptionKey).withUnsafeBytes { Data($0) }
    }
}

func backUp(_ file: URL, client: OSSClient, keychainKey: SymmetricKey) async throws {
    let encryption = OSSEncryptionClient(
        client: client, masterCipher: KeychainMasterCipher(keyEncryptionKey: keychainKey))
    // Resumable: after a crash or a kill, the same call continues the same upload.
    let records = FileManager.default.temporaryDirectory.appendingPathComponent("backup-records")
    _ = try await encryption.uploadFile(
        file, bucketName: "bkt", objectKey: "backups/\(file.lastPathComponent)", partSize: 1 << 20,
        recordURL: records.appendingPathComponent(file.lastPathComponent + ".json"))
}

func backUpFolder(_ folder: URL, recording: AsyncStream<Data>, client: OSSClient, keychainKey: SymmetricKey)
    async throws -> OSSBatchReport
{
    let encryption = OSSEncryptionClient(
        client: client, masterCipher: KeychainMasterCipher(keyEncryptionKey: keychainKey))
    // A stream: encrypted as it arrives, sent in parts by the SDK's uploadStream.
    _ = try await encryption.uploadStream(recording, bucket: "bkt", key: "backups/recording.m4a")
    // A folder: the SDK's batch walks, journals and resumes after a kill; each file is encrypted on its way.
    let records = FileManager.default.temporaryDirectory.appendingPathComponent("folder-records")
    let manager = OSSTransferManager(client: client, recordDirectoryPath: records.path, fileTransport: encryption)
    let batch = try await manager.uploadDirectory(folder, toBucket: "bkt", prefix: "backups/folder/")
    return try await batch.result()
}
