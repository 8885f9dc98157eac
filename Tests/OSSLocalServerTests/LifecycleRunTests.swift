import Foundation
import OSSLocalServer
import Testing

/// `POST /-/lifecycle/run` and ``LocalOSSServer/runLifecycle(now:bucket:)``: the rules act at a simulated date, on
/// unversioned and versioned buckets, with prefix, tag and size filters, and leave WORM-protected objects alone.
@Suite struct LifecycleRunTests {
    static func put(_ c: TestClient, _ bucket: String, _ document: String) async throws {
        let r = try await c.send("PUT", bucket: bucket, query: ["lifecycle": ""], body: Array(document.utf8))
        #expect(r.status == 200, "\(r.text)")
    }

    static let day: TimeInterval = 86_400

    @Test func expirationAndAbortActAtTheSimulatedDate() async throws {
        try await withLocalOSSServer(.init(buckets: ["lc-a"])) { server in
            let c = TestClient(server)
            try await Self.put(c, "lc-a", """
                <LifecycleConfiguration>
                  <Rule><ID>tmp</ID><Prefix>tmp/</Prefix><Status>Enabled</Status><Expiration><Days>3</Days></Expiration></Rule>
                  <Rule><ID>tagged</ID><Prefix>t/</Prefix><Status>Enabled</Status><Tag><Key>gc</Key><Value>yes</Value></Tag>
                    <Expiration><Days>1</Days></Expiration></Rule>
                  <Rule><ID>cold</ID><Prefix>cold/</Prefix><Status>Enabled</Status><Transition><Days>2</Days><StorageClass>IA</StorageClass></Transition></Rule>
                  <Rule><ID>off</ID><Prefix>keep/</Prefix><Status>Disabled</Status><Expiration><Days>1</Days></Expiration></Rule>
                  <Rule><ID>mpu</ID><Prefix>up/</Prefix><Status>Enabled</Status><AbortMultipartUpload><Days>1</Days></AbortMultipartUpload></Rule>
                  <Rule><ID>big</ID><Prefix>size/</Prefix><Status>Enabled</Status><Expiration><Days>1</Days></Expiration>
                    <Filter><ObjectSizeGreaterThan>2</ObjectSizeGreaterThan><Not><Prefix>size/keep</Prefix></Not></Filter></Rule>
                </LifecycleConfiguration>
                """)
            for key in ["tmp/a", "keep/a", "t/a", "cold/a", "size/big", "size/keep-big"] {
                #expect(try await c.send("PUT", bucket: "lc-a", key: key, body: [1, 2, 3, 4]).status == 200)
            }
            #expect(try await c.send("PUT", bucket: "lc-a", key: "size/small", body: [1]).status == 200)
            #expect(try await c.send("PUT", bucket: "lc-a", key: "t/b", headers: ["x-oss-tagging": "gc=yes"], body: [1]).status == 200)
            let upload = try await c.send("POST", bucket: "lc-a", key: "up/file", query: ["uploads": ""])
            let uploadId = try #require(xmlValue("UploadId", in: upload.text))

            // Today nothing is due.
            var report = try await server.runLifecycle()
            #expect(report.actions.isEmpty)
            // Two days on: the tagged object, the big one, the upload and the transition; tmp/ waits for day 3.
            report = try await server.runLifecycle(now: Date().addingTimeInterval(2 * Self.day + 60))
            let done = Set(report.actions.map { "\($0.rule) \($0.action) \($0.key)" })
            #expect(done == [
                "tagged Expiration t/b", "big Expiration size/big", "mpu AbortMultipartUpload up/file",
                "cold Transition cold/a",
            ], "\(report.actions)")
            #expect(report.actions.first { $0.action == "AbortMultipartUpload" }?.uploadId == uploadId)
            #expect(try await c.send("HEAD", bucket: "lc-a", key: "t/b").status == 404)
            #expect(try await c.send("HEAD", bucket: "lc-a", key: "t/a").status == 200, "untagged objects stay")
            #expect(try await c.send("HEAD", bucket: "lc-a", key: "size/small").status == 200)
            #expect(try await c.send("HEAD", bucket: "lc-a", key: "size/keep-big").status == 200)
            #expect(try await c.send("HEAD", bucket: "lc-a", key: "cold/a").header("x-oss-storage-class") == "IA")
            #expect(try await c.send("GET", bucket: "lc-a", key: "up/file", query: ["uploadId": uploadId]).errorCode == "NoSuchUpload")
            // The admin endpoint, four days on: tmp/ expires; a disabled rule never acts.
            let admin = try await c.execute("POST", url: server.endpoint.absoluteString + "/-/lifecycle/run?now=" + Self.iso(Date().addingTimeInterval(4 * Self.day)))
            #expect(admin.status == 200 && admin.text.contains("\"key\":\"tmp\\/a\""), "\(admin.text)")
            #expect(try await c.send("HEAD", bucket: "lc-a", key: "tmp/a").status == 404)
            #expect(try await c.send("HEAD", bucket: "lc-a", key: "keep/a").status == 200)
            let bad = try await c.execute("POST", url: server.endpoint.absoluteString + "/-/lifecycle/run?now=tomorrow")
            #expect(bad.status == 400 && bad.errorCode == "InvalidArgument")
        }
    }

    @Test func createdBeforeDateActsOnOlderObjects() async throws {
        try await withLocalOSSServer(.init(buckets: ["lc-a"])) { server in
            let c = TestClient(server)
            #expect(try await c.send("PUT", bucket: "lc-a", key: "old", body: [1]).status == 200)
            let midnight = (Date().timeIntervalSince1970 / Self.day).rounded(.down) * Self.day + 2 * Self.day
            let tomorrow = Self.iso(Date(timeIntervalSince1970: midnight))
            try await Self.put(c, "lc-a", """
                <LifecycleConfiguration><Rule><ID>date</ID><Prefix></Prefix><Status>Enabled</Status>
                <Expiration><CreatedBeforeDate>\(tomorrow)</CreatedBeforeDate></Expiration></Rule></LifecycleConfiguration>
                """)
            let report = try await server.runLifecycle()
            #expect(report.actions.map(\.key) == ["old"])
        }
    }

    @Test func versionedBucketsKeepVersionsAndCleanMarkers() async throws {
        try await withLocalOSSServer(.init(buckets: ["lc-v"])) { server in
            let c = TestClient(server)
            _ = try await c.send(
                "PUT", bucket: "lc-v", query: ["versioning": ""],
                body: Array("<VersioningConfiguration><Status>Enabled</Status></VersioningConfiguration>".utf8))
            let v1 = try #require(try await c.send("PUT", bucket: "lc-v", key: "doc", body: [1]).header("x-oss-version-id"))
            let v2 = try #require(try await c.send("PUT", bucket: "lc-v", key: "doc", body: [2]).header("x-oss-version-id"))
            _ = try await c.send("PUT", bucket: "lc-v", key: "lonely", body: [4])
            _ = try await c.send("DELETE", bucket: "lc-v", key: "lonely")
            try await Self.put(c, "lc-v", """
                <LifecycleConfiguration>
                  <Rule><ID>old</ID><Prefix>doc</Prefix><Status>Enabled</Status><NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays></NoncurrentVersionExpiration></Rule>
                  <Rule><ID>markers</ID><Prefix>lonely</Prefix><Status>Enabled</Status><Expiration><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration>
                    <NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays></NoncurrentVersionExpiration></Rule>
                  <Rule><ID>current</ID><Prefix>doc</Prefix><Status>Enabled</Status><Expiration><Days>5</Days></Expiration></Rule>
                </LifecycleConfiguration>
                """)
            var report = try await server.runLifecycle(now: Date().addingTimeInterval(2 * Self.day))
            // The noncurrent version of doc goes; lonely's object version goes, then (next run) its marker.
            #expect(report.actions.contains { $0.action == "NoncurrentVersionExpiration" && $0.key == "doc" && $0.versionId == v1 })
            #expect(try await c.send("GET", bucket: "lc-v", key: "doc", query: ["versionId": v1]).errorCode == "NoSuchVersion")
            #expect(try await c.send("GET", bucket: "lc-v", key: "doc").body == [2])
            report = try await server.runLifecycle(now: Date().addingTimeInterval(2 * Self.day))
            #expect(report.actions.map { "\($0.action) \($0.key)" } == ["ExpiredObjectDeleteMarker lonely"], "\(report.actions)")
            // Expiring a current version in a versioned bucket adds a delete marker: v2 stays as a version.
            report = try await server.runLifecycle(now: Date().addingTimeInterval(6 * Self.day))
            let expired = try #require(report.actions.first { $0.action == "Expiration" && $0.key == "doc" })
            #expect(expired.versionId != nil && expired.versionId != v2)
            #expect(try await c.send("GET", bucket: "lc-v", key: "doc").status == 404)
            #expect(try await c.send("GET", bucket: "lc-v", key: "doc", query: ["versionId": v2]).body == [2])
        }
    }

    /// One rule with Expiration and NoncurrentVersionExpiration: both act in one run, and a version made noncurrent
    /// by the run's own delete marker counts its noncurrent days from the simulated date, not the real clock.
    @Test func oneRuleActsWholeAndCountsNoncurrentDaysFromTheSimulatedDate() async throws {
        try await withLocalOSSServer(.init(buckets: ["lc-b"])) { server in
            let c = TestClient(server)
            _ = try await c.send(
                "PUT", bucket: "lc-b", query: ["versioning": ""],
                body: Array("<VersioningConfiguration><Status>Enabled</Status></VersioningConfiguration>".utf8))
            let v1 = try #require(try await c.send("PUT", bucket: "lc-b", key: "log", body: [1]).header("x-oss-version-id"))
            let v2 = try #require(try await c.send("PUT", bucket: "lc-b", key: "log", body: [2]).header("x-oss-version-id"))
            try await Self.put(c, "lc-b", """
                <LifecycleConfiguration><Rule><ID>both</ID><Prefix></Prefix><Status>Enabled</Status>
                  <Expiration><Days>7</Days></Expiration>
                  <NoncurrentVersionExpiration><NoncurrentDays>3</NoncurrentDays></NoncurrentVersionExpiration></Rule>
                </LifecycleConfiguration>
                """)
            // Day 8: v2 expires (a marker on top) and v1, noncurrent since today, goes in the same run.
            var report = try await server.runLifecycle(now: Date().addingTimeInterval(8 * Self.day))
            #expect(Set(report.actions.map { "\($0.action) \($0.versionId ?? "")" }).isSuperset(of: ["NoncurrentVersionExpiration \(v1)"]), "\(report.actions)")
            #expect(report.actions.contains { $0.action == "Expiration" }, "\(report.actions)")
            #expect(try await c.send("GET", bucket: "lc-b", key: "log", query: ["versionId": v1]).errorCode == "NoSuchVersion")
            // v2 became noncurrent on (simulated) day 8: kept on day 8 and day 10, gone on day 11.
            report = try await server.runLifecycle(now: Date().addingTimeInterval(8 * Self.day + 60))
            #expect(report.actions.isEmpty, "\(report.actions)")
            report = try await server.runLifecycle(now: Date().addingTimeInterval(10 * Self.day))
            #expect(report.actions.isEmpty, "\(report.actions)")
            #expect(try await c.send("GET", bucket: "lc-b", key: "log", query: ["versionId": v2]).body == [2])
            report = try await server.runLifecycle(now: Date().addingTimeInterval(11 * Self.day + 60))
            #expect(report.actions.map { "\($0.action) \($0.versionId ?? "")" } == ["NoncurrentVersionExpiration \(v2)"], "\(report.actions)")
        }
    }

    @Test func retentionProtectedObjectsAreLeftInPlace() async throws {
        try await withLocalOSSServer(.init(buckets: ["lc-w"])) { server in
            let c = TestClient(server)
            _ = try await c.send("PUT", bucket: "lc-w", key: "record", body: [1])
            try await Self.put(c, "lc-w", """
                <LifecycleConfiguration><Rule><ID>all</ID><Prefix></Prefix><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule></LifecycleConfiguration>
                """)
            let initiate = try await c.send("POST", bucket: "lc-w", query: ["worm": ""], body: DataProtectionTests.days(10))
            let id = try #require(initiate.header("x-oss-worm-id"))
            #expect(try await c.send("POST", bucket: "lc-w", query: ["wormId": id]).status == 200)
            var report = try await server.runLifecycle(now: Date().addingTimeInterval(2 * Self.day))
            #expect(report.actions.isEmpty && report.protected == ["lc-w/record"])
            #expect(try await c.send("HEAD", bucket: "lc-w", key: "record").status == 200)
            // Once the retention period is over the rule acts.
            report = try await server.runLifecycle(now: Date().addingTimeInterval(11 * Self.day))
            #expect(report.actions.map(\.key) == ["record"] && report.protected.isEmpty)
        }
    }

    static func iso(_ date: Date) -> String {
        Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date)
    }
}
