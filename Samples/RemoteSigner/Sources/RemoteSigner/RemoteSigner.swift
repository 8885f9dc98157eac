import AliyunOSS
import Foundation
import Hummingbird

/// The app's server side of remote signing, as a Hummingbird backend would serve it: an app on a device holds no
/// OSS secret, and its ``OSSRemoteSignerCredentialProvider`` asks this server for every signature (V4 or V1).
///
/// - `GET /oss-sign` answers the identity the device signs as (access key id, STS token, expiration: no secret);
/// - `POST /oss-sign` takes what must be signed (an ``OSSRemoteSigningRequest``) and answers `{"signature": ...}`.
///
/// Both need the app's own session (`Authorization: Bearer <token>`; `401` without one this server knows). Each user
/// gets an ``OSSRemoteSigningAuthority`` limited to `users/<user>/` of one bucket: a request or presigned URL for any
/// other key, for a bucket-level call, or for a sub-resource a transfer does not need is refused with `403` and the
/// reason, so the endpoint is not a signing oracle for the whole bucket.
public struct RemoteSigner: Sendable {
    /// The server's own credentials (in production an ``OSSDefaultCredentialProvider``: an ECS RAM role, RRSA...).
    public let credentials: any OSSCredentialProvider
    /// The region of V4 scopes; `nil` signs V1 only.
    public let region: String?
    public let bucket: String
    /// The app's session check: the user a bearer token belongs to, `nil` for none. The user id becomes a key prefix,
    /// so it must be the app's own id (``userPrefix(_:)`` refuses one that could reach another prefix).
    public let user: @Sendable (_ bearerToken: String) async -> String?
    /// The longest a presigned URL may live, in seconds.
    public let maxPresignExpiry: Int64

    public init(
        credentials: any OSSCredentialProvider, region: String?, bucket: String, maxPresignExpiry: Int64 = 3600,
        user: @escaping @Sendable (_ bearerToken: String) async -> String?
    ) {
        self.credentials = credentials
        self.region = region
        self.bucket = bucket
        self.maxPresignExpiry = maxPresignExpiry
        self.user = user
    }

    /// `users/<user>/`, for a user id of letters, digits, `-` and `_` only.
    public static func userPrefix(_ user: String) -> String? {
        let allowed = !user.isEmpty && user.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
        return allowed ? "users/\(user)/" : nil
    }

    /// What `user` may have signed.
    public func authority(for user: String) -> OSSRemoteSigningAuthority? {
        guard let prefix = Self.userPrefix(user) else { return nil }
        return OSSRemoteSigningAuthority(
            credentials: credentials, region: region,
            policy: .init(bucket: bucket, keyPrefix: prefix, maxPresignExpiry: maxPresignExpiry))
    }

    public func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.get("oss-sign") { request, _ in try await answer(request, method: "GET", body: Data()) }
        router.post("oss-sign") { request, _ in
            let body = try await request.body.collect(upTo: 64 * 1024)
            return try await answer(request, method: "POST", body: Data(body.readableBytesView))
        }
        return router
    }

    func answer(_ request: Request, method: String, body: Data) async throws -> Response {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer "),
            let user = await user(String(header.dropFirst("Bearer ".count))), let authority = authority(for: user)
        else {
            throw HTTPError(.unauthorized, message: "no session")
        }
        let reply = await authority.respond(method: method, body: body)
        return Response(
            status: HTTPResponse.Status(code: reply.status), headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: reply.body)))
    }
}
