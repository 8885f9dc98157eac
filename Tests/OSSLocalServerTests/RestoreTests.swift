import Foundation
import OSSLocalServer
import Testing

/// RestoreObject's configuration (`RestoreRequest`: Days, JobParameters/Tier) checked as OSS checks it, and the restore
/// state in listings (`RestoreInfo`), as oss2's own tests expect them.
@Suite struct RestoreTests {
    static func restoreBody(days: Int? = nil, tier: String? = nil) -> [UInt8] {
        var xml = "<RestoreRequest>"
        if let days { xml += "<Days>\(days)</Days>" }
        if let tier { xml += "<JobParameters><Tier>\(tier)</Tier></JobParameters>" }
        return Array((xml + "</RestoreRequest>").utf8)
    }

    static func put(_ client: TestClient, _ key: String, storageClass: String) async throws {
        let r = try await client.send(
            "PUT", bucket: "rst", key: key, headers: ["x-oss-storage-class": storageClass], body: [1, 2, 3])
        #expect(r.status == 200)
    }

    static func restore(_ client: TestClient, _ key: String, body: [UInt8]) async throws -> TestClient.Response {
        try await client.send("POST", bucket: "rst", key: key, query: ["restore": ""], body: body)
    }

    /// XML text with its `&quot;` entities (the quotes of a restore state) read back.
    static func unescaped(_ text: String) -> String { text.replacingOccurrences(of: "&quot;", with: "\"") }

    static var slowRestores: LocalOSSServerConfiguration {
        var configuration = LocalOSSServerConfiguration(buckets: ["rst"])
        configuration.restoreDelay = 3600
        return configuration
    }

    @Test func archiveTakesDaysButNoJobParameters() async throws {
        try await withLocalOSSServer(Self.slowRestores) { server in
            let client = TestClient(server)
            try await Self.put(client, "a", storageClass: "Archive")
            var r = try await Self.restore(client, "a", body: Self.restoreBody(days: 2, tier: "Bulk"))
            #expect(r.status == 400 && r.errorCode == "MalformedXML", "JobParameters is for cold archive only")
            r = try await Self.restore(client, "a", body: Self.restoreBody(days: 8))
            #expect(r.status == 400 && r.errorCode == "InvalidArgument", "an Archive restore lasts 1 to 7 days")
            r = try await Self.restore(client, "a", body: Self.restoreBody(days: 7))
            #expect(r.status == 202)
            #expect(r.header("x-oss-object-restore-priority") == nil)
        }
    }

    @Test func coldArchiveTiersAndPriorities() async throws {
        try await withLocalOSSServer(Self.slowRestores) { server in
            let client = TestClient(server)
            for (index, tier) in ["Expedited", "Standard", "Bulk"].enumerated() {
                try await Self.put(client, "c\(index)", storageClass: "ColdArchive")
                let r = try await Self.restore(client, "c\(index)", body: Self.restoreBody(days: 5, tier: tier))
                #expect(r.status == 202)
                #expect(r.header("x-oss-object-restore-priority") == tier)
            }
            try await Self.put(client, "default", storageClass: "ColdArchive")
            var r = try await Self.restore(client, "default", body: [])
            #expect(r.status == 202 && r.header("x-oss-object-restore-priority") == "Standard")
            r = try await Self.restore(client, "default", body: Self.restoreBody(tier: "Bulk"))
            #expect(r.status == 409 && r.errorCode == "RestoreAlreadyInProgress", "a running restore is never slowed")
            r = try await Self.restore(client, "default", body: Self.restoreBody(tier: "Expedited"))
            #expect(r.status == 202 && r.header("x-oss-object-restore-priority") == "Expedited", "but may be sped up")

            try await Self.put(client, "bad", storageClass: "ColdArchive")
            r = try await Self.restore(client, "bad", body: Self.restoreBody(days: 5, tier: "wrong-tier"))
            #expect(r.status == 400 && r.errorCode == "InvalidArgument")
            r = try await Self.restore(client, "bad", body: Self.restoreBody(days: 366))
            #expect(r.status == 400 && r.errorCode == "InvalidArgument")
            r = try await Self.restore(client, "bad", body: Self.restoreBody(days: 0))
            #expect(r.status == 400 && r.errorCode == "InvalidArgument")
            try await Self.put(client, "deep", storageClass: "DeepColdArchive")
            r = try await Self.restore(client, "deep", body: Self.restoreBody(tier: "Bulk"))
            #expect(r.status == 400 && r.errorCode == "InvalidArgument", "DeepColdArchive has no Bulk tier")
        }
    }

    @Test func malformedRestoreRequestsAreMalformedXML() async throws {
        try await withLocalOSSServer(Self.slowRestores) { server in
            let client = TestClient(server)
            try await Self.put(client, "c", storageClass: "ColdArchive")
            for body in [
                "<RestoreRequest><Days>2</Days>", "<Other><Days>2</Days></Other>",
                "<RestoreRequest><JobParameters></JobParameters></RestoreRequest>", "not xml",
            ] {
                let r = try await Self.restore(client, "c", body: Array(body.utf8))
                #expect(r.status == 400 && r.errorCode == "MalformedXML", "\(body)")
            }
            let r = try await Self.restore(client, "c", body: Array("<RestoreRequest><Days>two</Days></RestoreRequest>".utf8))
            #expect(r.status == 400 && r.errorCode == "InvalidArgument")
        }
    }

    /// OSS validates a RestoreRequest against its schema: an element it does not have is MalformedXML, at the top, in
    /// JobParameters or inside a value; nothing is restored. The valid forms still restore.
    @Test func unknownRestoreRequestElementsAreMalformedXML() async throws {
        try await withLocalOSSServer(Self.slowRestores) { server in
            let client = TestClient(server)
            try await Self.put(client, "c", storageClass: "ColdArchive")
            for body in [
                "<RestoreRequest><Days>2</Days><Unknown></Unknown></RestoreRequest>",
                "<RestoreRequest><Unknown>1</Unknown></RestoreRequest>",
                "<RestoreRequest><Days>2</Days><JobParameters><Tier>Bulk</Tier><Unknown/></JobParameters></RestoreRequest>",
                "<RestoreRequest><Days>2<Unknown/></Days></RestoreRequest>",
                "<RestoreRequest><JobParameters><Tier>Bulk<Unknown/></Tier></JobParameters></RestoreRequest>",
            ] {
                let r = try await Self.restore(client, "c", body: Array(body.utf8))
                #expect(r.status == 400 && r.errorCode == "MalformedXML", "\(body)")
            }
            #expect(try await client.send("HEAD", bucket: "rst", key: "c").header("x-oss-restore") == nil, "not restored")
            let valid: [(String, [UInt8])] = [
                ("no body", []), ("Days", Self.restoreBody(days: 2)), ("Tier", Self.restoreBody(tier: "Bulk")),
                ("Days and Tier", Self.restoreBody(days: 2, tier: "Expedited")),
            ]
            for (index, (name, body)) in valid.enumerated() {
                try await Self.put(client, "v\(index)", storageClass: "ColdArchive")
                #expect(try await Self.restore(client, "v\(index)", body: body).status == 202, "\(name)")
            }
        }
    }

    @Test(arguments: [false, true])
    func listingsCarryTheRestoreState(v2: Bool) async throws {
        let listQuery = v2 ? ["list-type": "2"] : [:]
        try await withLocalOSSServer(Self.slowRestores) { server in
            let client = TestClient(server)
            try await Self.put(client, "a-running", storageClass: "Archive")
            try await Self.put(client, "b-frozen", storageClass: "Archive")
            #expect(try await client.send("PUT", bucket: "rst", key: "c-standard", body: [1]).status == 200)
            #expect(try await Self.restore(client, "a-running", body: []).status == 202)
            let listing = try await client.send("GET", bucket: "rst", query: listQuery).text
            #expect(xmlValues("RestoreInfo", in: listing).map(Self.unescaped) == ["ongoing-request=\"true\""], "\(listing)")
            #expect(xmlValues("Key", in: listing) == ["a-running", "b-frozen", "c-standard"])
        }
        var quick = LocalOSSServerConfiguration(buckets: ["rst"])
        quick.restoreDelay = 0
        try await withLocalOSSServer(quick) { server in
            let client = TestClient(server)
            try await Self.put(client, "done", storageClass: "ColdArchive")
            #expect(try await Self.restore(client, "done", body: Self.restoreBody(days: 2)).status == 202)
            let listing = try await client.send("GET", bucket: "rst", query: listQuery).text
            let info = Self.unescaped(try #require(xmlValue("RestoreInfo", in: listing)))
            #expect(info.hasPrefix("ongoing-request=\"false\", expiry-date=\""), "\(info)")
            let head = try await client.send("HEAD", bucket: "rst", key: "done")
            #expect(head.header("x-oss-restore") == info, "the listing and HEAD report the same state")
        }
    }
}
