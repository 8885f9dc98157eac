import AliyunOSS
import BrowserUpload
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import OSSLocalServer
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The browser-upload backend, served by Hummingbird's router test framework, signing for the embedded local OSS
/// server; what it signs is then sent to that server as a browser would (URLSession), so each limit is checked
/// where it matters: the server refuses what the backend did not allow.
@Suite
struct BrowserUploadTests {
    static let partSize: Int64 = 256 << 10

    func withBackend(_ body: @Sendable (BrowserUpload, LocalOSSServer, any TestClientProtocol) async throws -> Void) async throws {
        try await withLocalOSSServer(LocalOSSServerConfiguration(region: "cn-hangzhou", buckets: ["uploads"])) { server in
            try await withOSSClient(
                endpoint: server.endpoint.absoluteString, credentialProvider: server.credentials.provider,
                configuration: OSSClientConfiguration(region: "cn-hangzhou", signatureVersion: .v4)
            ) { client in
                let backend = BrowserUpload(
                    client: client, bucket: "uploads", formLimit: 64 << 10, multipartLimit: 1 << 20, partSize: Self.partSize)
                try await Application(router: backend.router()).test(.router) { http in try await body(backend, server, http) }
            }
        }
    }

    /// Signs in as `user` and returns the session cookie to send.
    func signIn(_ user: String, _ http: any TestClientProtocol) async throws -> HTTPFields {
        let response = try await http.execute(
            uri: "/session", method: .post, headers: [.contentType: "application/json"],
            body: ByteBuffer(string: #"{"user":"\#(user)"}"#))
        #expect(response.status == .ok)
        let cookie = try #require(response.headers[.setCookie]?.split(separator: ";").first.map(String.init))
        #expect(response.headers[.setCookie]?.contains("HttpOnly") == true)
        return [.cookie: cookie, .contentType: "application/json"]
    }

    func post(_ uri: String, _ json: String, _ headers: HTTPFields, _ http: any TestClientProtocol) async throws -> TestResponse {
        try await http.execute(uri: uri, method: .post, headers: headers, body: ByteBuffer(string: json))
    }

    func decode<T: Decodable>(_ type: T.Type, _ response: TestResponse) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(type, from: Data(response.body.readableBytesView))
    }

    /// Posts a PostObject form as a browser's FormData does: the fields in order, then the file.
    func postForm(_ form: BrowserUpload.Form, replacing replaced: [String: String] = [:], file: [UInt8]) async throws -> Int {
        let boundary = "----browser-upload-test"
        var body = Data()
        for field in form.fields {
            body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(field.name)\"\r\n\r\n".utf8))
            body.append(Data("\(replaced[field.name] ?? field.value)\r\n".utf8))
        }
        body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"f\"\r\n".utf8))
        body.append(Data("Content-Type: application/octet-stream\r\n\r\n".utf8))
        body.append(Data(file))
        body.append(Data("\r\n--\(boundary)--\r\n".utf8))
        var request = URLRequest(url: try #require(URL(string: form.url)))
        request.httpMethod = "POST"
        request.setValue("multipart/form-data; boundary=\(boundary)", forHTTPHeaderField: "Content-Type")
        let (_, response) = try await URLSession.shared.upload(for: request, from: body)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    /// Sends a presigned request with its signed headers.
    func send(_ link: BrowserUpload.Link, body: [UInt8]? = nil) async throws -> (Int, Data) {
        var request = URLRequest(url: try #require(URL(string: link.url)))
        request.httpMethod = link.method
        for (name, value) in link.headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) =
            if let body { try await URLSession.shared.upload(for: request, from: Data(body)) } else {
                try await URLSession.shared.data(for: request)
            }
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    func objectBytes(_ key: String, _ client: OSSClient) async throws -> [UInt8]? {
        do {
            return try await client.getObject(OSSGetObjectRequest(bucketName: "uploads", objectKey: key)).content.map { Array($0) }
        } catch let error as OSSServerError where error.statusCode == 404 {
            return nil
        }
    }

    @Test func aSmallFileGoesUpWithAFormSignedForItsKeySizeAndTypeOnly() async throws {
        try await withBackend { backend, _, http in
            let request = #"{"key":"users/alice/note.txt","size":11,"contentType":"text/plain"}"#
            #expect(try await post("/uploads/form", request, [.contentType: "application/json"], http).status == .unauthorized)
            let alice = try await signIn("alice", http)
            let session = try decode(BrowserUpload.Session.self, try await http.execute(uri: "/session", method: .get, headers: alice))
            #expect(session.user == "alice" && session.prefix == "users/alice/" && session.formLimit == 64 << 10)

            let signedAt = Date()
            let form = try decode(BrowserUpload.Form.self, try await post("/uploads/form", request, alice, http))
            let policy = try #require(form.fields.first { $0.name == "policy" }.flatMap { Data(base64Encoded: $0.value) })
            let document = String(decoding: policy, as: UTF8.self)
            #expect(document.contains(#"["eq","$key","users/alice/note.txt"]"#), "\(document)")
            #expect(document.contains(#"["content-length-range",11,11]"#), "\(document)")
            #expect(form.expiration.timeIntervalSince(signedAt) <= backend.linkLifetime + 1)

            // The server takes exactly that file, and refuses another key, another size or another type.
            #expect(try await postForm(form, replacing: ["key": "users/bob/note.txt"], file: Array("hello world".utf8)) == 403)
            #expect(try await postForm(form, file: Array("hello world!".utf8)) == 400)
            #expect(try await postForm(form, replacing: ["content-type": "text/html"], file: Array("hello world".utf8)) == 403)
            #expect(try await objectBytes("users/bob/note.txt", backend.client) == nil)
            #expect(try await objectBytes("users/alice/note.txt", backend.client) == nil)
            #expect(try await postForm(form, file: Array("hello world".utf8)) == 204)
            #expect(try await objectBytes("users/alice/note.txt", backend.client) == Array("hello world".utf8))

            let listing = try decode(BrowserUpload.Listing.self, try await http.execute(uri: "/objects", method: .get, headers: alice))
            #expect(listing.objects == [.init(key: "users/alice/note.txt", size: 11)])
            let bob = try await signIn("bob", http)
            #expect(try decode(BrowserUpload.Listing.self, try await http.execute(uri: "/objects", method: .get, headers: bob)).objects.isEmpty)
        }
    }

    @Test func theBackendSignsNothingOutsideTheUsersPrefixOrOverTheLimit() async throws {
        try await withBackend { backend, _, http in
            let alice = try await signIn("alice", http)
            for key in ["users/bob/x", "users/bob/holiday-photo.jpg", "users/alice", "users/alice/", "users/alice/a/b", "users/alice/..", "x/users/alice/y"] {
                for uri in ["/uploads/form", "/uploads/multipart"] {
                    let response = try await post(uri, #"{"key":"\#(key)","size":1}"#, alice, http)
                    #expect(response.status == .forbidden, "\(uri) \(key)")
                }
            }
            #expect(try await post("/uploads/form", #"{"key":"users/alice/a","size":65537}"#, alice, http).status == .contentTooLarge)
            #expect(
                try await post("/uploads/multipart", #"{"key":"users/alice/a","size":1048577}"#, alice, http).status == .contentTooLarge)
            #expect(try await post("/uploads/form", #"{"key":"users/alice/a","size":-1}"#, alice, http).status == .badRequest)
            #expect(
                try await post("/session", #"{"user":"Bob/../alice"}"#, [.contentType: "application/json"], http).status == .badRequest)
            #expect(try await http.execute(uri: "/objects", method: .get, headers: [.cookie: "session=forged"]).status == .unauthorized)

            // Bob's upload cannot be resumed under Alice's key: the id is checked against the key.
            let bob = try await signIn("bob", http)
            let bobs = try decode(
                BrowserUpload.Plan.self, try await post("/uploads/multipart", #"{"key":"users/bob/big","size":300000}"#, bob, http))
            let stolen = #"{"key":"users/alice/big","size":300000,"uploadId":"\#(bobs.uploadId)"}"#
            #expect(try await post("/uploads/multipart", stolen, alice, http).status == .notFound)
            let listed = try await backend.client.listObjectsV2(OSSListObjectsV2Request(bucketName: "uploads"))
            #expect(listed.contents.isEmpty)
        }
    }

    @Test func aLargeFileGoesUpInPresignedPartsResumesAndIsCompletedByTheBackend() async throws {
        try await withBackend { backend, _, http in
            let alice = try await signIn("alice", http)
            let file = (0..<600_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) }
            let request = #"{"key":"users/alice/video.bin","size":600000,"contentType":"video/mp4"}"#
            let plan = try decode(BrowserUpload.Plan.self, try await post("/uploads/multipart", request, alice, http))
            #expect(plan.partSize == Self.partSize && plan.parts.count == 3)
            let part = { (number: Int) in Array(file[(number - 1) * Int(Self.partSize)..<min(number * Int(Self.partSize), file.count)]) }
            #expect(try await send(plan.parts[0], body: part(1)).0 == 200)
            let early = #"{"key":"users/alice/video.bin","uploadId":"\#(plan.uploadId)","size":600000}"#
            #expect(try await post("/uploads/complete", early, alice, http).status == .conflict)

            // After a reload: a plan for the same upload, and ListParts (presigned) says part 1 is there.
            let resumed = #"{"key":"users/alice/video.bin","size":600000,"uploadId":"\#(plan.uploadId)"}"#
            let again = try decode(BrowserUpload.Plan.self, try await post("/uploads/multipart", resumed, alice, http))
            #expect(again.uploadId == plan.uploadId)
            let (status, listing) = try await send(again.listParts)
            #expect(status == 200)
            let xml = String(decoding: listing, as: UTF8.self)
            #expect(xml.contains("<PartNumber>1</PartNumber>") && !xml.contains("<PartNumber>2</PartNumber>"), "\(xml)")
            #expect(try await send(again.parts[1], body: part(2)).0 == 200)
            #expect(try await send(again.parts[2], body: part(3)).0 == 200)

            let stored = try decode(BrowserUpload.Stored.self, try await post("/uploads/complete", early, alice, http))
            #expect(stored.size == 600_000)
            #expect(try await objectBytes("users/alice/video.bin", backend.client) == file)
            let head = try await backend.client.headObject(OSSHeadObjectRequest(bucketName: "uploads", objectKey: "users/alice/video.bin"))
            #expect(head.contentType == "video/mp4" && stored.crc64 == head.crc64.map { String($0) } && stored.crc64 != nil)
        }
    }

    @Test func partsThatBreakThePlanAreAbortedNotCompleted() async throws {
        try await withBackend { backend, _, http in
            let alice = try await signIn("alice", http)
            let request = #"{"key":"users/alice/big.bin","size":300000}"#
            let plan = try decode(BrowserUpload.Plan.self, try await post("/uploads/multipart", request, alice, http))
            #expect(plan.parts.count == 2)
            // A presigned part URL does not limit the part's size: 2 MiB sent as part 1 of a 300 000-byte file.
            #expect(try await send(plan.parts[0], body: [UInt8](repeating: 1, count: 2 << 20)).0 == 200)
            #expect(try await send(plan.parts[1], body: [UInt8](repeating: 2, count: 300_000 - Int(Self.partSize))).0 == 200)
            let complete = #"{"key":"users/alice/big.bin","uploadId":"\#(plan.uploadId)","size":300000}"#
            #expect(try await post("/uploads/complete", complete, alice, http).status == .contentTooLarge)
            #expect(try await objectBytes("users/alice/big.bin", backend.client) == nil)
            await #expect(throws: OSSServerError.self) {
                try await backend.client.listParts(
                    OSSListPartsRequest(bucketName: "uploads", objectKey: "users/alice/big.bin", uploadId: plan.uploadId))
            }
        }
    }

    @Test func thePageIsServedAndTheBucketAllowsItsOriginOnly() async throws {
        try await withBackend { backend, server, http in
            let page = try await http.execute(uri: "/", method: .get)
            #expect(page.status == .ok && page.headers[.contentType]?.hasPrefix("text/html") == true)
            #expect(String(buffer: page.body).contains(#"<script src="upload.js">"#))
            let script = try await http.execute(uri: "/upload.js", method: .get)
            #expect(String(buffer: script.body).contains("/uploads/multipart"))

            try await backend.allowBrowsers(from: ["http://127.0.0.1:8080"])
            func preflight(_ origin: String) async throws -> (Int, String?) {
                var request = URLRequest(url: server.endpoint.appendingPathComponent("uploads/users/alice/a"))
                request.httpMethod = "OPTIONS"
                request.setValue(origin, forHTTPHeaderField: "Origin")
                request.setValue("PUT", forHTTPHeaderField: "Access-Control-Request-Method")
                let (_, response) = try await URLSession.shared.data(for: request)
                let http = try #require(response as? HTTPURLResponse)
                return (http.statusCode, http.value(forHTTPHeaderField: "Access-Control-Allow-Origin"))
            }
            #expect(try await preflight("http://127.0.0.1:8080") == (200, "http://127.0.0.1:8080"))
            #expect(try await preflight("http://evil.example").0 == 403)
        }
    }
}
