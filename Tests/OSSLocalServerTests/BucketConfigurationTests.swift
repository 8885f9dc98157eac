import Foundation
import OSSLocalServer
import Testing

/// Bucket configuration families on the local server: what each stores, what it refuses with OSS's codes, what an
/// unset family answers, deletion, persistence across a restart, and CORS enforcement.
@Suite struct BucketConfigurationTests {
    static let cors = """
        <CORSConfiguration>
          <CORSRule><AllowedOrigin>https://*.example.com</AllowedOrigin><AllowedOrigin>http://localhost:8080</AllowedOrigin>
            <AllowedMethod>GET</AllowedMethod><AllowedMethod>PUT</AllowedMethod>
            <AllowedHeader>x-oss-*</AllowedHeader><AllowedHeader>Content-Type</AllowedHeader>
            <ExposeHeader>ETag</ExposeHeader><ExposeHeader>x-oss-request-id</ExposeHeader>
            <MaxAgeSeconds>600</MaxAgeSeconds></CORSRule>
          <CORSRule><AllowedOrigin>*</AllowedOrigin><AllowedMethod>HEAD</AllowedMethod></CORSRule>
          <ResponseVary>true</ResponseVary>
        </CORSConfiguration>
        """

    /// One valid document per family, and what GET of the family answers before any PUT (a 404 code, or `nil` for
    /// families OSS answers with a default document).
    static let families: [(subresource: String, document: String, unsetCode: String?, deletable: Bool)] = [
        ("cors", cors, "NoSuchCORSConfiguration", true),
        ("lifecycle", """
            <LifecycleConfiguration><Rule><ID>tmp</ID><Prefix>tmp/</Prefix><Status>Enabled</Status>
            <Expiration><Days>3</Days></Expiration><Transition><Days>1</Days><StorageClass>IA</StorageClass></Transition>
            </Rule><Rule><ID>mpu</ID><Prefix></Prefix><Status>Disabled</Status>
            <AbortMultipartUpload><CreatedBeforeDate>2024-01-15T00:00:00.000Z</CreatedBeforeDate></AbortMultipartUpload></Rule>
            </LifecycleConfiguration>
            """, "NoSuchLifecycle", true),
        ("referer", """
            <RefererConfiguration><AllowEmptyReferer>false</AllowEmptyReferer>
            <RefererList><Referer>https://*.example.com</Referer></RefererList></RefererConfiguration>
            """, nil, false),
        ("tagging", "<Tagging><TagSet><Tag><Key>team</Key><Value>storage</Value></Tag></TagSet></Tagging>", nil, true),
        ("encryption", """
            <ServerSideEncryptionRule><ApplyServerSideEncryptionByDefault><SSEAlgorithm>KMS</SSEAlgorithm>
            <KMSMasterKeyID>key-1</KMSMasterKeyID></ApplyServerSideEncryptionByDefault></ServerSideEncryptionRule>
            """, "NoSuchServerSideEncryptionRule", true),
        ("logging", """
            <BucketLoggingStatus><LoggingEnabled><TargetBucket>logs</TargetBucket><TargetPrefix>access/</TargetPrefix>
            </LoggingEnabled></BucketLoggingStatus>
            """, nil, true),
        ("website", """
            <WebsiteConfiguration><IndexDocument><Suffix>index.html</Suffix></IndexDocument>
            <ErrorDocument><Key>404.html</Key><HttpStatus>404</HttpStatus></ErrorDocument></WebsiteConfiguration>
            """, "NoSuchWebsiteConfiguration", true),
        ("requestPayment", "<RequestPaymentConfiguration><Payer>Requester</Payer></RequestPaymentConfiguration>", nil, false),
        ("transferAcceleration", "<TransferAccelerationConfiguration><Enabled>true</Enabled></TransferAccelerationConfiguration>",
            "NoSuchTransferAccelerationConfiguration", false),
        ("policy", #"{"Version":"1","Statement":[{"Effect":"Allow","Action":["oss:GetObject"],"Principal":["*"],"Resource":["acs:oss:*:*:cfg/*"]}]}"#,
            "NoSuchBucketPolicy", true),
    ]

    /// Documents OSS refuses, with its code.
    static let refused: [(subresource: String, document: String, code: String)] = [
        ("cors", "<CORSConfiguration><CORSRule>", "MalformedXML"),
        ("cors", "<CORSConfiguration></CORSConfiguration>", "MalformedXML"),
        ("cors", "<CORSConfiguration><CORSRule><AllowedOrigin>*</AllowedOrigin><AllowedMethod>PATCH</AllowedMethod></CORSRule></CORSConfiguration>", "InvalidArgument"),
        ("cors", "<CORSConfiguration><CORSRule><AllowedOrigin>*.a.*</AllowedOrigin><AllowedMethod>GET</AllowedMethod></CORSRule></CORSConfiguration>", "InvalidArgument"),
        ("cors", "<CORSConfiguration><CORSRule><AllowedOrigin>*</AllowedOrigin><AllowedMethod>GET</AllowedMethod><ExposeHeader>x-*</ExposeHeader></CORSRule></CORSConfiguration>", "InvalidArgument"),
        ("cors", "<CORSConfiguration><CORSRule><AllowedOrigin>*</AllowedOrigin><AllowedMethod>GET</AllowedMethod><MaxAgeSeconds>soon</MaxAgeSeconds></CORSRule></CORSConfiguration>", "MalformedXML"),
        ("cors", "<CORSConfiguration>" + String(repeating: "<CORSRule><AllowedOrigin>*</AllowedOrigin><AllowedMethod>GET</AllowedMethod></CORSRule>", count: 21) + "</CORSConfiguration>", "InvalidArgument"),
        ("lifecycle", "<LifecycleConfiguration><Rule><Status>Enabled</Status></Rule></LifecycleConfiguration>", "InvalidArgument"),
        ("lifecycle", "<LifecycleConfiguration><Rule><Status>On</Status><Expiration><Days>1</Days></Expiration></Rule></LifecycleConfiguration>", "MalformedXML"),
        ("lifecycle", "<LifecycleConfiguration><Rule><Status>Enabled</Status><Expiration><Days>0</Days></Expiration></Rule></LifecycleConfiguration>", "InvalidArgument"),
        ("lifecycle", "<LifecycleConfiguration><Rule><Status>Enabled</Status><Expiration><CreatedBeforeDate>2024-01-15T08:00:00.000Z</CreatedBeforeDate></Expiration></Rule></LifecycleConfiguration>", "InvalidArgument"),
        ("lifecycle", "<LifecycleConfiguration><Rule><Status>Enabled</Status><Transition><Days>5</Days><StorageClass>Glacier</StorageClass></Transition></Rule></LifecycleConfiguration>", "InvalidArgument"),
        ("lifecycle", "<LifecycleConfiguration><Rule><Status>Enabled</Status><Expiration><Days>3</Days></Expiration><Transition><Days>5</Days><StorageClass>IA</StorageClass></Transition></Rule></LifecycleConfiguration>", "InvalidArgument"),
        ("lifecycle", "<LifecycleConfiguration><Rule><ID>a</ID><Status>Enabled</Status><Expiration><Days>3</Days></Expiration></Rule><Rule><ID>a</ID><Status>Enabled</Status><Expiration><Days>4</Days></Expiration></Rule></LifecycleConfiguration>", "InvalidArgument"),
        ("lifecycle", "<LifecycleConfiguration><Rule><Status>Enabled</Status><Tag><Key>k</Key><Value>v</Value></Tag><AbortMultipartUpload><Days>1</Days></AbortMultipartUpload></Rule></LifecycleConfiguration>", "InvalidArgument"),
        ("referer", "<RefererConfiguration><RefererList/></RefererConfiguration>", "MalformedXML"),
        ("referer", "<RefererConfiguration><AllowEmptyReferer>maybe</AllowEmptyReferer><RefererList/></RefererConfiguration>", "MalformedXML"),
        ("tagging", "<Tagging><TagSet>" + (0..<21).map { "<Tag><Key>k\($0)</Key><Value>v</Value></Tag>" }.joined() + "</TagSet></Tagging>", "InvalidTag"),
        ("tagging", "<Tagging><TagSet><Tag><Key>k</Key><Value>1</Value></Tag><Tag><Key>k</Key><Value>2</Value></Tag></TagSet></Tagging>", "InvalidTag"),
        ("encryption", "<ServerSideEncryptionRule><ApplyServerSideEncryptionByDefault><SSEAlgorithm>DES</SSEAlgorithm></ApplyServerSideEncryptionByDefault></ServerSideEncryptionRule>", "InvalidArgument"),
        ("encryption", "<ServerSideEncryptionRule><ApplyServerSideEncryptionByDefault><SSEAlgorithm>AES256</SSEAlgorithm><KMSMasterKeyID>k</KMSMasterKeyID></ApplyServerSideEncryptionByDefault></ServerSideEncryptionRule>", "InvalidArgument"),
        ("logging", "<BucketLoggingStatus><LoggingEnabled><TargetBucket>no-such-bucket</TargetBucket></LoggingEnabled></BucketLoggingStatus>", "InvalidTargetBucketForLogging"),
        ("website", "<WebsiteConfiguration></WebsiteConfiguration>", "MalformedXML"),
        ("website", "<WebsiteConfiguration><IndexDocument><Suffix>index.html</Suffix></IndexDocument><ErrorDocument><Key>e.html</Key><HttpStatus>500</HttpStatus></ErrorDocument></WebsiteConfiguration>", "InvalidArgument"),
        ("requestPayment", "<RequestPaymentConfiguration><Payer>Nobody</Payer></RequestPaymentConfiguration>", "InvalidArgument"),
        ("transferAcceleration", "<TransferAccelerationConfiguration><Enabled>yes</Enabled></TransferAccelerationConfiguration>", "MalformedXML"),
        ("policy", "{not json", "InvalidPolicyDocument"),
        ("policy", #"{"Version":"2","Statement":[{"Effect":"Allow","Action":"oss:*"}]}"#, "InvalidPolicyDocument"),
        ("policy", #"{"Version":"1","Statement":[{"Effect":"Maybe","Action":"oss:*"}]}"#, "InvalidPolicyDocument"),
    ]

    @Test func everyFamilyStoresReadsAndDeletes() async throws {
        try await withLocalOSSServer(.init(buckets: ["cfg", "logs"])) { server in
            let client = TestClient(server)
            for family in Self.families {
                let unset = try await client.send("GET", bucket: "cfg", query: [family.subresource: ""])
                if let code = family.unsetCode {
                    #expect(unset.status == 404 && unset.errorCode == code, "\(family.subresource): \(unset.text)")
                } else {
                    #expect(unset.status == 200, "\(family.subresource): \(unset.text)")
                }
                let put = try await client.send(
                    "PUT", bucket: "cfg", query: [family.subresource: ""], body: Array(family.document.utf8))
                #expect(put.status == 200, "\(family.subresource): \(put.text)")
                let get = try await client.send("GET", bucket: "cfg", query: [family.subresource: ""])
                #expect(get.status == 200, "\(family.subresource): \(get.text)")
                #expect(Self.squeezed(get.text).contains(Self.firstValue(family.document)), "\(family.subresource): \(get.text)")
                let delete = try await client.send("DELETE", bucket: "cfg", query: [family.subresource: ""])
                if family.deletable {
                    #expect(delete.status == 204, "\(family.subresource): \(delete.text)")
                    let gone = try await client.send("GET", bucket: "cfg", query: [family.subresource: ""])
                    #expect(gone.status == (family.unsetCode == nil ? 200 : 404), "\(family.subresource)")
                    #expect(!Self.squeezed(gone.text).contains(Self.firstValue(family.document)), "\(family.subresource)")
                } else {
                    #expect(delete.status == 501, "\(family.subresource) has no delete: \(delete.status)")
                }
            }
        }
    }

    @Test func refusedDocumentsAreNotStored() async throws {
        try await withLocalOSSServer(.init(buckets: ["cfg"])) { server in
            let client = TestClient(server)
            for (subresource, document, code) in Self.refused {
                let put = try await client.send("PUT", bucket: "cfg", query: [subresource: ""], body: Array(document.utf8))
                #expect(put.status == 400 && put.errorCode == code, "\(subresource) \(document.prefix(120)): \(put.text)")
            }
            let cors = try await client.send("GET", bucket: "cfg", query: ["cors": ""])
            #expect(cors.errorCode == "NoSuchCORSConfiguration")
            let missing = try await client.send("GET", bucket: "nobucket", query: ["lifecycle": ""])
            #expect(missing.errorCode == "NoSuchBucket")
        }
    }

    @Test func configurationsSurviveARestartAndGoWithTheirBucket() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cfg-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withLocalOSSServer(.init(dataDirectory: directory, buckets: ["cfg", "gone"])) { server in
            let client = TestClient(server)
            for bucket in ["cfg", "gone"] {
                let put = try await client.send("PUT", bucket: bucket, query: ["cors": ""], body: Array(Self.cors.utf8))
                #expect(put.status == 200, "\(put.text)")
            }
            #expect(try await client.send("DELETE", bucket: "gone").status == 204)
        }
        try await withLocalOSSServer(.init(dataDirectory: directory)) { server in
            let client = TestClient(server)
            let get = try await client.send("GET", bucket: "cfg", query: ["cors": ""])
            #expect(get.status == 200 && get.text.contains("https://*.example.com"), "\(get.text)")
            #expect(try await client.send("PUT", bucket: "gone").status == 200)
            let fresh = try await client.send("GET", bucket: "gone", query: ["cors": ""])
            #expect(fresh.errorCode == "NoSuchCORSConfiguration", "a bucket made again starts without the old rules")
        }
    }

    @Test func preflightIsAnsweredFromTheRules() async throws {
        try await withLocalOSSServer(.init(buckets: ["web"])) { server in
            let client = TestClient(server)
            let preflight = { (origin: String, method: String, headers: String?) async throws -> TestClient.Response in
                var h = ["Origin": origin, "Access-Control-Request-Method": method]
                if let headers { h["Access-Control-Request-Headers"] = headers }
                return try await client.send("OPTIONS", bucket: "web", key: "up/file.txt", headers: h, sign: false)
            }
            let disabled = try await preflight("https://app.example.com", "PUT", nil)
            #expect(disabled.status == 403 && disabled.errorCode == "AccessForbidden", "\(disabled.text)")
            #expect(disabled.header("Access-Control-Allow-Origin") == nil)

            #expect(try await client.send("PUT", bucket: "web", query: ["cors": ""], body: Array(Self.cors.utf8)).status == 200)
            let allowed = try await preflight("https://app.example.com", "PUT", "x-oss-meta-a, Content-Type")
            #expect(allowed.status == 200, "\(allowed.text)")
            #expect(allowed.header("Access-Control-Allow-Origin") == "https://app.example.com")
            #expect(allowed.header("Access-Control-Allow-Methods") == "GET, PUT")
            #expect(allowed.header("Access-Control-Allow-Headers") == "x-oss-meta-a, Content-Type")
            #expect(allowed.header("Access-Control-Expose-Headers") == "ETag, x-oss-request-id")
            #expect(allowed.header("Access-Control-Max-Age") == "600")
            #expect(allowed.header("Vary") == "Origin")

            let anyOrigin = try await preflight("https://elsewhere.org", "HEAD", nil)
            #expect(anyOrigin.status == 200 && anyOrigin.header("Access-Control-Allow-Origin") == "*")
            #expect(anyOrigin.header("Access-Control-Allow-Methods") == "HEAD")

            for (origin, method, headers) in [
                ("https://evil.com", "PUT", nil), ("https://example.com", "PUT", nil),
                ("https://app.example.com", "DELETE", nil), ("https://app.example.com", "PUT", "Authorization"),
                ("https://elsewhere.org", "GET", nil),
            ] as [(String, String, String?)] {
                let refused = try await preflight(origin, method, headers)
                #expect(refused.status == 403 && refused.errorCode == "AccessForbidden", "\(origin) \(method) \(headers ?? "")")
                #expect(refused.header("Access-Control-Allow-Origin") == nil)
            }
            let noMethod = try await client.send(
                "OPTIONS", bucket: "web", key: "k", headers: ["Origin": "https://app.example.com"], sign: false)
            #expect(noMethod.status == 403)
        }
    }

    @Test func matchingRequestsCarryTheCORSHeaders() async throws {
        try await withLocalOSSServer(.init(buckets: ["web"])) { server in
            let client = TestClient(server)
            #expect(try await client.send("PUT", bucket: "web", key: "o", body: [1, 2]).status == 200)
            let before = try await client.send("GET", bucket: "web", key: "o", headers: ["Origin": "https://app.example.com"])
            #expect(before.status == 200 && before.header("Access-Control-Allow-Origin") == nil)

            #expect(try await client.send("PUT", bucket: "web", query: ["cors": ""], body: Array(Self.cors.utf8)).status == 200)
            let get = try await client.send("GET", bucket: "web", key: "o", headers: ["Origin": "https://app.example.com"])
            #expect(get.status == 200 && get.body == [1, 2])
            #expect(get.header("Access-Control-Allow-Origin") == "https://app.example.com")
            #expect(get.header("Access-Control-Allow-Methods") == "GET, PUT")
            #expect(get.header("Access-Control-Expose-Headers") == "ETag, x-oss-request-id")
            #expect(get.header("Access-Control-Allow-Headers") == nil)
            #expect(get.header("Vary") == "Origin")

            let missing = try await client.send("GET", bucket: "web", key: "none", headers: ["Origin": "https://app.example.com"])
            #expect(missing.status == 404 && missing.header("Access-Control-Allow-Origin") == "https://app.example.com",
                "a browser script can read the error too")
            let foreign = try await client.send("GET", bucket: "web", key: "o", headers: ["Origin": "https://evil.com"])
            #expect(foreign.status == 200 && foreign.header("Access-Control-Allow-Origin") == nil)
            #expect(foreign.header("Vary") == "Origin", "ResponseVary holds whether or not a rule matched")
            let delete = try await client.send("DELETE", bucket: "web", key: "o", headers: ["Origin": "https://app.example.com"])
            #expect(delete.status == 204 && delete.header("Access-Control-Allow-Origin") == nil, "DELETE is not allowed")
        }
    }

    /// The document without white space between elements.
    static func squeezed(_ text: String) -> String {
        text.replacingOccurrences(of: ">\\s+<", with: "><", options: .regularExpression)
    }

    /// The text of a document's first leaf element (or, for JSON, the document's first string value).
    static func firstValue(_ document: String) -> String {
        if document.hasPrefix("{") { return "oss:GetObject" }
        let squeezed = squeezed(document)
        guard let range = squeezed.range(of: ">[^<>]+<", options: .regularExpression) else { return squeezed }
        return String(squeezed[range])
    }
}
