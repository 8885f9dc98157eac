@testable import AliyunOSS
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Every error code has its disposition decided, here and in the Errors article: a code added without a row fails
/// these tests.
@Suite("Error dispositions")
struct ErrorDispositionTests {
    /// The decision for every client code, written out again so that a change to the SDK's table is a visible
    /// change to this one.
    static let clientExpected: [OSSClientErrorCode: OSSErrorDisposition] = [
        .networkingFailWithResponseCode0: .retryable, .networkError: .retryable,
        .signFailed: .transient, .fileCantWrite: .transient, .noSpaceLeft: .transient, .transferInUse: .transient,
        .fileChanged: .transient, .batchStopped: .transient, .batchSourceNeeded: .final, .clientShutDown: .transient, .encryptedObject: .final,
        .invalidArgument: .final, .nilUploadid: .final, .invalidCRC: .final, .fileCantRead: .final,
        .cannotResumeUpload: .final, .cannotResumeDownload: .final, .objectChanged: .final,
        .connectionNotTrusted: .final, .exceptionCaught: .final, .notKnown: .final,
        .taskCancelled: .cancelled, .taskPaused: .cancelled,
    ]

    /// Every server code the SDK knows, with the status OSS answers it with and its decision.
    static let serverExpected: [String: (status: Int, disposition: OSSErrorDisposition)] = [
        "InternalError": (500, .retryable), "BadGateway": (502, .retryable), "ServiceUnavailable": (503, .retryable),
        "GatewayTimeout": (504, .retryable),
        "TotalQpsLimitExceeded": (503, .retryable), "MetaOperationQpsLimitExceeded": (503, .retryable),
        "QpsLimitExceeded": (503, .retryable), "ActiveRequestLimitExceeded": (503, .retryable),
        "DownloadTrafficRateLimitExceeded": (503, .retryable), "UploadTrafficRateLimitExceeded": (503, .retryable),
        "CpuLimitExceeded": (503, .retryable), "SlowDown": (503, .retryable), "TooManyRequests": (429, .retryable),
        "RequestTimeTooSkewed": (403, .retryable), "InvalidDigest": (400, .retryable), "RequestTimeout": (400, .retryable),
        "InvalidAccessKeyId": (403, .transient), "SecurityTokenExpired": (403, .transient),
        "InvalidSecurityToken": (403, .transient), "ExpiredToken": (403, .transient), "TokenExpired": (403, .transient),
        "AccessDenied": (403, .final), "SignatureDoesNotMatch": (403, .final), "InvalidObjectState": (403, .final),
        "NoSuchBucket": (404, .final), "NoSuchKey": (404, .final), "NoSuchUpload": (404, .final),
        "SymlinkTargetNotExist": (404, .final), "NoSuchLiveChannel": (404, .final),
        "InvalidArgument": (400, .final), "InvalidBucketName": (400, .final), "InvalidObjectName": (400, .final),
        "MalformedXML": (400, .final), "InvalidPart": (400, .final), "InvalidPartOrder": (400, .final),
        "EntityTooSmall": (400, .final), "EntityTooLarge": (400, .final), "InvalidTag": (400, .final),
        "InvalidTargetType": (400, .final), "NotSymlink": (400, .final), "PartNotSequential": (400, .final),
        "InvalidEncryptionAlgorithmError": (400, .final), "TooManyBuckets": (400, .final),
        "OperationNotSupported": (400, .final),
        "BucketAlreadyExists": (409, .final), "BucketNotEmpty": (409, .final), "FileAlreadyExists": (409, .final),
        "PositionNotEqualToLength": (409, .final), "ObjectNotAppendable": (409, .final),
        "RestoreAlreadyInProgress": (409, .final),
        "PreconditionFailed": (412, .final), "InvalidRange": (416, .final), "CallbackFailed": (203, .final),
        "NotImplemented": (501, .final),
    ]

    /// The errors every other request of a batch would meet too.
    static let bucketWide: Set<String> = [
        "NoSuchBucket", "InvalidBucketName", "AccessDenied", "SignatureDoesNotMatch", "InvalidAccessKeyId",
        "SecurityTokenExpired", "InvalidSecurityToken", "ExpiredToken", "TokenExpired",
    ]

    @Test(arguments: OSSClientErrorCode.allKnown)
    func everyClientCodeHasItsDisposition(_ code: OSSClientErrorCode) throws {
        let expected = try #require(Self.clientExpected[code], "no decision for \(code) in this test")
        #expect(OSSErrorDisposition(OSSClientError(code, "x")) == expected, "\(code)")
        #expect(OSSErrorDisposition.clientCodes[code] == expected, "\(code)")
        // A batch's record of the error says the same.
        #expect(OSSErrorDisposition(OSSBatchFailure(OSSClientError(code, "x"))) == expected, "\(code)")
        // The retry policy and the transfers ask the same question.
        #expect(OSSRetryPolicy.isRetryable(OSSClientError(code, "x")) == (expected == .retryable))
    }

    @Test func theTablesCoverExactlyTheKnownCodes() {
        #expect(Set(Self.clientExpected.keys) == Set(OSSClientErrorCode.allKnown))
        #expect(Set(OSSErrorDisposition.clientCodes.keys) == Set(OSSClientErrorCode.allKnown))
        #expect(OSSClientErrorCode.allKnown.count == Set(OSSClientErrorCode.allKnown).count)
        #expect(Set(Self.serverExpected.keys) == Set(OSSServerError.knownCodes.keys))
    }

    @Test(arguments: ErrorDispositionTests.serverExpected.keys.sorted())
    func everyKnownServerCodeHasItsDisposition(_ code: String) throws {
        let (status, expected) = try #require(Self.serverExpected[code])
        let known = try #require(OSSServerError.knownCodes[code], "\(code) is not in the SDK's table")
        #expect(known.status == status && known.disposition == expected, "\(code)")
        let error = OSSServerError(statusCode: status, code: code, message: "m")
        #expect(OSSErrorDisposition(error) == expected, "\(code)")
        #expect(OSSErrorDisposition(OSSBatchFailure(error)) == expected, "\(code)")
        #expect(OSSRetryPolicy.isRetryable(error) == (expected == .retryable), "\(code)")
        #expect(OSSErrorDisposition.affectsEveryRequest(error) == Self.bucketWide.contains(code), "\(code)")
        #expect(OSSErrorDisposition.affectsEveryRequest(OSSBatchFailure(error)) == Self.bucketWide.contains(code))
    }

    @Test func unknownServerCodesFallBackOnTheStatus() {
        func of(_ status: Int, _ code: String = "") -> OSSErrorDisposition {
            OSSErrorDisposition(OSSServerError(statusCode: status, code: code, message: ""))
        }
        #expect(of(500) == .retryable)
        #expect(of(599, "SomethingNew") == .retryable)
        #expect(of(429) == .retryable)
        #expect(of(408) == .retryable)
        #expect(of(400, "SomethingNew") == .final)
        #expect(of(404) == .final)
        #expect(of(304) == .final)
        // The code decides over the status.
        #expect(of(501, "NotImplemented") == .final)
        #expect(of(403, "RequestTimeTooSkewed") == .retryable)
        // AccessDenied that says the token expired is a credential rejection, not a permission problem.
        let expired = OSSServerError(statusCode: 403, code: "AccessDenied", message: "The security token has expired.")
        #expect(OSSErrorDisposition(expired) == .transient)
        #expect(expired.rejectsCredentials)
        #expect(!OSSServerError(statusCode: 403, code: "AccessDenied", message: "denied").rejectsCredentials)
    }

    @Test func otherErrorsAreClassifiedToo() {
        #expect(OSSErrorDisposition(CancellationError()) == .cancelled)
        #expect(OSSErrorDisposition(URLError(.timedOut)) == .retryable)
        #expect(OSSErrorDisposition(URLError(.networkConnectionLost)) == .retryable)
        #expect(OSSErrorDisposition(URLError(.cancelled)) == .cancelled)
        #expect(OSSErrorDisposition(URLError(.serverCertificateUntrusted)) == .final)
        #expect(OSSErrorDisposition(OSSPOSIXError(code: ENOSPC)) == .transient)
        #expect(OSSErrorDisposition(OSSPOSIXError(code: ECONNRESET)) == .retryable)
        #expect(OSSErrorDisposition(OSSPOSIXError(code: EACCES)) == .final)
        #expect(OSSErrorDisposition(POSIXError(.ECONNREFUSED)) == .retryable)
        #expect(OSSErrorDisposition(OSSNonRetryableFailure(error: OSSClientError(.networkError, "x"))) == .final)
        #expect(OSSErrorDisposition(OSSNonRetryableFailure(error: OSSClientError.cancelled())) == .cancelled)
        struct Unknown: Error {}
        #expect(OSSErrorDisposition(Unknown()) == .final)
        // The transfers' own cancellation check is the disposition's.
        #expect(OSSClientError(.taskPaused, "x").isTransferCancellation)
        #expect(!OSSClientError(.networkError, "x").isTransferCancellation)
    }

    @Test func aBatchStoppedByABucketWideErrorIsBucketWide() {
        let stopped = OSSClientError(
            .batchStopped, "stopped", underlying: OSSBatchFailure(OSSServerError(statusCode: 404, code: "NoSuchBucket", message: "")))
        #expect(OSSErrorDisposition.affectsEveryRequest(stopped))
        let local = OSSClientError(.batchStopped, "stopped", underlying: OSSBatchFailure(OSSClientError(.fileCantRead, "x")))
        #expect(!OSSErrorDisposition.affectsEveryRequest(local))
        #expect(OSSErrorDisposition.affectsEveryRequest(OSSClientError(.signFailed, "x")))
        #expect(OSSErrorDisposition.affectsEveryRequest(OSSClientError.file(writing: true, "w", errno: ENOSPC)))
        #expect(!OSSErrorDisposition.affectsEveryRequest(OSSClientError(.networkError, "x")))
        #expect(!OSSErrorDisposition.affectsEveryRequest(CancellationError()))
    }
}
