@testable import AliyunOSS
import Foundation
import OSSResumable
import OSSSigning
import OSSXML
import Testing

/// What an app shows: `localizedDescription` of every SDK error is its message (not "The operation could not be
/// completed"), with a reason and a suggestion where there is one, and an errno's text beside its number.
@Suite("Localized errors")
struct LocalizedErrorTests {
    @Test(arguments: OSSClientErrorCode.allKnown)
    func everyClientErrorDescribesItself(_ code: OSSClientErrorCode) {
        let error: any Error = OSSClientError(code, "cannot do the thing to oss://b/k")
        #expect(error.localizedDescription == "Cannot do the thing to oss://b/k.")
        let localized = error as? any LocalizedError
        #expect(localized?.failureReason?.isEmpty == false, "\(code) has a reason")
        if code != .taskCancelled && code != .notKnown {
            #expect(localized?.recoverySuggestion?.isEmpty == false, "\(code) says what to do")
        }
    }

    @Test func messagesBecomeSentences() {
        #expect(OSSErrorText.sentence("the task was cancelled") == "The task was cancelled.")
        #expect(OSSErrorText.sentence("InvalidTag: too long") == "InvalidTag: too long.")
        #expect(OSSErrorText.sentence("oss://b/k is gone") == "oss://b/k is gone.")
        #expect(OSSErrorText.sentence("Done!") == "Done!")
        #expect(OSSErrorText.sentence("") == "")
    }

    @Test func serverErrorsShowOSSsMessageAndWhatToDo() {
        let missing: any Error = OSSServerError(
            statusCode: 404, code: "NoSuchBucket", message: "The specified bucket does not exist.", requestId: "RID1",
            headers: ["authorization": "OSS AK:signature"])
        #expect(missing.localizedDescription == "The specified bucket does not exist.")
        let localized = missing as? any LocalizedError
        #expect(localized?.failureReason == "OSS answered HTTP 404 NoSuchBucket (request ID RID1).")
        #expect(localized?.recoverySuggestion?.contains("bucket name and the region") == true)
        // Nothing secret is shown: the Authorization header is not even kept.
        for text in [missing.localizedDescription, localized?.failureReason, localized?.recoverySuggestion] {
            #expect(text?.contains("signature") != true)
        }

        let empty: any Error = OSSServerError(statusCode: 503, code: "", message: "")
        #expect(empty.localizedDescription == "OSS answered HTTP 503.")
        #expect((empty as? any LocalizedError)?.recoverySuggestion?.contains("try again later") == true)

        func suggestion(_ status: Int, _ code: String, _ message: String = "m") -> String {
            (OSSServerError(statusCode: status, code: code, message: message) as any LocalizedError).recoverySuggestion ?? ""
        }
        #expect(suggestion(403, "InvalidAccessKeyId").contains("access key"))
        #expect(suggestion(403, "SignatureDoesNotMatch").contains("access key"))
        #expect(suggestion(403, "RequestTimeTooSkewed").contains("date and time"))
        #expect(suggestion(403, "InvalidSecurityToken").contains("STS"))
        #expect(suggestion(403, "AccessDenied", "The security token you provided has expired.").contains("STS"))
        #expect(suggestion(503, "SlowDown").contains("fewer"))
        #expect(suggestion(404, "NoSuchKey").contains("object key"))
    }

    @Test func errnoFailuresNameTheReason() {
        let full: any Error = OSSClientError.file(writing: true, "cannot write /tmp/x", errno: ENOSPC)
        let reason = String(cString: strerror(ENOSPC))
        #expect(full.localizedDescription == "Cannot write /tmp/x (errno \(ENOSPC): \(reason)).")
        #expect((full as? any LocalizedError)?.recoverySuggestion?.contains("Free some space") == true)
        #expect((OSSPOSIXError(code: EACCES) as any Error).localizedDescription == "\(String(cString: strerror(EACCES))) (errno \(EACCES)).")
        // From the resumable layer, through the one map.
        let unreadable = OSSClientError(OSSResumableError.fileCantRead(path: "/p", errno: ENOENT), in: .upload)
        #expect(unreadable.code == .fileCantRead && unreadable.posixErrorCode == ENOENT)
        #expect(unreadable.localizedDescription.contains(String(cString: strerror(ENOENT))))
        let noSpace = OSSClientError(OSSResumableError.fileCantWrite(path: "/p", errno: ENOSPC), in: .download)
        #expect(noSpace.code == .noSpaceLeft && noSpace.posixErrorCode == ENOSPC)
        // A batch's record of a file failure.
        let failure: any Error = OSSBatchFailure(OSSClientError.file(writing: false, "cannot read /a", errno: EACCES))
        #expect(failure.localizedDescription.contains(String(cString: strerror(EACCES))))
    }

    @Test func theOtherPublicErrorsDescribeThemselves() {
        let errors: [any Error] = [
            OSSResumableError.recordChecksumMismatch,
            OSSSigningError(.missingRegion, "V4 needs a region"),
            OSSXMLError(.malformed, "not XML"),
            OSSBatchFailure(OSSServerError(statusCode: 403, code: "AccessDenied", message: "You have no right.")),
        ]
        for error in errors {
            #expect(!error.localizedDescription.contains("could not be completed"), "\(error)")
            #expect(error.localizedDescription == (error as? any LocalizedError)?.errorDescription)
        }
        #expect(OSSResumableError.fileCantWrite(path: "/p", errno: ENOSPC).description.contains(String(cString: strerror(ENOSPC))))
    }

    /// The one map from the resumable layer's errors: each lands on the code its transfer documents.
    @Test func theResumableMapIsOne() {
        #expect(OSSClientError(.recordLocked(path: "/r.lock"), in: .download).code == .transferInUse)
        #expect(OSSClientError(.fileChanged([]), in: .upload).code == .cannotResumeUpload)
        #expect(OSSClientError(.uploadNotFound(uploadId: "u"), in: .upload).code == .cannotResumeUpload)
        #expect(OSSClientError(.objectChanged("etag"), in: .download).code == .objectChanged)
        #expect(OSSClientError(.crcMismatch(expected: 1, actual: 2), in: .download).code == .invalidCRC)
        #expect(OSSClientError(.partCRCMismatch(partNumber: 1, expected: 1, actual: 2), in: .upload).code == .invalidCRC)
        #expect(OSSClientError(.recordNeedsBaseDirectory(path: "a"), in: .download).code == .cannotResumeDownload)
        #expect(OSSClientError(.recordWrongMagic, in: .upload).code == .cannotResumeUpload)
        #expect(OSSClientError(.invalidArgument("x"), in: .upload).code == .invalidArgument)
        #expect(OSSClientError(.invalidState("x"), in: .upload).code == .exceptionCaught)
    }

    /// The one pass-or-wrap: public errors pass, cancellation becomes taskCancelled, the rest is wrapped.
    @Test func passOrWrap() {
        struct Other: Error {}
        let wrap = { (error: any Error) in OSSClientError(.signFailed, "wrapped", underlying: error) }
        let server = OSSServerError(statusCode: 404, code: "NoSuchKey", message: "")
        #expect((OSSClientError.passing(server, orWrapping: wrap) as? OSSServerError)?.code == "NoSuchKey")
        #expect((OSSClientError.passing(OSSClientError(.invalidCRC, "c"), orWrapping: wrap) as? OSSClientError)?.code == .invalidCRC)
        #expect((OSSClientError.passing(CancellationError(), orWrapping: wrap) as? OSSClientError)?.code == .taskCancelled)
        let wrapped = OSSClientError.passing(Other(), orWrapping: wrap) as? OSSClientError
        #expect(wrapped?.code == .signFailed && wrapped?.underlying is Other)
    }
}
