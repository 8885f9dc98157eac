import AliyunOSS
import Foundation
import Hummingbird

/// A photo service in front of one bucket, as a Hummingbird backend would put it there:
///
/// - `PUT /photos/{name}` streams the request body into the bucket (multipart once it passes one part, so a large
///   video never sits in memory) and answers with the stored size and CRC-64;
/// - `GET /photos/{name}` answers `303 See Other` with a presigned URL, so the bytes go from OSS to the caller and
///   never through this server (`404` when there is no such photo);
/// - `GET /photos` lists the photos; `DELETE /photos/{name}` removes one.
///
/// Hummingbird's tracing and metrics middleware wrap each request, and the OSS client's own spans
/// (`AliyunOSSObservability`) start inside the request's span: a trace shows `PUT /photos/{name}` with its
/// `InitiateMultipartUpload`, `UploadPart`... children.
public struct PhotoBackend: Sendable {
    public let client: OSSClient
    public let bucket: String
    /// The largest photo accepted (`413 Content Too Large` beyond it).
    public let maximumSize: Int64
    /// How long a presigned download URL lives.
    public let linkLifetime: TimeInterval

    public init(client: OSSClient, bucket: String, maximumSize: Int64 = 1 << 30, linkLifetime: TimeInterval = 900) {
        self.client = client
        self.bucket = bucket
        self.maximumSize = maximumSize
        self.linkLifetime = linkLifetime
    }

    /// The routes, behind Hummingbird's tracing and metrics middleware.
    public func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.middlewares.add(TracingMiddleware())
        router.middlewares.add(MetricsMiddleware())
        router.put("photos/{name}") { request, context in try await upload(request, context) }
        router.get("photos/{name}") { _, context in try await link(context) }
        router.get("photos") { _, _ in try await list() }
        router.delete("photos/{name}") { _, context in try await delete(context) }
        return router
    }

    /// What `PUT` answers.
    public struct Stored: ResponseCodable, Equatable {
        public var name: String
        public var size: Int64
        /// The object's CRC-64 (ECMA), as OSS computed it, in decimal as OSS writes it.
        public var crc64: String?
    }

    /// What `GET /photos` answers.
    public struct Listing: ResponseCodable, Equatable {
        public struct Photo: Codable, Equatable, Sendable {
            public var name: String
            public var size: Int64

            public init(name: String, size: Int64) {
                self.name = name
                self.size = size
            }
        }
        public var photos: [Photo]
    }

    static let prefix = "photos/"

    /// The photo's name from the path: letters, digits, `.`, `_` and `-`, at most 128 characters, not starting
    /// with a dot; anything else is `400`, so a name never reaches outside `photos/`.
    static func name(_ context: BasicRequestContext) throws -> String {
        let name = try context.parameters.require("name")
        let allowed = name.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
        guard allowed, (1...128).contains(name.utf8.count), !name.hasPrefix(".") else {
            throw HTTPError(.badRequest, message: "a photo name is 1 to 128 letters, digits, '.', '_' or '-'")
        }
        return name
    }

    func upload(_ request: Request, _ context: BasicRequestContext) async throws -> Stored {
        let name = try Self.name(context)
        if let length = request.headers[.contentLength].flatMap(Int64.init), length > maximumSize {
            throw HTTPError(.contentTooLarge)
        }
        // The body as it arrives, cut off past the limit (a body without Content-Length is counted, not trusted).
        let body = LimitedBody(base: request.body, limit: maximumSize)
        let type = request.headers[.contentType] ?? "application/octet-stream"
        do {
            let result = try await client.uploadStream(
                body, bucket: bucket, key: Self.prefix + name, options: OSSStreamUploadOptions(contentType: type))
            return Stored(name: name, size: result.totalBytes, crc64: result.crc64.map { String($0) })
        } catch let error as OSSClientError where error.code == .fileCantRead {
            // The body stream failed (too large, or the client went away): its own error, not the SDK's wrapper.
            throw error.underlying ?? error
        }
    }

    func link(_ context: BasicRequestContext) async throws -> Response {
        let name = try Self.name(context)
        do {
            _ = try await client.headObject(OSSHeadObjectRequest(bucketName: bucket, objectKey: Self.prefix + name))
        } catch let error as OSSServerError where error.statusCode == 404 {
            throw HTTPError(.notFound, message: "no photo \(name)")
        }
        let url = try await client.presignConstrainURL(
            bucket: bucket, key: Self.prefix + name, expiration: linkLifetime)
        return Response(status: .seeOther, headers: [.location: url])
    }

    func list() async throws -> Listing {
        var photos: [Listing.Photo] = []
        for try await page in client.listObjectsV2Paginator(OSSListObjectsV2Request(bucketName: bucket, prefix: Self.prefix)) {
            for object in page.contents {
                photos.append(Listing.Photo(name: String(object.objectKey.dropFirst(Self.prefix.count)), size: object.size))
            }
        }
        return Listing(photos: photos)
    }

    func delete(_ context: BasicRequestContext) async throws -> Response {
        let name = try Self.name(context)
        _ = try await client.deleteObject(OSSDeleteObjectRequest(bucketName: bucket, objectKey: Self.prefix + name))
        return Response(status: .noContent)
    }
}

/// A request body as `[UInt8]` chunks, failing with `413 Content Too Large` once more than `limit` bytes arrived.
struct LimitedBody<Base: AsyncSequence>: AsyncSequence where Base.Element == ByteBuffer {
    let base: Base
    let limit: Int64

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        let limit: Int64
        var received: Int64 = 0

        mutating func next() async throws -> [UInt8]? {
            guard let buffer = try await base.next() else { return nil }
            received += Int64(buffer.readableBytes)
            guard received <= limit else { throw HTTPError(.contentTooLarge) }
            return Array(buffer: buffer)
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: base.makeAsyncIterator(), limit: limit) }
}
