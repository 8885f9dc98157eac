import Logging
import OSSSigning

import Foundation

/// How a ``LocalOSSServer`` listens, where it stores data and which credentials it accepts.
public struct LocalOSSServerConfiguration: Sendable {
    /// The development access key id used when none is configured.
    public static let defaultAccessKeyId = "LTAILocalDevAccessKeyId"
    /// The development access key secret used when none is configured.
    public static let defaultAccessKeySecret = "LocalDevAccessKeySecret0123456789"

    /// The address to listen on. Default `127.0.0.1`.
    public var host: String
    /// The port to listen on; `0` picks a free ephemeral port. Default `0`.
    public var port: Int
    /// Where buckets, objects and uploads are stored. `nil` means a fresh temporary directory that is
    /// deleted on shutdown.
    public var dataDirectory: URL?
    /// The main access key id.
    public var accessKeyId: String
    /// The main access key secret.
    public var accessKeySecret: String
    /// Extra temporary (STS) credentials; requests signed with one of these must carry its security token.
    public var stsCredentials: [OSSCredentials]
    /// The region checked in V4 credential scopes, e.g. `cn-hangzhou`.
    public var region: String
    /// Buckets created at start-up if missing.
    public var buckets: [String]
    /// Fault rules active from start-up.
    public var faults: [LocalOSSFaultRule]
    /// Whether the admin endpoints under `/-/` (`/-/faults`, `/-/stats`) exist.
    public var adminEnabled: Bool
    /// The largest accepted difference between a request's signing time and the server clock, in seconds.
    public var maxClockSkew: TimeInterval
    /// Host-name suffixes that mean virtual-host addressing (`<bucket>.<suffix>`), besides `localhost`.
    /// A `Host` of `<bucket>.<IPv4 literal>` is also treated as virtual-host.
    public var virtualHostDomains: [String]
    /// Where the server logs: one line per request (method, path without query, status, body bytes, request id)
    /// at ``requestLogLevel``. The logger's own `logLevel` decides what is emitted; by default (``defaultLogger()``)
    /// it is `.warning`, so an embedded server (tests, `oss demo`) prints no request lines unless asked.
    public var logger: Logger

    /// The default logger: label `oss-local-server`, through the process's logging backend, at `.warning`.
    public static func defaultLogger() -> Logger {
        var logger = Logger(label: "oss-local-server")
        logger.logLevel = .warning
        return logger
    }
    /// The level of the per-request lines. Default `.info`.
    public var requestLogLevel: Logger.Level
    /// How long a RestoreObject of an Archive object takes before the object can be read. Default 1 s.
    public var restoreDelay: TimeInterval = 1
    /// How long a data redundancy transition stays `Queueing`, then `Processing`, before it is `Finished` and the
    /// bucket is ZRS. Default 1 s and 2 s.
    public var redundancyTransitionTimes: (queueing: TimeInterval, processing: TimeInterval) = (1, 2)
    /// How long an upload callback's server has to answer before the upload is answered with 203 `CallbackFailed`
    /// (OSS: 5 seconds).
    public var callbackTimeout: Duration = .seconds(5)
    /// How long a PostObject form may send nothing before the server answers 400 `RequestTimeout` and closes the
    /// connection (a form that never ends must not hold the server).
    public var postObjectIdleTimeout: Duration = .seconds(20)
    /// Appended segments of an Appendable object smaller than this are merged now and then, so that many tiny
    /// appends do not leave thousands of tiny files; larger ones are never rewritten. Default 4 MiB; 0 never
    /// merges.
    public var appendCompactionBytes: Int64 = 4 << 20
    /// Identities besides the owner's keys: RAM users of the owner's account and users of other accounts, each
    /// with its own access key and the id a bucket policy's `Principal` names. Requests signed with the owner's keys
    /// (and STS credentials) act as the bucket owner. See ``LocalOSSUser``.
    public var users: [LocalOSSUser] = []
    /// The KMS key id reported for objects written with `x-oss-server-side-encryption: KMS` that name no key
    /// (`x-oss-server-side-encryption-key-id`); OSS reports the account's OSS-managed key in KMS there. The local
    /// server records and reports server-side encryption but keeps the bytes as they came (no KMS is called), so
    /// the id matters only to a client that takes it to a KMS holding that key (scripts/oss2-suite.sh starts one).
    public var kmsKeyId = "local-oss-server-kms-key"

    /// Creates a configuration; every parameter has a development default.
    public init(
        host: String = "127.0.0.1",
        port: Int = 0,
        dataDirectory: URL? = nil,
        accessKeyId: String = LocalOSSServerConfiguration.defaultAccessKeyId,
        accessKeySecret: String = LocalOSSServerConfiguration.defaultAccessKeySecret,
        stsCredentials: [OSSCredentials] = [],
        region: String = "cn-hangzhou",
        buckets: [String] = [],
        faults: [LocalOSSFaultRule] = [],
        adminEnabled: Bool = true,
        maxClockSkew: TimeInterval = 900,
        virtualHostDomains: [String] = [],
        logger: Logger = LocalOSSServerConfiguration.defaultLogger(),
        requestLogLevel: Logger.Level = .info
    ) {
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.accessKeyId = accessKeyId
        self.accessKeySecret = accessKeySecret
        self.stsCredentials = stsCredentials
        self.region = region
        self.buckets = buckets
        self.faults = faults
        self.adminEnabled = adminEnabled
        self.maxClockSkew = maxClockSkew
        self.virtualHostDomains = virtualHostDomains
        self.logger = logger
        self.requestLogLevel = requestLogLevel
    }
}

/// An identity the local server knows besides the owner (``LocalOSSServerConfiguration/users``).
///
/// A RAM user of the owner's account (`sameAccount`) may do what the owner may unless a bucket policy denies it (the
/// local server has no RAM policies; think of it as holding `AliyunOSSFullAccess`). A user of another account may do
/// only what ACLs and bucket policies grant it, and pays for requests to a requester-pays bucket.
public struct LocalOSSUser: Sendable, Hashable, CustomStringConvertible {
    public var accessKeyId: String
    public var accessKeySecret: String
    /// The id a bucket policy's `Principal` names (a RAM user's UID, or the other account's UID).
    public var uid: String
    /// Whether the user belongs to the bucket owner's account.
    public var sameAccount: Bool

    public init(accessKeyId: String, accessKeySecret: String, uid: String, sameAccount: Bool) {
        self.accessKeyId = accessKeyId
        self.accessKeySecret = accessKeySecret
        self.uid = uid
        self.sameAccount = sameAccount
    }

    /// The key id and UID; never the secret.
    public var description: String {
        "LocalOSSUser(\(accessKeyId), uid \(uid), \(sameAccount ? "owner's account" : "another account"))"
    }
}
