import Foundation
import NIOConcurrencyHelpers

/// A stand-in, on loopback, for the metadata service of an ECS instance with a RAM role (`100.100.100.200` on a
/// real instance), for testing credential providers where no instance exists. It behaves as Alibaba Cloud documents
/// the service:
///
/// - `PUT /latest/api/token` with `X-aliyun-ecs-metadata-token-ttl-seconds` (1...21600) issues a session token
///   (IMDSv2); a missing or out-of-range TTL is 400;
/// - `GET /latest/meta-data/ram/security-credentials/` lists the role's name, and `GET .../<role>` answers its
///   credentials as JSON (`Code`, `AccessKeyId`, `AccessKeySecret`, `SecurityToken`, `Expiration`, `LastUpdated`);
///   an unknown role is 404;
/// - `X-aliyun-ecs-metadata-token` on a GET must be a live token (401 otherwise); without it, the GET is answered in
///   the normal mode (IMDSv1) and refused with 403 in the hardened mode, which requires tokens.
///
/// The credentials come from `issue`, typically ``LocalOSSServer/issueTemporaryCredentials(lifetime:)``, so that
/// the local OSS server accepts them until they expire; `nil` answers 404, as for an instance without the role.
public final class LocalECSMetadataService: Sendable {
    /// Whether requests without a session token are answered.
    public enum Mode: Sendable, Hashable {
        /// IMDSv1 and IMDSv2 both work.
        case normal
        /// Only requests with a session token (IMDSv2) are answered; others get 403.
        case hardened
        /// An older service without session tokens: `PUT /latest/api/token` is 404, GETs work without a token.
        case legacy
    }

    /// What the service was asked, for tests.
    public struct Stats: Sendable, Hashable {
        public var tokensIssued = 0
        public var credentialRequests = 0
        /// GETs that came without a session token (answered or refused).
        public var requestsWithoutToken = 0
        /// Requests refused (400, 401, 403, 404).
        public var refused = 0
    }

    private struct State {
        var tokens: [String: Date] = [:]
        var stats = Stats()
        var mode: Mode
    }

    /// `http://127.0.0.1:<port>`: the provider's metadata endpoint.
    public var url: URL { server.url }
    public let roleName: String
    private let server: LocalHTTPServer
    private let state: NIOLockedValueBox<State>

    private init(roleName: String, server: LocalHTTPServer, state: NIOLockedValueBox<State>) {
        self.roleName = roleName
        self.server = server
        self.state = state
    }

    /// Starts the stand-in for an instance whose RAM role is `roleName`.
    public static func start(
        roleName: String, mode: Mode = .normal,
        issue: @escaping @Sendable () async -> LocalOSSTemporaryCredential?
    ) async throws -> LocalECSMetadataService {
        let state = NIOLockedValueBox(State(mode: mode))
        let server = try await LocalHTTPServer.start { request in
            await answer(request, roleName: roleName, state: state, issue: issue)
        }
        return LocalECSMetadataService(roleName: roleName, server: server, state: state)
    }

    public var stats: Stats { state.withLockedValue { $0.stats } }

    /// Switches between the normal and the hardened mode.
    public func setMode(_ mode: Mode) {
        state.withLockedValue { $0.mode = mode }
    }

    /// Forgets every session token issued so far (as after the instance restarted): requests carrying one get 401.
    public func revokeTokens() {
        state.withLockedValue { $0.tokens.removeAll() }
    }

    public func shutdown() async throws {
        try await server.shutdown()
    }

    private static let credentialsPath = "/latest/meta-data/ram/security-credentials/"

    private static func answer(
        _ request: LocalHTTPServer.Request, roleName: String, state: NIOLockedValueBox<State>,
        issue: @Sendable () async -> LocalOSSTemporaryCredential?
    ) async -> LocalHTTPServer.Response {
        let path = request.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? request.uri
        if path == "/latest/api/token" {
            guard request.method == "PUT" else { return refuse(state, 405) }
            if state.withLockedValue({ $0.mode == .legacy }) { return refuse(state, 404) }
            guard let ttl = request.headers["x-aliyun-ecs-metadata-token-ttl-seconds"].flatMap({ Int($0) }),
                (1...21_600).contains(ttl)
            else { return refuse(state, 400) }
            let token = randomToken()
            state.withLockedValue {
                $0.tokens[token] = Date().addingTimeInterval(TimeInterval(ttl))
                $0.stats.tokensIssued += 1
            }
            return .init(status: 200, contentType: "text/plain", body: Data(token.utf8))
        }
        guard request.method == "GET" else { return refuse(state, 405) }
        let allowed = state.withLockedValue { state -> Int? in
            guard let token = request.headers["x-aliyun-ecs-metadata-token"] else {
                state.stats.requestsWithoutToken += 1
                return state.mode == .hardened ? 403 : nil
            }
            guard let expiry = state.tokens[token], expiry > Date() else { return 401 }
            return nil
        }
        if let status = allowed { return refuse(state, status) }
        if path == credentialsPath {
            return .init(status: 200, contentType: "text/plain", body: Data(roleName.utf8))
        }
        guard path.hasPrefix(credentialsPath),
            String(path.dropFirst(credentialsPath.count)).removingPercentEncoding == roleName
        else { return refuse(state, 404) }
        state.withLockedValue { $0.stats.credentialRequests += 1 }
        guard let credential = await issue() else { return refuse(state, 404) }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        let body: [String: String] = [
            "Code": "Success", "AccessKeyId": credential.accessKeyId, "AccessKeySecret": credential.accessKeySecret,
            "SecurityToken": credential.securityToken, "Expiration": formatter.string(from: credential.expiration),
            "LastUpdated": formatter.string(from: Date()),
        ]
        let json = (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data()
        return .init(status: 200, contentType: "text/plain", body: json)
    }

    private static func refuse(_ state: NIOLockedValueBox<State>, _ status: Int) -> LocalHTTPServer.Response {
        state.withLockedValue { $0.stats.refused += 1 }
        return .init(status: status, contentType: "text/plain", body: Data())
    }

    private static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in String(generator.next() as UInt64, radix: 16) }.joined()
    }
}
