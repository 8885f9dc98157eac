import OSSSigning

import Foundation

/// The body of an upload callback: the `callbackBody` template with its variables replaced, as OSS replaces them.
extension CallbackRequest {
    /// What OSS tells a callback about the upload (its system variables).
    struct Upload: Sendable {
        var bucket: String
        var object: String
        /// Quoted, as stored; the callback gets it without quotes.
        var etag: String
        var size: Int64
        var mimeType: String
        var crc64: UInt64
        /// Base64 MD5 of the content, for a PutObject; absent for a completed multipart upload.
        var contentMD5: String?
        /// `PutObject` or `CompleteMultipartUpload`.
        var operation: String
        var requestId: String
    }

    /// A value a variable is replaced with: JSON bodies write a string in quotes and a number bare.
    private enum Value {
        case string(String)
        case number(Int64)
    }

    /// The system variables OSS fills in but the local server has nothing for (it processes no images and has no
    /// VPC): replaced with empty strings rather than left as `${...}`.
    private static let emptySystemVariables = [
        "imageInfo.height", "imageInfo.width", "imageInfo.format", "vpcId", "clientIp",
    ]

    /// The body sent to the callback server. The system variables (`${bucket}`, `${object}`, `${etag}` unquoted,
    /// `${size}`, `${mimeType}`, `${crc64}`, `${contentMd5}`, `${operation}`, `${reqId}`, ...) and the `${x:name}`
    /// variables of `x-oss-callback-var` are replaced: URL-encoded in a form body (the default
    /// `application/x-www-form-urlencoded`), and "in JSON format", as OSS's callback documentation puts it, in an
    /// `application/json` body: each value is a JSON value, a string in quotes with JSON escapes and `${size}` a
    /// number, so a template reads `{"object":${object},"size":${size}}`. A custom variable the request does not
    /// define is empty; other unknown variables are left as they are.
    func body(for upload: Upload) -> String {
        var values: [String: Value] = variables.mapValues { .string($0) }
        for name in Self.emptySystemVariables { values[name] = .string("") }
        values["bucket"] = .string(upload.bucket)
        values["object"] = .string(upload.object)
        values["etag"] = .string(upload.etag.replacingOccurrences(of: "\"", with: ""))
        values["size"] = .number(upload.size)
        values["mimeType"] = .string(upload.mimeType)
        values["crc64"] = .string(String(upload.crc64))
        values["contentMd5"] = .string(upload.contentMD5 ?? "")
        values["operation"] = .string(upload.operation)
        values["reqId"] = .string(upload.requestId)
        var out = ""
        var rest = Substring(bodyTemplate)
        while let start = rest.range(of: "${") {
            out += rest[..<start.lowerBound]
            let after = rest[start.upperBound...]
            guard let end = after.firstIndex(of: "}") else {
                rest = rest[start.lowerBound...]
                break
            }
            let name = String(after[..<end])
            if let value = values[name] ?? (name.hasPrefix("x:") ? .string("") : nil) {
                out += rendered(value)
            } else {
                out += rest[start.lowerBound...end]
            }
            rest = after[after.index(after: end)...]
        }
        out += rest
        return out
    }

    private func rendered(_ value: Value) -> String {
        switch (value, bodyType == Self.jsonType) {
        case (.number(let n), _): String(n)
        case (.string(let text), true): "\"" + Self.jsonEscaped(text) + "\""
        case (.string(let text), false): OSSPercentEncoding.encode(text)
        }
    }

    /// A JSON body must be JSON once its variables are replaced; OSS refuses the upload otherwise, before storing
    /// anything (400 InvalidArgument "The callback configuration is not json format."). A variable in quotes
    /// (`"${object}"`) is the usual mistake: its value already comes quoted. Checked with sample values.
    func checkJSONBody() throws(LocalOSSError) {
        guard bodyType == Self.jsonType else { return }
        let sample = Upload(
            bucket: "bucket", object: "object", etag: "\"ETAG\"", size: 1, mimeType: "text/plain", crc64: 1,
            contentMD5: "MD5", operation: "PutObject", requestId: "0")
        let data = Data(body(for: sample).utf8)
        guard (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])) != nil else {
            throw Self.invalid("The callback configuration is not json format.")
        }
    }

    static func jsonEscaped(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
