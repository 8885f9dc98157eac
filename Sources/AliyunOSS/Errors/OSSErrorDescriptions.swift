import Foundation

// Every public error of the SDK is a `LocalizedError`, so `error.localizedDescription` (what an iOS alert shows)
// is a sentence that says what happened, and `recoverySuggestion` what to do. None of them contains a secret: the
// messages never do, and a server error's text is OSS's `<Message>`.

extension OSSClientError: LocalizedError {
    /// The message as a sentence, e.g. `Cannot write /tmp/a.bin (errno 28: No space left on device).`
    public var errorDescription: String? { OSSErrorText.sentence(message) }

    /// What the code means, e.g. `The network connection failed.`
    public var failureReason: String? { OSSErrorText.clientReasons[code] }

    /// What to do, when there is something to do.
    public var recoverySuggestion: String? { OSSErrorText.clientSuggestions[code] }
}

extension OSSServerError: LocalizedError {
    /// OSS's `<Message>` (e.g. `The specified bucket does not exist.`), or the status and code when it sent none.
    public var errorDescription: String? {
        if !message.isEmpty { return OSSErrorText.sentence(message) }
        return "OSS answered HTTP \(statusCode)\(code.isEmpty ? "" : " \(code)")."
    }

    /// The status, the code and the request ID to quote to support.
    public var failureReason: String? {
        let id = requestId.isEmpty ? "" : " (request ID \(requestId))"
        return "OSS answered HTTP \(statusCode)\(code.isEmpty ? "" : " \(code)")\(id)."
    }

    /// What to do: by the code when the SDK knows one, else by the disposition (try again later for a 5xx).
    public var recoverySuggestion: String? {
        // An expired token: also an AccessDenied whose message says so.
        let tokenExpired = OSSErrorText.serverSuggestions["SecurityTokenExpired"]
        if code == "AccessDenied", rejectsCredentials { return tokenExpired }
        if let text = OSSErrorText.serverSuggestions[code] { return text }
        if rejectsCredentials { return tokenExpired }
        if Self.throttlingCodes.contains(code) || statusCode == 429 {
            return "OSS is limiting the request rate of the bucket or account: try again later, or with fewer transfers at once."
        }
        if OSSErrorDisposition(self) == .retryable { return "OSS could not answer this time: try again later." }
        return nil
    }
}

extension OSSPOSIXError: LocalizedError {
    /// `No space left on device (errno 28).`
    public var errorDescription: String? { "\(reason) (errno \(code))." }
}

extension OSSBatchFailure: LocalizedError {
    /// The failure's message as a sentence, with the `errno`'s text when there is one and the message lacks it.
    public var errorDescription: String? {
        var text = message
        if let code = posixErrorCode {
            let posix = OSSPOSIXError(code: code)
            if !text.contains(posix.reason) { text += " (\(posix))" }
        }
        if text.isEmpty { text = description }
        return OSSErrorText.sentence(text)
    }

    /// What to do, as for the error this failure recorded.
    public var recoverySuggestion: String? {
        if let code = clientErrorCode { return OSSErrorText.clientSuggestions[code] }
        return serverErrorCode.flatMap { OSSErrorText.serverSuggestions[$0] }
    }
}

/// The words of the errors' `LocalizedError` conformances.
enum OSSErrorText {
    /// `text` as a sentence: a first word in lower case letters capitalized, a full stop at the end.
    static func sentence(_ text: String) -> String {
        var text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let first = text.first else { return text }
        let firstWord = text.prefix { !$0.isWhitespace }
        if first.isLowercase, firstWord.allSatisfy({ $0.isLetter && $0.isLowercase }) {
            text = first.uppercased() + text.dropFirst()
        }
        if let last = text.last, !".!?".contains(last) { text += "." }
        return text
    }

    static let clientReasons: [OSSClientErrorCode: String] = [
        .networkingFailWithResponseCode0: "The server closed the connection without an answer.",
        .signFailed: "The request could not be signed.",
        .fileCantWrite: "A local file could not be written.",
        .invalidArgument: "An argument is missing or out of range.",
        .nilUploadid: "A multipart operation was given no upload ID.",
        .taskCancelled: "The task was cancelled.",
        .networkError: "The network connection failed.",
        .invalidCRC: "The data's CRC-64 checksum does not match the server's.",
        .cannotResumeUpload: "The upload cannot continue from its record.",
        .exceptionCaught: "An unexpected error occurred.",
        .notKnown: "An unknown error occurred.",
        .fileCantRead: "A local file could not be read.",
        .taskPaused: "The transfer was paused.",
        .objectChanged: "The object changed on the server during the download.",
        .cannotResumeDownload: "The download cannot continue from its record.",
        .transferInUse: "Another run is using this transfer.",
        .connectionNotTrusted: "The connection to the server is not trusted.",
        .noSpaceLeft: "The device is out of space.",
        .batchStopped: "The batch stopped at a file that failed.",
        .fileChanged: "The file changed while it was uploaded.",
        .batchSourceNeeded: "The batch needs the data or stream of an item again.",
        .clientShutDown: "The client was shut down.",
        .encryptedObject: "The object is encrypted on the client side; its stored bytes are ciphertext.",
    ]

    static let clientSuggestions: [OSSClientErrorCode: String] = [
        .networkingFailWithResponseCode0: "Check the network connection and the endpoint, then try again.",
        .networkError: "Check the network connection and the endpoint, then try again.",
        .signFailed:
            "Check the credentials (the access key ID and secret, or the credential provider) and the client's region.",
        .fileCantWrite: "Check that the destination folder exists and the app may write to it.",
        .fileCantRead: "Check that the file exists and the app may read it.",
        .invalidArgument: "Correct the value the message names.",
        .nilUploadid: "Pass the upload ID returned by InitiateMultipartUpload.",
        .invalidCRC:
            "Try again. If it happens again, something between the app and OSS (a proxy, faulty memory or storage) alters the data.",
        .cannotResumeUpload: "Run the upload again: it starts over from the beginning.",
        .cannotResumeDownload: "Start the download again from the beginning.",
        .exceptionCaught: "Try again. If it happens again, report the message.",
        .taskPaused: "Resume the transfer with its resume token.",
        .objectChanged: "Download the object again to get its current version.",
        .transferInUse: "Wait until the other run of this transfer finishes or pauses, then try again.",
        .connectionNotTrusted:
            "Use an https endpoint with a valid certificate, or allow the host in the app's App Transport Security settings.",
        .noSpaceLeft: "Free some space, then run the same call again: the transfer resumes where it stopped.",
        .batchStopped: "Fix the file the message names, then resume the batch: it retries that file and goes on.",
        .fileChanged: "Upload the file again once nothing is writing to it.",
        .batchSourceNeeded: "Resume the batch with a sources closure that gives back the item's data or stream.",
        .clientShutDown: "Create a new client: a client sends nothing after shutdown().",
        .encryptedObject:
            "Download it with OSSEncryptionClient and its master key, or set acceptsCiphertext on the request to take the stored bytes.",
    ]

    static let serverSuggestions: [String: String] = [
        "NoSuchBucket": "Check the bucket name and the region (the endpoint) of the client.",
        "NoSuchKey": "Check the object key.",
        "NoSuchUpload": "The multipart upload was completed or aborted: start a new upload.",
        "AccessDenied":
            "Check that the access key may use this bucket and object (its RAM policy, the bucket policy, the ACL).",
        "InvalidAccessKeyId": "Check the access key ID and secret.",
        "SignatureDoesNotMatch": "Check the access key ID and secret (and the security token of temporary credentials).",
        "SecurityTokenExpired": "Fetch fresh temporary credentials (STS) and try again.",
        "RequestTimeTooSkewed": "Set the device's date and time correctly (automatically), then try again.",
        "InvalidBucketName": "Use a bucket name of 3 to 63 lower-case letters, digits and hyphens.",
        "InvalidObjectName": "Use an object key of 1 to 1023 bytes that does not start with / or \\.",
        "BucketNotEmpty": "Delete the bucket's objects and incomplete multipart uploads first.",
        "BucketAlreadyExists": "Bucket names are global: choose another name.",
        "PreconditionFailed": "The object changed: read it again.",
        "InvalidObjectState": "Restore the archived object first (RestoreObject), then read it.",
        "FileAlreadyExists": "An object with this key exists and overwriting it is forbidden.",
        "CallbackFailed":
            "The object was stored, but the callback server failed: check the callback URL and the server behind it.",
    ]
}
