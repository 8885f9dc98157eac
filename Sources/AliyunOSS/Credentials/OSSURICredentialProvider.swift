import Foundation

/// Temporary credentials from an HTTP endpoint of your own (`ALIBABA_CLOUD_CREDENTIALS_URI`), as the Credentials
/// libraries get them: `GET <uri>` answering 200 with STS-shaped JSON,
///
/// ```json
/// {"Code": "Success", "AccessKeyId": "STS.…", "AccessKeySecret": "…", "SecurityToken": "…",
///  "Expiration": "2026-11-27T10:00:00Z"}
/// ```
///
/// (`Code`, when present, must be `Success`: credentials-python requires it, credentials-go ignores it). The
/// credentials are cached and fetched again ``refreshAhead`` before they expire or after OSS refuses them;
/// concurrent requests share one fetch (``OSSRefreshingCredentialProvider``). A status other than 200, a body that
/// is not such JSON, an endpoint that cannot be reached or does not answer within the timeout: an
/// ``OSSClientError`` naming the URI (`signFailed`, `networkError` for the last two), never the body.
public final class OSSURICredentialProvider: OSSCredentialProvider, OSSRefreshingBackedProvider, CustomStringConvertible {
    /// The endpoint asked.
    public let uri: URL
    let refreshing: OSSRefreshingCredentialProvider

    /// - Parameters:
    ///   - uri: the endpoint; `nil` reads `ALIBABA_CLOUD_CREDENTIALS_URI`.
    ///   - timeout: each request's timeout (default 10 s, the libraries' read timeout).
    ///   - refreshAhead: how long before the expiration the credentials are fetched again (default 15 minutes, as
    ///     credentials-python).
    ///   - environment: where the variable is read.
    /// - Throws: ``OSSClientError`` `invalidArgument` when there is no URI or it is not http(s).
    public init(
        uri: URL? = nil, timeout: Duration = .seconds(10), refreshAhead: Duration = .seconds(900),
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws {
        guard let uri = uri ?? environment.nonEmpty("ALIBABA_CLOUD_CREDENTIALS_URI").flatMap(URL.init(string:)) else {
            throw OSSClientError.invalidArgument(
                "no credentials URI given and ALIBABA_CLOUD_CREDENTIALS_URI is not set (or not a URL)")
        }
        guard let scheme = uri.scheme?.lowercased(), scheme == "http" || scheme == "https", uri.host != nil else {
            throw OSSClientError.invalidArgument("the credentials URI must be an http or https URL")
        }
        self.uri = uri
        let service = "the credentials URI \(Self.redacted(uri))"
        let seconds = timeout.timeInterval
        refreshing = OSSRefreshingCredentialProvider(refreshAhead: refreshAhead) {
            let reply = try await OSSCredentialHTTP.send("GET", url: uri, timeout: seconds, service: service)
            guard reply.status == 200 else {
                throw OSSClientError(.signFailed, "\(service) answered HTTP \(reply.status)")
            }
            return try OSSCredentialHTTP.parseSessionCredentials(
                reply.body, from: "the credentials from \(service)", codeRequired: false)
        }
    }

    public func credentials() async throws -> OSSCredentials {
        try await refreshing.credentials()
    }

    /// Forgets the cached credentials; the next request fetches new ones.
    public func invalidate() async {
        await refreshing.invalidate()
    }

    /// How many times the endpoint was asked for credentials.
    public var fetchCount: Int {
        get async { await refreshing.fetchCount }
    }

    public var description: String {
        "OSSURICredentialProvider(\(Self.redacted(uri)))"
    }

    /// The URI without its query and user info (either may carry a token).
    static func redacted(_ uri: URL) -> String {
        guard var components = URLComponents(url: uri, resolvingAgainstBaseURL: false) else { return "(a URL)" }
        components.user = nil
        components.password = nil
        components.query = nil
        components.fragment = nil
        return components.string ?? "(a URL)"
    }
}
