import Foundation
import OSSCRC64
import OSSLocalServer
import OSSTestSupport
import Testing

/// Versioned buckets on the local server, as OSS behaves (PutBucketVersioning, ListObjectVersions, delete markers,
/// the null version, `versionId` on object calls).
@Suite struct VersioningTests {
    @Test func configurationIsSetReadAndChecked() async throws {
        try await withLocalOSSServer(.init(buckets: ["ver"])) { server in
            let client = TestClient(server)
            let fresh = try await client.send("GET", bucket: "ver", query: ["versioning": ""])
            #expect(fresh.status == 200)
            #expect(fresh.text.contains("<VersioningConfiguration"))
            #expect(xmlValue("Status", in: fresh.text) == nil)
            #expect(xmlValue("Versioning", in: try await client.send("GET", bucket: "ver", query: ["bucketInfo": ""]).text) == nil)

            #expect(try await Versioning.set(client, "ver", "Enabled").status == 200)
            let enabled = try await client.send("GET", bucket: "ver", query: ["versioning": ""])
            #expect(xmlValue("Status", in: enabled.text) == "Enabled")
            let info = try await client.send("GET", bucket: "ver", query: ["bucketInfo": ""])
            #expect(xmlValue("Versioning", in: info.text) == "Enabled")

            #expect(try await Versioning.set(client, "ver", "Suspended").status == 200)
            #expect(xmlValue("Status", in: try await client.send("GET", bucket: "ver", query: ["versioning": ""]).text) == "Suspended")

            // Never back to unversioned: no status but the two is accepted.
            for bad in ["Disabled", "Stop", "enabled", "None", ""] {
                let r = try await Versioning.set(client, "ver", bad)
                #expect(r.status == 400 && r.errorCode == "MalformedXML", "\(bad): \(r.text)")
            }
            let garbage = try await client.send("PUT", bucket: "ver", query: ["versioning": ""], body: Array("<Vers".utf8))
            #expect(garbage.status == 400 && garbage.errorCode == "MalformedXML")
            #expect(xmlValue("Status", in: try await client.send("GET", bucket: "ver", query: ["versioning": ""]).text) == "Suspended")
            let missing = try await Versioning.set(client, "nobucket", "Enabled")
            #expect(missing.status == 404 && missing.errorCode == "NoSuchBucket")
        }
    }

    @Test(arguments: TestClient.Version.allCases)
    func everyWriteIsAVersionReadableByItsId(version: TestClient.Version) async throws {
        try await withLocalOSSServer(.init(buckets: ["ver"])) { server in
            let client = TestClient(server, version: version)
            #expect(try await Versioning.set(client, "ver", "Enabled").status == 200)
            var ids: [String] = []
            var bodies: [[UInt8]] = []
            for _ in 0..<3 {
                let body = randomBytes(1000 + ids.count)
                let put = try await client.send("PUT", bucket: "ver", key: "doc", body: body)
                #expect(put.status == 200)
                ids.append(try #require(put.header("x-oss-version-id")))
                bodies.append(body)
            }
            #expect(Set(ids).count == 3)
            let latest = try await client.send("GET", bucket: "ver", key: "doc")
            #expect(latest.body == bodies[2])
            #expect(latest.header("x-oss-version-id") == ids[2])
            for (id, body) in zip(ids, bodies) {
                let get = try await client.send("GET", bucket: "ver", key: "doc", query: ["versionId": id])
                #expect(get.status == 200 && get.body == body)
                #expect(get.header("x-oss-version-id") == id)
                let head = try await client.send("HEAD", bucket: "ver", key: "doc", query: ["versionId": id])
                #expect(head.header("Content-Length") == String(body.count))
                let meta = try await client.send("HEAD", bucket: "ver", key: "doc", query: ["objectMeta": "", "versionId": id])
                #expect(meta.status == 200 && meta.header("x-oss-version-id") == id)
                #expect(meta.header("x-oss-content-length") == String(body.count))
            }
            let listing = try await Versioning.list(client, "ver")
            #expect(listing.map(\.versionId) == ids.reversed())
            #expect(listing.map(\.isLatest) == [true, false, false])
            #expect(listing.allSatisfy { !$0.isDeleteMarker && $0.key == "doc" })

            let unknown = try await client.send("GET", bucket: "ver", key: "doc", query: ["versionId": "0000000000000001FFFFFFFFFFFFFFFF"])
            #expect(unknown.status == 404 && unknown.errorCode == "NoSuchVersion")
            let unknownHead = try await client.send("HEAD", bucket: "ver", key: "doc", query: ["versionId": "0000000000000001FFFFFFFFFFFFFFFF"])
            #expect(unknownHead.status == 404 && unknownHead.errorCode == "NoSuchVersion")
            for malformed in ["nope", "234", String(ids[0].dropLast())] {
                let r = try await client.send("GET", bucket: "ver", key: "doc", query: ["versionId": malformed])
                #expect(r.status == 400 && r.errorCode == "InvalidArgument", "\(malformed)")
                let d = try await client.send("DELETE", bucket: "ver", key: "doc", query: ["versionId": malformed])
                #expect(d.status == 400 && d.errorCode == "InvalidArgument", "\(malformed)")
            }
            let empty = try await client.send("GET", bucket: "ver", key: "doc", query: ["versionId": ""])
            #expect(empty.status == 400 && empty.errorCode == "InvalidArgument")
        }
    }

    /// Nothing is lost: a delete without a version id adds a delete marker and removes no version.
    @Test func deleteWithoutVersionIdAddsAMarkerAndKeepsEveryVersion() async throws {
        try await withLocalOSSServer(.init(buckets: ["ver"])) { server in
            let client = TestClient(server)
            #expect(try await Versioning.set(client, "ver", "Enabled").status == 200)
            let first = randomBytes(500)
            let second = randomBytes(600)
            let v1 = try #require(try await client.send("PUT", bucket: "ver", key: "k", body: first).header("x-oss-version-id"))
            let v2 = try #require(try await client.send("PUT", bucket: "ver", key: "k", body: second).header("x-oss-version-id"))

            let delete = try await client.send("DELETE", bucket: "ver", key: "k")
            #expect(delete.status == 204)
            #expect(delete.header("x-oss-delete-marker") == "true")
            let marker = try #require(delete.header("x-oss-version-id"))
            #expect(![v1, v2].contains(marker))

            for method in ["GET", "HEAD"] {
                let gone = try await client.send(method, bucket: "ver", key: "k")
                #expect(gone.status == 404 && gone.errorCode == "NoSuchKey", "\(method)")
                #expect(gone.header("x-oss-delete-marker") == "true", "\(method)")
                #expect(gone.header("x-oss-version-id") == marker, "\(method)")
            }
            #expect(try await client.send("GET", bucket: "ver", key: "k", query: ["versionId": v1]).body == first)
            #expect(try await client.send("GET", bucket: "ver", key: "k", query: ["versionId": v2]).body == second)
            let listed = try await client.send("GET", bucket: "ver")
            #expect(!listed.text.contains("<Key>k</Key>"), "ListObjects does not list a key whose latest version is a marker")

            let versions = try await Versioning.list(client, "ver")
            #expect(versions.map(\.versionId) == [marker, v2, v1])
            #expect(versions.map(\.isDeleteMarker) == [true, false, false])
            #expect(versions.map(\.isLatest) == [true, false, false])

            // A second delete stacks a second marker; still nothing lost.
            let again = try await client.send("DELETE", bucket: "ver", key: "k")
            let marker2 = try #require(again.header("x-oss-version-id"))
            #expect(marker2 != marker)
            #expect(try await Versioning.list(client, "ver").count == 4)

            // A version id naming a marker: 405 for GET and HEAD, and for ACL; DELETE removes it for good.
            let getMarker = try await client.send("GET", bucket: "ver", key: "k", query: ["versionId": marker])
            #expect(getMarker.status == 405 && getMarker.errorCode == "MethodNotAllowed")
            #expect(getMarker.header("x-oss-delete-marker") == "true")
            #expect(try await client.send("HEAD", bucket: "ver", key: "k", query: ["versionId": marker]).status == 405)
            #expect(try await client.send("GET", bucket: "ver", key: "k", query: ["acl": "", "versionId": marker]).status == 405)
            for id in [marker2, marker] {
                let removeMarker = try await client.send("DELETE", bucket: "ver", key: "k", query: ["versionId": id])
                #expect(removeMarker.status == 204)
                #expect(removeMarker.header("x-oss-delete-marker") == "true")
                #expect(removeMarker.header("x-oss-version-id") == id)
            }
            let back = try await client.send("GET", bucket: "ver", key: "k")
            #expect(back.body == second && back.header("x-oss-version-id") == v2)

            // With a version id a version goes for good, and the one before becomes the latest.
            let removeV2 = try await client.send("DELETE", bucket: "ver", key: "k", query: ["versionId": v2])
            #expect(removeV2.status == 204 && removeV2.header("x-oss-version-id") == v2)
            #expect(removeV2.header("x-oss-delete-marker") == nil)
            let v2Gone = try await client.send("GET", bucket: "ver", key: "k", query: ["versionId": v2])
            #expect(v2Gone.status == 404 && v2Gone.errorCode == "NoSuchVersion")
            #expect(try await client.send("GET", bucket: "ver", key: "k").body == first)
            #expect(try await Versioning.list(client, "ver").map(\.versionId) == [v1])
            // The bucket is not empty while a version is left.
            #expect(try await client.send("DELETE", bucket: "ver").errorCode == "BucketNotEmpty")
            #expect(try await client.send("DELETE", bucket: "ver", key: "k", query: ["versionId": v1]).status == 204)
            #expect(try await client.send("DELETE", bucket: "ver").status == 204)
        }
    }

    @Test func objectsFromBeforeVersioningAreTheNullVersionAndSuspendedWritesReplaceIt() async throws {
        try await withLocalOSSServer(.init(buckets: ["ver"])) { server in
            let client = TestClient(server)
            let old = randomBytes(300)
            let plain = try await client.send("PUT", bucket: "ver", key: "k", body: old)
            #expect(plain.header("x-oss-version-id") == nil, "an unversioned bucket gives no version id")
            #expect(try await Versioning.set(client, "ver", "Enabled").status == 200)
            #expect(try await client.send("GET", bucket: "ver", key: "k", query: ["versionId": "null"]).body == old)
            let newer = randomBytes(310)
            let v1 = try #require(try await client.send("PUT", bucket: "ver", key: "k", body: newer).header("x-oss-version-id"))
            #expect(try await Versioning.list(client, "ver").map(\.versionId) == [v1, "null"])

            #expect(try await Versioning.set(client, "ver", "Suspended").status == 200)
            let suspended = randomBytes(320)
            let put = try await client.send("PUT", bucket: "ver", key: "k", body: suspended)
            #expect(put.header("x-oss-version-id") == "null")
            // The null version was replaced (its bytes are gone) and is now the latest; v1 is kept.
            #expect(try await Versioning.list(client, "ver").map(\.versionId) == ["null", v1])
            #expect(try await client.send("GET", bucket: "ver", key: "k", query: ["versionId": "null"]).body == suspended)
            #expect(try await client.send("GET", bucket: "ver", key: "k", query: ["versionId": v1]).body == newer)
            let again = randomBytes(330)
            #expect(try await client.send("PUT", bucket: "ver", key: "k", body: again).header("x-oss-version-id") == "null")
            #expect(try await Versioning.list(client, "ver").map(\.versionId) == ["null", v1])

            // A delete while suspended makes the null version a delete marker.
            let delete = try await client.send("DELETE", bucket: "ver", key: "k")
            #expect(delete.header("x-oss-delete-marker") == "true" && delete.header("x-oss-version-id") == "null")
            let listing = try await Versioning.list(client, "ver")
            #expect(listing.map(\.versionId) == ["null", v1])
            #expect(listing.map(\.isDeleteMarker) == [true, false])
            #expect(try await client.send("GET", bucket: "ver", key: "k").status == 404)
            #expect(try await client.send("GET", bucket: "ver", key: "k", query: ["versionId": v1]).body == newer)
        }
    }

    @Test func unversionedBucketsAnswerWithoutVersions() async throws {
        try await withLocalOSSServer(.init(buckets: ["plain"])) { server in
            let client = TestClient(server)
            let body = randomBytes(100)
            #expect(try await client.send("PUT", bucket: "plain", key: "k", body: body).header("x-oss-version-id") == nil)
            let get = try await client.send("GET", bucket: "plain", key: "k")
            #expect(get.header("x-oss-version-id") == nil)
            #expect(try await client.send("GET", bucket: "plain", key: "k", query: ["versionId": "null"]).body == body)
            let other = try await client.send("GET", bucket: "plain", key: "k", query: ["versionId": "0000000000000001FFFFFFFFFFFFFFFF"])
            #expect(other.errorCode == "NoSuchVersion")
            let listing = try await Versioning.list(client, "plain")
            #expect(listing.map(\.versionId) == ["null"])
            let delete = try await client.send("DELETE", bucket: "plain", key: "k")
            #expect(delete.header("x-oss-delete-marker") == nil && delete.header("x-oss-version-id") == nil)
            #expect(try await client.send("GET", bucket: "plain", key: "k").status == 404)
            #expect(try await Versioning.list(client, "plain").isEmpty)
        }
    }

    /// Nothing is lost: two writers racing on one key both become versions.
    @Test func racingWritersBothBecomeVersions() async throws {
        try await withLocalOSSServer(.init(buckets: ["ver"])) { server in
            let client = TestClient(server)
            #expect(try await Versioning.set(client, "ver", "Enabled").status == 200)
            let bodies = (0..<8).map { _ in randomBytes(50_000) }
            let ids = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
                for (i, body) in bodies.enumerated() {
                    group.addTask { (i, try await client.send("PUT", bucket: "ver", key: "race", body: body).header("x-oss-version-id")) }
                }
                var ids = [String?](repeating: nil, count: bodies.count)
                for try await (i, id) in group { ids[i] = id }
                return ids.compactMap { $0 }
            }
            #expect(Set(ids).count == bodies.count)
            let listed = try await Versioning.list(client, "ver")
            #expect(Set(listed.map(\.versionId)) == Set(ids))
            for (id, body) in zip(ids, bodies) {
                #expect(try await client.send("GET", bucket: "ver", key: "race", query: ["versionId": id]).body == body)
            }
        }
    }

    /// Nothing is lost: a version id is never given twice, also after its version is deleted and the server restarts.
    @Test func versionsSurviveARestartAndIdsAreNeverReused() async throws {
        let dir = try makeWorkDirectory("oss-versioning")
        defer { try? FileManager.default.removeItem(at: dir) }
        let configuration = LocalOSSServerConfiguration(dataDirectory: dir, buckets: ["ver"])
        var bodies: [String: [UInt8]] = [:]
        var seen = Set<String>()
        let before = try await withLocalOSSServer(configuration) { server in
            let client = TestClient(server)
            #expect(try await Versioning.set(client, "ver", "Enabled").status == 200)
            for key in ["a", "a", "b/c", "a"] {
                let body = randomBytes(2000)
                let id = try #require(try await client.send("PUT", bucket: "ver", key: key, body: body).header("x-oss-version-id"))
                bodies[id] = body
                seen.insert(id)
            }
            let marker = try #require(try await client.send("DELETE", bucket: "ver", key: "b/c").header("x-oss-version-id"))
            seen.insert(marker)
            // The newest version of a goes for good: its id must not come back.
            let newest = try #require(try await Versioning.list(client, "ver").first { $0.key == "a" }).versionId
            #expect(try await client.send("DELETE", bucket: "ver", key: "a", query: ["versionId": newest]).status == 204)
            bodies[newest] = nil
            return try await Versioning.list(client, "ver")
        }
        try await withLocalOSSServer(configuration) { server in
            let client = TestClient(server)
            #expect(xmlValue("Status", in: try await client.send("GET", bucket: "ver", query: ["versioning": ""]).text) == "Enabled")
            let after = try await Versioning.list(client, "ver")
            #expect(after == before)
            for (id, body) in bodies {
                let key = try #require(after.first { $0.versionId == id }).key
                #expect(try await client.send("GET", bucket: "ver", key: key, query: ["versionId": id]).body == body)
            }
            #expect(try await client.send("GET", bucket: "ver", key: "b/c").header("x-oss-delete-marker") == "true")
            for _ in 0..<3 {
                let id = try #require(try await client.send("PUT", bucket: "ver", key: "a", body: [1]).header("x-oss-version-id"))
                #expect(!seen.contains(id), "version id \(id) given twice")
                seen.insert(id)
            }
        }
        try CompleteKillLoopTests.expectNoOrphans(dir, bucket: "ver", iteration: 0)
    }

    /// Pages of ListObjectVersions never skip or repeat a version, whatever the page size, with a page boundary
    /// inside one key's versions, with a delimiter, and when the version a page ended on is removed before the next.
    @Test func listingPagesNeverSkipOrRepeat() async throws {
        try await withLocalOSSServer(.init(buckets: ["ver"])) { server in
            let client = TestClient(server)
            #expect(try await client.send("PUT", bucket: "ver", key: "a", body: [0]).status == 200)  // the null version
            #expect(try await Versioning.set(client, "ver", "Enabled").status == 200)
            for key in ["a", "a", "a", "a", "b", "dir/x", "dir/y", "dir/y", "e", "e", "e"] {
                #expect(try await client.send("PUT", bucket: "ver", key: key, body: [1]).status == 200)
            }
            #expect(try await client.send("DELETE", bucket: "ver", key: "b").status == 204)
            #expect(try await client.send("DELETE", bucket: "ver", key: "e").status == 204)
            let all = try await Versioning.list(client, "ver")
            #expect(all.map(\.key) == ["a", "a", "a", "a", "a", "b", "b", "dir/x", "dir/y", "dir/y", "e", "e", "e", "e"])
            #expect(all[4].versionId == "null")
            #expect(all.filter(\.isLatest).count == 5)
            for size in 1...5 {
                let paged = try await Versioning.listAllPages(client, "ver", maxKeys: size)
                #expect(paged.entries == all, "max-keys \(size)")
            }
            let grouped = try await Versioning.list(client, "ver", query: ["delimiter": "/"])
            #expect(grouped.count == 11)
            for size in 1...4 {
                let paged = try await Versioning.listAllPages(client, "ver", maxKeys: size, query: ["delimiter": "/"])
                #expect(paged.entries == grouped, "delimiter, max-keys \(size)")
                #expect(paged.prefixes == ["dir/"], "delimiter, max-keys \(size)")
            }
            let under = try await Versioning.list(client, "ver", query: ["prefix": "dir/"])
            #expect(under.map(\.key) == ["dir/x", "dir/y", "dir/y"])

            // The version a page ended on is removed before the next page is asked for: nothing is skipped.
            let page = try await client.send("GET", bucket: "ver", query: ["versions": "", "max-keys": "2"])
            let nextKey = try #require(xmlValue("NextKeyMarker", in: page.text))
            let nextVersion = try #require(xmlValue("NextVersionIdMarker", in: page.text))
            #expect(nextKey == "a")
            #expect(try await client.send("DELETE", bucket: "ver", key: "a", query: ["versionId": nextVersion]).status == 204)
            let rest = try await Versioning.list(client, "ver", query: ["key-marker": nextKey, "version-id-marker": nextVersion])
            #expect(rest == Array(all.dropFirst(2)))

            let noKey = try await client.send("GET", bucket: "ver", query: ["versions": "", "version-id-marker": nextVersion])
            #expect(noKey.status == 400 && noKey.errorCode == "InvalidArgument")
            let long = String(repeating: "a", count: 1024)
            for query in [["prefix": long], ["key-marker": long], ["delimiter": long], ["max-keys": "1001"], ["max-keys": "0"], ["max-keys": "x"]] {
                let r = try await client.send("GET", bucket: "ver", query: query.merging(["versions": ""]) { a, _ in a })
                #expect(r.status == 400 && r.errorCode == "InvalidArgument", "\(query.keys)")
            }
        }
    }

    @Test func encodingTypeURLEncodesKeysAndMarkers() async throws {
        try await withLocalOSSServer(.init(buckets: ["ver"])) { server in
            let client = TestClient(server)
            #expect(try await Versioning.set(client, "ver", "Enabled").status == 200)
            #expect(try await client.send("PUT", bucket: "ver", key: "a b/ü", body: [1]).status == 200)
            #expect(try await client.send("PUT", bucket: "ver", key: "a b/ü", body: [2]).status == 200)
            let page = try await client.send("GET", bucket: "ver", query: ["versions": "", "encoding-type": "url", "max-keys": "1"])
            #expect(xmlValue("EncodingType", in: page.text) == "url")
            #expect(xmlValue("Key", in: page.text) == "a%20b%2F%C3%BC")
            #expect(xmlValue("NextKeyMarker", in: page.text) == "a%20b%2F%C3%BC")
        }
    }

    @Test func copyFromAVersion() async throws {
        try await withLocalOSSServer(.init(buckets: ["ver"])) { server in
            let client = TestClient(server)
            #expect(try await Versioning.set(client, "ver", "Enabled").status == 200)
            let old = randomBytes(200_000)
            let v1 = try #require(try await client.send("PUT", bucket: "ver", key: "src", body: old).header("x-oss-version-id"))
            _ = try await client.send("PUT", bucket: "ver", key: "src", body: randomBytes(10))
            // Restore the old version by copying it over the latest.
            let copy = try await client.send(
                "PUT", bucket: "ver", key: "src", headers: ["x-oss-copy-source": "/ver/src?versionId=\(v1)"])
            #expect(copy.status == 200, "\(copy.text)")
            #expect(copy.header("x-oss-copy-source-version-id") == v1)
            let v3 = try #require(copy.header("x-oss-version-id"))
            #expect(v3 != v1)
            #expect(try await client.send("GET", bucket: "ver", key: "src").body == old)
            #expect(try await Versioning.list(client, "ver").count == 3)

            // UploadPartCopy from a version.
            let initiate = try await client.send("POST", bucket: "ver", key: "big", query: ["uploads": ""])
            let uploadId = try #require(xmlValue("UploadId", in: initiate.text))
            let part = try await client.send(
                "PUT", bucket: "ver", key: "big", query: ["partNumber": "1", "uploadId": uploadId],
                headers: ["x-oss-copy-source": "/ver/src?versionId=\(v1)", "x-oss-copy-source-range": "bytes=0-99999"])
            #expect(part.status == 200 && part.header("x-oss-copy-source-version-id") == v1)
            let etag = try #require(part.header("ETag"))
            let complete = try await client.send(
                "POST", bucket: "ver", key: "big", query: ["uploadId": uploadId],
                body: Array("<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>\(etag)</ETag></Part></CompleteMultipartUpload>".utf8))
            #expect(complete.status == 200 && complete.header("x-oss-version-id") != nil)
            #expect(try await client.send("GET", bucket: "ver", key: "big").body == Array(old[0..<100_000]))

            // A delete marker cannot be copied; an unknown version is NoSuchVersion; a marked key is NoSuchKey.
            let marker = try #require(try await client.send("DELETE", bucket: "ver", key: "src").header("x-oss-version-id"))
            let fromMarker = try await client.send(
                "PUT", bucket: "ver", key: "dst", headers: ["x-oss-copy-source": "/ver/src?versionId=\(marker)"])
            #expect(fromMarker.status == 400 && fromMarker.errorCode == "InvalidArgument")
            let fromLatest = try await client.send("PUT", bucket: "ver", key: "dst", headers: ["x-oss-copy-source": "/ver/src"])
            #expect(fromLatest.status == 404 && fromLatest.errorCode == "NoSuchKey")
            let fromUnknown = try await client.send(
                "PUT", bucket: "ver", key: "dst", headers: ["x-oss-copy-source": "/ver/src?versionId=0000000000000001FFFFFFFFFFFFFFFF"])
            #expect(fromUnknown.status == 404 && fromUnknown.errorCode == "NoSuchVersion")
        }
    }

    @Test func appendChangesTheCurrentVersionInPlaceAndSymlinksAreVersions() async throws {
        try await withLocalOSSServer(.init(buckets: ["ver"])) { server in
            let client = TestClient(server)
            #expect(try await Versioning.set(client, "ver", "Enabled").status == 200)
            let first = try await client.send("POST", bucket: "ver", key: "log", query: ["append": "", "position": "0"], body: [1, 2])
            #expect(first.status == 200)
            let appendable = try #require(first.header("x-oss-version-id"))
            let second = try await client.send("POST", bucket: "ver", key: "log", query: ["append": "", "position": "2"], body: [3])
            #expect(second.header("x-oss-version-id") == appendable, "OSS makes no version of an append")
            #expect(try await Versioning.list(client, "ver").map(\.versionId) == [appendable])
            let withId = try await client.send(
                "POST", bucket: "ver", key: "log", query: ["append": "", "position": "3", "versionId": appendable], body: [4])
            #expect(withId.status == 400 && withId.errorCode == "InvalidArgument")

            // A PUT keeps the Appendable object as a previous version, which can no longer be appended to.
            let put = try await client.send("PUT", bucket: "ver", key: "log", body: [9])
            let normal = try #require(put.header("x-oss-version-id"))
            let refused = try await client.send("POST", bucket: "ver", key: "log", query: ["append": "", "position": "1"], body: [4])
            #expect(refused.status == 409 && refused.errorCode == "ObjectNotAppendable")
            #expect(try await client.send("GET", bucket: "ver", key: "log", query: ["versionId": appendable]).body == [1, 2, 3])
            // After a delete marker, an append at 0 starts a new Appendable version.
            _ = try await client.send("DELETE", bucket: "ver", key: "log")
            let fresh = try await client.send("POST", bucket: "ver", key: "log", query: ["append": "", "position": "0"], body: [7])
            let freshId = try #require(fresh.header("x-oss-version-id"))
            #expect(![appendable, normal].contains(freshId))
            #expect(try await Versioning.list(client, "ver").count == 4)

            // Symlinks.
            let link = try await client.send("PUT", bucket: "ver", key: "link", query: ["symlink": ""], headers: ["x-oss-symlink-target": "log"])
            let linkId = try #require(link.header("x-oss-version-id"))
            _ = try await client.send("PUT", bucket: "ver", key: "link", query: ["symlink": ""], headers: ["x-oss-symlink-target": "other"])
            let old = try await client.send("GET", bucket: "ver", key: "link", query: ["symlink": "", "versionId": linkId])
            #expect(old.status == 200 && old.header("x-oss-symlink-target") == "log" && old.header("x-oss-version-id") == linkId)
            #expect(try await client.send("GET", bucket: "ver", key: "link", query: ["symlink": ""]).header("x-oss-symlink-target") == "other")
            #expect(try await client.send("GET", bucket: "ver", key: "link", query: ["versionId": linkId]).body == [7])
        }
    }

    @Test func aclTaggingMetaAndRestoreTakeAVersion() async throws {
        try await withLocalOSSServer(.init(buckets: ["ver"])) { server in
            let client = TestClient(server)
            #expect(try await Versioning.set(client, "ver", "Enabled").status == 200)
            let v1 = try #require(try await client.send(
                "PUT", bucket: "ver", key: "k", headers: ["x-oss-tagging": "a=1", "x-oss-storage-class": "Archive"], body: [1]
            ).header("x-oss-version-id"))
            let v2 = try #require(try await client.send("PUT", bucket: "ver", key: "k", body: [2]).header("x-oss-version-id"))

            let tagging = Array("<Tagging><TagSet><Tag><Key>b</Key><Value>2</Value></Tag></TagSet></Tagging>".utf8)
            let putTags = try await client.send("PUT", bucket: "ver", key: "k", query: ["tagging": "", "versionId": v1], body: tagging)
            #expect(putTags.status == 200 && putTags.header("x-oss-version-id") == v1)
            let tagsV1 = try await client.send("GET", bucket: "ver", key: "k", query: ["tagging": "", "versionId": v1])
            #expect(xmlValue("Key", in: tagsV1.text) == "b" && tagsV1.header("x-oss-version-id") == v1)
            #expect(xmlValue("Key", in: try await client.send("GET", bucket: "ver", key: "k", query: ["tagging": ""]).text) == nil)
            let deleteTags = try await client.send("DELETE", bucket: "ver", key: "k", query: ["tagging": "", "versionId": v1])
            #expect(deleteTags.status == 204 && deleteTags.header("x-oss-version-id") == v1)
            #expect(xmlValue("Key", in: try await client.send("GET", bucket: "ver", key: "k", query: ["tagging": "", "versionId": v1]).text) == nil)

            let putACL = try await client.send(
                "PUT", bucket: "ver", key: "k", query: ["acl": "", "versionId": v1], headers: ["x-oss-object-acl": "public-read"])
            #expect(putACL.status == 200 && putACL.header("x-oss-version-id") == v1)
            #expect(xmlValue("Grant", in: try await client.send("GET", bucket: "ver", key: "k", query: ["acl": "", "versionId": v1]).text) == "public-read")
            #expect(xmlValue("Grant", in: try await client.send("GET", bucket: "ver", key: "k", query: ["acl": ""]).text) == "default")
            // An anonymous reader is judged by the ACL of the version it asks for.
            let anonymousV2 = try await client.send("HEAD", bucket: "ver", key: "k", query: ["versionId": v2], sign: false)
            #expect(anonymousV2.status == 403)
            let anonymousV1 = try await client.send("HEAD", bucket: "ver", key: "k", query: ["versionId": v1], sign: false)
            #expect(anonymousV1.status == 200)

            // The Archive version is restored on its own; the latest (Standard) version cannot be.
            let restore = try await client.send("POST", bucket: "ver", key: "k", query: ["restore": "", "versionId": v1])
            #expect(restore.status == 202 && restore.header("x-oss-version-id") == v1)
            #expect(try await client.send("HEAD", bucket: "ver", key: "k", query: ["versionId": v1]).header("x-oss-restore") != nil)
            #expect(try await client.send("POST", bucket: "ver", key: "k", query: ["restore": ""]).errorCode == "OperationNotSupported")
            #expect(try await client.send("HEAD", bucket: "ver", key: "k", query: ["versionId": v2]).header("x-oss-restore") == nil)

            let unknown = try await client.send("GET", bucket: "ver", key: "k", query: ["tagging": "", "versionId": "0000000000000001FFFFFFFFFFFFFFFF"])
            #expect(unknown.status == 404 && unknown.errorCode == "NoSuchVersion")
        }
    }

    @Test func deleteMultipleObjectsTakesAVersionPerKey() async throws {
        try await withLocalOSSServer(.init(buckets: ["ver"])) { server in
            let client = TestClient(server)
            #expect(try await Versioning.set(client, "ver", "Enabled").status == 200)
            let a1 = try #require(try await client.send("PUT", bucket: "ver", key: "a", body: [1]).header("x-oss-version-id"))
            let a2 = try #require(try await client.send("PUT", bucket: "ver", key: "a", body: [2]).header("x-oss-version-id"))
            _ = try await client.send("PUT", bucket: "ver", key: "b", body: [3])
            let cMarker = try #require(try await client.send("DELETE", bucket: "ver", key: "c").header("x-oss-version-id"))
            let body = """
                <Delete><Quiet>false</Quiet>\
                <Object><Key>a</Key><VersionId>\(a1)</VersionId></Object>\
                <Object><Key>b</Key></Object>\
                <Object><Key>c</Key><VersionId>\(cMarker)</VersionId></Object>\
                </Delete>
                """
            let r = try await client.send("POST", bucket: "ver", query: ["delete": ""], body: Array(body.utf8))
            #expect(r.status == 200, "\(r.text)")
            let deleted = r.text.components(separatedBy: "<Deleted>").dropFirst().map { String($0) }
            #expect(deleted.count == 3)
            #expect(deleted[0].contains("<Key>a</Key><VersionId>\(a1)</VersionId></Deleted>"))
            let bMarker = try #require(xmlValue("DeleteMarkerVersionId", in: deleted[1]))
            #expect(deleted[1].contains("<Key>b</Key><DeleteMarker>true</DeleteMarker>"))
            #expect(deleted[2].contains("<Key>c</Key><VersionId>\(cMarker)</VersionId><DeleteMarker>true</DeleteMarker><DeleteMarkerVersionId>\(cMarker)</DeleteMarkerVersionId>"))

            let listing = try await Versioning.list(client, "ver")
            #expect(listing.map(\.versionId) == [a2, bMarker, listing[2].versionId])
            #expect(listing.map(\.isDeleteMarker) == [false, true, false])

            for bad in ["", "234"] {
                let body = "<Delete><Object><Key>b</Key></Object><Object><Key>a</Key><VersionId>\(bad)</VersionId></Object></Delete>"
                let refused = try await client.send("POST", bucket: "ver", query: ["delete": ""], body: Array(body.utf8))
                #expect(refused.status == 400 && refused.errorCode == "InvalidArgument", "\(bad)")
            }
            #expect(try await Versioning.list(client, "ver").count == 3, "a refused multi-delete deletes nothing")
        }
    }
}

/// A version or delete marker as ListObjectVersions lists it.
struct ListedVersion: Equatable, CustomStringConvertible {
    var key: String
    var versionId: String
    var isLatest: Bool
    var isDeleteMarker: Bool
    var description: String { "\(key)@\(versionId)\(isLatest ? "*" : "")\(isDeleteMarker ? "(marker)" : "")" }
}

/// Test helpers for the versioning calls.
enum Versioning {
    static func set(_ client: TestClient, _ bucket: String, _ status: String) async throws -> TestClient.Response {
        let body = "<VersioningConfiguration><Status>\(status)</Status></VersioningConfiguration>"
        return try await client.send("PUT", bucket: bucket, query: ["versioning": ""], body: Array(body.utf8))
    }

    /// The entries of one ListObjectVersions page, in order.
    static func parse(_ xml: String) -> [ListedVersion] {
        var result: [ListedVersion] = []
        var rest = xml[...]
        while true {
            let version = rest.range(of: "<Version>")
            let marker = rest.range(of: "<DeleteMarker>")
            let isMarker: Bool
            let open: Range<Substring.Index>
            switch (version, marker) {
            case (nil, nil): return result
            case (let v?, nil): (open, isMarker) = (v, false)
            case (nil, let m?): (open, isMarker) = (m, true)
            case (let v?, let m?): (open, isMarker) = m.lowerBound < v.lowerBound ? (m, true) : (v, false)
            }
            guard let end = rest.range(of: isMarker ? "</DeleteMarker>" : "</Version>", range: open.upperBound..<rest.endIndex)
            else { return result }
            let entry = String(rest[open.upperBound..<end.lowerBound])
            result.append(
                ListedVersion(
                    key: xmlValue("Key", in: entry) ?? "", versionId: xmlValue("VersionId", in: entry) ?? "",
                    isLatest: xmlValue("IsLatest", in: entry) == "true", isDeleteMarker: isMarker))
            rest = rest[end.upperBound...]
        }
    }

    static func list(_ client: TestClient, _ bucket: String, query: [String: String] = [:]) async throws -> [ListedVersion] {
        var q = query
        q["versions"] = ""
        q["max-keys"] = q["max-keys"] ?? "1000"
        let r = try await client.send("GET", bucket: bucket, query: q)
        #expect(r.status == 200, "\(r.text)")
        #expect(xmlValue("IsTruncated", in: r.text) == "false")
        return parse(r.text)
    }

    /// Every page, following NextKeyMarker / NextVersionIdMarker.
    static func listAllPages(_ client: TestClient, _ bucket: String, maxKeys: Int, query: [String: String] = [:])
        async throws -> (entries: [ListedVersion], prefixes: [String])
    {
        var entries: [ListedVersion] = []
        var prefixes: [String] = []
        var q = query
        q["versions"] = ""
        q["max-keys"] = String(maxKeys)
        for _ in 0..<200 {
            let r = try await client.send("GET", bucket: bucket, query: q)
            #expect(r.status == 200, "\(r.text)")
            let page = parse(r.text)
            let pagePrefixes = r.text.components(separatedBy: "<CommonPrefixes>").dropFirst().compactMap { xmlValue("Prefix", in: $0) }
            #expect(page.count + pagePrefixes.count <= maxKeys)
            entries += page
            prefixes += pagePrefixes
            guard xmlValue("IsTruncated", in: r.text) == "true" else { return (entries, prefixes) }
            q["key-marker"] = xmlValue("NextKeyMarker", in: r.text) ?? ""
            q["version-id-marker"] = xmlValue("NextVersionIdMarker", in: r.text) ?? ""
        }
        Issue.record("listing did not end")
        return (entries, prefixes)
    }
}
