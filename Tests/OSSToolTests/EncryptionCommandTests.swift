import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing
import _CryptoExtras

/// `oss cp --encryption-key`: files and directories encrypted on the way up (the stored bytes are not the file's)
/// and decrypted on the way down; `oss stat` shows the envelope; the wrong key is an error, not a file.
@Suite("oss cp --encryption-key and oss stat")
struct EncryptionCommandTests {
    @Test func encryptedCopiesBothWaysAndStat() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let privatePEM = work.appendingPathComponent("private.pem")
        let publicPEM = work.appendingPathComponent("public.pem")
        try key.pkcs8PEMRepresentation.write(to: privatePEM, atomically: true, encoding: .utf8)
        try key.publicKey.pemRepresentation.write(to: publicPEM, atomically: true, encoding: .utf8)
        let otherPEM = work.appendingPathComponent("other.pem")
        try _RSA.Signing.PrivateKey(keySize: .bits2048).pemRepresentation.write(to: otherPEM, atomically: true, encoding: .utf8)

        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["enc"])) { server in
            let tool = ToolRunner(server: server, home: work)
            let checkpoints = ["--checkpoint-dir", work.appendingPathComponent("cp").path]
            let small = work.appendingPathComponent("small.bin")
            _ = try writeFile(small, count: 70_001, seed: 1)
            let large = work.appendingPathComponent("large.bin")
            _ = try writeFile(large, count: 400_003, seed: 2)

            // Up: one PutObject with the public key alone, a multipart upload with the private key.
            var r = try await tool.run(
                ["cp", small.path, "oss://enc/small.bin", "--encryption-key", publicPEM.path,
                 "--encryption-description", #"{"key":"cli"}"#] + checkpoints)
            #expect(r.status == 0, "\(r.stderr)")
            r = try await tool.run(
                ["cp", large.path, "oss://enc/large.bin", "--encryption-key", privatePEM.path,
                 "--multipart-threshold", "102400", "--part-size", "102400"] + checkpoints)
            #expect(r.status == 0, "\(r.stderr)")

            // Stored bytes are ciphertext; down with the key they are the file again.
            for name in ["small.bin", "large.bin"] {
                let raw = work.appendingPathComponent("raw-" + name)
                r = try await tool.run(["cp", "oss://enc/" + name, raw.path] + checkpoints)
                #expect(r.status == 0, "\(r.stderr)")
                let original = try Data(contentsOf: work.appendingPathComponent(name))
                #expect(try Data(contentsOf: raw).count == original.count)
                #expect(try Data(contentsOf: raw) != original)
                let back = work.appendingPathComponent("back-" + name)
                r = try await tool.run(
                    ["cp", "oss://enc/" + name, back.path, "--encryption-key", privatePEM.path] + checkpoints)
                #expect(r.status == 0, "\(r.stderr)")
                #expect(try Data(contentsOf: back) == original, "\(name)")
            }

            r = try await tool.run(["stat", "oss://enc/small.bin"])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains("client-side encryption: AES/CTR/NoPadding, data key wrapped with RSA/NONE/PKCS1Padding; matdesc {\"key\":\"cli\"}; plaintext 70001 bytes"), "\(r.stdout)")
            r = try await tool.run(["stat", "oss://enc/large.bin"])
            #expect(r.stdout.contains("part size 102400"), "\(r.stdout)")

            // The wrong key: a typed error and no file.
            let wrong = work.appendingPathComponent("wrong.bin")
            r = try await tool.run(["cp", "oss://enc/small.bin", wrong.path, "--encryption-key", otherPEM.path] + checkpoints)
            #expect(r.status == 2)
            #expect(r.stderr.contains("could not unwrap the data key"), "\(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: wrong.path))

            // -r both ways.
            let tree = work.appendingPathComponent("tree")
            try FileManager.default.createDirectory(at: tree.appendingPathComponent("sub"), withIntermediateDirectories: true)
            _ = try writeFile(tree.appendingPathComponent("a.txt"), count: 33, seed: 3)
            _ = try writeFile(tree.appendingPathComponent("sub/b.bin"), count: 5_000, seed: 4)
            r = try await tool.run(["cp", "-r", tree.path, "oss://enc/tree", "--encryption-key", privatePEM.path] + checkpoints)
            #expect(r.status == 0, "\(r.stderr)")
            let copy = work.appendingPathComponent("copy")
            r = try await tool.run(["cp", "-r", "oss://enc/tree/", copy.path, "--encryption-key", privatePEM.path] + checkpoints)
            #expect(r.status == 0, "\(r.stderr)")
            for name in ["a.txt", "sub/b.bin"] {
                #expect(
                    try Data(contentsOf: copy.appendingPathComponent(name))
                        == Data(contentsOf: tree.appendingPathComponent(name)), "\(name)")
            }
        }
    }
}
