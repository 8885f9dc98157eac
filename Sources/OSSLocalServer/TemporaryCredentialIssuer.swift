import NIOConcurrencyHelpers
import OSSSigning

import Foundation

/// Temporary (STS) credentials the server issued itself, with their expiration: what an STS `AssumeRole` returns,
/// so that tests can make credentials expire in the middle of a transfer.
///
/// Requests signed with issued credentials must carry their token; once the server clock passes the expiration
/// they are refused with 403 `SecurityTokenExpired` ("The security token you provided has expired."), as OSS
/// does. Issued credentials live in memory only: a restarted server no longer knows them (403
/// `InvalidAccessKeyId`).
public struct LocalOSSTemporaryCredential: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The access key id, `STS.` followed by random characters.
    public var accessKeyId: String
    /// The access key secret.
    public var accessKeySecret: String
    /// The security token requests must carry.
    public var securityToken: String
    /// When the server starts refusing the credentials.
    public var expiration: Date

    /// The credentials to sign with.
    public var credentials: OSSCredentials {
        OSSCredentials(accessKeyId: accessKeyId, accessKeySecret: accessKeySecret, securityToken: securityToken)
    }

    /// The access key id and expiration only: the secret and the token are never printed.
    public var description: String {
        "LocalOSSTemporaryCredential(accessKeyId: \(accessKeyId), expiration: \(expiration))"
    }

    private enum CodingKeys: String, CodingKey {
        case accessKeyId = "AccessKeyId", accessKeySecret = "AccessKeySecret", securityToken = "SecurityToken"
        case expiration = "Expiration"
    }
}

/// The registry of issued credentials, shared by the admin endpoint (which issues) and the authenticator (which
/// checks). Entries are kept after they expire, so that a late request gets `SecurityTokenExpired` rather than
/// `InvalidAccessKeyId`.
final class TemporaryCredentialIssuer: Sendable {
    private let issued = NIOLockedValueBox<[String: LocalOSSTemporaryCredential]>([:])

    /// Issues fresh random credentials valid for `lifetime` from `now`.
    func issue(lifetime: Duration, now: Date = Date()) -> LocalOSSTemporaryCredential {
        let seconds = Double(lifetime.components.seconds) + Double(lifetime.components.attoseconds) / 1e18
        let credential = LocalOSSTemporaryCredential(
            accessKeyId: "STS." + Self.random(20), accessKeySecret: Self.random(32),
            securityToken: "CAIS" + Self.random(48), expiration: now.addingTimeInterval(max(0, seconds)))
        issued.withLockedValue { $0[credential.accessKeyId] = credential }
        return credential
    }

    /// The issued credential with this access key id, expired or not.
    func credential(for accessKeyId: String) -> LocalOSSTemporaryCredential? {
        issued.withLockedValue { $0[accessKeyId] }
    }

    /// Makes every credential issued so far expire now.
    func expireAll(now: Date = Date()) {
        issued.withLockedValue { issued in
            for id in Array(issued.keys) {
                guard var credential = issued[id] else { continue }
                credential.expiration = min(credential.expiration, now)
                issued[id] = credential
            }
        }
    }

    /// How many credentials were issued since start.
    var count: Int { issued.withLockedValue { $0.count } }

    private static func random(_ length: Int) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<length).map { _ in alphabet[Int(generator.next(upperBound: UInt64(alphabet.count)))] })
    }
}
