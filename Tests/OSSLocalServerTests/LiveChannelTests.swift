import Foundation
import OSSLocalServer
import Testing

/// Live channels' configuration (Put/Get/Delete/ListLiveChannel), as oss2's test_live_channel_iterator uses them; the
/// local server has no RTMP ingest, so status and history are not implemented.
@Suite struct LiveChannelTests {
    static func configuration(_ description: String, fragCount: String = "3", playlist: String = "test.m3u8") -> [UInt8] {
        Array("""
            <LiveChannelConfiguration><Description>\(description)</Description><Status>enabled</Status>\
            <Target><Type>HLS</Type><FragDuration>5</FragDuration><FragCount>\(fragCount)</FragCount>\
            <PlaylistName>\(playlist)</PlaylistName></Target></LiveChannelConfiguration>
            """.utf8)
    }

    @Test func channelsAreCreatedReadListedAndDeleted() async throws {
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["live"])) { server in
            let client = TestClient(server)
            var r = try await client.send("GET", bucket: "live", query: ["live": ""])
            #expect(r.status == 200 && !r.text.contains("<LiveChannel>"), "no channels yet")
            for index in 0..<7 {
                r = try await client.send(
                    "PUT", bucket: "live", key: "ch\(index)", query: ["live": ""], body: Self.configuration("d\(index)"))
                #expect(r.status == 200, "\(r.text)")
            }
            #expect(xmlValue("Url", in: r.text)?.hasPrefix("rtmp://live.") == true, "a publish URL: \(r.text)")
            #expect(try await client.send("HEAD", bucket: "live", key: "ch0").status == 404, "a channel is not an object")
            r = try await client.send("GET", bucket: "live", key: "ch3", query: ["live": ""])
            #expect(xmlValue("Description", in: r.text) == "d3" && xmlValue("FragCount", in: r.text) == "3")
            #expect(xmlValue("PlaylistName", in: r.text) == "test.m3u8")

            var names: [String] = []
            var marker = ""
            for _ in 0..<5 {
                r = try await client.send("GET", bucket: "live", query: ["live": "", "max-keys": "3", "marker": marker])
                names += xmlValues("Name", in: r.text)
                guard xmlValue("IsTruncated", in: r.text) == "true" else { break }
                marker = try #require(xmlValue("NextMarker", in: r.text))
            }
            #expect(names == (0..<7).map { "ch\($0)" })

            #expect(try await client.send("DELETE", bucket: "live", key: "ch3", query: ["live": ""]).status == 204)
            r = try await client.send("GET", bucket: "live", key: "ch3", query: ["live": ""])
            #expect(r.status == 404 && r.errorCode == "NoSuchLiveChannel")
            r = try await client.send("GET", bucket: "live", query: ["live": "", "prefix": "ch"])
            #expect(xmlValues("Name", in: r.text).count == 6)
        }
    }

    @Test func badConfigurationsAreRefused() async throws {
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["live"])) { server in
            let client = TestClient(server)
            var r = try await client.send(
                "PUT", bucket: "live", key: "c", query: ["live": ""], body: Self.configuration("d", fragCount: "0"))
            #expect(r.status == 400 && r.errorCode == "InvalidArgument")
            r = try await client.send(
                "PUT", bucket: "live", key: "c", query: ["live": ""], body: Self.configuration("d", playlist: "x.txt"))
            #expect(r.status == 400 && r.errorCode == "InvalidArgument")
            r = try await client.send("PUT", bucket: "live", key: "c", query: ["live": ""], body: Array("<Oops/>".utf8))
            #expect(r.status == 400 && r.errorCode == "MalformedXML")
            r = try await client.send("GET", bucket: "live", key: "c", query: ["live": "", "comp": "stat"])
            #expect(r.status == 501, "no RTMP ingest, so no status")
            r = try await client.send("GET", bucket: "nobucket", query: ["live": ""])
            #expect(r.status == 404 && r.errorCode == "NoSuchBucket")
        }
    }
}
