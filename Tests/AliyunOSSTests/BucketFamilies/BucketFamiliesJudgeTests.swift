import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

/// The official alibabacloud-oss-v2 client judges policy status, CNAME, redundancy transition, access points and
/// meta query (Tests/python/judge_bucket_families.py): v2 writes each, meeting OSS's refusals, and the Swift SDK
/// reads them back field for field; the Swift SDK writes its own and v2 reads them back.
@Suite("Policy status, CNAME, redundancy transition, access points and meta query judged by alibabacloud-oss-v2")
struct BucketFamiliesJudgeTests {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let query =
        #"{"Operation":"or","SubQueries":[{"Field":"OSSTagging.owner","Value":"john","Operation":"eq"},{"Field":"Size","Value":"1000","Operation":"gt"}]}"#
    static let objects: [(String, Int, String, String?, [String: String])] = [
        ("docs/a.txt", 10, "text/plain", "owner=john", ["location": "hangzhou"]),
        ("docs/b.json", 300, "application/json", "owner=mary", [:]),
        ("img/c.png", 2000, "image/png", nil, ["location": "beijing"]),
    ]

    /// The access point policy both writers use (as judge_bucket_families.py writes it, `json.dumps` spacing).
    static func accessPointPolicy(_ name: String) -> String {
        #"{"Version": "1", "Statement": [{"Effect": "Allow", "Action": ["oss:GetObject"], "Principal": ["27737962156157"], "Resource": ["acs:oss:cn-hangzhou:*:accesspoint/"#
            + name + #"/object/*"]}]}"#
    }

    static func checkMetaQuery(_ client: OSSClient, bucket: String) async throws {
        let result = try await client.doMetaQuery(
            OSSMetaQuery(query: query, maxResults: 10, sort: "Size", order: "desc", aggregations: [.init(field: "Size", operation: "sum")]),
            bucketName: bucket)
        #expect(result.files.map(\.filename) == ["img/c.png", "docs/a.txt"])
        let a = try #require(result.files.last)
        #expect(a.size == 10 && a.contentType == "text/plain" && a.tags == ["owner": "john"] && a.userMetadata == ["x-oss-meta-location": "hangzhou"])
        #expect(result.aggregations.map(\.value) == [2010])
    }

    @Test func officialClientAndTheSDKSeeTheSameFamilies() async throws {
        let python = Self.packageRoot.appendingPathComponent(".venv/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            Issue.record("No Python venv at \(python.path): run scripts/test.sh (it creates .venv with oss2 and alibabacloud-oss-v2).")
            return
        }
        try await withServerAndClient(extraBuckets: ["from-python", "from-swift"]) { server, client in
            let (written, writeLog) = try await Self.run(python, phase: "write", bucket: "from-python", server: server)
            #expect(written == 0, "judge_bucket_families.py write failed:\n\(writeLog)")
            let p = "from-python"
            #expect(try await client.getBucketPolicyStatus(bucketName: p).isPublic)
            let cname = try #require(try await client.listCname(bucketName: p).cnames.first)
            #expect(cname.domain == "py.example.test" && cname.certificate?.type == "Upload"
                && cname.certificate?.fingerprint == "DF:7F:23:B1:60:E7:5B:9B:AE:5E:A1:E6:2B:43:A5:A3:4A:26:01:27")
            #expect(try await client.getCnameToken(domain: "py.example.test", bucketName: p).token.count == 32)
            let tasks = try await client.listBucketDataRedundancyTransition(bucketName: p).transitions
            #expect(tasks.count == 1 && tasks.first?.bucket == p)
            let task = try #require(tasks.first)
            #expect(try await client.getBucketDataRedundancyTransition(taskId: task.taskId, bucketName: p).transition.createTime == task.createTime)
            let ap = try await client.getAccessPoint(name: "py-ap", bucketName: p).accessPoint
            #expect(ap.bucket == p && ap.networkOrigin == "internet" && ap.alias?.hasSuffix("-ossalias") == true
                && ap.accessPointArn?.hasSuffix(":accesspoint/py-ap") == true)
            #expect(try await client.getAccessPointPolicy(accessPointName: "py-ap", bucketName: p).policy == Self.accessPointPolicy("py-ap"))
            try await Self.checkMetaQuery(client, bucket: p)

            let s = "from-swift"
            try await client.putBucketPolicy(
                #"{"Version":"1","Statement":[{"Effect":"Allow","Action":["oss:GetObject"],"Principal":["*"],"Resource":["acs:oss:*:*:from-swift/*"],"Condition":{"IpAddress":{"acs:SourceIp":["192.168.0.0/16"]}}}]}"#,
                bucketName: s)
            _ = try await client.createCnameToken(domain: "swift.example.test", bucketName: s)
            try await client.putCname(domain: "swift.example.test", certificate: .init(certId: "493-cn-hangzhou"), bucketName: s)
            _ = try await client.createBucketDataRedundancyTransition(bucketName: s)
            _ = try await client.createAccessPoint(name: "swift-ap", networkOrigin: "vpc", vpcId: "vpc-swift", bucketName: s)
            try await client.putAccessPointPolicy(Self.accessPointPolicy("swift-ap"), accessPointName: "swift-ap", bucketName: s)
            try await client.openMetaQuery(bucketName: s)
            for (key, size, type, tags, meta) in Self.objects {
                var request = OSSPutObjectRequest(bucketName: s, objectKey: key, data: Data(repeating: 0x78, count: size))
                request.contentType = type
                request.metadata = meta
                if let tags { request.headers["x-oss-tagging"] = tags }
                _ = try await client.putObject(request)
            }
            let (checked, checkLog) = try await Self.run(python, phase: "check", bucket: s, server: server)
            #expect(checked == 0, "judge_bucket_families.py check failed:\n\(checkLog)")
        }
    }

    /// Runs one phase of the judge; returns its exit status and output.
    static func run(_ python: URL, phase: String, bucket: String, server: LocalOSSServer) async throws -> (Int32, String) {
        try await runPythonScript(
            python,
            [
                "judge_bucket_families.py", "--phase", phase, "--bucket", bucket, "--endpoint", server.endpoint.absoluteString,
                "--access-key-id", server.credentials.accessKeyId, "--access-key-secret", server.credentials.accessKeySecret,
            ], in: packageRoot.appendingPathComponent("Tests/python"))
    }
}
