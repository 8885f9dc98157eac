import AliyunOSS
import Foundation
import OSSLocalServer
import OSSSigning
import Testing

/// Hostile object keys through the SDK against the local server: every key is its own object, the data
/// directory is never escaped, and listings stay correct and complete.
@Suite("Attacks: hostile keys")
struct HostileKeyTests {
    static let keys: [String] = [
        "..", "../../etc/passwd", "..%2F..%2Fescaped", "%2F..", "a/../../../../tmp/escape", "./x", "dir/./y",
        "dir/../z", "nul\u{0}byte", "line\r\nbreak: injected", "tab\there", "back\\slash\\..\\..\\w", "~", "a//b",
        "Case", "case", "CASE", "trailing", "trailing/", "trailing//", " space ", "+plus+", "%", "%25", "%00",
        "?query=1&x", "#fragment", "emoji-\u{1F600}-\u{1F4A9}", "rtl-\u{202E}gnp.exe", "zero-width\u{200B}",
        "combining-\u{E9}", String(repeating: "\u{E9}", count: 511) + "a",
        String(repeating: "\u{4E2D}", count: 341), String(repeating: "../", count: 300) + "deep",
    ]

    static func contentOf(_ index: Int, _ key: String) -> Data {
        Data("object \(index): ".utf8 + Array(key.utf8))
    }

    /// Every regular file under `root`, as paths relative to it.
    static func files(under root: URL) -> [String] {
        guard let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return [] }
        var out: [String] = []
        for case let url as URL in enumerator {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue {
                out.append(String(url.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count)))
            }
        }
        return out.sorted()
    }

    @Test("hostile keys round-trip as distinct objects and never leave the data directory")
    func hostileKeysStayInside() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("oss-hostile-\(UUID().uuidString)")
        let data = root.appendingPathComponent("a/b/c/data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        try Data("sentinel".utf8).write(to: root.appendingPathComponent("sentinel"))
        defer { try? FileManager.default.removeItem(at: root) }
        let tmpBefore = Set((try? FileManager.default.contentsOfDirectory(atPath: "/tmp")) ?? [])
        let passwdBefore = try FileManager.default.attributesOfItem(atPath: "/etc/passwd")[.modificationDate] as? Date

        let configuration = LocalOSSServerConfiguration(dataDirectory: data, buckets: ["bkt"])
        try await withLocalOSSServer(configuration) { server in
            for version in OSSSignatureVersion.allCases {
                let client = try OSSClient(
                    endpoint: server.endpoint, credentialProvider: OSSStaticCredentialProvider(
                        accessKeyId: server.credentials.accessKeyId, accessKeySecret: server.credentials.accessKeySecret),
                    configuration: OSSClientConfiguration(region: "cn-hangzhou", signatureVersion: version))
                do {
                    for (index, key) in Self.keys.enumerated() {
                        _ = try await client.putObject(
                            OSSPutObjectRequest(bucketName: "bkt", objectKey: key, data: Self.contentOf(index, key)))
                    }
                    for (index, key) in Self.keys.enumerated() {
                        let got = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: key))
                        #expect(got.content == Self.contentOf(index, key), "\(version) key \(key.debugDescription)")
                        let head = try await client.headObject(OSSHeadObjectRequest(bucketName: "bkt", objectKey: key))
                        #expect(head.contentLength == Int64(Self.contentOf(index, key).count))
                    }
                    var listed: [String] = []
                    for try await page in client.listObjectsV2Paginator(OSSListObjectsV2Request(bucketName: "bkt", maxKeys: 7)) {
                        listed += page.contents.map(\.objectKey)
                    }
                    #expect(listed.map { Array($0.utf8) } == Self.keys.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }, "\(version)")
                    // A 1 KiB key is refused by the SDK before it leaves the process.
                    let tooLong = String(repeating: "\u{E9}", count: 512)
                    await #expect(throws: OSSClientError.self) {
                        _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: tooLong, data: Data()))
                    }
                    try await client.shutdown()
                } catch {
                    try? await client.shutdown()
                    throw error
                }
            }
            // Raw requests with dot segments in the path: the server keeps them as key bytes, never as a path.
            let attack = AttackClient(server)
            for key in ["../../../../../../tmp/oss-escape-probe", "..\\..\\x", "a/%2e%2e/%2e%2e/b"] {
                var request = OSSSignableRequest(method: "PUT", bucket: "bkt", key: key)
                try OSSSignerV1().sign(&request, credentials: server.credentials, date: Date())
                let reply = try await attack.send(request, body: Array("probe".utf8))
                #expect(reply.status == 200 || reply.status == 400, "\(key): \(reply.status)")
            }
        }
        // The filesystem around the data directory is untouched: every file is inside it, or the sentinel.
        let all = Self.files(under: root)
        #expect(all.contains("/sentinel"))
        #expect(all.filter { !$0.hasPrefix("/a/b/c/data/") && $0 != "/sentinel" }.isEmpty, "\(all)")
        #expect(all.count > Self.keys.count, "the objects are stored inside the data directory")
        let tmpAfter = Set((try? FileManager.default.contentsOfDirectory(atPath: "/tmp")) ?? [])
        #expect(!tmpAfter.subtracting(tmpBefore).contains { $0.contains("escape") || $0.contains("passwd") })
        let passwdAfter = try FileManager.default.attributesOfItem(atPath: "/etc/passwd")[.modificationDate] as? Date
        #expect(passwdBefore == passwdAfter)
        reportFigure("hostile-keys", ["keys": Self.keys.count, "versions": 2])
    }

    @Test("a 1024-byte key sent raw is refused by the server (OSS limit: 1023 bytes)")
    func serverRefusesOverlongKey() async throws {
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["bkt"])) { server in
            var request = OSSSignableRequest(method: "PUT", bucket: "bkt", key: String(repeating: "k", count: 1024))
            try OSSSignerV1().sign(&request, credentials: server.credentials, date: Date())
            let reply = try await AttackClient(server).send(request, body: [1])
            // Fixed in the server (was a known issue): OSS keys are at most 1023 bytes.
            #expect(reply.status == 400, "status \(reply.status) code \(reply.code ?? "-")")
            #expect(reply.code == "InvalidObjectName")
        }
    }

    @Test("keys that differ only in Unicode normalisation are distinct objects (OSS compares bytes)")
    func canonicallyEquivalentKeysAreDistinct() async throws {
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["bkt"])) { server in
            let client = try OSSClient(
                endpoint: server.endpoint, credentialProvider: OSSStaticCredentialProvider(
                    accessKeyId: server.credentials.accessKeyId, accessKeySecret: server.credentials.accessKeySecret),
                configuration: OSSClientConfiguration(region: "cn-hangzhou"))
            let composed = "caf\u{E9}"  // é as one scalar
            let decomposed = "cafe\u{301}"  // e + combining acute: other bytes, same Swift String
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: composed, data: Data("composed".utf8)))
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: decomposed, data: Data("decomposed".utf8)))
            let first = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: composed))
            let listed = try await client.listObjectsV2(OSSListObjectsV2Request(bucketName: "bkt")).contents.map { Array($0.objectKey.utf8) }
            try await client.shutdown()
            // Fixed in the server (was a known issue): keys are indexed byte for byte, not by Swift String equality.
            #expect(first.content == Data("composed".utf8))
            #expect(listed.count == 2)
        }
    }

    static var manyKeyCount: Int {
        Int(ProcessInfo.processInfo.environment["OSS_RELIABILITY_KEYS"] ?? "") ?? 2_000
    }

    @Test("thousands of keys in one prefix list completely with paging and a delimiter")
    func manyKeysInOnePrefix() async throws {
        let count = Self.manyKeyCount
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["bkt"])) { server in
            let client = try OSSClient(
                endpoint: server.endpoint, credentialProvider: OSSStaticCredentialProvider(
                    accessKeyId: server.credentials.accessKeyId, accessKeySecret: server.credentials.accessKeySecret),
                configuration: OSSClientConfiguration(region: "cn-hangzhou"))
            do {
                // Half direct children of many/, half spread over 10 sub-directories.
                let keys = (0..<count).map { i in i % 2 == 0 ? String(format: "many/k%05d", i) : String(format: "many/d%d/k%05d", i % 10, i) }
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for lane in 0..<4 {
                        group.addTask {
                            for key in keys.enumerated().filter({ $0.offset % 4 == lane }).map(\.element) {
                                _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: key, data: Data(key.utf8)))
                            }
                        }
                    }
                    try await group.waitForAll()
                }
                _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "many", data: Data()))
                _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "many0", data: Data()))
                // Flat listing, pages of 1000 and of 333.
                for pageSize in [1000, 333] {
                    var listed: [String] = []
                    var pages = 0
                    for try await page in client.listObjectsV2Paginator(
                        OSSListObjectsV2Request(bucketName: "bkt", prefix: "many/", maxKeys: pageSize))
                    {
                        pages += 1
                        #expect(page.contents.count <= pageSize)
                        listed += page.contents.map(\.objectKey)
                    }
                    #expect(listed == keys.sorted(), "page size \(pageSize)")
                    #expect(pages == (count + pageSize - 1) / pageSize)
                }
                // With a delimiter: the even keys directly, and 5 common prefixes (odd i % 10 is odd).
                var direct: [String] = []
                var prefixes: [String] = []
                for try await page in client.listObjectsV2Paginator(
                    OSSListObjectsV2Request(bucketName: "bkt", prefix: "many/", delimiter: "/", maxKeys: 250))
                {
                    direct += page.contents.map(\.objectKey)
                    prefixes += page.commonPrefixes
                }
                #expect(direct == keys.filter { !$0.dropFirst(5).contains("/") }.sorted())
                #expect(prefixes == ["many/d1/", "many/d3/", "many/d5/", "many/d7/", "many/d9/"])
                // Each sub-directory lists exactly its own keys.
                var d3: [String] = []
                for try await page in client.listObjectsV2Paginator(
                    OSSListObjectsV2Request(bucketName: "bkt", prefix: "many/d3/", delimiter: "/", maxKeys: 100))
                {
                    d3 += page.contents.map(\.objectKey)
                    #expect(page.commonPrefixes.isEmpty)
                }
                #expect(d3 == keys.filter { $0.hasPrefix("many/d3/") }.sorted())
                try await client.shutdown()
                reportFigure("hostile-keys", ["many_keys": count, "listings": 4])
            } catch {
                try? await client.shutdown()
                throw error
            }
        }
    }
}
