import OSSXML

/// An OSS error reply: HTTP status, OSS code, message and extra `<Error>` fields.
struct LocalOSSError: Error, Sendable {
    var status: Int
    var code: String
    var message: String
    /// Extra `<Error>` children, in order (e.g. `Key`, `StringToSign`).
    var fields: [(String, String)]
    /// Extra response headers.
    var headers: [(String, String)]

    init(_ status: Int, _ code: String, _ message: String, fields: [(String, String)] = [], headers: [(String, String)] = []) {
        self.status = status
        self.code = code
        self.message = message
        self.fields = fields
        self.headers = headers
    }

    /// The `EC` value reported with the error (a stable made-up code per error code).
    var ec: String {
        switch code {
        case "NoSuchKey": return "0026-00000001"
        case "NoSuchBucket": return "0015-00000101"
        case "NoSuchUpload": return "0042-00000002"
        case "SignatureDoesNotMatch": return "0002-00000040"
        case "InvalidAccessKeyId": return "0002-00000030"
        case "AccessDenied": return "0003-00000001"
        case "RequestTimeTooSkewed": return "0002-00000043"
        case "InvalidSecurityToken": return "0002-00000044"
        case "SecurityTokenExpired": return "0002-00000046"
        case "PreconditionFailed": return "0026-00000011"
        case "InvalidRange": return "0026-00000012"
        case "InvalidDigest": return "0016-00000001"
        case "InvalidPart": return "0042-00000003"
        case "InvalidPartOrder": return "0042-00000004"
        case "EntityTooSmall": return "0042-00000005"
        case "MalformedXML": return "0016-00000702"
        case "BucketNotEmpty": return "0015-00000301"
        case "InvalidArgument": return "0016-00000502"
        case "InvalidBucketName": return "0015-00000201"
        case "FileAlreadyExists": return "0026-00000014"
        case "NotImplemented": return "0001-00000001"
        default: return "0000-00000000"
        }
    }

    func xml(requestId: String, hostId: String) -> String {
        var w = OSSXMLWriter()
        w.open("Error")
        w.element("Code", code)
        w.element("Message", message)
        w.element("RequestId", requestId)
        w.element("HostId", hostId)
        for (name, value) in fields { w.element(name, value) }
        w.element("EC", ec)
        w.close("Error")
        return w.output
    }

    static func noSuchBucket(_ bucket: String) -> LocalOSSError {
        LocalOSSError(404, "NoSuchBucket", "The specified bucket does not exist.", fields: [("BucketName", bucket)])
    }
    static func noSuchKey(_ key: String) -> LocalOSSError {
        LocalOSSError(404, "NoSuchKey", "The specified key does not exist.", fields: [("Key", key)])
    }
    static func noSuchUpload(_ uploadId: String) -> LocalOSSError {
        LocalOSSError(
            404, "NoSuchUpload",
            "The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.",
            fields: [("UploadId", uploadId)])
    }
    static func invalidArgument(_ message: String, name: String? = nil, value: String? = nil) -> LocalOSSError {
        var fields: [(String, String)] = []
        if let name { fields.append(("ArgumentName", name)) }
        if let value { fields.append(("ArgumentValue", value)) }
        return LocalOSSError(400, "InvalidArgument", message, fields: fields)
    }
    static func malformedXML(_ message: String) -> LocalOSSError {
        LocalOSSError(400, "MalformedXML", "The XML you provided was not well-formed or did not validate against our published schema: \(message)")
    }
    static func accessDenied(_ message: String) -> LocalOSSError {
        LocalOSSError(403, "AccessDenied", message)
    }
    static func internalError(_ message: String) -> LocalOSSError {
        LocalOSSError(500, "InternalError", message)
    }
    static func notImplemented(_ message: String) -> LocalOSSError {
        LocalOSSError(501, "NotImplemented", message)
    }

    /// A throttled request (OSS: a bucket over its QPS or bandwidth limits): 503 with the delay in
    /// `x-oss-qos-delay-time` (milliseconds) and `Retry-After` (seconds, rounded up).
    static func throttled(milliseconds: Int, code: String?) -> LocalOSSError {
        LocalOSSError(
            503, code ?? "TotalQpsLimitExceeded", "Please reduce your request rate.",
            headers: [("x-oss-qos-delay-time", String(milliseconds)), ("Retry-After", String((milliseconds + 999) / 1000))])
    }

    /// The default OSS code for a fault's HTTP status.
    static func defaultCode(forStatus status: Int) -> String {
        switch status {
        case 400: return "InvalidArgument"
        case 403: return "AccessDenied"
        case 404: return "NoSuchKey"
        case 409: return "Conflict"
        case 412: return "PreconditionFailed"
        case 429: return "TooManyRequests"
        case 500: return "InternalError"
        case 502: return "BadGateway"
        case 503: return "ServiceUnavailable"
        case 504: return "GatewayTimeout"
        default: return "InjectedFault"
        }
    }
}

/// Thrown inside a request to make the server close the connection without replying.
struct DropConnection: Error {}
