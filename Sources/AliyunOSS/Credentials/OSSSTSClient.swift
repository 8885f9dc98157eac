import Foundation
import OSSSigning

/// An error answered by STS: its HTTP status, `Code`, `Message` and `RequestId` (the underlying error of the
/// ``OSSClientError`` `signFailed` a role provider throws). The message is cut before anything STS echoes of the
/// request (`SignatureDoesNotMatch` quotes the string to sign, which holds the security token).
public struct OSSSTSError: Error, Sendable, Hashable, CustomStringConvertible {
    public var httpStatus: Int
    /// STS's error code, e.g. `EntityNotExist.Role`, `InvalidParameter.DurationSeconds`,
    /// `AuthenticationFail.OIDCToken.Expired`.
    public var code: String
    public var message: String
    public var requestId: String

    public var description: String {
        "STS error \(code) (HTTP \(httpStatus), RequestId \(requestId.isEmpty ? "none" : requestId)): \(message)"
    }
}

/// The two STS actions the role providers call (`AssumeRole`, `AssumeRoleWithOIDC`, API version 2015-04-01), as the
/// Credentials libraries call them: RPC style, the parameters in a form-encoded POST body, `AssumeRole` signed with
/// the caller's access key (HMAC-SHA1 RPC signature), `AssumeRoleWithOIDC` unsigned. Never logs, and never puts a
/// secret, token or signature in an error.
struct OSSSTSClient: Sendable {
    /// `https://sts.aliyuncs.com` unless configured.
    let endpoint: URL
    let timeout: TimeInterval
    /// Who is asking, in errors: "the RAM role provider (role …)".
    let caller: String

    /// The STS endpoint as the Credentials libraries choose it: `endpoint` (a host such as
    /// `sts.cn-hangzhou.aliyuncs.com`, or a URL with its scheme), else `sts.<region>.aliyuncs.com` for `region` or
    /// `ALIBABA_CLOUD_STS_REGION` (`sts-vpc.` when `vpc` or `ALIBABA_CLOUD_VPC_ENDPOINT_ENABLED=true`), else
    /// `sts.aliyuncs.com`; HTTPS unless the URL says otherwise.
    static func endpoint(
        _ endpoint: String?, region: String?, vpc: Bool?, environment: [String: String]
    ) throws -> URL {
        let text: String
        if let endpoint, !endpoint.isEmpty {
            text = endpoint.contains("://") ? endpoint : "https://" + endpoint
        } else {
            let prefix =
                (vpc ?? (environment["ALIBABA_CLOUD_VPC_ENDPOINT_ENABLED"]?.lowercased() == "true")) ? "sts-vpc" : "sts"
            if let region = region.flatMap({ $0.isEmpty ? nil : $0 }) ?? environment.nonEmpty("ALIBABA_CLOUD_STS_REGION") {
                text = "https://\(prefix).\(region).aliyuncs.com"
            } else {
                text = "https://sts.aliyuncs.com"
            }
        }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            url.host?.isEmpty == false
        else {
            throw OSSClientError.invalidArgument("the STS endpoint '\(text)' is not an http(s) host or URL")
        }
        return url
    }

    /// `AssumeRole` signed with `credentials`.
    func assumeRole(_ parameters: [String: String], signedWith credentials: OSSCredentials) async throws
        -> OSSFederationToken
    {
        var all = parameters
        all["Action"] = "AssumeRole"
        all["AccessKeyId"] = credentials.accessKeyId
        if let token = credentials.securityToken, !token.isEmpty { all["SecurityToken"] = token }
        all["SignatureMethod"] = "HMAC-SHA1"
        all["SignatureVersion"] = "1.0"
        all["SignatureNonce"] = UUID().uuidString
        all = Self.common(all)
        all["Signature"] = OSSRPCSignature.signature(all, method: "POST", secret: credentials.accessKeySecret)
        return try await send(all)
    }

    /// `AssumeRoleWithOIDC` (unsigned: the OIDC token is the proof).
    func assumeRoleWithOIDC(_ parameters: [String: String]) async throws -> OSSFederationToken {
        var all = parameters
        all["Action"] = "AssumeRoleWithOIDC"
        return try await send(Self.common(all))
    }

    private static func common(_ parameters: [String: String]) -> [String: String] {
        var all = parameters
        all["Format"] = "JSON"
        all["Version"] = "2015-04-01"
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        all["Timestamp"] = formatter.string(from: Date())
        return all
    }

    private func send(_ parameters: [String: String]) async throws -> OSSFederationToken {
        let body = parameters.sorted { $0.key < $1.key }
            .map { OSSPercentEncoding.encode($0.key) + "=" + OSSPercentEncoding.encode($0.value) }.joined(separator: "&")
        let service = "STS at \(endpoint.absoluteString)"
        let reply: OSSCredentialHTTP.Reply
        do {
            reply = try await OSSCredentialHTTP.send(
                "POST", url: endpoint.path.isEmpty ? URL(string: endpoint.absoluteString + "/") ?? endpoint : endpoint,
                headers: ["Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"],
                body: Data(body.utf8), timeout: timeout, service: service)
        } catch let error as OSSClientError where error.code == .networkError {
            throw OSSClientError(.networkError, "\(caller): \(error.message)", underlying: error.underlying)
        }
        guard reply.status == 200 else {
            let refusal = Self.error(reply)
            throw OSSClientError(
                .signFailed, "\(caller): \(service) refused with \(refusal.code) (HTTP \(refusal.httpStatus)): \(refusal.message)",
                underlying: refusal)
        }
        return try parse(reply.body, from: service)
    }

    /// STS's error JSON, or what can be said of a reply that is not one.
    static func error(_ reply: OSSCredentialHTTP.Reply) -> OSSSTSError {
        struct Answer: Decodable {
            var Code: String?
            var Message: String?
            var RequestId: String?
        }
        let answer = try? JSONDecoder().decode(Answer.self, from: reply.body)
        var message = answer?.Message ?? "(not STS's error JSON: \(reply.body.count) bytes)"
        if let echo = message.range(of: "server string to sign is", options: .caseInsensitive) {
            message = String(message[..<echo.lowerBound]).trimmingCharacters(in: .whitespaces)
        }
        return OSSSTSError(
            httpStatus: reply.status, code: answer?.Code ?? "(none)", message: message, requestId: answer?.RequestId ?? "")
    }

    /// The `Credentials` of STS's answer.
    private func parse(_ body: Data, from service: String) throws -> OSSFederationToken {
        struct Answer: Decodable {
            struct Credentials: Decodable {
                var AccessKeyId: String?
                var AccessKeySecret: String?
                var SecurityToken: String?
                var Expiration: String?
            }
            var Credentials: Credentials?
        }
        guard let answer = try? JSONDecoder().decode(Answer.self, from: body), let credentials = answer.Credentials else {
            throw OSSClientError(.signFailed, "\(caller): \(service) answered no Credentials JSON (\(body.count) bytes)")
        }
        guard let id = credentials.AccessKeyId, !id.isEmpty, let secret = credentials.AccessKeySecret, !secret.isEmpty,
            let token = credentials.SecurityToken, !token.isEmpty
        else {
            throw OSSClientError(
                .signFailed, "\(caller): \(service) answered Credentials without AccessKeyId, AccessKeySecret or SecurityToken")
        }
        guard let text = credentials.Expiration, let expiration = OSSCredentialHTTP.parseExpiration(text) else {
            throw OSSClientError(.signFailed, "\(caller): \(service) answered Credentials without a valid Expiration")
        }
        return OSSFederationToken(accessKeyId: id, accessKeySecret: secret, securityToken: token, expiration: expiration)
    }
}
