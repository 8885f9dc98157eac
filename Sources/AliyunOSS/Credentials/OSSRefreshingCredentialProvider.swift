#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Temporary credentials with an expiration, as returned by an STS / federation service.
public struct OSSFederationToken: Sendable, Hashable, CustomStringConvertible {
    public var accessKeyId: String
    public var accessKeySecret: String
    public var securityToken: String?
    /// When the credentials stop working; `nil` means never.
    public var expiration: Date?

    public init(accessKeyId: String, accessKeySecret: String, securityToken: String?, expiration: Date?) {
        self.accessKeyId = accessKeyId
        self.accessKeySecret = accessKeySecret
        self.securityToken = securityToken
        self.expiration = expiration
    }

    public var credentials: OSSCredentials {
        OSSCredentials(accessKeyId: accessKeyId, accessKeySecret: accessKeySecret, securityToken: securityToken)
    }

    public var description: String {
        "OSSFederationToken(accessKeyId: \(accessKeyId), expiration: \(expiration.map { "\($0)" } ?? "none"))"
    }
}

/// Credentials fetched by a closure and cached until shortly before they expire.
///
/// Concurrent callers share one refresh: while a fetch is in flight, every caller awaits that same fetch.
/// ``invalidate()`` drops the cached value so the next call fetches again (for example after the server
/// answers `InvalidAccessKeyId` or `SecurityTokenExpired`).
public actor OSSRefreshingCredentialProvider: OSSCredentialProvider, OSSRefreshBackedCredentialProvider {
    public typealias Fetch = @Sendable () async throws -> OSSFederationToken

    private let fetch: Fetch
    private let refreshAhead: Duration
    private let now: @Sendable () -> Date
    private var cached: OSSFederationToken?
    /// When ``cached`` was fetched (see ``isFresh(_:fetchedAt:)``).
    private var cachedAt = Date.distantPast
    private var inFlight: Task<OSSFederationToken, any Error>?
    private var generation = 0
    /// The fetch number that produced ``cached`` / ``inFlight`` (see ``credentialsWithEpoch()``).
    private var cachedEpoch = 0
    private var inFlightEpoch = 0
    /// The newest fetch whose credentials a rejection invalidated.
    private var invalidatedEpoch = 0

    /// - Parameters:
    ///   - refreshAhead: how long before the expiration the credentials are fetched again (default 5 minutes);
    ///     credentials that live shorter than twice this are fetched again once half their lifetime has passed.
    ///   - fetch: returns fresh credentials.
    public init(refreshAhead: Duration = .seconds(300), fetch: @escaping Fetch) {
        self.init(refreshAhead: refreshAhead, now: { Date() }, fetch: fetch)
    }

    init(refreshAhead: Duration, now: @escaping @Sendable () -> Date, fetch: @escaping Fetch) {
        self.fetch = fetch
        self.refreshAhead = refreshAhead
        self.now = now
    }

    /// How many times the fetch closure has been started.
    public private(set) var fetchCount = 0

    public func credentials() async throws -> OSSCredentials {
        try await credentialsWithEpoch().credentials
    }

    func signingCredentials() async throws -> OSSSigningCredentials {
        let fetched = try await credentialsWithEpoch()
        return OSSSigningCredentials(credentials: fetched.credentials, source: (self, fetched.epoch))
    }

    /// The credentials with the number of the fetch that produced them (its "epoch"), so that a request
    /// rejected with them can ask for a refresh without repeating one another request already caused.
    func credentialsWithEpoch() async throws -> (credentials: OSSCredentials, epoch: Int) {
        if let cached, isFresh(cached, fetchedAt: cachedAt) {
            return (cached.credentials, cachedEpoch)
        }
        let task: Task<OSSFederationToken, any Error>
        let epoch: Int
        if let inFlight {
            task = inFlight
            epoch = inFlightEpoch
        } else {
            let fetch = self.fetch
            task = Task { try await fetch() }
            inFlight = task
            fetchCount += 1
            epoch = fetchCount
            inFlightEpoch = epoch
            let started = generation
            let fetchedAt = now()
            do {
                let token = try await task.value
                // After an invalidate() during the fetch, neither cache the token nor touch a newer fetch.
                if generation == started {
                    cached = token
                    cachedAt = fetchedAt
                    cachedEpoch = epoch
                    inFlight = nil
                }
                return (token.credentials, epoch)
            } catch {
                if generation == started { inFlight = nil }
                throw Self.mapError(error)
            }
        }
        do {
            return (try await task.value.credentials, epoch)
        } catch {
            throw Self.mapError(error)
        }
    }

    /// When the cached credentials expire (`nil`: none cached, or they never expire).
    package var cachedExpiration: Date? { cached?.expiration }

    /// Forgets the cached credentials; the next call to ``credentials()`` fetches new ones.
    /// A fetch already in flight is not shared with later callers, which start a new one.
    public func invalidate() {
        cached = nil
        inFlight = nil
        generation += 1
    }

    /// Invalidates the credentials of fetch `epoch` after the server rejected them, unless a later fetch has
    /// already produced (or is producing) newer ones. Returns whether it invalidated: when many requests are
    /// rejected with the same credentials at once, only the first causes a refresh and the others share it.
    @discardableResult
    func invalidate(rejectedEpoch epoch: Int) -> Bool {
        // A fetch started after the rejected one means the credentials were already refreshed (or are being):
        // the caller's next credentials() shares that fetch, or starts one if it failed.
        // Another rejection of the same credentials already invalidated them.
        guard fetchCount <= epoch, invalidatedEpoch < epoch else { return false }
        invalidatedEpoch = epoch
        invalidate()
        return true
    }

    /// Whether cached credentials may still sign: until `refreshAhead` before their expiration, but for credentials
    /// that live shorter than twice `refreshAhead`, until half their lifetime has passed (otherwise credentials
    /// that are "due" from the moment they arrive would be fetched again for every request).
    private func isFresh(_ token: OSSFederationToken, fetchedAt: Date) -> Bool {
        guard let expiration = token.expiration else { return true }
        let configured = Double(refreshAhead.components.seconds) + Double(refreshAhead.components.attoseconds) / 1e18
        let ahead = min(configured, max(0, expiration.timeIntervalSince(fetchedAt)) / 2)
        return expiration.timeIntervalSince(now()) > ahead
    }

    private static func mapError(_ error: any Error) -> any Error {
        OSSClientError.passing(error) {
            OSSClientError(.signFailed, "the credential provider failed", underlying: $0)
        }
    }
}

/// A provider whose credentials come from an ``OSSRefreshingCredentialProvider`` (its own, or that of the provider it
/// resolved to or delegates to), so that a request the server rejects for its credentials (an expired or revoked
/// token: ``OSSServerError/rejectsCredentials``) is refreshed once and re-signed (``OSSCredentialRefreshContext``).
/// Every refreshing provider of the SDK adopts it; a custom ``OSSCredentialProvider`` gets the refresh by wrapping
/// its fetch in an ``OSSRefreshingCredentialProvider``.
protocol OSSRefreshBackedCredentialProvider: OSSCredentialProvider {
    /// The credentials to sign the next request with and, when they came from a refreshing provider, that provider
    /// and the number of the fetch that produced them (`nil` for fixed credentials, e.g. a profile of `AK` mode).
    func signingCredentials() async throws -> OSSSigningCredentials
}

/// What ``OSSRefreshBackedCredentialProvider/signingCredentials()`` answers.
package struct OSSSigningCredentials: Sendable {
    var credentials: OSSCredentials
    /// The refreshing provider and fetch (epoch) that produced ``credentials``; `nil` for fixed credentials.
    var source: (provider: OSSRefreshingCredentialProvider, epoch: Int)?

    /// Fixed credentials, or those of a provider that does not refresh.
    static func of(_ provider: any OSSCredentialProvider) async throws -> OSSSigningCredentials {
        if let backed = provider as? any OSSRefreshBackedCredentialProvider {
            return try await backed.signingCredentials()
        }
        return OSSSigningCredentials(credentials: try await provider.credentials(), source: nil)
    }

    /// The credentials `provider` signs with now and, when a refreshing provider produced them, when they expire
    /// (`nil`: they do not), for a caller that shows who it is (`oss whoami`); never for logging the secret.
    package static func current(of provider: any OSSCredentialProvider) async throws
        -> (credentials: OSSCredentials, expiration: Date?)
    {
        let signing = try await of(provider)
        return (signing.credentials, await signing.source?.provider.cachedExpiration)
    }
}

/// The providers that hold their own ``OSSRefreshingCredentialProvider``.
protocol OSSRefreshingBackedProvider: OSSRefreshBackedCredentialProvider {
    var refreshing: OSSRefreshingCredentialProvider { get }
}

extension OSSRefreshingBackedProvider {
    func signingCredentials() async throws -> OSSSigningCredentials {
        try await refreshing.signingCredentials()
    }
}
