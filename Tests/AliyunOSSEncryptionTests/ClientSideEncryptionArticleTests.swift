import AliyunOSS
import AliyunOSSEncryption
import Crypto
import Foundation
import OSSTestSupport
import Testing

/// The DocC article's code: every ```swift block stands verbatim in ClientSideEncryptionSnippets.swift, which is
/// compiled here and run against the local server.
@Suite("Client-side encryption article")
struct ClientSideEncryptionArticleTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func swiftBlocks(_ text: String) -> [String] {
        var blocks: [String] = []
        var current: [String]?
        for line in text.components(separatedBy: "\n") {
            if current == nil, line.trimmingCharacters(in: .whitespaces) == "```swift" {
                current = []
            } else if let lines = current, line.trimmingCharacters(in: .whitespaces) == "```" {
                blocks.append(lines.joined(separator: "\n"))
                current = nil
            } else if current != nil {
                current!.append(line)
            }
        }
        return blocks
    }

    @Test func everyBlockOfTheArticleIsCompiledCode() throws {
        let article = try String(
            contentsOf: Self.root.appendingPathComponent(
                "Sources/AliyunOSS/AliyunOSS.docc/Articles/ClientSideEncryption.md"), encoding: .utf8)
        let snippets = try String(
            contentsOf: Self.root.appendingPathComponent(
                "Tests/AliyunOSSEncryptionTests/ClientSideEncryptionSnippets.swift"), encoding: .utf8)
        let blocks = Self.swiftBlocks(article)
        #expect(blocks.count >= 2)
        for block in blocks {
            #expect(snippets.contains(block), "not in ClientSideEncryptionSnippets.swift:\n\(block)")
        }
    }

    @Test func theSnippetsRun() async throws {
        try await withEncryptionServer { _, client in
            let photo = testBytes(3_000, seed: 31)
            let slice = try await uploadAndReadBack(client: client, privateKeyPEM: TestKeys.first.pkcs1Private, photo: photo)
            #expect(slice == photo[1000...1999])

            let directory = try makeWorkDirectory("encryption-article")
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("notes.db")
            let notes = testBytes(2 << 20 | 3, seed: 32)
            try notes.write(to: file)
            let keychainKey = SymmetricKey(size: .bits256)
            try await backUp(file, client: client, keychainKey: keychainKey)
            let reader = OSSEncryptionClient(
                client: client, masterCipher: KeychainMasterCipher(keyEncryptionKey: keychainKey))
            #expect(try await reader.getObject(.init(bucketName: "bkt", objectKey: "backups/notes.db")).content == notes)
            let wrongKeychain = OSSEncryptionClient(
                client: client, masterCipher: KeychainMasterCipher(keyEncryptionKey: SymmetricKey(size: .bits256)))
            await #expect(throws: OSSEncryptionError.self) {
                try await wrongKeychain.getObject(.init(bucketName: "bkt", objectKey: "backups/notes.db"))
            }

            let folder = directory.appendingPathComponent("folder")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try notes.write(to: folder.appendingPathComponent("notes.db"))
            let recording = testBytes(200_001, seed: 33)
            let report = try await backUpFolder(
                folder, recording: EncryptionClientTests.chunks(recording, size: 4_096), client: client,
                keychainKey: keychainKey)
            #expect(report.counts.uploaded == 1)
            #expect(try await reader.getObject(.init(bucketName: "bkt", objectKey: "backups/folder/notes.db")).content == notes)
            #expect(try await reader.getObject(.init(bucketName: "bkt", objectKey: "backups/recording.m4a")).content == recording)
        }
    }
}
