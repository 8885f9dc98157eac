import AliyunOSS
import Testing

/// `OSSEndpoint(region:network:)` and `OSSClient(region:network:)`: the hosts of each network type, HTTPS by default,
/// the bucket addressing unchanged, bad region ids refused.
@Suite("Endpoints from a region")
struct EndpointFromRegionTests {
    @Test("each network type's host, https by default")
    func hosts() throws {
        let expected: [OSSEndpoint.Network: String] = [
            .public: "https://oss-cn-hangzhou.aliyuncs.com",
            .internal: "https://oss-cn-hangzhou-internal.aliyuncs.com",
            .accelerate: "https://oss-accelerate.aliyuncs.com",
            .accelerateOverseas: "https://oss-accelerate-overseas.aliyuncs.com",
            .dualStack: "https://cn-hangzhou.oss.aliyuncs.com",
        ]
        for network in OSSEndpoint.Network.allCases {
            #expect(try OSSEndpoint(region: "cn-hangzhou", network: network).description == expected[network])
        }
        #expect(try OSSEndpoint(region: "oss-ap-southeast-1").description == "https://oss-ap-southeast-1.aliyuncs.com")
        #expect(try OSSEndpoint(region: "cn-shanghai", network: .internal, scheme: "http").description
            == "http://oss-cn-shanghai-internal.aliyuncs.com")
        for bad in ["", "cn hangzhou", "-cn", "cn-hangzhou.evil.com", "cn/x"] {
            #expect(throws: OSSClientError.self) { try OSSEndpoint(region: bad) }
        }
        #expect(throws: OSSClientError.self) { try OSSEndpoint(region: "cn-hangzhou", scheme: "ftp") }
    }

    @Test("a client from a region: virtual-hosted URLs on that host, the region set for V4")
    func client() async throws {
        let credentials = OSSStaticCredentialProvider(accessKeyId: "AK", accessKeySecret: "SK")
        let client = try OSSClient(region: "oss-cn-beijing", network: .internal, credentialProvider: credentials)
        defer { Task { try? await client.shutdown() } }
        #expect(client.configuration.region == "cn-beijing")
        #expect(try client.presignPublicURL(bucket: "photos", key: "a/b.jpg")
            == "https://photos.oss-cn-beijing-internal.aliyuncs.com/a/b.jpg")
        var configuration = OSSClientConfiguration(region: "cn-shanghai")
        configuration.signatureVersion = .v4
        let kept = try OSSClient(region: "cn-beijing", network: .dualStack, credentialProvider: credentials, configuration: configuration)
        defer { Task { try? await kept.shutdown() } }
        #expect(kept.configuration.region == "cn-shanghai", "a configured region is kept")
        #expect(try kept.presignPublicURL(bucket: "photos", key: "k") == "https://photos.cn-beijing.oss.aliyuncs.com/k")
    }
}
