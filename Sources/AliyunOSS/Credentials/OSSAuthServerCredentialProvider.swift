import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Temporary (STS) credentials fetched from your app server, like the iOS SDK's `OSSAuthCredentialProvider`:
/// a GET of ``url`` returns
///
/// ```json
/// {"StatusCode": 200, "AccessKeyId": "STS.…", "AccessKeySecret": "…", "SecurityToken": "…",
///  "Expiration": "2026-11-23T10:00:00Z"}
/// ```
///
/// The credentials are cached and fetched again shortly before `Expiration` (``refreshAhead``), or after the server
/// rejects them; concurrent requests share one fetch (``OSSRefreshingCredentialProvider`` does the caching). The
/// credentials and the response body are never logged or kept beyond the cache.
///
/// ```swift
/// let provider = OSSAuthServerCredentialProvider(url: URL(string: "https://app.example.com/sts")!)
/// let client = try OSSClient(endpoint: "https://oss-cn-hangzhou.aliyuncs.com", credentialProvider: provider)
/// ```
public final class OSSAuthServerCredentialProvider: OSSCredentialProvider, OSSRefreshingBackedProvider {
    /// The auth server's URL.
    public let url: URL
    /// How long before `Expiration` the credentials are fetched again.
    public let refreshAhead: Duration
    let refreshing: OSSRefreshingCredentialProvider

    /// - Parameters:
    ///   - url: the auth server (http or https).
    ///   - refreshAhead: how long before the expiration to fetch again (default 5 minutes).
    ///   - timeout: the fetch's timeout (default 30 s).
    ///   - headers: extra request headers (e.g. the app's own session token).
    ///   - responseDecoder: turns the response body into the JSON above (the iOS SDK's `responseDecoder`, e.g.
    ///     to decrypt it); `nil` uses the body as is.
    public init(
        url: URL, refreshAhead: Duration = .seconds(300), timeout: Duration = .seconds(30),
        headers: [String: String] = [:], responseDecoder: (@Sendable (Data) throws -> Data)? = nil
    ) {
        self.url = url
        self.refreshAhead = refreshAhead
        let seconds = timeout.timeInterval
        refreshing = OSSRefreshingCredentialProvider(refreshAhead: refreshAhead) {
            let body = try await Self.fetch(url: url, timeout: seconds, headers: headers)
            let decoded: Data
            do {
                decoded = try responseDecoder?(body) ?? body
            } catch {
                throw OSSClientError(.signFailed, "the auth server's response could not be decoded", underlying: error)
            }
            return try Self.parse(decoded)
        }
    }

    public func credentials() async throws -> OSSCredentials {
        try await refreshing.credentials()
    }

    /// Forgets the cached credentials; the next request fetches new ones.
    public func invalidate() async {
        await refreshing.invalidate()
    }

    /// How many times the auth server was asked.
    public var fetchCount: Int {
        get async { await refreshing.fetchCount }
    }

    static func fetch(url: URL, timeout: TimeInterval, headers: [String: String]) async throws -> Data {
        let reply = try await OSSCredentialHTTP.send(
            "GET", url: url, headers: headers, timeout: timeout, service: "the auth server")
        guard (200...299).contains(reply.status) else {
            throw OSSClientError(.signFailed, "the auth server answered HTTP \(reply.status)")
        }
        return reply.body
    }

    /// Parses the auth server's JSON. `StatusCode` (number or string) must be 200; `SecurityToken` and
    /// `Expiration` (ISO 8601) are optional, as for long-term keys.
    static func parse(_ data: Data) throws -> OSSFederationToken {
        let object: [String: Any]
        do {
            guard let parsed = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                throw OSSClientError(.signFailed, "the auth server's response is not a JSON object")
            }
            object = parsed
        } catch {
            throw OSSClientError.passing(error) {
                OSSClientError(.signFailed, "the auth server's response is not valid JSON", underlying: $0)
            }
        }
        let status: Int?
        switch object["StatusCode"] {
        case let number as NSNumber: status = number.intValue
        case let text as String: status = Int(text)
        default: status = nil
        }
        guard let status else { throw OSSClientError(.signFailed, "the auth server's response has no StatusCode") }
        guard status == 200 else {
            // ErrorCode / ErrorMessage as the iOS SDK's sample server sends them; never the credentials.
            let code = object["ErrorCode"] as? String ?? ""
            throw OSSClientError(.signFailed, "the auth server answered StatusCode \(status) \(code)")
        }
        guard let keyId = object["AccessKeyId"] as? String, !keyId.isEmpty,
            let secret = object["AccessKeySecret"] as? String, !secret.isEmpty
        else {
            throw OSSClientError(.signFailed, "the auth server's response lacks AccessKeyId or AccessKeySecret")
        }
        let token = object["SecurityToken"] as? String
        var expiration: Date?
        if let text = object["Expiration"] as? String, !text.isEmpty {
            guard let date = OSSCredentialHTTP.parseExpiration(text) else {
                throw OSSClientError(.signFailed, "the auth server's Expiration '\(text)' is not an ISO 8601 date")
            }
            expiration = date
        }
        return OSSFederationToken(
            accessKeyId: keyId, accessKeySecret: secret, securityToken: token?.isEmpty == true ? nil : token,
            expiration: expiration)
    }
}
