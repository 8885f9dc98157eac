@testable import AliyunOSS
import Foundation
import NIOCore
import Testing

@Suite("Request building: endpoints, addressing, key and query encoding")
struct RequestBuildingTests {
    func builder(_ endpoint: String, _ style: OSSAddressingStyle = .automatic) throws -> OSSRequestBuilder {
        OSSRequestBuilder(endpoint: try OSSEndpoint(endpoint), addressing: style, userAgent: "test")
    }

    @Test func endpointParsing() throws {
        let e1 = try OSSEndpoint("oss-cn-hangzhou.aliyuncs.com")
        #expect(e1.scheme == "https" && e1.host == "oss-cn-hangzhou.aliyuncs.com" && e1.port == nil)
        let e2 = try OSSEndpoint("http://127.0.0.1:9000")
        #expect(e2.scheme == "http" && e2.host == "127.0.0.1" && e2.port == 9000 && e2.isIPOrLocalhost)
        let e3 = try OSSEndpoint("http://[::1]:8080/")
        #expect(e3.host == "[::1]" && e3.port == 8080 && e3.isIPOrLocalhost)
        #expect(try OSSEndpoint("localhost:9000").isIPOrLocalhost)
        #expect(!(try OSSEndpoint("oss-cn-hangzhou.aliyuncs.com").isIPOrLocalhost))
        #expect(!(try OSSEndpoint("1.2.3.400").isIPOrLocalhost))
        for bad in ["ftp://x.com", "http://host:99999", "http://ho st", "http://[::1"] {
            #expect(throws: OSSClientError.self) { try OSSEndpoint(bad) }
        }
    }

    @Test("a client refuses a scheme-less IP, localhost or port endpoint with the http:// it probably means")
    func schemelessEndpointsAClientWouldGuessWrong() throws {
        for (given, hint) in [
            ("127.0.0.1:9000", "http://127.0.0.1:9000"), ("localhost:8080", "http://localhost:8080"),
            ("oss.example.com:9000", "http://oss.example.com:9000"), ("oss://bucket", "https://bucket"),
        ] {
            let error = #expect(throws: OSSClientError.self) {
                try OSSClient(endpoint: given, credentialProvider: OSSStaticCredentialProvider(accessKeyId: "a", accessKeySecret: "b"))
            }
            #expect(error?.code == .invalidArgument)
            #expect(error?.message.contains("did you mean \(hint)?") == true, "\(given): \(String(describing: error?.message))")
        }
        for fine in ["oss-cn-hangzhou.aliyuncs.com", "oss-cn-hangzhou.aliyuncs.com:443", "http://127.0.0.1:9000"] {
            let endpoint = try OSSClient.validate(endpoint: fine, configuration: OSSClientConfiguration())
            #expect(endpoint.host.hasPrefix("oss-cn-hangzhou") || endpoint.scheme == "http")
        }
    }

    @Test func virtualHostedByDefault() throws {
        let b = try builder("https://oss-cn-hangzhou.aliyuncs.com")
        #expect(
            b.urlWithoutQuery(bucket: "examplebucket", key: "photos/2024/cat.jpg")
                == "https://examplebucket.oss-cn-hangzhou.aliyuncs.com/photos/2024/cat.jpg")
        #expect(b.urlWithoutQuery(bucket: "examplebucket", key: nil) == "https://examplebucket.oss-cn-hangzhou.aliyuncs.com/")
        #expect(b.urlWithoutQuery(bucket: nil, key: nil) == "https://oss-cn-hangzhou.aliyuncs.com/")
    }

    @Test func pathStyleForIPAndLocalhost() throws {
        #expect(try builder("http://127.0.0.1:9000").urlWithoutQuery(bucket: "bkt", key: "k") == "http://127.0.0.1:9000/bkt/k")
        #expect(try builder("http://localhost:9000").urlWithoutQuery(bucket: "bkt", key: nil) == "http://localhost:9000/bkt/")
        #expect(try builder("http://[::1]:9000").urlWithoutQuery(bucket: "bkt", key: "k") == "http://[::1]:9000/bkt/k")
    }

    @Test func explicitStyles() throws {
        #expect(
            try builder("oss.example.com", .pathStyle).urlWithoutQuery(bucket: "b1c", key: "a/b")
                == "https://oss.example.com/b1c/a/b")
        #expect(try builder("cdn.example.com", .cname).urlWithoutQuery(bucket: "b1c", key: "a/b") == "https://cdn.example.com/a/b")
        #expect(
            try builder("127.0.0.1:80", .virtualHosted).urlWithoutQuery(bucket: "b1c", key: "k")
                == "https://b1c.127.0.0.1:80/k")
    }

    @Test func keyEncodingKeepsSlashAndEncodesEverythingElse() throws {
        let b = try builder("http://127.0.0.1:1")
        let url = b.urlWithoutQuery(bucket: "b1c", key: "folder/sub folder/ünï 文件+a=b&c~%.txt")
        #expect(url == "http://127.0.0.1:1/b1c/folder/sub%20folder/%C3%BCn%C3%AF%20%E6%96%87%E4%BB%B6%2Ba%3Db%26c~%25.txt")
    }

    @Test func queryIsStrictlyEncodedAndSorted() throws {
        let b = try builder("http://127.0.0.1:1")
        var op = OSSOperation(name: "X", method: "GET", bucket: "b1c", key: "k")
        op.query = ["uploadId": "a+b/c=", "partNumber": "1", "uploads": "", "security-token": "CAIS+x y"]
        let prepared = try b.build(op)
        #expect(
            prepared.url
                == "http://127.0.0.1:1/b1c/k?partNumber=1&security-token=CAIS%2Bx%20y&uploadId=a%2Bb%2Fc%3D&uploads")
    }

    @Test func contentTypeAlwaysExplicitForBodies() throws {
        let b = try builder("http://127.0.0.1:1")
        let put = try b.build(OSSOperation(name: "P", method: "PUT", bucket: "b1c", key: "k", body: .bytes(Data([1, 2, 3]))))
        #expect(put.signable[header: "content-type"] == "application/octet-stream")
        let post = try b.build(OSSOperation(name: "P", method: "POST", bucket: "b1c", key: "k"))
        #expect(post.signable[header: "content-type"] == "application/octet-stream")
        let get = try b.build(OSSOperation(name: "G", method: "GET", bucket: "b1c", key: "k"))
        #expect(get.signable[header: "content-type"] == nil)
        let xml = try b.build(
            OSSOperation(name: "C", method: "POST", bucket: "b1c", key: "k", headers: ["Content-Type": "application/xml"]))
        #expect(xml.signable[header: "content-type"] == "application/xml")
    }

    @Test func headerValuesAreTrimmedAndLineBreaksRejected() throws {
        let b = try builder("http://127.0.0.1:1")
        let op = OSSOperation(name: "P", method: "GET", bucket: "b1c", key: "k", headers: ["x-oss-meta-a": "  v  "])
        #expect(try b.build(op).signable[header: "x-oss-meta-a"] == "v")
        let bad = OSSOperation(name: "P", method: "GET", bucket: "b1c", key: "k", headers: ["x-oss-meta-a": "a\r\nb: c"])
        let error = #expect(throws: OSSClientError.self) { try b.build(bad) }
        #expect(error?.code == .invalidArgument)
    }

    @Test(arguments: ["ab", "-abc", "abc-", "ABC", "a_b", String(repeating: "a", count: 64), "a.b"])
    func invalidBucketNames(_ name: String) throws {
        let error = #expect(throws: OSSClientError.self) {
            try OSSRequestBuilder.validateBucketName(name)
        }
        #expect(error?.code == .invalidArgument)
    }

    @Test func validNamesAndKeys() throws {
        try OSSRequestBuilder.validateBucketName("abc")
        try OSSRequestBuilder.validateBucketName("my-bucket-01")
        try OSSRequestBuilder.validateObjectKey("a")
        for bad in ["", "/abs", "\\x", String(repeating: "k", count: 1024)] {
            #expect(throws: OSSClientError.self) { try OSSRequestBuilder.validateObjectKey(bad) }
        }
    }

    @Test func v4WithoutRegionIsRejected() throws {
        let error = #expect(throws: OSSClientError.self) {
            _ = try OSSClient(
                endpoint: "http://127.0.0.1:1",
                credentialProvider: OSSStaticCredentialProvider(accessKeyId: "a", accessKeySecret: "b"),
                configuration: .init(signatureVersion: .v4))
        }
        #expect(error?.code == .invalidArgument)
    }
}
