import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

/// `oss bucket-config` for the operations families (a plain one and the named inventory and style documents) and
/// `oss stat oss://bucket`, against the local server.
@Suite("oss bucket-config: operations families, and oss stat of a bucket")
struct BucketOperationsCommandTests {
    @Test func namedDocumentsAndPlainFamilies() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["opsb", "opsdest"])) { server in
            let tool = ToolRunner(server: server, home: work)
            var r = try await tool.run(["bucket-config", "oss://opsb", "resource-group"])
            #expect(r.status == 0 && r.stdout.contains("<ResourceGroupId>rg-default-id</ResourceGroupId>"), "\(r.stdout)\(r.stderr)")
            let monitor = work.appendingPathComponent("monitor.json")
            try Data(#"{"Status": "Enabled"}"#.utf8).write(to: monitor)
            r = try await tool.run(["bucket-config", "oss://opsb", "access-monitor", "put", monitor.path])
            #expect(r.status == 0, "\(r.stderr)")
            r = try await tool.run(["bucket-config", "oss://opsb", "access-monitor", "get", "--json"])
            #expect(r.stdout.contains(#""Status" : "Enabled""#), "\(r.stdout)")

            let style = work.appendingPathComponent("style.xml")
            try Data("<Style><Content>image/resize,p_50</Content></Style>".utf8).write(to: style)
            r = try await tool.run(["bucket-config", "oss://opsb", "style", "put", style.path])
            #expect(r.status != 0 && r.stderr.contains("--name"), "\(r.stderr)")
            r = try await tool.run(["bucket-config", "oss://opsb", "style", "put", style.path, "--name", "thumb"])
            #expect(r.status == 0, "\(r.stderr)")
            let inventory = work.appendingPathComponent("inventory.xml")
            try Data("""
                <InventoryConfiguration><Id>daily</Id><IsEnabled>true</IsEnabled><Destination><OSSBucketDestination>
                <Format>CSV</Format><Bucket>acs:oss:::opsdest</Bucket></OSSBucketDestination></Destination>
                <Schedule><Frequency>Daily</Frequency></Schedule><IncludedObjectVersions>All</IncludedObjectVersions>
                </InventoryConfiguration>
                """.utf8).write(to: inventory)
            r = try await tool.run(["bucket-config", "oss://opsb", "inventory", "put", inventory.path, "--name", "other"])
            #expect(r.status != 0 && r.stderr.contains("InvalidArgument"), "the Id must be the name: \(r.stderr)")
            r = try await tool.run(["bucket-config", "oss://opsb", "inventory", "put", inventory.path, "--name", "daily"])
            #expect(r.status == 0, "\(r.stderr)")
            r = try await tool.run(["bucket-config", "oss://opsb", "inventory"])
            #expect(r.status == 0 && r.stdout.contains("<Id>daily</Id>") && r.stdout.contains("acs:oss:::opsdest"), "\(r.stdout)")
            r = try await tool.run(["bucket-config", "oss://opsb", "style", "get", "--name", "thumb", "--json"])
            #expect(r.stdout.contains(#""Content" : "image/resize,p_50""#) && r.stdout.contains(#""Name" : "thumb""#), "\(r.stdout)")
            r = try await tool.run(["bucket-config", "oss://opsb", "style", "delete", "--name", "thumb"])
            #expect(r.status == 0, "\(r.stderr)")
            r = try await tool.run(["bucket-config", "oss://opsb", "style", "get", "--name", "thumb"])
            #expect(r.status != 0 && r.stderr.contains("NoSuchStyle"), "\(r.stderr)")
        }
    }

    @Test func statOfABucketShowsItsInfoAndWhatItHolds() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["statb"])) { server in
            try await withOSSClient(endpoint: server.endpoint, credentialProvider: server.credentials.provider) { client in
                for (key, size) in [("a", 100), ("b/c", 23)] {
                    try await client.putObject(OSSPutObjectRequest(bucketName: "statb", objectKey: key, data: Data(count: size)))
                }
            }
            let tool = ToolRunner(server: server, home: work)
            let r = try await tool.run(["stat", "oss://statb"])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains("bucket:         oss://statb") && r.stdout.contains("storage:        123 "), "\(r.stdout)")
            #expect(r.stdout.contains("objects:        2") && r.stdout.contains("class Standard: 2 objects, 123 bytes"), "\(r.stdout)")
            let missing = try await tool.run(["stat", "oss://nostatb"])
            #expect(missing.status != 0 && missing.stderr.contains("NoSuchBucket"), "\(missing.stderr)")
        }
    }
}
