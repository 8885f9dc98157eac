import Foundation
import OSSLocalServer
import Testing

/// ListLiveChannel: the local server has no RTMP ingest, so every bucket lists no live channel (oss2 lists them before
/// deleting a bucket; a 501 there broke its bucket clean-up).
@Suite struct LiveChannelTests {
    @Test func aBucketListsNoLiveChannels() async throws {
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["live"])) { server in
            let client = TestClient(server)
            let r = try await client.send(
                "GET", bucket: "live", query: ["live": "", "prefix": "p", "marker": "", "max-keys": "4"])
            #expect(r.status == 200, "\(r.text)")
            #expect(xmlValue("IsTruncated", in: r.text) == "false")
            #expect(xmlValue("MaxKeys", in: r.text) == "4")
            #expect(xmlValue("Prefix", in: r.text) == "p")
            #expect(!r.text.contains("<LiveChannel>"))
            let missing = try await client.send("GET", bucket: "nobucket", query: ["live": ""])
            #expect(missing.status == 404 && missing.errorCode == "NoSuchBucket")
            let create = try await client.send("PUT", bucket: "live", key: "channel", query: ["live": ""])
            #expect(create.status == 501 && create.errorCode == "NotImplemented", "channels cannot be created")
        }
    }
}
