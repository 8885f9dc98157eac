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

            // Without the key, a download is refused and writes nothing (the stored bytes are ciphertext); with the
            // key the bytes are the file again.
            for name in ["small.bin", "large.bin"] {
                let raw = work.appendingPathComponent("raw-" + name)
                r = try await tool.run(["cp", "oss://enc/" + name, raw.path, "--part-size", "102400"] + checkpoints)
                #expect(r.status == 2, "\(r.stderr)")
                #expect(r.stderr.contains("EncryptedObject: oss://enc/\(name) is encrypted on the client side"), "\(r.stderr)")
                #expect(r.stderr.contains("--encryption-key"), "\(r.stderr)")
                #expect(!FileManager.default.fileExists(atPath: raw.path))
                #expect(try FileManager.default.contentsOfDirectory(atPath: work.path).filter { $0.contains(".osstmp-") }.isEmpty)
                // To standard output (a stream): refused before any byte.
                r = try await tool.run(["cp", "oss://enc/" + name, "-"])
                #expect(r.status == 2 && r.stdout.isEmpty, "\(r.stderr)")
                #expect(r.stderr.contains("--encryption-key"), "\(r.stderr)")
                let original = try Data(contentsOf: work.appendingPathComponent(name))
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
            // The wrapped data key and IV are key material: stat names them and leaves them out.
            #expect(r.stdout.contains("meta client-side-encryption-key: (the wrapped data key, not shown)"), "\(r.stdout)")
            #expect(r.stdout.contains("meta client-side-encryption-start: (the wrapped IV, not shown)"), "\(r.stdout)")

            // Down above the threshold: ranged parts, --threads at a time, resumable; the record goes at the end.
            let parted = work.appendingPathComponent("parted.bin")
            r = try await tool.run(
                ["cp", "oss://enc/large.bin", parted.path, "--encryption-key", privatePEM.path,
                 "--multipart-threshold", "102400", "--part-size", "102400", "--threads", "3"] + checkpoints)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(try Data(contentsOf: parted) == Data(contentsOf: large))
            let records = try FileManager.default.contentsOfDirectory(atPath: work.appendingPathComponent("cp").path)
            #expect(!records.contains { $0.hasPrefix("encrypted-download-") }, "\(records)")
            // A part size that is not a multiple of 16: a clear error both ways, nothing written.
            for arguments in [[large.path, "oss://enc/odd.bin"], ["oss://enc/large.bin", work.appendingPathComponent("odd.bin").path]] {
                r = try await tool.run(
                    ["cp"] + arguments + ["--encryption-key", privatePEM.path, "--multipart-threshold", "0",
                     "--part-size", "102401"] + checkpoints)
                #expect(r.status != 0)
                #expect(r.stderr.contains("the part size 102401 is not a positive multiple of 16"), "\(r.stderr)")
            }
            #expect(!FileManager.default.fileExists(atPath: work.appendingPathComponent("odd.bin").path))

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
            let rawTree = try await tool.run(["cp", "oss://enc/tree/sub/b.bin", work.appendingPathComponent("raw-b").path] + checkpoints)
            #expect(rawTree.status == 2, "\(rawTree.stderr)")
            #expect(!FileManager.default.fileExists(atPath: work.appendingPathComponent("raw-b").path))
            // A directory copy and a sync without the key: every encrypted file is a failure naming the reason, and
            // none is written.
            let plainTree = work.appendingPathComponent("plain-tree")
            for command in ["cp", "sync"] {
                r = try await tool.run(
                    [command] + (command == "cp" ? ["-r"] : []) + ["oss://enc/tree/", plainTree.path] + checkpoints)
                #expect(r.status == 7, "\(command): \(r.stderr)")
                #expect(r.stderr.contains("is encrypted on the client side"), "\(command): \(r.stderr)")
                let written = (FileManager.default.enumerator(atPath: plainTree.path)?.allObjects as? [String] ?? [])
                    .filter { !$0.hasSuffix("sub") && !$0.hasPrefix(".") }
                #expect(written.isEmpty, "\(command) wrote \(written)")
            }

            // sync both ways: encrypted up, unchanged the second time (size and time), decrypted down.
            r = try await tool.run(["sync", tree.path, "oss://enc/synced", "--encryption-key", privatePEM.path] + checkpoints)
            #expect(r.status == 0, "\(r.stderr)")
            let puts = await server.stats()[.putObject].requests
            r = try await tool.run(["sync", tree.path, "oss://enc/synced", "--encryption-key", privatePEM.path] + checkpoints)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(await server.stats()[.putObject].requests == puts, "the second sync sent nothing")
            let synced = work.appendingPathComponent("synced")
            r = try await tool.run(["sync", "oss://enc/synced", synced.path, "--encryption-key", privatePEM.path] + checkpoints)
            #expect(r.status == 0, "\(r.stderr)")
            for name in ["a.txt", "sub/b.bin"] {
                #expect(
                    try Data(contentsOf: synced.appendingPathComponent(name))
                        == Data(contentsOf: tree.appendingPathComponent(name)), "synced \(name)")
            }
            r = try await tool.run(
                ["sync", tree.path, "oss://enc/synced", "--encryption-key", privatePEM.path, "--checksum"] + checkpoints)
            #expect(r.status != 0 && r.stderr.contains("--checksum"), "\(r.stderr)")
        }
    }

    @Test func anEncryptedUploadKilledWithSIGKILLResumesTheSameUploadAndItsRecordHoldsNoPlainKey() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let pem = work.appendingPathComponent("private.pem")
        try key.pemRepresentation.write(to: pem, atomically: true, encoding: .utf8)
        let records = work.appendingPathComponent("records")
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["enc"])) { server in
            let tool = ToolRunner(server: server, home: work)
            let file = work.appendingPathComponent("big.bin")
            _ = try writeFile(file, count: 12 * 102_400 + 5, seed: 9)
            let arguments = [
                "cp", file.path, "oss://enc/big.bin", "--encryption-key", pem.path, "--part-size", "102400",
                "--multipart-threshold", "0", "--checkpoint-dir", records.path, "--threads", "2",
            ]
            await server.addFault(LocalOSSFaultRule(operation: .uploadPart, action: .delay(milliseconds: 80)))
            let (process, _, _) = try tool.start(arguments)
            var waited = 0
            // Two parts in flight at most: six requests seen means at least four parts stored.
            while await server.stats()[.uploadPart].requests < 6 && waited < 1200 && process.isRunning {
                try await Task.sleep(for: .milliseconds(25))
                waited += 1
            }
            kill(process.processIdentifier, SIGKILL)
            await waitForExit(process)
            #expect(process.terminationReason == .uncaughtSignal, "the child was killed mid-upload, not finished")
            await server.clearFaults()

            // The record: the wrapped data key, never the plain one.
            // (Beside it, the SDK's lock file: one run per transfer, as for plain ones.)
            let names = try FileManager.default.contentsOfDirectory(atPath: records.path)
                .filter { $0.hasPrefix("encrypted-") && !$0.hasSuffix(".lock") }
            #expect(names.count == 1)
            let recordName = try #require(names.first)
            let recordData = try Data(contentsOf: records.appendingPathComponent(recordName))
            let record = try #require(JSONSerialization.jsonObject(with: recordData) as? [String: Any])
            let wrappedText = try #require(record["wrappedKey"] as? String)
            let wrapped = try #require(Data(base64Encoded: wrappedText))
            let plainKey = try _RSA.Encryption.PrivateKey(pemRepresentation: key.pemRepresentation)
                .decrypt(wrapped, padding: ._WEAK_AND_INSECURE_PKCS_V1_5)
            #expect(plainKey.count == 32)
            #expect(recordData.range(of: plainKey) == nil)
            #expect(!String(decoding: recordData, as: UTF8.self).contains(plainKey.base64EncodedString()))

            let before = await server.stats()[.uploadPart].requests
            let r = try await tool.run(arguments)
            #expect(r.status == 0, "\(r.stderr)")
            let stats = await server.stats()
            #expect(stats[.initiateMultipartUpload].requests == 1, "the rerun continued the killed run's upload")
            #expect(stats[.uploadPart].requests - before < 13, "only the missing parts were sent again")
            let back = work.appendingPathComponent("back.bin")
            let d = try await tool.run(["cp", "oss://enc/big.bin", back.path, "--encryption-key", pem.path])
            #expect(d.status == 0, "\(d.stderr)")
            #expect(try Data(contentsOf: back) == Data(contentsOf: file))
        }
    }
}
