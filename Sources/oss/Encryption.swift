import AliyunOSS
import AliyunOSSEncryption
import ArgumentParser

import Foundation

/// `oss cp --encryption-key PEM`: client-side encryption in the official SDKs' envelope (AliyunOSSEncryption).
struct EncryptionOptions: ParsableArguments {
    @Option(help: "Client-side encryption: an RSA key in a PEM file. A private key (PKCS#1 or PKCS#8) encrypts uploads and decrypts downloads; a public key only encrypts uploads. Objects are readable by the official Go/Python/Java encryption clients with the same key.")
    var encryptionKey: String?
    @Option(help: "With --encryption-key: the key's material description, a JSON object written with each object (matdesc), e.g. '{\"key\":\"backup\"}'.")
    var encryptionDescription: String?

    var isEnabled: Bool { encryptionKey != nil }

    func validate() throws {
        if encryptionDescription != nil && encryptionKey == nil {
            throw ValidationError("--encryption-description needs --encryption-key")
        }
    }

    /// The master cipher the PEM file holds (read here; never printed).
    func masterCipher() throws -> OSSRSAMasterCipher {
        guard let path = encryptionKey else { throw CLIFailure(.clientError, "no --encryption-key") }
        let pem: String
        do { pem = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw CLIFailure(.clientError, "cannot read the encryption key \(path)")
        }
        let isPrivate = pem.contains("PRIVATE KEY-----")
        return try OSSRSAMasterCipher(
            publicKeyPEM: isPrivate ? nil : pem, privateKeyPEM: isPrivate ? pem : nil,
            materialDescriptionJSON: encryptionDescription)
    }
}

extension Copy {
    /// The encrypted paths of `oss cp` for one file: a file up (one PutObject below the multipart threshold, else a
    /// resumable multipart upload whose record keeps only the wrapped data key), an object down (decrypted into a
    /// file that appears only once checked). A directory (-r) goes through the batch in ``run()``.
    func encryptedCopy() async throws {
        let cipher = try encryption.masterCipher()
        try await withClient(connection) { client in
            var encryption = OSSEncryptionClient(client: client, masterCipher: cipher)
            encryption.recordNotice = { printError("oss: \($0)") }
            if OSSURI.isRemote(destination) {
                let file = try PathRule.singleFileSource(source)
                let target = PathRule.remoteTarget(
                    try parseRemote(destination, requireKey: false), sourceName: file.lastPathComponent)
                try await encryptedUpload(encryption, file: file, to: target)
            } else {
                let origin = try parseRemote(source, requireKey: true)
                let file = try PathRule.localTarget(destination, sourceName: PathRule.name(of: origin.key))
                try await encryptedDownload(encryption, origin, to: file)
            }
        }
    }

    /// The options the encryption client's file transfers take from `cp`'s flags: the multipart threshold, the part
    /// size (rounded up to a multiple of 16 by the client; a given one must be such a multiple) and `--threads`.
    func encryptedTransferOptions(partSize chosen: Int64) throws -> OSSDirectoryTransferOptions {
        if let partSize { try OSSEncryptionClient.checkPartSize(partSize) }
        var options = OSSDirectoryTransferOptions()
        options.singleRequestThreshold = directory.multipartThreshold
        options.partSize = chosen
        options.partsPerFile = threads
        return options
    }

    /// A file up: one PutObject below the threshold, else a resumable multipart upload, `--threads` parts at a time,
    /// whose record in the checkpoint directory keeps only the wrapped data key.
    func encryptedUpload(_ encryption: OSSEncryptionClient, file: URL, to target: OSSURI) async throws {
        let attributes = try? FileManager.default.attributesOfItem(atPath: file.path)
        let size = (attributes?[.size] as? NSNumber)?.int64Value ?? 0
        try FileManager.default.createDirectory(atPath: recordDirectory, withIntermediateDirectories: true)
        try await encryption.uploadFile(
            file, bucketName: target.bucket, objectKey: target.key, metadata: try objects.metadata(),
            options: try encryptedTransferOptions(partSize: partSize ?? PartSizing.uploadPartSize(fileSize: size)),
            recordDirectory: URL(fileURLWithPath: recordDirectory))
        say("uploaded \(file.path) to \(target) encrypted (\(formatBytes(size)))")
    }

    /// An object down: below the threshold (or a given version) in one GetObject, else in ranged parts, `--threads`
    /// at a time, resumable from a record in the checkpoint directory; the file appears only once checked.
    func encryptedDownload(_ encryption: OSSEncryptionClient, _ origin: OSSURI, to file: URL) async throws {
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: recordDirectory, withIntermediateDirectories: true)
        let head = try await encryption.client.headObject(
            OSSHeadObjectRequest(bucketName: origin.bucket, objectKey: origin.key, versionId: versionId))
        _ = try await encryption.downloadFile(
            bucketName: origin.bucket, objectKey: origin.key, versionId: versionId, size: head.contentLength, to: file,
            options: try encryptedTransferOptions(partSize: partSize ?? 8 << 20),
            recordDirectory: URL(fileURLWithPath: recordDirectory))
        say("downloaded \(origin) to \(file.path) decrypted (\(formatBytes(head.contentLength)))")
    }
}
