import AliyunOSS
import Foundation
import NIOConcurrencyHelpers
import OSSLocalServer
import OSSTestSupport
import Testing

/// Policy status, custom domains (CNAME), data redundancy transition, access points and meta query: the SDK's calls
/// against the local server, OSS's refusals included, a client whose endpoint is a bound domain, and meta queries
/// evaluated over the bucket's objects.
@Suite("Policy status, CNAME, redundancy transition, access points and meta query")
struct BucketFamiliesTests {
    static let publicPolicy = """
        {"Version":"1","Statement":[{"Effect":"Allow","Action":["oss:GetObject"],"Principal":["*"],"Resource":["acs:oss:*:*:bkt/*"]}]}
        """
    static let narrowedPolicy = """
        {"Version":"1","Statement":[{"Effect":"Allow","Action":["oss:GetObject"],"Principal":["*"],"Resource":["acs:oss:*:*:bkt/*"],
        "Condition":{"IpAddress":{"acs:SourceIp":["10.0.0.0/8"]}}}]}
        """
    /// A PEM "certificate" whose DER is the bytes 0 to 47 (SHA-1 below), and a private key the server must not keep.
    static let certificate = "-----BEGIN CERTIFICATE-----\nAAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4v\n-----END CERTIFICATE-----\n"
    static let certificateFingerprint = "DF:7F:23:B1:60:E7:5B:9B:AE:5E:A1:E6:2B:43:A5:A3:4A:26:01:27"
    static let privateKey = "-----BEGIN PRIVATE KEY-----\nU2VjcmV0S2V5TWF0ZXJpYWxOZXZlckVjaG9lZA==\n-----END PRIVATE KEY-----\n"

    @Test func policyStatusIsPublicOnlyForAnUnnarrowedAllowToEveryone() async throws {
        try await withServerAndClient { _, client in
            #expect(try await client.getBucketPolicyStatus(bucketName: "bkt").isPublic == false, "no policy")
            try await client.putBucketPolicy(Self.narrowedPolicy, bucketName: "bkt")
            #expect(try await client.getBucketPolicyStatus(bucketName: "bkt").isPublic == false, "narrowed to 10.0.0.0/8")
            try await client.putBucketPolicy(Self.publicPolicy, bucketName: "bkt")
            #expect(try await client.getBucketPolicyStatus(bucketName: "bkt").isPublic == true)
            try await client.deleteBucketPolicy(bucketName: "bkt")
            #expect(try await client.getBucketPolicyStatus(bucketName: "bkt").isPublic == false, "deleted")
            #expect(await serverError { _ = try await client.getBucketPolicyStatus(bucketName: "nobkt") }?.code == "NoSuchBucket")
        }
    }

    @Test func cnameIsBoundOnlyWithATokenAndOnlyToOneBucket() async throws {
        try await withServerAndClient(extraBuckets: ["other"]) { _, client in
            let domain = "static.example.test"
            #expect(await serverError { _ = try await client.getCnameToken(domain: domain, bucketName: "bkt") }?.code == "CnameTokenNotFound")
            #expect(await serverError { try await client.putCname(domain: domain, bucketName: "bkt") }?.code == "NeedVerifyDomainOwnership")
            let token = try await client.createCnameToken(domain: domain, bucketName: "bkt")
            #expect(token.bucket == "bkt" && token.cname == domain && token.token.count == 32)
            let expiry = try #require(token.expirationDate)
            #expect(abs(expiry.timeIntervalSinceNow - 72 * 3600) < 120, "a token lives 72 hours")
            #expect(try await client.createCnameToken(domain: domain, bucketName: "bkt").token == token.token, "asked again: the same token")
            #expect(try await client.getCnameToken(domain: domain, bucketName: "bkt").token == token.token)

            let upload = OSSCnameCertificateConfiguration(certificate: Self.certificate, privateKey: Self.privateKey)
            #expect(await serverError {
                try await client.putCname(domain: domain, certificate: .init(certificate: Self.certificate), bucketName: "bkt")
            }?.code == "InvalidArgument", "an uploaded certificate without its private key")
            try await client.putCname(domain: domain, certificate: upload, bucketName: "bkt")
            let listed = try await client.listCname(bucketName: "bkt")
            #expect(listed.bucket == "bkt" && listed.cnames.map(\.domain) == [domain] && listed.cnames.first?.status == "Enabled")
            let certificate = try #require(listed.cnames.first?.certificate)
            #expect(certificate.type == "Upload" && certificate.fingerprint == Self.certificateFingerprint && certificate.certId?.isEmpty == false)
            let raw = try await client.invoke(OSSOperation(name: "ListCname", method: "GET", bucket: "bkt", key: nil, query: ["cname": ""])) {
                String(decoding: try await $0.body.collectBytes(upTo: 1 << 20), as: UTF8.self)
            }
            #expect(raw.contains("<Domain>\(domain)</Domain>") && !raw.contains("U2VjcmV0") && !raw.contains("PRIVATE KEY"), "no private key: \(raw)")
            let replaced = OSSCnameCertificateConfiguration(certId: "12345-cn-hangzhou", previousCertId: "not-the-bound-one")
            #expect(await serverError { try await client.putCname(domain: domain, certificate: replaced, bucketName: "bkt") }?.code == "CertificateMismatch")
            try await client.putCname(domain: domain, certificate: .init(deleteCertificate: true), bucketName: "bkt")
            #expect(try await client.listCname(bucketName: "bkt").cnames.first?.certificate == nil)

            _ = try await client.createCnameToken(domain: domain, bucketName: "other")
            #expect(await serverError { try await client.putCname(domain: domain, bucketName: "other") }?.code == "CnameAlreadyExists")
            #expect(await serverError { try await client.deleteCname(domain: "nothere.example.test", bucketName: "bkt") }?.code == "NoSuchCname")
            try await client.deleteCname(domain: domain, bucketName: "bkt")
            #expect(try await client.listCname(bucketName: "bkt").cnames.isEmpty)
            try await client.putCname(domain: domain, bucketName: "other")
            #expect(try await client.listCname(bucketName: "other").cnames.map(\.domain) == [domain], "free again: another bucket binds it")
        }
    }

    /// A client whose endpoint is the bound domain (CNAME addressing) reaches the bucket: the domain "resolves" to
    /// the server on 127.0.0.1 (``LoopbackResolvingTransport``), keeps it in `Host`, and is served as the bucket's.
    @Test func aClientAddressingABoundDomainReachesItsBucket() async throws {
        try await withServerAndClient(extraBuckets: ["site"]) { server, client in
            let domain = "cdn.example.test"
            _ = try await client.createCnameToken(domain: domain, bucketName: "site")
            try await client.putCname(domain: domain, bucketName: "site")
            var configuration = client.configuration
            configuration.addressing = .cname
            configuration.retry = .init(maxRetryCount: 0)
            let transport = LoopbackResolvingTransport(
                base: AsyncHTTPClientTransport(configuration: configuration), domain: domain, port: try #require(server.endpoint.port))
            let viaDomain = try OSSClient(
                endpoint: "http://\(domain)", credentialProvider: server.credentials.provider, configuration: configuration, transport: transport)
            do {
                _ = try await viaDomain.putObject(OSSPutObjectRequest(bucketName: "site", objectKey: "img/logo.png", data: Data("logo".utf8)))
                let read = try await client.getObject(OSSGetObjectRequest(bucketName: "site", objectKey: "img/logo.png"))
                #expect(String(decoding: read.content ?? Data(), as: UTF8.self) == "logo", "written through the domain, read path-style")
                let back = try await viaDomain.getObject(OSSGetObjectRequest(bucketName: "site", objectKey: "img/logo.png"))
                #expect(String(decoding: back.content ?? Data(), as: UTF8.self) == "logo")
                #expect(transport.hosts.contains(domain) && !transport.hosts.contains { $0 != domain }, "every request named the domain")
                try await client.deleteCname(domain: domain, bucketName: "site")
                let unbound = await serverError { _ = try await viaDomain.getObject(OSSGetObjectRequest(bucketName: "site", objectKey: "img/logo.png")) }
                #expect(unbound != nil, "an unbound domain no longer reaches the bucket")
                try await viaDomain.shutdown()
            } catch {
                try? await viaDomain.shutdown()
                throw error
            }
        }
    }

    /// A server whose redundancy transitions stay in each state as long as `times` says.
    static func withTransitionServer(
        _ times: (queueing: TimeInterval, processing: TimeInterval), _ body: (OSSClient) async throws -> Void
    ) async throws {
        var configuration = LocalOSSServerConfiguration(region: "cn-hangzhou", buckets: ["bkt", "second"])
        configuration.redundancyTransitionTimes = times
        try await withLocalOSSServer(configuration) { server in
            var clientConfiguration = OSSClientConfiguration(region: "cn-hangzhou")
            clientConfiguration.retry = .init(maxRetryCount: 0)
            try await withClient(of: server, server.credentials.provider, clientConfiguration) { _, client in try await body(client) }
        }
    }

    @Test func aQueueingTransitionCanBeDeletedAndOnlyOneRunsPerBucket() async throws {
        try await Self.withTransitionServer((3600, 1)) { client in
            #expect(await serverError {
                _ = try await client.createBucketDataRedundancyTransition(targetRedundancyType: "LRS", bucketName: "bkt")
            }?.code == "InvalidArgument", "ZRS is the only target")
            let task = try await client.createBucketDataRedundancyTransition(bucketName: "bkt").taskId
            let got = try await client.getBucketDataRedundancyTransition(taskId: task, bucketName: "bkt").transition
            #expect(got.taskId == task && got.status == "Queueing" && got.createTime != nil && got.startTime == nil)
            #expect(await serverError { _ = try await client.createBucketDataRedundancyTransition(bucketName: "bkt") }?.code
                == "BucketDataRedundancyTransitionTaskStatusConflict", "one task in progress per bucket")
            let other = try await client.createBucketDataRedundancyTransition(bucketName: "second").taskId
            #expect(try await client.listBucketDataRedundancyTransition(bucketName: "bkt").transitions.map(\.taskId) == [task])
            let user = try await client.listUserDataRedundancyTransition()
            #expect(Set(user.transitions.map(\.taskId)) == [task, other] && Set(user.transitions.compactMap(\.bucket)) == ["bkt", "second"])
            let first = try await client.listUserDataRedundancyTransition(maxKeys: 1)
            #expect(first.isTruncated && first.transitions.count == 1)
            let rest = try await client.listUserDataRedundancyTransition(maxKeys: 1, continuationToken: first.nextContinuationToken)
            #expect(!rest.isTruncated && rest.transitions.count == 1 && rest.transitions[0].taskId != first.transitions[0].taskId)
            try await client.deleteBucketDataRedundancyTransition(taskId: task, bucketName: "bkt")
            #expect(await serverError { _ = try await client.getBucketDataRedundancyTransition(taskId: task, bucketName: "bkt") }?.code
                == "BucketDataRedundancyTransitionTaskNotExist")
        }
    }

    @Test func aProcessingTransitionCannotBeDeletedAndAFinishedOneMakesTheBucketZRS() async throws {
        try await Self.withTransitionServer((0, 4)) { client in
            let task = try await client.createBucketDataRedundancyTransition(bucketName: "bkt").taskId
            let processing = try await client.getBucketDataRedundancyTransition(taskId: task, bucketName: "bkt").transition
            #expect(processing.status == "Processing" && processing.startTime != nil && processing.processPercentage != nil)
            #expect(await serverError { try await client.deleteBucketDataRedundancyTransition(taskId: task, bucketName: "bkt") }?.code
                == "BucketDataRedundancyTransitionTaskStatusConflict")
            var finished = processing
            for _ in 0..<100 where finished.status != "Finished" {
                try await Task.sleep(for: .milliseconds(100))
                finished = try await client.getBucketDataRedundancyTransition(taskId: task, bucketName: "bkt").transition
            }
            #expect(finished.status == "Finished" && finished.processPercentage == 100 && finished.endTime != nil)
            #expect(await serverError { _ = try await client.createBucketDataRedundancyTransition(bucketName: "bkt") }?.code
                == "InvalidArgument", "already ZRS")
            try await client.deleteBucketDataRedundancyTransition(taskId: task, bucketName: "bkt")
        }
    }

    @Test func accessPointsFollowOSSNamesAndKeepTheirPolicies() async throws {
        try await withServerAndClient(extraBuckets: ["other"]) { _, client in
            #expect(await clientErrorCode { _ = try await client.createAccessPoint(name: "AP_01", bucketName: "bkt") } == .invalidArgument)
            #expect(await clientErrorCode { _ = try await client.createAccessPoint(name: "ap-vpc", networkOrigin: "vpc", bucketName: "bkt") }
                == .invalidArgument, "a vpc access point names its VPC")
            let created = try await client.createAccessPoint(name: "ap-01", bucketName: "bkt")
            #expect(created.accessPointArn.hasSuffix(":accesspoint/ap-01") && created.alias.hasPrefix("ap-01-") && created.alias.hasSuffix("-ossalias"))
            _ = try await client.createAccessPoint(name: "ap-02", networkOrigin: "vpc", vpcId: "vpc-123", bucketName: "bkt")
            #expect(await serverError { _ = try await client.createAccessPoint(name: "ap-01", bucketName: "other") }?.code
                == "AccessPointAlreadyExists", "names are unique in the account")
            _ = try await client.createAccessPoint(name: "ap-03", bucketName: "other")
            let got = try await client.getAccessPoint(name: "ap-02", bucketName: "bkt").accessPoint
            #expect(got.accessPointName == "ap-02" && got.bucket == "bkt" && got.networkOrigin == "vpc" && got.vpcConfiguration?.vpcId == "vpc-123")
            #expect(got.status == "enable" && got.alias?.hasSuffix("-ossalias") == true && got.endpoints?.publicEndpoint != nil)
            #expect(try await client.listAccessPoints(bucketName: "bkt").accessPoints.map(\.accessPointName) == ["ap-01", "ap-02"])
            let account = try await client.listAccessPoints()
            #expect(account.accessPoints.map(\.accessPointName) == ["ap-01", "ap-02", "ap-03"])
            let page = try await client.listAccessPoints(maxKeys: 2)
            #expect(page.isTruncated && page.nextContinuationToken == "ap-02")
            #expect(try await client.listAccessPoints(maxKeys: 2, continuationToken: page.nextContinuationToken).accessPoints.map(\.accessPointName) == ["ap-03"])

            #expect(await serverError { _ = try await client.getAccessPointPolicy(accessPointName: "ap-01", bucketName: "bkt") }?.code == "NoSuchAccessPointPolicy")
            #expect(await serverError { try await client.putAccessPointPolicy("{not json", accessPointName: "ap-01", bucketName: "bkt") }?.code
                == "InvalidPolicyDocument")
            let policy = """
                {"Version":"1","Statement":[{"Effect":"Allow","Action":["oss:GetObject"],"Principal":["27737962156157"],"Resource":["acs:oss:cn-hangzhou:*:accesspoint/ap-01/object/*"]}]}
                """
            try await client.putAccessPointPolicy(policy, accessPointName: "ap-01", bucketName: "bkt")
            #expect(try await client.getAccessPointPolicy(accessPointName: "ap-01", bucketName: "bkt").policy == policy)
            try await client.deleteAccessPointPolicy(accessPointName: "ap-01", bucketName: "bkt")
            #expect(await serverError { _ = try await client.getAccessPointPolicy(accessPointName: "ap-01", bucketName: "bkt") }?.code == "NoSuchAccessPointPolicy")
            try await client.deleteAccessPoint(name: "ap-01", bucketName: "bkt")
            #expect(await serverError { _ = try await client.getAccessPoint(name: "ap-01", bucketName: "bkt") }?.code == "NoSuchAccessPoint")
        }
    }

    @Test func metaQueryEvaluatesConditionsSortsPagesAndAggregates() async throws {
        try await withServerAndClient { _, client in
            let any = OSSMetaQuery(query: .field("Size", "gte", "0"))
            #expect(await serverError { _ = try await client.doMetaQuery(any, bucketName: "bkt") }?.code == "MetaQueryNotExist")
            try await client.openMetaQuery(bucketName: "bkt")
            #expect(await serverError { try await client.openMetaQuery(bucketName: "bkt") }?.code == "MetaQueryAlreadyExist")
            let status = try await client.getMetaQueryStatus(bucketName: "bkt").status
            #expect(status.state == "Running" && status.metaQueryMode == "basic" && status.createTime != nil)
            let objects: [(String, Int, String, String?, [String: String])] = [
                ("docs/a.txt", 10, "text/plain", "owner=john", ["location": "hangzhou"]),
                ("docs/b.json", 300, "application/json", "owner=mary&team=x", [:]),
                ("img/c.png", 2000, "image/png", nil, ["location": "beijing"]),
                ("img/d.png", 50, "image/png", "owner=john", [:]),
            ]
            for (key, size, type, tags, meta) in objects {
                var request = OSSPutObjectRequest(bucketName: "bkt", objectKey: key, data: Data(repeating: 0x61, count: size))
                request.contentType = type
                request.metadata = meta
                if let tags { request.headers["x-oss-tagging"] = tags }
                _ = try await client.putObject(request)
            }
            func keys(_ condition: OSSMetaQueryCondition, sort: String? = nil, order: String? = nil) async throws -> [String] {
                try await client.doMetaQuery(OSSMetaQuery(query: condition, sort: sort, order: order), bucketName: "bkt").files.map(\.filename)
            }
            #expect(try await keys(.field("Size", "gt", "60")) == ["docs/b.json", "img/c.png"], "numbers compare as numbers")
            #expect(try await keys(.field("Filename", "prefix", "img/")) == ["img/c.png", "img/d.png"])
            #expect(try await keys(.field("Filename", "match", ".p")) == ["img/c.png", "img/d.png"])
            #expect(try await keys(.field("ContentType", "eq", "image/png")) == ["img/c.png", "img/d.png"])
            #expect(try await keys(.field("OSSTagging.owner", "eq", "john")) == ["docs/a.txt", "img/d.png"])
            #expect(try await keys(.field("OSSTagging.team", "exist", "")) == ["docs/b.json"])
            #expect(try await keys(.field("OSSUserMeta.x-oss-meta-location", "eq", "hangzhou")) == ["docs/a.txt"])
            #expect(try await keys(.and([.field("OSSTagging.owner", "eq", "john"), .field("Size", "lt", "20")])) == ["docs/a.txt"])
            #expect(try await keys(.or([.field("Size", "gte", "2000"), .field("Size", "lte", "10")])) == ["docs/a.txt", "img/c.png"])
            #expect(try await keys(.not(.field("Filename", "prefix", "docs/"))) == ["img/c.png", "img/d.png"])
            #expect(try await keys(.field("FileModifiedTime", "lt", "2999-01-01T00:00:00.000Z")).count == 4)
            #expect(try await keys(.field("FileModifiedTime", "gt", "2999-01-01T00:00:00.000Z")).isEmpty)
            #expect(try await keys(.field("Size", "gte", "0"), sort: "Size", order: "desc") == ["img/c.png", "docs/b.json", "img/d.png", "docs/a.txt"])

            let file = try #require(try await client.doMetaQuery(OSSMetaQuery(query: .field("Filename", "eq", "docs/b.json")), bucketName: "bkt").files.first)
            #expect(file.size == 300 && file.contentType == "application/json" && file.tags == ["owner": "mary", "team": "x"] && file.ossTaggingCount == 2)
            #expect(file.etag?.isEmpty == false && file.ossObjectType == "Normal" && file.ossStorageClass == "Standard" && file.fileModifiedTime != nil)
            let etag = try #require(file.etag)
            #expect(try await keys(.field("ETag", "eq", etag)) == ["docs/b.json"])
            #expect(try await client.doMetaQuery(OSSMetaQuery(query: .field("Filename", "eq", "img/c.png")), bucketName: "bkt").files.first?
                .userMetadata == ["x-oss-meta-location": "beijing"])

            var pages: [[String]] = []
            var token: String?
            repeat {
                let page = try await client.doMetaQuery(OSSMetaQuery(query: .field("Size", "gte", "0"), maxResults: 3, nextToken: token), bucketName: "bkt")
                pages.append(page.files.map(\.filename))
                token = page.nextToken
            } while token != nil && pages.count < 5
            #expect(pages == [["docs/a.txt", "docs/b.json", "img/c.png"], ["img/d.png"]])

            let aggregated = try await client.doMetaQuery(
                OSSMetaQuery(
                    query: .field("Filename", "prefix", "img/"), aggregations: [
                        .init(field: "Size", operation: "sum"), .init(field: "Size", operation: "max"),
                        .init(field: "ContentType", operation: "group"),
                    ]), bucketName: "bkt")
            #expect(aggregated.aggregations.map(\.value) == [2050, 2000, nil])
            #expect(aggregated.aggregations.last?.groups?.groups.map { "\($0.value)=\($0.count)" } == ["image/png=2"])
            #expect(await serverError { _ = try await client.doMetaQuery(OSSMetaQuery(query: "{\"Field\":\"Size\"}"), bucketName: "bkt") }?.code
                == "InvalidArgument", "a query without an operation")
            #expect(await serverError { _ = try await client.doMetaQuery(OSSMetaQuery(query: .field("Size", "gt", "big")), bucketName: "bkt") }?.code
                == "InvalidArgument", "Size compares with a number")
            try await client.closeMetaQuery(bucketName: "bkt")
            #expect(await serverError { _ = try await client.getMetaQueryStatus(bucketName: "bkt") }?.code == "MetaQueryNotExist")
        }
    }
}

/// Stands in for DNS: requests to `domain` go to the local server on 127.0.0.1, with the domain kept in `Host`, as
/// they would once the domain's CNAME record pointed at the bucket.
final class LoopbackResolvingTransport: OSSHTTPTransport {
    let base: AsyncHTTPClientTransport
    let domain: String
    let port: Int
    private let seen = NIOLockedValueBox<[String]>([])

    init(base: AsyncHTTPClientTransport, domain: String, port: Int) {
        self.base = base
        self.domain = domain
        self.port = port
    }

    /// The `Host` of every request sent.
    var hosts: [String] { seen.withLockedValue { $0 } }

    func send<Result: Sendable>(_ request: OSSHTTPRequest, handler: (OSSHTTPResponse) async throws -> Result) async throws -> Result {
        var request = request
        let host = URL(string: request.url)?.host ?? ""
        seen.withLockedValue { $0.append(host) }
        request.headers["host"] = host
        request.url = request.url.replacingOccurrences(of: "://\(domain)", with: "://127.0.0.1:\(port)")
        return try await base.send(request, handler: handler)
    }

    func shutdown() async throws { try await base.shutdown() }
}
