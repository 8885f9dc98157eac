import AliyunOSS
import Foundation
import OSSCRC64
import OSSLocalServer
import OSSTestSupport
import Testing

/// A temporary home directory for the profile files, and the environment that points at it (`HOME`, the ECS
/// metadata service off so nothing leaves loopback).
struct CredentialHome {
    let root: URL

    init() throws {
        root = FileManager.default.temporaryDirectory
            .appendingPathComponent("aliyun-oss-credential-home-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    /// `HOME` and `ALIBABA_CLOUD_ECS_METADATA_DISABLED=true`, plus `extra`.
    func environment(_ extra: [String: String] = [:]) -> [String: String] {
        ["HOME": root.path, "ALIBABA_CLOUD_ECS_METADATA_DISABLED": "true"].merging(extra) { _, new in new }
    }

    /// Writes `text` to `relativePath` under the home, creating directories; returns its path.
    @discardableResult
    func write(_ text: String, to relativePath: String) throws -> String {
        let url = root.appendingPathComponent(relativePath)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    /// `~/.alibabacloud/credentials.ini`.
    @discardableResult
    func writeCredentialsFile(_ text: String) throws -> String {
        try write(text, to: ".alibabacloud/credentials.ini")
    }

    /// `~/.aliyun/config.json` with `profiles` (each a JSON object) and `current`.
    @discardableResult
    func writeCLIConfig(current: String, _ profiles: [[String: String]]) throws -> String {
        let json: [String: Any] = ["current": current, "profiles": profiles]
        let data = try JSONSerialization.data(withJSONObject: json, options: [.prettyPrinted, .sortedKeys])
        return try write(String(decoding: data, as: UTF8.self), to: ".aliyun/config.json")
    }

    /// An executable shell script under the home; returns its path.
    func script(_ name: String, _ body: String) throws -> String {
        let path = try write("#!/bin/sh\n" + body + "\n", to: "bin/\(name)")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        return path
    }

    func cleanup() {
        try? FileManager.default.removeItem(at: root)
    }
}

/// Uploads 3½ parts resumably to `server` with a client signing with `provider`, and checks the object's CRC-64.
func uploadResumably(_ server: LocalOSSServer, signedBy provider: any OSSCredentialProvider, key: String) async throws {
    var configuration = OSSClientConfiguration(region: "cn-hangzhou")
    configuration.retry = .init(maxRetryCount: 3, baseDelay: .milliseconds(1), maxDelay: .milliseconds(5))
    configuration.transport = transportUnderTest
    try await withClient(of: server, provider, configuration) { _, client in
        try await uploadResumably(client, key: key)
    }
}

/// Uploads 3½ parts resumably through `client` (signed by its provider) and checks the object's CRC-64.
func uploadResumably(_ client: OSSClient, key: String) async throws {
    let scratch = try TMScratch()
    defer { scratch.cleanup() }
    let bytes = patternBytes(3 * Int(tmPartSize) + 4_321, seed: UInt64(key.utf8.count))
    let source = try scratch.write(bytes, to: "source.bin")
    let request = OSSResumableUploadRequest(
        bucketName: "bkt", objectKey: key, uploadingFileURL: source, partSize: tmPartSize, threadNum: 2,
        recordDirectoryPath: scratch.recordDirectory)
    let result = try await client.resumableUpload(request)
    #expect(result.crc64 == CRC64.checksum(bytes))
}

/// STS-shaped JSON of `credential`, as a credentials URI or the metadata service answers.
func sessionCredentialsJSON(_ credential: LocalOSSTemporaryCredential, code: String? = "Success") -> Data {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime]
    var body = [
        "AccessKeyId": credential.accessKeyId, "AccessKeySecret": credential.accessKeySecret,
        "SecurityToken": credential.securityToken, "Expiration": formatter.string(from: credential.expiration),
    ]
    body["Code"] = code
    return (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data()
}
