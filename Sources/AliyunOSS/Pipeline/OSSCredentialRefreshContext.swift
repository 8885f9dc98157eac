
/// What the signing layer tells the retry layer about one request: which refreshing provider signed it and with
/// the credentials of which fetch. Shared through a task-local set by ``OSSRetryMiddleware`` around each call, so
/// the two layers stay independent of the client that assembles them.
///
/// When the server rejects the credentials (see ``isCredentialRejection(_:)``), the retry layer invalidates that
/// fetch's credentials once (a no-op when a concurrent request already did) and sends the request again,
/// re-signed with the fresh credentials. It does this at most once per call, and the extra attempt does not count
/// against the retry budget.
final class OSSCredentialRefreshContext: Sendable {
    struct Signing: Sendable {
        var provider: OSSRefreshingCredentialProvider
        var epoch: Int
    }

    private struct State: Sendable {
        var lastSigning: Signing?
        var refreshed = false
    }

    @TaskLocal static var current: OSSCredentialRefreshContext?

    private let state = OSSLockedValue(State())

    /// Called by the signing layer each time it signs with a refreshing provider's credentials.
    func recordSigning(provider: OSSRefreshingCredentialProvider, epoch: Int) {
        state.withLockedValue { $0.lastSigning = Signing(provider: provider, epoch: epoch) }
    }

    /// The signing to invalidate, the first time only; `nil` when the request was not signed by a refreshing
    /// provider or was already retried once with fresh credentials.
    func takeRefresh() -> Signing? {
        state.withLockedValue { state in
            guard !state.refreshed, let signing = state.lastSigning else { return nil }
            state.refreshed = true
            return signing
        }
    }

    /// Whether `error` is a 403 rejecting the credentials themselves (not a permission or signature problem):
    /// ``OSSServerError/rejectsCredentials``.
    static func isCredentialRejection(_ error: any Error) -> Bool {
        (error as? OSSServerError)?.rejectsCredentials == true
    }
}
