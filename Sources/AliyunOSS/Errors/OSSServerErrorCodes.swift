extension OSSServerError {
    /// A server error code this SDK knows: the HTTP status OSS answers it with, and its ``OSSErrorDisposition``.
    struct KnownCode: Sendable, Hashable {
        let status: Int
        let disposition: OSSErrorDisposition
    }

    /// Every OSS error code this SDK knows by name, with its status and disposition. The code decides, not the
    /// status: an unknown code falls back on the status (5xx, 429, 408 retryable; other 4xx final). A table test
    /// asserts each row, and the Errors article lists them.
    ///
    /// Why each is what it is (compared with the official Go SDK v2's retryer, which retries every 5xx, 400, 401, 408
    /// and 429 and the code `RequestTimeTooSkewed`):
    /// - 5xx and throttling are retryable, as in every OSS SDK; throttling also pauses the whole client for the delay
    ///   the server names (``throttlingCodes``).
    /// - `RequestTimeTooSkewed` (403) is retryable: the pipeline corrects its clock from the answer's `ServerTime`
    ///   and signs again (Go SDK v2 and Java SDK v2 retry it the same way). A part of a resumable transfer that still
    ///   meets it is retried too: the correction is shared by the client, so the part's next attempt is signed with
    ///   the corrected time. (Before, the retry policy retried it and the transfer driver did not.)
    /// - `InvalidDigest` (400) and `RequestTimeout` (400) are retryable: the body no longer matched its `Content-MD5`
    ///   on arrival, or the connection went idle mid-body; both are damage to one attempt, and a replayable body is
    ///   read again from its source (Go SDK v2 retries every 400 for such cases). Retried by the driver's parts too,
    ///   which before gave up on them.
    /// - Credentials rejected as expired or unknown are transient (``credentialRejectionCodes``): the pipeline already
    ///   fetches a refreshing provider's credentials again once; beyond that a later call with fresh credentials
    ///   resumes, so a resumable download keeps its partial file. Go SDK v2's 401 retry has no OSS counterpart (OSS
    ///   answers 403).
    /// - Every other 4xx is final: the same request gets the same answer. Go SDK v2 retries every 400, which here
    ///   would resend `InvalidArgument`, `MalformedXML` or `InvalidPart` to no end; only the two 400 codes above are
    ///   attempt damage. `NotImplemented` (501) is final although it is a 5xx.
    static let knownCodes: [String: KnownCode] = {
        var codes: [String: KnownCode] = [
            // Server-side failures of one attempt.
            "InternalError": KnownCode(status: 500, disposition: .retryable),
            "BadGateway": KnownCode(status: 502, disposition: .retryable),
            "ServiceUnavailable": KnownCode(status: 503, disposition: .retryable),
            "GatewayTimeout": KnownCode(status: 504, disposition: .retryable),
            // Damage to one attempt.
            "RequestTimeTooSkewed": KnownCode(status: 403, disposition: .retryable),
            "InvalidDigest": KnownCode(status: 400, disposition: .retryable),
            "RequestTimeout": KnownCode(status: 400, disposition: .retryable),
            // Decided by the request, the bucket or the object.
            "AccessDenied": KnownCode(status: 403, disposition: .final),
            "SignatureDoesNotMatch": KnownCode(status: 403, disposition: .final),
            "InvalidObjectState": KnownCode(status: 403, disposition: .final),
            "NoSuchBucket": KnownCode(status: 404, disposition: .final),
            "NoSuchKey": KnownCode(status: 404, disposition: .final),
            "NoSuchUpload": KnownCode(status: 404, disposition: .final),
            "SymlinkTargetNotExist": KnownCode(status: 404, disposition: .final),
            "NoSuchLiveChannel": KnownCode(status: 404, disposition: .final),
            "InvalidArgument": KnownCode(status: 400, disposition: .final),
            "InvalidBucketName": KnownCode(status: 400, disposition: .final),
            "InvalidObjectName": KnownCode(status: 400, disposition: .final),
            "MalformedXML": KnownCode(status: 400, disposition: .final),
            "InvalidPart": KnownCode(status: 400, disposition: .final),
            "InvalidPartOrder": KnownCode(status: 400, disposition: .final),
            "EntityTooSmall": KnownCode(status: 400, disposition: .final),
            "EntityTooLarge": KnownCode(status: 400, disposition: .final),
            "InvalidTag": KnownCode(status: 400, disposition: .final),
            "InvalidTargetType": KnownCode(status: 400, disposition: .final),
            "NotSymlink": KnownCode(status: 400, disposition: .final),
            "PartNotSequential": KnownCode(status: 400, disposition: .final),
            "InvalidEncryptionAlgorithmError": KnownCode(status: 400, disposition: .final),
            "TooManyBuckets": KnownCode(status: 400, disposition: .final),
            "OperationNotSupported": KnownCode(status: 400, disposition: .final),
            "BucketAlreadyExists": KnownCode(status: 409, disposition: .final),
            "BucketNotEmpty": KnownCode(status: 409, disposition: .final),
            "FileAlreadyExists": KnownCode(status: 409, disposition: .final),
            "PositionNotEqualToLength": KnownCode(status: 409, disposition: .final),
            "ObjectNotAppendable": KnownCode(status: 409, disposition: .final),
            "RestoreAlreadyInProgress": KnownCode(status: 409, disposition: .final),
            "PreconditionFailed": KnownCode(status: 412, disposition: .final),
            "InvalidRange": KnownCode(status: 416, disposition: .final),
            "CallbackFailed": KnownCode(status: 203, disposition: .final),
            "NotImplemented": KnownCode(status: 501, disposition: .final),
        ]
        for code in throttlingCodes {
            codes[code] = KnownCode(status: code == "TooManyRequests" ? 429 : 503, disposition: .retryable)
        }
        for code in credentialRejectionCodes {
            codes[code] = KnownCode(status: 403, disposition: .transient)
        }
        return codes
    }()

    /// The OSS codes of a throttled request (a bucket or account over its QPS, bandwidth or concurrency limits),
    /// answered with 503 (or 429), usually with `x-oss-qos-delay-time`.
    static let throttlingCodes: Set<String> = [
        "TotalQpsLimitExceeded", "MetaOperationQpsLimitExceeded", "QpsLimitExceeded", "ActiveRequestLimitExceeded",
        "DownloadTrafficRateLimitExceeded", "UploadTrafficRateLimitExceeded", "CpuLimitExceeded", "SlowDown",
        "TooManyRequests",
    ]

    /// The server codes that mean "these credentials are not (or no longer) valid", answered with 403: an unknown
    /// or deleted access key, an expired or wrong STS token. (`AccessDenied` whose message says the token expired
    /// means the same: ``rejectsCredentials``.)
    static let credentialRejectionCodes: Set<String> = [
        "InvalidAccessKeyId", "SecurityTokenExpired", "InvalidSecurityToken", "ExpiredToken", "TokenExpired",
    ]

    /// The codes every other request to the bucket with the same credentials would meet too: the bucket is missing
    /// or its name invalid, access is denied, the credentials or the signature are refused. A batch meeting one
    /// stops (``OSSErrorDisposition/affectsEveryRequest(_:)``).
    static let bucketWideCodes: Set<String> = credentialRejectionCodes.union([
        "NoSuchBucket", "InvalidBucketName", "AccessDenied", "SignatureDoesNotMatch",
    ])

    /// Whether the error is a 403 rejecting the credentials themselves (not a permission or signature problem): one
    /// of ``credentialRejectionCodes``, or `AccessDenied` whose message says the token expired.
    var rejectsCredentials: Bool {
        guard statusCode == 403 else { return false }
        return Self.credentialRejectionCodes.contains(code)
            || (code == "AccessDenied" && Self.saysTokenExpired(message))
    }

    /// Whether an `AccessDenied` message says the security token expired.
    static func saysTokenExpired(_ message: String) -> Bool {
        let message = message.lowercased()
        return message.contains("token") && message.contains("expired")
    }
}
