import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

/// `oss bucket-config oss://b public-access-block …`: the family put from a file, read back, and in force.
@Suite("oss bucket-config public-access-block")
struct AccessControlCommandTests {
    @Test func publicAccessBlockPutGetAndDelete() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["pabc"])) { (server: LocalOSSServer) async throws -> Void in
            let tool = ToolRunner(server: server, home: work)
            var r = try await tool.run(["bucket-config", "oss://pabc", "public-access-block"])
            #expect(r.status == 0 && r.stdout.contains("<BlockPublicAccess>false</BlockPublicAccess>"), "\(r.stdout) \(r.stderr)")
            let file = work.appendingPathComponent("pab.xml")
            try Data("<PublicAccessBlockConfiguration><BlockPublicAccess>true</BlockPublicAccess></PublicAccessBlockConfiguration>".utf8)
                .write(to: file)
            r = try await tool.run(["bucket-config", "oss://pabc", "public-access-block", "put", file.path])
            #expect(r.status == 0, "\(r.stderr)")
            r = try await tool.run(["bucket-config", "oss://pabc", "public-access-block", "get", "--json"])
            #expect(r.stdout.contains(#""BlockPublicAccess" : true"#), "\(r.stdout)")
            try await withOSSClient(endpoint: server.endpoint, credentialProvider: server.credentials.provider) { client in
                let refused = await #expect(throws: OSSServerError.self) {
                    try await client.putBucketACL(OSSPutBucketACLRequest(bucketName: "pabc", acl: .publicRead))
                }
                #expect(refused?.code == "AccessDenied")
            }
            r = try await tool.run(["bucket-config", "oss://pabc", "public-access-block", "delete"])
            #expect(r.status == 0, "\(r.stderr)")
            r = try await tool.run(["bucket-config", "oss://pabc", "public-access-block"])
            #expect(r.stdout.contains("<BlockPublicAccess>false</BlockPublicAccess>"), "\(r.stdout)")
        }
    }
}
