import AliyunOSS
import AliyunOSSEncryption
import ArgumentParser
import Crypto

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
    /// The encrypted paths of `oss cp`: a file up (one PutObject below the multipart threshold, else a resumable
    /// multipart upload whose record keeps only the wrapped data key), an object down (decrypted into a file that
    /// appears only once checked), and with -r a directory either way.
    func encryptedCopy() async throws {
        let cipher = try encryption.masterCipher()
        try await withClient(connection) { client in
            let encryption = OSSEncryptionClient(client: client, masterCipher: cipher)
            if recursive {
                if OSSURI.isRemote(destination) {
                    try await encryptedUploadDirectory(encryption)
                } else {
                    try await encryptedDownloadDirectory(encryption)
                }
            } else if OSSURI.isRemote(destination) {
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

    func encryptedUpload(_ encryption: OSSEncryptionClient, file: URL, to target: OSSURI) async throws {
        let attributes = try? FileManager.default.attributesOfItem(atPath: file.path)
        let size = (attributes?[.size] as? NSNumber)?.int64Value ?? 0
        let metadata = try objects.metadata()
        if size < directory.multipartThreshold {
            var request = OSSPutObjectRequest(bucketName: target.bucket, objectKey: target.key, fileURL: file)
            request.metadata = metadata
            _ = try await encryption.putObject(request)
        } else {
            let chosen = partSize ?? PartSizing.uploadPartSize(fileSize: size)
            // Encrypted parts start at their own counter block: a multiple of 16 (a given --part-size must be one).
            let aligned = partSize == nil ? (chosen + 15) / 16 * 16 : chosen
            try FileManager.default.createDirectory(atPath: recordDirectory, withIntermediateDirectories: true)
            let name = SHA256.hash(data: Data("\(target.bucket)\n\(target.key)\n\(file.path)".utf8))
                .map { String(format: "%02x", $0) }.joined()
            _ = try await encryption.uploadFile(
                file, bucketName: target.bucket, objectKey: target.key, partSize: aligned,
                recordURL: URL(fileURLWithPath: recordDirectory).appendingPathComponent("encrypted-\(name).json"),
                metadata: metadata)
        }
        say("uploaded \(file.path) to \(target) encrypted (\(formatBytes(size)))")
    }

    func encryptedDownload(_ encryption: OSSEncryptionClient, _ origin: OSSURI, to file: URL) async throws {
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        let result = try await encryption.getObject(
            OSSGetObjectRequest(bucketName: origin.bucket, objectKey: origin.key, versionId: versionId), toFile: file)
        say("downloaded \(origin) to \(file.path) decrypted (\(formatBytes(result.contentLength ?? 0)))")
    }

    func encryptedUploadDirectory(_ encryption: OSSEncryptionClient) async throws {
        let root = URL(fileURLWithPath: source).standardizedFileURL
        let target = try parseRemote(destination, requireKey: false)
        let prefix = target.key.isEmpty || target.key.hasSuffix("/") ? target.key : target.key + "/"
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
        else { throw CLIFailure(.clientError, "cannot read the directory \(source)") }
        var files: [URL] = []
        for case let url as URL in walker where (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true {
            files.append(url.standardizedFileURL)
        }
        for file in files.sorted(by: { $0.path < $1.path }) {
            let relative = String(file.path.dropFirst(root.path.count).drop { $0 == "/" })
            try await encryptedUpload(encryption, file: file, to: OSSURI(bucket: target.bucket, key: prefix + relative))
        }
    }

    func encryptedDownloadDirectory(_ encryption: OSSEncryptionClient) async throws {
        let origin = try parseRemote(source, requireKey: false)
        let prefix = origin.key.isEmpty || origin.key.hasSuffix("/") ? origin.key : origin.key + "/"
        let root = URL(fileURLWithPath: destination)
        var request = OSSListObjectsV2Request(bucketName: origin.bucket)
        request.prefix = prefix
        for try await page in encryption.client.listObjectsV2Paginator(request) {
            for object in page.contents where !object.objectKey.hasSuffix("/") {
                let relative = String(object.objectKey.dropFirst(prefix.count))
                guard !relative.split(separator: "/").contains(where: { $0 == ".." || $0 == "." }) else {
                    throw CLIFailure(.clientError, "the key \(object.objectKey) would leave \(destination)")
                }
                try await encryptedDownload(
                    encryption, OSSURI(bucket: origin.bucket, key: object.objectKey),
                    to: root.appendingPathComponent(relative))
            }
        }
    }
}
