import Foundation
import OSSLocalServer
import OSSSigning
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A PostObject form built by hand (policy JSON written here, signed with OSSSigning's primitives), so the server is
/// tested without the SDK.
struct PostForm {
    var fields: [(String, String)] = []
    var fileName = "photo.jpg"
    var fileType: String? = "image/jpeg"
    var file: [UInt8] = Array("hello from a browser".utf8)
    /// Fields after the file (OSS ignores them).
    var trailing: [(String, String)] = []
    /// Where the file goes: after the fields (as OSS requires) or before them.
    var fileFirst = false
    let boundary = "----PostObjectTestBoundary\(UInt32.random(in: 0...UInt32.max))"

    var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    func field(_ name: String, _ value: String) -> [UInt8] {
        Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
    }

    var fileBytes: [UInt8] {
        var part = "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\(fileName)\"\r\n"
        if let fileType { part += "Content-Type: \(fileType)\r\n" }
        return Array((part + "\r\n").utf8) + file + Array("\r\n".utf8)
    }

    var body: [UInt8] {
        var out: [UInt8] = []
        if fileFirst { out += fileBytes }
        for (name, value) in fields { out += field(name, value) }
        if !fileFirst { out += fileBytes }
        for (name, value) in trailing { out += field(name, value) }
        return out + Array("--\(boundary)--\r\n".utf8)
    }

    /// The policy document with `conditions` (JSON fragments), expiring `expiresIn` seconds from now.
    static func policy(_ conditions: [String], expiresIn: TimeInterval = 600) -> String {
        let expiration = OSSDateFormat.iso8601Milliseconds(Date().addingTimeInterval(expiresIn))
        return #"{"expiration":"\#(expiration)","conditions":[\#(conditions.joined(separator: ","))]}"#
    }

    /// Adds the V1 signature fields for `document`.
    mutating func signV1(_ document: String, credentials: OSSCredentials) {
        let policy = OSSPostPolicySignature.encodePolicy(document)
        fields += [
            ("OSSAccessKeyId", credentials.accessKeyId), ("policy", policy),
            ("Signature", OSSPostPolicySignature.v1(policy: policy, secret: credentials.accessKeySecret)),
        ]
        if let token = credentials.securityToken { fields.append(("x-oss-security-token", token)) }
    }

    /// Adds the V4 fields: the policy `conditions` gain the exact signing-field conditions.
    mutating func signV4(_ conditions: [String], credentials: OSSCredentials, expiresIn: TimeInterval = 600) {
        let v4 = OSSPostPolicySignature.v4Fields(credentials: credentials, date: Date(), region: "cn-hangzhou")
        let bound = v4.pairs.map { #"{"\#($0.0)":"\#($0.1)"}"# }
        let policy = OSSPostPolicySignature.encodePolicy(Self.policy(conditions + bound, expiresIn: expiresIn))
        fields.append(("policy", policy))
        fields += v4.pairs
        fields.append(
            ("x-oss-signature",
             OSSPostPolicySignature.v4(
                policy: policy, secret: credentials.accessKeySecret, day: String(v4.date.prefix(8)), region: "cn-hangzhou")))
    }

    mutating func sign(_ version: TestClient.Version, _ conditions: [String], credentials: OSSCredentials) {
        switch version {
        case .v1: signV1(Self.policy(conditions), credentials: credentials)
        case .v4: signV4(conditions, credentials: credentials)
        }
    }

    func post(
        to client: TestClient, bucket: String, body: [UInt8]? = nil, contentType: String? = nil
    ) async throws -> TestClient.Response {
        try await client.execute(
            "POST", url: client.url(bucket: bucket, key: nil, query: [:]),
            headers: ["Content-Type": contentType ?? self.contentType], body: body ?? self.body)
    }
}

/// XML text with its `&quot;` entities back as quotes.
func unescaped(_ text: String?) -> String? { text?.replacingOccurrences(of: "&quot;", with: "\"") }

@Suite("PostObject: browser form uploads")
struct PostObjectTests {
    static let sts = OSSCredentials(accessKeyId: "STS.PostKey", accessKeySecret: "PostSecret", securityToken: "CAIS+Post/Tok=en")

    static func configuration() -> LocalOSSServerConfiguration {
        var configuration = LocalOSSServerConfiguration(stsCredentials: [sts], region: "cn-hangzhou", buckets: ["forms"])
        configuration.postObjectIdleTimeout = .seconds(1)
        return configuration
    }

    static let conditions = [
        #"{"bucket":"forms"}"#, #"["starts-with","$key","users/alice/"]"#, #"["content-length-range",1,1024]"#,
        #"["in","$content-type",["image/jpeg","image/png"]]"#, #"["eq","$x-oss-meta-owner","alice"]"#,
    ]

    static func keys(_ client: TestClient, bucket: String = "forms") async throws -> [String] {
        xmlValues("Key", in: try await client.send("GET", bucket: bucket).text)
    }

    @Test(arguments: TestClient.Version.allCases)
    func signedFormsStoreTheFileWithItsFields(version: TestClient.Version) async throws {
        try await withLocalOSSServer(Self.configuration()) { server in
            let client = TestClient(server)
            var form = PostForm()
            form.fields = [
                ("key", "users/alice/${filename}"), ("Content-Type", "image/png"), ("x-oss-meta-owner", "alice"),
                ("success_action_status", "201"), ("Cache-Control", "no-cache"),
            ]
            form.fileName = "C:\\fakepath\\cat.png"
            form.file = randomBytes(1000)
            form.trailing = [("submit", "Upload")]
            form.sign(version, Self.conditions, credentials: server.credentials)
            let response = try await form.post(to: client, bucket: "forms")
            #expect(response.status == 201, "\(response.text)")
            #expect(xmlValue("Key", in: response.text) == "users/alice/cat.png")
            #expect(xmlValue("Bucket", in: response.text) == "forms")
            #expect(unescaped(xmlValue("ETag", in: response.text)) == response.header("ETag"))
            #expect(xmlValue("Location", in: response.text)?.hasSuffix("/forms/users/alice/cat.png") == true)
            let stored = try await client.send("GET", bucket: "forms", key: "users/alice/cat.png")
            #expect(stored.body == form.file)
            #expect(stored.header("Content-Type") == "image/png")
            #expect(stored.header("x-oss-meta-owner") == "alice")
            #expect(stored.header("Cache-Control") == "no-cache")
            #expect(stored.header("ETag") == response.header("ETag"))
            #expect(stored.header("x-oss-hash-crc64ecma") == response.header("x-oss-hash-crc64ecma"))
        }
    }

    @Test(arguments: TestClient.Version.allCases)
    func temporaryCredentialsNeedTheirToken(version: TestClient.Version) async throws {
        try await withLocalOSSServer(Self.configuration()) { server in
            let client = TestClient(server)
            var form = PostForm()
            form.fields = [("key", "users/alice/sts.jpg"), ("content-type", "image/jpeg"), ("x-oss-meta-owner", "alice")]
            var signed = form
            signed.sign(version, Self.conditions, credentials: Self.sts)
            #expect(try await signed.post(to: client, bucket: "forms").status == 204)
            // The same form without its token field.
            var stripped = signed
            stripped.fields.removeAll { $0.0 == "x-oss-security-token" }
            let refused = try await stripped.post(to: client, bucket: "forms")
            #expect(refused.status == 403 && refused.errorCode == "InvalidSecurityToken", "\(refused.text)")
        }
    }

    /// Every hostile form gets OSS's answer, and none stores anything.
    @Test(arguments: TestClient.Version.allCases)
    func hostileFormsAreRefusedAndStoreNothing(version: TestClient.Version) async throws {
        try await withLocalOSSServer(Self.configuration()) { server in
            let client = TestClient(server)
            let credentials = server.credentials
            func good() -> PostForm {
                var form = PostForm()
                form.fields = [("key", "users/alice/x.jpg"), ("content-type", "image/jpeg"), ("x-oss-meta-owner", "alice")]
                return form
            }
            func expectRefused(
                _ form: PostForm, body: [UInt8]? = nil, contentType: String? = nil, _ status: Int, _ code: String,
                _ message: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
            ) async throws {
                let response = try await form.post(to: client, bucket: "forms", body: body, contentType: contentType)
                #expect(response.status == status && response.errorCode == code, "\(response.text)", sourceLocation: sourceLocation)
                if let message {
                    #expect(unescaped(xmlValue("Message", in: response.text)) == message, sourceLocation: sourceLocation)
                }
            }

            // Expired policy.
            var expired = good()
            switch version {
            case .v1: expired.signV1(PostForm.policy(Self.conditions, expiresIn: -5), credentials: credentials)
            case .v4: expired.signV4(Self.conditions, credentials: credentials, expiresIn: -5)
            }
            try await expectRefused(expired, 403, "AccessDenied", "Invalid according to Policy: Policy expired.")

            // Tampered signature, tampered policy.
            var tampered = good()
            tampered.sign(version, Self.conditions, credentials: credentials)
            let signatureField = version == .v1 ? "Signature" : "x-oss-signature"
            var badSignature = tampered
            badSignature.fields = badSignature.fields.map { $0.0 == signatureField ? ($0.0, String($0.1.reversed())) : $0 }
            try await expectRefused(badSignature, 403, "SignatureDoesNotMatch")
            var badPolicy = tampered
            let widened = OSSPostPolicySignature.encodePolicy(PostForm.policy([#"["starts-with","$key",""]"#]))
            badPolicy.fields = badPolicy.fields.map { $0.0 == "policy" ? ($0.0, widened) : $0 }
            try await expectRefused(badPolicy, 403, "SignatureDoesNotMatch")

            // A file over, and under, the length range.
            var large = good()
            large.file = randomBytes(1025)
            large.sign(version, Self.conditions, credentials: credentials)
            try await expectRefused(large, 400, "EntityTooLarge", "Your proposed upload exceeds the maximum allowed size.")
            var huge = good()
            huge.file = randomBytes(3 << 20)  // refused while streaming, the rest read and dropped
            huge.sign(version, Self.conditions, credentials: credentials)
            try await expectRefused(huge, 400, "EntityTooLarge")
            var empty = good()
            empty.file = []
            empty.sign(version, Self.conditions, credentials: credentials)
            try await expectRefused(empty, 400, "EntityTooSmall", "Your proposed upload is smaller than the minimum allowed size.")

            // A key outside the prefix, a content type and a metadata value the policy does not allow.
            var outside = good()
            outside.fields[0] = ("key", "users/bob/x.jpg")
            outside.sign(version, Self.conditions, credentials: credentials)
            try await expectRefused(
                outside, 403, "AccessDenied",
                #"Invalid according to Policy: Policy Condition failed: ["starts-with", "$key", "users/alice/"]"#)
            var html = good()
            html.fields[1] = ("Content-Type", "text/html")
            html.sign(version, Self.conditions, credentials: credentials)
            try await expectRefused(html, 403, "AccessDenied")
            var owner = good()
            owner.fields[2] = ("x-oss-meta-owner", "mallory")
            owner.sign(version, Self.conditions, credentials: credentials)
            try await expectRefused(owner, 403, "AccessDenied")

            // The file before the policy: at the file, the form is unsigned, and the bucket is private.
            var first = good()
            first.sign(version, Self.conditions, credentials: credentials)
            first.fileFirst = true
            try await expectRefused(first, 403, "AccessDenied")

            // A form cut off inside the file, and one with no closing boundary after the file.
            var cut = good()
            cut.sign(version, Self.conditions, credentials: credentials)
            let whole = cut.body
            let fileEnd = whole.count - Array("\r\n--\(cut.boundary)--\r\n".utf8).count
            try await expectRefused(cut, body: Array(whole.prefix(fileEnd - 5)), 400, "MalformedPOSTRequest")
            try await expectRefused(cut, body: Array(whole.prefix(fileEnd + 2)), 400, "MalformedPOSTRequest")

            // A form whose content type has no boundary (400, not 501).
            var unbounded = good()
            unbounded.sign(version, Self.conditions, credentials: credentials)
            try await expectRefused(unbounded, contentType: "multipart/form-data", 400, "MalformedPOSTRequest")

            // OSS's limits: a field value at most 2 MB, the values before the file at most 8 MB in all.
            var long = good()
            long.fields.append(("x-oss-meta-blob", String(repeating: "x", count: 2 * 1024 * 1024 + 1)))
            long.sign(version, Self.conditions, credentials: credentials)
            try await expectRefused(long, 400, "InvalidArgument", "The form field x-oss-meta-blob is longer than 2 MB.")
            var many = good()
            for index in 0..<5 { many.fields.append(("x-ignored-\(index)", String(repeating: "y", count: 1_900_000))) }
            many.sign(version, Self.conditions, credentials: credentials)
            try await expectRefused(
                many, 400, "InvalidArgument", "The form fields before the file are longer than 8 MB in all (at x-ignored-4).")

            // A V4 policy that does not bind its signing fields.
            if version == .v4 {
                var unbound = good()
                let v4 = OSSPostPolicySignature.v4Fields(credentials: credentials, date: Date(), region: "cn-hangzhou")
                let policy = OSSPostPolicySignature.encodePolicy(PostForm.policy(Self.conditions))
                unbound.fields += [("policy", policy)] + v4.pairs
                unbound.fields.append(
                    ("x-oss-signature",
                     OSSPostPolicySignature.v4(
                        policy: policy, secret: credentials.accessKeySecret, day: String(v4.date.prefix(8)),
                        region: "cn-hangzhou")))
                try await expectRefused(
                    unbound, 403, "AccessDenied", "Invalid according to Policy: Extra input fields: x-oss-signature-version")
            }
            // A validly signed policy that is not a policy.
            var garbage = good()
            garbage.signV1(#"{"conditions":[]}"#, credentials: credentials)
            try await expectRefused(garbage, 400, "InvalidPolicyDocument")

            #expect(try await Self.keys(client).isEmpty)
        }
    }

    @Test func successActionStatusAndRedirect() async throws {
        try await withLocalOSSServer(Self.configuration()) { server in
            let client = TestClient(server)
            func post(_ extra: [(String, String)]) async throws -> TestClient.Response {
                var form = PostForm()
                form.fields = [("key", "a.txt")] + extra
                form.signV1(PostForm.policy([#"["starts-with","$key",""]"#]), credentials: server.credentials)
                return try await form.post(to: client, bucket: "forms")
            }
            #expect(try await post([]).status == 204)
            #expect(try await post([("success_action_status", "200")]).status == 200)
            #expect(try await post([("success_action_status", "999")]).status == 204)
            // Sent over a plain socket: an HTTP client would follow the redirect.
            var form = PostForm()
            form.fields = [
                ("key", "a.txt"), ("success_action_redirect", "https://app.example.com/done?from=form"),
                ("success_action_status", "201"),
            ]
            form.signV1(PostForm.policy([#"["starts-with","$key",""]"#]), credentials: server.credentials)
            let head =
                "POST /forms/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: \(form.contentType)\r\n"
                + "Content-Length: \(form.body.count)\r\n\r\n"
            let reply = try await RawConnection.exchange(
                port: server.endpoint.port ?? 0, send: Array(head.utf8) + form.body, readFor: 15)
            #expect(reply.hasPrefix("HTTP/1.1 303"), "\(reply)")
            #expect(reply.contains("Location: https://app.example.com/done?from=form&bucket=forms&key=a.txt&etag=%22"))
        }
    }

    @Test func anonymousFormsNeedAPublicReadWriteBucket() async throws {
        try await withLocalOSSServer(Self.configuration()) { server in
            let client = TestClient(server)
            var form = PostForm()
            form.fields = [("key", "anon.txt")]
            let refused = try await form.post(to: client, bucket: "forms")
            #expect(refused.status == 403 && refused.errorCode == "AccessDenied")
            let acl = try await client.send("PUT", bucket: "forms", query: ["acl": ""], headers: ["x-oss-acl": "public-read-write"])
            #expect(acl.status == 200)
            #expect(try await form.post(to: client, bucket: "forms").status == 204)
            #expect(try await client.send("GET", bucket: "forms", key: "anon.txt").body == form.file)
            let missing = try await PostForm().post(to: client, bucket: "forms")
            #expect(missing.status == 400 && missing.errorCode == "InvalidArgument")
            let noBucket = try await form.post(to: client, bucket: "no-such-bucket")
            #expect(noBucket.errorCode == "NoSuchBucket")
        }
    }

    /// A form is one more way to write an object, so every rule of the bucket holds for it as for a PUT: a policy's
    /// Deny, a public access block, the overwrite rules, default encryption.
    @Test func theBucketsRulesHoldForForms() async throws {
        try await withLocalOSSServer(Self.configuration()) { server in
            let client = TestClient(server)
            #expect(try await client.send("PUT", bucket: "forms", query: ["acl": ""], headers: ["x-oss-acl": "public-read-write"]).status == 200)
            let deny = #"{"Version":"1","Statement":[{"Effect":"Deny","Action":["oss:PutObject"],"Principal":["*"],"#
                + #""Resource":["acs:oss:*:*:forms/keep/*"]}]}"#
            #expect(try await client.send("PUT", bucket: "forms", query: ["policy": ""], body: Array(deny.utf8)).status == 200)
            var anonymous = PostForm()
            anonymous.fields = [("key", "keep/a.txt")]
            let denied = try await anonymous.post(to: client, bucket: "forms")
            #expect(denied.status == 403 && denied.errorCode == "AccessDenied", "\(denied.text)")
            anonymous.fields = [("key", "tmp/a.txt")]
            #expect(try await anonymous.post(to: client, bucket: "forms").status == 204)

            let block = "<PublicAccessBlockConfiguration><BlockPublicAccess>true</BlockPublicAccess></PublicAccessBlockConfiguration>"
            #expect(try await client.send("PUT", bucket: "forms", query: ["publicAccessBlock": ""], body: Array(block.utf8)).status == 200)
            anonymous.fields = [("key", "tmp/b.txt")]
            #expect(try await anonymous.post(to: client, bucket: "forms").errorCode == "AccessDenied")
            #expect(try await Self.keys(client).sorted() == ["tmp/a.txt"])

            let overwrite = "<OverwriteConfiguration><Rule><ID>conf</ID><Action>forbid</Action><Prefix>conf/</Prefix></Rule></OverwriteConfiguration>"
            #expect(try await client.send("PUT", bucket: "forms", query: ["overwriteConfig": ""], body: Array(overwrite.utf8)).status == 200)
            let encryption = "<ServerSideEncryptionRule><ApplyServerSideEncryptionByDefault><SSEAlgorithm>AES256</SSEAlgorithm>"
                + "</ApplyServerSideEncryptionByDefault></ServerSideEncryptionRule>"
            #expect(try await client.send("PUT", bucket: "forms", query: ["encryption": ""], body: Array(encryption.utf8)).status == 200)
            var signed = PostForm()
            signed.fields = [("key", "conf/app.json")]
            signed.sign(.v4, [#"{"bucket":"forms"}"#], credentials: server.credentials)
            #expect(try await signed.post(to: client, bucket: "forms").status == 204)
            let stored = try await client.send("HEAD", bucket: "forms", key: "conf/app.json")
            #expect(stored.header("x-oss-server-side-encryption") == "AES256")
            var again = PostForm()
            again.fields = [("key", "conf/app.json")]
            again.file = Array("replaced".utf8)
            again.sign(.v1, [#"{"bucket":"forms"}"#], credentials: server.credentials)
            let refused = try await again.post(to: client, bucket: "forms")
            #expect(refused.status == 409 && refused.errorCode == "FileAlreadyExists", "\(refused.text)")
            #expect(try await client.send("GET", bucket: "forms", key: "conf/app.json").body == signed.file)
        }
    }

    @Test func callbacksRunForPostedObjects() async throws {
        actor Received {
            var bodies: [String] = []
            func add(_ body: String) { bodies.append(body) }
        }
        let received = Received()
        let callbackServer = try await LocalHTTPServer.start { request in
            await received.add(String(decoding: request.body, as: UTF8.self))
            return .init(body: Data(#"{"ok":true}"#.utf8))
        }
        do {
            try await withLocalOSSServer(Self.configuration()) { server in
                let client = TestClient(server)
                let callback = Data(
                    #"{"callbackUrl":"\#(callbackServer.url.absoluteString)/cb","callbackBody":"object=${object}&user=${x:user}"}"#
                        .utf8
                ).base64EncodedString()
                var form = PostForm()
                form.fields = [("key", "cb.txt"), ("callback", callback), ("x:user", "alice")]
                form.signV1(PostForm.policy([#"{"callback":"\#(callback)"}"#]), credentials: server.credentials)
                let response = try await form.post(to: client, bucket: "forms")
                #expect(response.status == 200 && response.text == #"{"ok":true}"#, "\(response.text)")
                #expect(await received.bodies == ["object=cb.txt&user=alice"])
            }
        } catch {
            try? await callbackServer.shutdown()
            throw error
        }
        try await callbackServer.shutdown()
    }

    /// A form that stops arriving is answered 400 RequestTimeout after the idle timeout, and stores nothing.
    @Test func aFormThatNeverEndsTimesOut() async throws {
        try await withLocalOSSServer(Self.configuration()) { server in
            let client = TestClient(server)
            var form = PostForm()
            form.fields = [("key", "never.txt")]
            form.signV1(PostForm.policy([#"["starts-with","$key",""]"#]), credentials: server.credentials)
            let body = form.body
            let head =
                "POST /forms/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: \(form.contentType)\r\n"
                + "Content-Length: \(body.count + 1000)\r\n\r\n"
            let started = Date()
            let reply = try await RawConnection.exchange(
                port: server.endpoint.port ?? 0, send: Array(head.utf8) + body.dropLast(20), readFor: 15)
            #expect(Date().timeIntervalSince(started) < 10)
            #expect(reply.hasPrefix("HTTP/1.1 400"), "\(reply)")
            #expect(reply.contains("<Code>RequestTimeout</Code>"))
            #expect(try await Self.keys(client).isEmpty)
        }
    }
}

/// One blocking exchange over a plain TCP socket to 127.0.0.1, on a thread of its own: send the bytes, then read
/// until the server closes or `readFor` seconds pass.
enum RawConnection {
    static func exchange(port: Int, send bytes: [UInt8], readFor seconds: Int) async throws -> String {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<String, any Error>) in
            let thread = Thread {
                continuation.resume(with: Result { try run(port: port, bytes: bytes, seconds: seconds) })
            }
            thread.start()
        }
    }

    struct Failure: Error { var step: String }

    private static func run(port: Int, bytes: [UInt8], seconds: Int) throws -> String {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw Failure(step: "socket") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure(step: "connect") }
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { throw Failure(step: "send") }
            sent += n
        }
        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            reply += buffer[0..<n]
        }
        return String(decoding: reply, as: UTF8.self)
    }
}
