#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An upload callback: after storing the object, OSS POSTs ``body`` (with `${bucket}`, `${object}`, `${etag}`,
/// `${size}`, `${mimeType}` and `${x:name}` filled in) to the first of ``urls`` that answers, and returns that
/// server's JSON reply as the upload's response body. Used by ``OSSPutObjectRequest/callback``,
/// ``OSSCompleteMultipartUploadRequest/typedCallback`` and ``OSSResumableUploadRequest/callback``; it is sent as
/// the Base64 JSON headers `x-oss-callback` and `x-oss-callback-var`.
///
/// ```swift
/// var request = OSSPutObjectRequest(bucketName: "b", objectKey: "cat.jpg", fileURL: url)
/// request.callback = OSSCallback(
///     url: "https://app.example.com/uploaded",
///     body: #"{"object":${object},"size":${size},"user":${x:user}}"#, bodyType: .json,
///     variables: ["x:user": "alice"])
/// let result = try await client.putObject(request)  // result.serverCallbackBody: the app server's reply
/// ```
///
/// When the callback fails (unreachable, non-2xx, timeout, non-JSON reply), OSS answers HTTP 203 and the call
/// throws ``OSSServerError`` with code `CallbackFailed`: the object **is** stored, and the error carries its ETag
/// (``OSSServerError/eTag``) and request id.
public struct OSSCallback: Sendable, Hashable, Codable {
    /// How ``body`` is encoded.
    public enum BodyType: String, Sendable, Hashable, Codable {
        /// `application/x-www-form-urlencoded` (the default): `bucket=${bucket}&object=${object}`.
        case urlEncoded = "application/x-www-form-urlencoded"
        /// `application/json`: `{"bucket":${bucket}}` (OSS puts each variable in as a JSON value, quoted and escaped).
        case json = "application/json"
    }

    /// 1 to 5 callback URLs, tried in order.
    public var urls: [String]
    /// The `Host` header of the callback request; the URL's host when nil.
    public var host: String?
    /// The body template.
    public var body: String
    public var bodyType: BodyType
    /// Custom variables, `x:name` → value (the `x:` prefix is added when missing; names must be lower case).
    public var variables: [String: String]
    /// Whether OSS sends SNI to an `https` callback URL (`callbackSNI`); nil leaves it out.
    public var sni: Bool?

    public init(
        urls: [String], body: String, bodyType: BodyType = .urlEncoded, host: String? = nil,
        variables: [String: String] = [:], sni: Bool? = nil
    ) {
        self.urls = urls
        self.host = host
        self.body = body
        self.bodyType = bodyType
        self.variables = variables
        self.sni = sni
    }

    public init(
        url: String, body: String, bodyType: BodyType = .urlEncoded, host: String? = nil,
        variables: [String: String] = [:], sni: Bool? = nil
    ) {
        self.init(urls: [url], body: body, bodyType: bodyType, host: host, variables: variables, sni: sni)
    }

    /// The request headers: `x-oss-callback` and, with variables, `x-oss-callback-var` (Base64 JSON).
    ///
    /// - Throws: ``OSSClientError`` `.invalidArgument` for no URL or more than 5, an empty body or a URL containing
    ///   `;`, or a variable name that is not lower case.
    public func headers() throws -> [String: String] {
        let trimmed = urls.map { $0.trimmingCharactersInWhitespace() }
        guard (1...5).contains(trimmed.count), trimmed.allSatisfy({ !$0.isEmpty && !$0.contains(";") }) else {
            throw OSSClientError.invalidArgument("a callback needs 1 to 5 non-empty URLs without ';'")
        }
        guard !body.isEmpty else { throw OSSClientError.invalidArgument("a callback needs a body template") }
        var parameters: [String: JSONValue] = [
            "callbackUrl": .string(trimmed.joined(separator: ";")),
            "callbackBody": .string(body),
            "callbackBodyType": .string(bodyType.rawValue),
        ]
        if let host, !host.isEmpty { parameters["callbackHost"] = .string(host) }
        if let sni { parameters["callbackSNI"] = .bool(sni) }
        var result = ["x-oss-callback": try Self.base64JSON(parameters)]
        if !variables.isEmpty {
            var vars: [String: JSONValue] = [:]
            for (name, value) in variables {
                let full = name.hasPrefix("x:") ? name : "x:" + name
                guard full.count > 2, full == full.lowercased() else {
                    throw OSSClientError.invalidArgument("the callback variable '\(name)' must be lower case (OSS: x:name)")
                }
                vars[full] = .string(value)
            }
            result["x-oss-callback-var"] = try Self.base64JSON(vars)
        }
        return result
    }

    enum JSONValue: Encodable {
        case string(String)
        case bool(Bool)

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .string(let text): try container.encode(text)
            case .bool(let flag): try container.encode(flag)
            }
        }
    }

    private static func base64JSON(_ object: [String: JSONValue]) throws -> String {
        try OSSCallbackHeaders.base64JSON(encoding: object)
    }

    /// Throws ``OSSServerError`` `CallbackFailed` for a 203 reply (the upload succeeded, its callback did not).
    static func checkCallbackFailed(_ response: OSSHTTPResponse) async throws {
        guard response.status == 203 else { return }
        let body = try await response.body.collectBytes(upTo: OSSServerError.maximumRawBodySize)
        var error = OSSServerError.from(status: 203, headers: response.headers, body: Array(body))
        if error.code.isEmpty { error.code = "CallbackFailed" }
        throw error
    }
}

extension OSSServerError {
    /// Whether this is OSS's HTTP 203 `CallbackFailed`: the object was stored but its upload callback failed.
    public var isCallbackFailed: Bool { statusCode == 203 || code == "CallbackFailed" }

    /// The `ETag` header of the reply (for `CallbackFailed`, the stored object's ETag).
    public var eTag: String? { headers["etag"] }
}
