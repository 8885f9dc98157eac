import NIOCore
import NIOHTTP1
import OSSSigning
import OSSXML

import Foundation

/// PostObject: `POST /` on a bucket with a `multipart/form-data` body, as a browser form sends it.
///
/// The form is read as a stream: fields (within OSS's limits: a name at most 8 KB, a value at most 2 MB, the values
/// before the file at most 8 MB) up to the `file` field, whose data
/// goes straight to disk through ``BodySink``; fields after the file are read and ignored. The form authenticates
/// itself: V1 (`OSSAccessKeyId`, `policy`, `Signature`) or V4 (`x-oss-signature-version`, `x-oss-credential`,
/// `x-oss-date`, `x-oss-signature`, and `x-oss-security-token` with STS), or nothing for a public-read-write
/// bucket. Every policy condition is enforced with OSS's codes and messages, and nothing is stored unless the
/// whole form arrived and satisfied them.
extension RequestHandler {
    /// The longest value of a field other than `file` (OSS: 2 MB, error 0006-00000111).
    static let postFieldLimit = 2 * 1024 * 1024
    /// The most bytes of names and values before the file (OSS counts the values: 8 MB, error 0006-00000112; the
    /// names count here too, so that many fields with long names cannot hold more memory than that). A part's
    /// header block, and with it a field's name, is at most 8 KB (``MultipartFormParser/maximumHeaderBytes``).
    static let postFieldsTotalLimit = 8 * 1024 * 1024
    /// PostObject uploads at most 5 GB.
    static let postObjectMaximumSize: Int64 = 5 * 1024 * 1024 * 1024

    static let malformedPost = LocalOSSError(
        400, "MalformedPOSTRequest", "The body of your POST request is not well-formed multipart/form-data.")

    func postObject(_ context: RequestContext, reader: RequestBodyReader) async throws -> ServerResponse {
        guard let bucket = context.bucket else { throw Self.malformedPost }
        guard let boundary = MultipartFormParser.boundary(ofContentType: context.header("content-type") ?? "") else {
            throw LocalOSSError(
                400, "MalformedPOSTRequest",
                "The body of your POST request is not well-formed multipart/form-data: the content type has no boundary.")
        }
        let bucketRecord = try await store.bucket(bucket)
        let idle = configuration.postObjectIdleTimeout.components
        reader.idleTimeout = .nanoseconds(idle.seconds * 1_000_000_000 + idle.attoseconds / 1_000_000_000)
        reader.idleReply = idleTimeoutReply(context)
        let parser = MultipartFormParser(boundary: boundary) { try await reader.nextChunk() }
        do {
            return try await receivePost(context, bucket: bucket, bucketACL: bucketRecord.acl, parser: parser)
        } catch is MultipartFormParser.Malformed {
            throw Self.malformedPost
        } catch let error as MultipartFormParser.FieldTooLarge {
            let what = error.limit == Self.postFieldLimit
                ? "The form field \(error.name) is longer than 2 MB."
                : "The form fields before the file are longer than 8 MB in all (at \(error.name))."
            throw LocalOSSError(400, "InvalidArgument", what, fields: [("ArgumentName", error.name)])
        }
    }

    /// Reads the form, authenticates it, stores the file and answers as the form asks.
    private func receivePost(
        _ context: RequestContext, bucket: String, bucketACL: String?, parser: MultipartFormParser
    ) async throws -> ServerResponse {
        var fields: [String: String] = [:]
        var file: MultipartFormParser.PartHead?
        var left = Self.postFieldsTotalLimit
        while let part = try await parser.nextPart() {
            let name = part.name.lowercased()
            if name == "file" {
                file = part
                break
            }
            left -= part.name.utf8.count
            let limit = min(Self.postFieldLimit, max(0, left))
            let value = try await parser.readValue(limit: limit, name: part.name)
            left -= value.readableBytes
            guard fields[name] == nil else {
                throw LocalOSSError.invalidArgument("The form field \(part.name) appears more than once.", name: part.name)
            }
            fields[name] = String(decoding: value.readableBytesView, as: UTF8.self)
        }
        guard let file else {
            throw LocalOSSError.invalidArgument("The form needs a field named file, the last of its fields.", name: "file")
        }
        let policy = try authenticatePost(fields, bucket: bucket, bucketACL: bucketACL, context: context)
        guard var key = fields["key"], !key.isEmpty else {
            throw LocalOSSError.invalidArgument("The form needs the field key (the object name).", name: "key")
        }
        if key.contains("${filename}") {
            let name = (file.fileName ?? "").split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
            key = key.replacingOccurrences(of: "${filename}", with: name)
            fields["key"] = key
        }
        let formContext = postedObjectContext(context, key: key, fields: fields)
        _ = try Router.operation(for: formContext)  // the key's rules (length, leading '/')
        try policy?.check(fields: fields, bucket: bucket)
        try await requirePostAccess(fields, bucket: bucket, key: key, bucketACL: bucketACL, context: formContext)
        try await refuseForbiddenOverwrite(formContext, bucket: bucket, key: key)
        let extra = try await requestedExtra(formContext, bucket: bucket)
        let callback = try CallbackRequest.parse(formContext)
        if fields["x-oss-forbid-overwrite"]?.lowercased() == "true", await store.objectExists(bucket, key) {
            throw LocalOSSError(409, "FileAlreadyExists", "The object you specified already exists and can not be overwritten.")
        }

        let temp = store.newTempPath()
        let maximum = min(policy?.maximumLength ?? Self.postObjectMaximumSize, Self.postObjectMaximumSize)
        var size: Int64 = 0
        let digest = try await BodySink.receive(to: temp) {
            guard let chunk = try await parser.nextChunk() else { return nil }
            size += Int64(chunk.readableBytes)
            if size > maximum { throw PostPolicyDocument.tooLarge(size: size, maximum: maximum) }
            return chunk
        }
        do {
            try policy?.checkLength(digest.size)
            // Fields after the file are ignored, but the form must end properly: a cut-off form stores nothing.
            while try await parser.nextPart() != nil {}
        } catch {
            FileIO.remove(temp)
            throw error
        }
        let contentType = fields["content-type"] ?? file.contentType ?? "application/octet-stream"
        let record = ObjectRecord(
            key: key, size: digest.size, etag: digest.etag, crc64: digest.crc64,
            lastModified: Int64(context.now.timeIntervalSince1970), contentType: contentType,
            contentMD5: digest.md5Base64, userMetadata: formContext.userMetadata, headers: storedHeaders(formContext),
            objectType: "Normal", dataFile: "", extra: extra)
        let committed = try await store.commitObject(bucket, record: record, tempPath: temp)
        let headers = storedUploadHeaders(committed, md5Base64: digest.md5Base64)
        if let callback {
            return try await callbackResponse(callback, headers: headers, context: context, bucket: bucket, object: committed)
        }
        return postSuccess(fields, headers: headers, context: context, bucket: bucket, key: key, etag: committed.etag)
    }

    /// The same access checks as a PutObject by the form's signer (anonymous for an unsigned form): the bucket
    /// policy (a Deny holds against a form too), the ACL, a public access block, and the referer rules for an
    /// unsigned form. A form's signature is not a way round what the bucket's owner forbids.
    private func requirePostAccess(
        _ fields: [String: String], bucket: String, key: String, bucketACL: String?, context: RequestContext
    ) async throws {
        let accessKeyId = fields["ossaccesskeyid"]
            ?? fields["x-oss-credential"].flatMap { $0.split(separator: "/").first.map(String.init) }
        let caller = try accessKeyId.map {
            try authenticator.caller(of: $0, securityToken: fields["x-oss-security-token"], context: context)
        } ?? .anonymous
        let rules = await accessRules(bucket)
        if caller == .anonymous { try Self.checkReferer(rules.referer, context.header("referer")) }
        try await requireAccess(
            caller, action: "oss:PutObject", bucket: bucket, key: key, bucketACL: bucketACL, rules: rules, context: context)
    }

    /// Checks the form's signature, or, for a form without one, that the bucket is public-read-write. Returns the
    /// policy, whose conditions the caller checks.
    private func authenticatePost(
        _ fields: [String: String], bucket: String, bucketACL: String?, context: RequestContext
    ) throws(LocalOSSError) -> PostPolicyDocument? {
        let signatureFields = ["policy", "signature", "ossaccesskeyid", "x-oss-signature", "x-oss-credential"]
        guard signatureFields.contains(where: { fields[$0] != nil }) else {
            guard bucketACL == "public-read-write" else {
                throw .accessDenied("You have no right to access this object because of bucket acl.")
            }
            return nil
        }
        guard let policyText = fields["policy"] else {
            throw .invalidArgument("A signed form needs the policy field.", name: "policy")
        }
        let token = fields["x-oss-security-token"]
        if fields["x-oss-signature-version"] != nil || fields["x-oss-signature"] != nil {
            try verifyPostV4(fields, policy: policyText, token: token, context: context)
        } else {
            guard let accessKeyId = fields["ossaccesskeyid"] else {
                throw .invalidArgument("A signed form needs the OSSAccessKeyId field.", name: "OSSAccessKeyId")
            }
            guard let provided = fields["signature"], !provided.isEmpty else {
                throw .invalidArgument("A V1 signed form needs the Signature field.", name: "Signature")
            }
            let secret = try authenticator.secret(for: accessKeyId, securityToken: token, context: context)
            let expected = OSSPostPolicySignature.v1(policy: policyText, secret: secret)
            guard constantTimeEqual(expected, provided) else { throw Self.postSignatureMismatch(accessKeyId, policyText) }
        }
        let policy = try PostPolicyDocument.parse(base64: policyText)
        if context.now > policy.expiration {
            throw .accessDenied("Invalid according to Policy: Policy expired.")
        }
        return policy
    }

    private func verifyPostV4(_ fields: [String: String], policy: String, token: String?, context: RequestContext)
        throws(LocalOSSError)
    {
        guard fields["x-oss-signature-version"] == OSSSignerV4.algorithm else {
            throw .invalidArgument(
                "x-oss-signature-version must be \(OSSSignerV4.algorithm).", name: "x-oss-signature-version",
                value: fields["x-oss-signature-version"])
        }
        guard let credential = fields["x-oss-credential"] else {
            throw .invalidArgument("A V4 signed form needs the x-oss-credential field.", name: "x-oss-credential")
        }
        let parts = credential.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 5, parts[4] == "aliyun_v4_request" else {
            throw .invalidArgument(
                "x-oss-credential must be <AccessKeyId>/<YYYYMMDD>/<region>/oss/aliyun_v4_request.", name: "x-oss-credential",
                value: credential)
        }
        guard let date = fields["x-oss-date"], OSSDateFormat.parseISO8601Basic(date) != nil else {
            throw .invalidArgument("A V4 signed form needs x-oss-date as 20240115T083045Z.", name: "x-oss-date")
        }
        guard let provided = fields["x-oss-signature"], !provided.isEmpty else {
            throw .invalidArgument("A V4 signed form needs the x-oss-signature field.", name: "x-oss-signature")
        }
        let (accessKeyId, day, region, product) = (parts[0], parts[1], parts[2], parts[3])
        guard day == String(date.prefix(8)) else {
            throw LocalOSSError(403, "SignatureDoesNotMatch", "The credential date \(day) does not match x-oss-date.")
        }
        guard region == configuration.region else {
            throw LocalOSSError(
                403, "SignatureDoesNotMatch",
                "The credential scope region '\(region)' is wrong; this server expects '\(configuration.region)'.")
        }
        let secret = try authenticator.secret(for: accessKeyId, securityToken: token, context: context)
        let expected = OSSPostPolicySignature.v4(policy: policy, secret: secret, day: day, region: region, product: product)
        guard constantTimeEqual(expected, provided.lowercased()) else {
            throw Self.postSignatureMismatch(accessKeyId, policy)
        }
        // The V4 fields must be bound by the policy itself.
        let document = try PostPolicyDocument.parse(base64: policy)
        var bound = ["x-oss-signature-version", "x-oss-credential", "x-oss-date"]
        if token != nil { bound.append("x-oss-security-token") }
        // OSS: 403 AccessDenied, "Invalid according to Policy: Extra input fields: x-oss-credential" (0006-00000228).
        for name in bound where document.required(name) == nil {
            throw .accessDenied("Invalid according to Policy: Extra input fields: \(name)")
        }
    }

    private static func postSignatureMismatch(_ accessKeyId: String, _ policy: String) -> LocalOSSError {
        LocalOSSError(
            403, "SignatureDoesNotMatch",
            "The request signature we calculated does not match the signature you provided. Check your key and signing method.",
            fields: [("OSSAccessKeyId", accessKeyId), ("StringToSign", policy)])
    }

    /// The request as a PutObject of `key` with the form's fields as headers, so that the object is described by
    /// the same code as PUT (metadata, ACL, storage class, tagging, encryption, callback).
    private func postedObjectContext(_ context: RequestContext, key: String, fields: [String: String]) -> RequestContext {
        var posted = context
        posted.key = key
        posted.query = [:]
        var headers: [String: String] = [:]
        for (name, value) in fields
        where name.hasPrefix("x-oss-") || storedObjectHeaders.contains(name) || name == "content-type" {
            headers[name] = value
        }
        for name in ["x-oss-signature", "x-oss-credential", "x-oss-date", "x-oss-signature-version", "x-oss-security-token"] {
            headers[name] = nil
        }
        headers["x-oss-callback"] = fields["callback"]
        var variables: [String: String] = [:]
        for (name, value) in fields where name.hasPrefix("x:") { variables[name] = value }
        if !variables.isEmpty, let json = try? JSONSerialization.data(withJSONObject: variables, options: [.sortedKeys]) {
            headers["x-oss-callback-var"] = json.base64EncodedString()
        }
        posted.headers = headers
        return posted
    }

    /// 303 to `success_action_redirect`, else `success_action_status` (200, 201 with a `PostResponse`, or 204).
    private func postSuccess(
        _ fields: [String: String], headers: HTTPHeaders, context: RequestContext, bucket: String, key: String, etag: String
    ) -> ServerResponse {
        var headers = headers
        if let redirect = fields["success_action_redirect"], let url = URL(string: redirect),
            let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil
        {
            let query = [("bucket", bucket), ("key", key), ("etag", etag)]
                .map { "\($0.0)=\(OSSPercentEncoding.encode($0.1))" }.joined(separator: "&")
            headers.add(name: "Location", value: redirect + (redirect.contains("?") ? "&" : "?") + query)
            return ServerResponse(status: .seeOther, headers: headers)
        }
        switch fields["success_action_status"] {
        case "200":
            return ServerResponse(status: .ok, headers: headers)
        case "201":
            let pathStyle = context.head.uri.hasPrefix("/\(bucket)")
            let host = context.header("host") ?? configuration.host
            let location = "http://\(host)/\(pathStyle ? bucket + "/" : "")\(OSSPercentEncoding.encode(key, keepSlash: true))"
            var w = OSSXMLWriter()
            w.open("PostResponse")
            w.element("Bucket", bucket)
            w.element("Location", location)
            w.element("Key", key)
            w.element("ETag", etag)
            w.close("PostResponse")
            var response = ServerResponse.xml(w.output, status: .created)
            for (name, value) in headers { response.headers.add(name: name, value: value) }
            return response
        default:
            return ServerResponse(status: .noContent, headers: headers)
        }
    }

    /// What a form that stops arriving is answered: 400 `RequestTimeout`, then the connection closes.
    private func idleTimeoutReply(_ context: RequestContext) -> (head: HTTPResponseHead, body: ByteBuffer) {
        let error = LocalOSSError(
            400, "RequestTimeout",
            "Your socket connection to the server was not read from or written to within the timeout period.")
        let body = ByteBuffer(string: error.xml(requestId: context.requestId, hostId: context.hostId))
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/xml")
        headers.add(name: "Content-Length", value: String(body.readableBytes))
        headers.add(name: "Connection", value: "close")
        headers.add(name: "x-oss-request-id", value: context.requestId)
        headers.add(name: "Server", value: "AliyunOSS")
        return (HTTPResponseHead(version: .http1_1, status: .badRequest, headers: headers), body)
    }
}
