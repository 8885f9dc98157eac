import AliyunOSS
import Foundation
import Hummingbird

/// A backend that lets a browser upload straight to a bucket, never through itself: it serves one page
/// (`Page/index.html`, `Page/upload.js`) and hands a signed-in user what that page needs to upload, limited to the
/// user's prefix (`users/<name>/`), a size and a short time:
///
/// - `POST /session` `{"user": "alice"}` signs in (a sample's stand-in for a real sign-in, see ``Sessions``);
///   `GET /session` says who is signed in and the limits; `DELETE /session` signs out;
/// - `POST /uploads/form` `{"key", "size", "contentType"}`: a signed PostObject form (POST policy) for one file of at
///   most ``formLimit`` bytes, with the exact key and size in the policy;
/// - `POST /uploads/multipart` `{"key", "size", "contentType", "uploadId"?}`: a multipart plan for a file of at
///   most ``multipartLimit`` bytes: the backend initiates the upload (or, given `uploadId`, checks that it is
///   still there for that key), and presigns each part's `PUT`, the `ListParts` the page resumes from and the
///   `Abort` that discards the upload;
/// - `POST /uploads/complete` `{"key", "uploadId", "size"}`: the backend lists the parts, checks them against the
///   plan (a presigned part URL cannot limit a part's size, so a part that broke the plan makes the backend abort
///   the upload: nothing over the limit is ever stored) and completes the upload;
/// - `GET /objects`: the user's objects.
///
/// Everything the page signs is refused for a key outside the user's prefix (`403`) or a size over the limit
/// (`413`). The bucket needs a CORS rule for the page's origin: ``allowBrowsers(from:)``.
public struct BrowserUpload: Sendable {
    public let client: OSSClient
    public let bucket: String
    /// The largest file uploaded with a form (one POST); larger files go up in parts.
    public let formLimit: Int64
    /// The largest file uploaded in parts.
    public let multipartLimit: Int64
    /// The part size of a multipart plan (raised for a file that would need more than 1000 parts, so one
    /// presigned `ListParts` lists them all).
    public let partSize: Int64
    /// How many parts the page sends at once.
    public let parallelParts: Int
    /// How long a signed form or presigned URL is accepted.
    public let linkLifetime: TimeInterval
    public let sessions: Sessions

    public init(
        client: OSSClient, bucket: String, formLimit: Int64 = 5 << 20, multipartLimit: Int64 = 1 << 30,
        partSize: Int64 = 5 << 20, parallelParts: Int = 3, linkLifetime: TimeInterval = 600,
        sessions: Sessions = Sessions()
    ) {
        self.client = client
        self.bucket = bucket
        self.formLimit = formLimit
        self.multipartLimit = multipartLimit
        self.partSize = max(partSize, 100 << 10)
        self.parallelParts = max(1, parallelParts)
        self.linkLifetime = linkLifetime
        self.sessions = sessions
    }

    /// Puts a CORS rule on the bucket that lets pages from `origins` upload, list parts and read `ETag`. This
    /// replaces the bucket's CORS rules: a bucket shared with other sites needs their rules added here too.
    public func allowBrowsers(from origins: [String]) async throws {
        let rule = OSSCORSRule(
            allowedOrigins: origins, allowedMethods: ["GET", "HEAD", "PUT", "POST", "DELETE"], allowedHeaders: ["*"],
            exposeHeaders: ["ETag", "x-oss-request-id", "x-oss-hash-crc64ecma"], maxAgeSeconds: 600)
        try await client.putBucketConfiguration(OSSCORSConfiguration(rules: [rule]), bucketName: bucket)
    }

    public func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/") { _, _ in Self.page(Page.html, type: "text/html; charset=utf-8") }
        router.get("upload.js") { _, _ in Self.page(Page.script, type: "text/javascript; charset=utf-8") }
        router.post("session") { request, context in try await signIn(request, context) }
        router.get("session") { request, _ in try await session(try await user(request)) }
        router.delete("session") { request, _ in await signOut(request) }
        router.post("uploads/form") { request, context in
            try await form(try await request.decode(as: FileRequest.self, context: context), user: try await user(request))
        }
        router.post("uploads/multipart") { request, context in
            try await plan(try await request.decode(as: FileRequest.self, context: context), user: try await user(request))
        }
        router.post("uploads/complete") { request, context in
            try await complete(try await request.decode(as: CompleteRequest.self, context: context), user: try await user(request))
        }
        router.get("objects") { request, _ in try await objects(user: try await user(request)) }
        return router
    }

    // MARK: - The API's documents

    /// `GET /session`: who is signed in, where their files go and what the page may upload.
    public struct Session: ResponseCodable, Equatable {
        public var user: String
        public var prefix: String
        public var formLimit: Int64
        public var multipartLimit: Int64
        public var parallelParts: Int
    }

    /// What the page asks to upload.
    public struct FileRequest: Codable, Sendable {
        public var key: String
        public var size: Int64
        public var contentType: String?
        /// A multipart upload to resume (from the page's localStorage).
        public var uploadId: String?

        public init(key: String, size: Int64, contentType: String? = nil, uploadId: String? = nil) {
            self.key = key
            self.size = size
            self.contentType = contentType
            self.uploadId = uploadId
        }
    }

    /// A signed PostObject form: post `fields` in order, then the file as `file`, to `url`.
    public struct Form: ResponseCodable {
        public struct Field: Codable, Sendable {
            public var name: String
            public var value: String
        }
        public var url: String
        public var fields: [Field]
        public var expiration: Date
    }

    /// A presigned request: `method` to `url` with exactly `headers`.
    public struct Link: Codable, Sendable {
        public var method: String
        public var url: String
        public var headers: [String: String]

        init(_ presigned: OSSPresignedRequest) {
            (method, url, headers) = (presigned.method, presigned.url, presigned.headers)
        }
    }

    /// A multipart plan: part `n` (1-based) is bytes `(n-1)*partSize ..< min(n*partSize, size)` of the file.
    public struct Plan: ResponseCodable {
        public var key: String
        public var uploadId: String
        public var size: Int64
        public var partSize: Int64
        public var parts: [Link]
        public var listParts: Link
        /// Discards the upload (the page's "Discard" of an unfinished upload).
        public var abort: Link
        public var expiration: Date
    }

    public struct CompleteRequest: Codable, Sendable {
        public var key: String
        public var uploadId: String
        public var size: Int64

        public init(key: String, uploadId: String, size: Int64) {
            self.key = key
            self.uploadId = uploadId
            self.size = size
        }
    }

    public struct Stored: ResponseCodable, Equatable {
        public var key: String
        public var size: Int64
        /// The object's CRC-64 (ECMA) as OSS computed it, in decimal.
        public var crc64: String?
    }

    public struct Listing: ResponseCodable, Equatable {
        public struct Object: Codable, Equatable, Sendable {
            public var key: String
            public var size: Int64

            public init(key: String, size: Int64) {
                self.key = key
                self.size = size
            }
        }
        public var objects: [Object]
    }

    // MARK: - Routes

    static let sessionCookie = "session"

    func signIn(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        struct SignIn: Decodable { var user: String }
        let name = try await request.decode(as: SignIn.self, context: context).user
        guard Sessions.isValidUser(name) else {
            throw HTTPError(.badRequest, message: "a user name is 1 to 32 lower-case letters, digits or '-'")
        }
        let token = await sessions.signIn(name)
        var response = try session(name).response(from: request, context: context)
        response.setCookie(Cookie(name: Self.sessionCookie, value: token, path: "/", httpOnly: true, sameSite: .strict))
        return response
    }

    func signOut(_ request: Request) async -> Response {
        if let token = request.cookies[Self.sessionCookie]?.value { await sessions.signOut(token) }
        var response = Response(status: .noContent)
        response.setCookie(Cookie(name: Self.sessionCookie, value: "", maxAge: 0, path: "/", httpOnly: true, sameSite: .strict))
        return response
    }

    /// The signed-in user, or `401`.
    func user(_ request: Request) async throws -> String {
        guard let token = request.cookies[Self.sessionCookie]?.value, let user = await sessions.user(for: token) else {
            throw HTTPError(.unauthorized, message: "sign in first")
        }
        return user
    }

    func session(_ user: String) throws -> Session {
        Session(
            user: user, prefix: Self.prefix(of: user), formLimit: formLimit, multipartLimit: multipartLimit,
            parallelParts: parallelParts)
    }

    static func prefix(of user: String) -> String { "users/\(user)/" }

    /// `403` unless `key` is the user's prefix followed by one file name: not empty, not `.` or `..`, no `/`, `\`
    /// or control characters, at most 255 bytes.
    static func checkKey(_ key: String, user: String) throws {
        let prefix = prefix(of: user)
        guard key.hasPrefix(prefix) else { throw HTTPError(.forbidden, message: "\(key) is outside \(prefix)") }
        let name = key.dropFirst(prefix.count)
        let allowed = name.unicodeScalars.allSatisfy { scalar in
            scalar != "/" && scalar != "\\" && scalar.value >= 0x20 && scalar.value != 0x7F
                && !scalar.properties.isNoncharacterCodePoint
        }
        guard allowed, (1...255).contains(name.utf8.count), name != ".", name != ".." else {
            throw HTTPError(
                .forbidden, message: "a file name under \(prefix) is 1 to 255 bytes without '/', '\\' or control characters")
        }
    }

    static func checkSize(_ size: Int64, limit: Int64) throws {
        guard size >= 0 else { throw HTTPError(.badRequest, message: "a size cannot be negative") }
        guard size <= limit else { throw HTTPError(.contentTooLarge, message: "at most \(limit) bytes") }
    }

    static func checkContentType(_ type: String?) throws {
        guard let type else { return }
        guard type.count <= 128, type.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F || $0 == " " }) else {
            throw HTTPError(.badRequest, message: "a content type is at most 128 printable ASCII characters")
        }
    }

    func form(_ file: FileRequest, user: String) async throws -> Form {
        try Self.checkKey(file.key, user: user)
        try Self.checkSize(file.size, limit: formLimit)
        try Self.checkContentType(file.contentType)
        var conditions: [OSSPostPolicy.Condition] = [.key(file.key), .contentLengthRange(file.size...file.size)]
        if let type = file.contentType, !type.isEmpty { conditions.append(.contentType(.equals(type))) }
        let expiration = Date().addingTimeInterval(linkLifetime)
        let form = try await client.postPolicyForm(
            bucket: bucket, policy: OSSPostPolicy(expiration: expiration, conditions: conditions))
        return Form(url: form.url, fields: form.fields.map { .init(name: $0.name, value: $0.value) }, expiration: expiration)
    }

    /// The part size for a file: ``partSize``, or more for a file that would need over 1000 parts.
    func partSize(for size: Int64) -> Int64 {
        let needed = (size + 999) / 1000
        return max(partSize, needed)
    }

    func plan(_ file: FileRequest, user: String) async throws -> Plan {
        try Self.checkKey(file.key, user: user)
        try Self.checkSize(file.size, limit: multipartLimit)
        try Self.checkContentType(file.contentType)
        guard file.size > 0 else { throw HTTPError(.badRequest, message: "an empty file goes up with a form") }
        let uploadId: String
        if let resumed = file.uploadId {
            // The upload must still be there, for this key (an id of another key's upload is refused here).
            do {
                _ = try await client.listParts(
                    OSSListPartsRequest(bucketName: bucket, objectKey: file.key, uploadId: resumed, maxParts: 1))
            } catch let error as OSSServerError where error.statusCode == 404 {
                throw HTTPError(.notFound, message: "no upload \(resumed) of \(file.key)")
            } catch is OSSClientError {
                throw HTTPError(.badRequest, message: "not an upload id")
            }
            uploadId = resumed
        } else {
            let type = file.contentType.flatMap { $0.isEmpty ? nil : $0 } ?? "application/octet-stream"
            uploadId = try await client.initiateMultipartUpload(
                OSSInitiateMultipartUploadRequest(bucketName: bucket, objectKey: file.key, contentType: type)
            ).uploadId
        }
        let partSize = partSize(for: file.size)
        let count = Int((file.size + partSize - 1) / partSize)
        var parts: [Link] = []
        parts.reserveCapacity(count)
        for number in 1...count {
            parts.append(
                Link(
                    try await client.presignUploadPart(
                        bucket: bucket, key: file.key, uploadId: uploadId, partNumber: number, expiration: linkLifetime)))
        }
        let list = try await client.presignListParts(
            bucket: bucket, key: file.key, uploadId: uploadId, maxParts: 1000, expiration: linkLifetime)
        let abort = try await client.presignAbortMultipartUpload(
            bucket: bucket, key: file.key, uploadId: uploadId, expiration: linkLifetime)
        return Plan(
            key: file.key, uploadId: uploadId, size: file.size, partSize: partSize, parts: parts, listParts: Link(list),
            abort: Link(abort), expiration: list.expiration)
    }

    func complete(_ upload: CompleteRequest, user: String) async throws -> Stored {
        try Self.checkKey(upload.key, user: user)
        try Self.checkSize(upload.size, limit: multipartLimit)
        guard upload.size > 0 else { throw HTTPError(.badRequest, message: "an empty file goes up with a form") }
        var parts: [OSSPartInfo] = []
        do {
            for try await page in client.listPartsPaginator(
                OSSListPartsRequest(bucketName: bucket, objectKey: upload.key, uploadId: upload.uploadId))
            {
                parts += page.parts
            }
        } catch let error as OSSServerError where error.statusCode == 404 {
            throw HTTPError(.notFound, message: "no upload \(upload.uploadId) of \(upload.key)")
        }
        let partSize = partSize(for: upload.size)
        let count = Int((upload.size + partSize - 1) / partSize)
        guard parts.count == count else {
            throw HTTPError(.conflict, message: "\(parts.count) of \(count) parts are uploaded")
        }
        let brokePlan = parts.sorted { $0.partNumber < $1.partNumber }.enumerated().contains { index, part in
            let expected = index + 1 < count ? partSize : upload.size - partSize * Int64(count - 1)
            return part.partNumber != index + 1 || part.size != expected
        }
        if brokePlan {
            // Parts of another size than planned: the object would not be the file the limits were checked for.
            try await client.abortMultipartUpload(
                OSSAbortMultipartUploadRequest(bucketName: bucket, objectKey: upload.key, uploadId: upload.uploadId))
            throw HTTPError(.contentTooLarge, message: "the parts do not match the plan; the upload was aborted")
        }
        let result = try await client.completeMultipartUpload(
            OSSCompleteMultipartUploadRequest(bucketName: bucket, objectKey: upload.key, uploadId: upload.uploadId, parts: parts))
        return Stored(key: upload.key, size: upload.size, crc64: result.crc64.map { String($0) })
    }

    func objects(user: String) async throws -> Listing {
        var objects: [Listing.Object] = []
        let request = OSSListObjectsV2Request(bucketName: bucket, prefix: Self.prefix(of: user))
        for try await page in client.listObjectsV2Paginator(request) {
            objects += page.contents.map { .init(key: $0.objectKey, size: $0.size) }
        }
        return Listing(objects: objects)
    }

    static func page(_ text: String, type: String) -> Response {
        Response(
            status: .ok, headers: [.contentType: type, .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}

/// Who is signed in: a random token (the `session` cookie, `HttpOnly`, `SameSite=Strict`) per sign-in, in memory.
///
/// A sample's stand-in: anyone may sign in as any user name, with no password. What it shows is the part that
/// stays the same with a real sign-in (your identity provider, your session store): the backend decides the user
/// from a credential it issued, never from what the page says, and signs only for that user's prefix.
public actor Sessions {
    private var users: [String: String] = [:]

    public init() {}

    static func isValidUser(_ name: String) -> Bool {
        (1...32).contains(name.utf8.count)
            && name.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: "-") }
    }

    /// A new session token for `user`.
    public func signIn(_ user: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let token = (0..<4).map { _ in String(generator.next() as UInt64, radix: 16) }.joined(separator: "-")
        users[token] = user
        return token
    }

    public func user(for token: String) -> String? { users[token] }

    public func signOut(_ token: String) { users[token] = nil }
}

/// The page, read once from the target's resources (`Page/`): plain HTML and JavaScript, no build step.
enum Page {
    static let html = load("index", "html")
    static let script = load("upload", "js")

    static func load(_ name: String, _ type: String) -> String {
        guard let url = Bundle.module.url(forResource: name, withExtension: type, subdirectory: "Page"),
            let text = try? String(contentsOf: url, encoding: .utf8)
        else { fatalError("the sample's resource Page/\(name).\(type) is missing from its bundle") }
        return text
    }
}
