import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one way credential providers talk HTTP to the services they get credentials from (an app's auth server, the
/// ECS metadata service, a credentials URI, STS): a request with a timeout, its status and body back, and failures that name the service.
/// Never logs: bodies carry secrets.
enum OSSCredentialHTTP {
    struct Reply: Sendable {
        var status: Int
        var body: Data
    }

    /// Sends `method` to `url` (with `body`, if any) and returns the reply, whatever its status.
    ///
    /// - Throws: ``OSSClientError`` `invalidArgument` for a URL that is not http(s); `cancelled`; `networkError`
    ///   naming `service` when it cannot be reached or does not answer within `timeout` seconds.
    static func send(
        _ method: String, url: URL, headers: [String: String] = [:], body: Data? = nil, timeout: TimeInterval,
        service: String
    ) async throws -> Reply {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw OSSClientError.invalidArgument("the URL of \(service) must be http or https")
        }
        var request = URLRequest(
            url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: max(1, timeout.rounded(.up)))
        request.httpMethod = method
        request.httpBody = body
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let sent = request
        do {
            // The deadline is kept here, not by URLSession: FoundationNetworking's timeout is whole seconds, and a
            // service that accepts the connection and never answers must not hold a credential fetch for longer.
            return try await withThrowingTaskGroup(of: Reply?.self) { group in
                group.addTask {
                    let (data, response) = try await URLSession.shared.data(for: sent)
                    return Reply(status: (response as? HTTPURLResponse)?.statusCode ?? 0, body: data)
                }
                group.addTask {
                    try await Task.sleep(for: .milliseconds(Int64((timeout * 1000).rounded(.up))))
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let reply = first else {
                    try Task.checkCancellation()
                    throw URLError(.timedOut)
                }
                return reply
            }
        } catch is CancellationError {
            throw OSSClientError.cancelled()
        } catch let error as URLError where error.code == .cancelled {
            throw OSSClientError.cancelled(error)
        } catch let error as URLError where error.code == .timedOut {
            throw OSSClientError(.networkError, "\(service) did not answer within \(timeout) s", underlying: error)
        } catch {
            throw OSSClientError(.networkError, "cannot reach \(service)", underlying: error)
        }
    }

    /// STS-shaped credentials as the ECS metadata service and credentials URIs send them: `Code` (`Success`; when
    /// `codeRequired` is false an absent `Code` is accepted too), `AccessKeyId`, `AccessKeySecret`, `SecurityToken`,
    /// `Expiration`. `source` names where they came from in errors; the body is never echoed (it holds the secret).
    static func parseSessionCredentials(_ body: Data, from source: String, codeRequired: Bool) throws
        -> OSSFederationToken
    {
        struct Answer: Decodable {
            var Code: String?
            var AccessKeyId: String?
            var AccessKeySecret: String?
            var SecurityToken: String?
            var Expiration: String?
        }
        let answer: Answer
        do {
            answer = try JSONDecoder().decode(Answer.self, from: body)
        } catch {
            throw OSSClientError(.signFailed, "\(source) are not the expected JSON")
        }
        guard answer.Code == "Success" || (answer.Code == nil && !codeRequired) else {
            throw OSSClientError(.signFailed, "\(source) came with Code \(answer.Code ?? "(none)"), not Success")
        }
        guard let id = answer.AccessKeyId, !id.isEmpty, let secret = answer.AccessKeySecret, !secret.isEmpty,
            let token = answer.SecurityToken, !token.isEmpty
        else {
            throw OSSClientError(.signFailed, "\(source) lack AccessKeyId, AccessKeySecret or SecurityToken")
        }
        guard let text = answer.Expiration, let expiration = parseExpiration(text) else {
            throw OSSClientError(.signFailed, "\(source) have no valid Expiration")
        }
        return OSSFederationToken(accessKeyId: id, accessKeySecret: secret, securityToken: token, expiration: expiration)
    }

    /// An ISO 8601 date as credential services send it (`2026-11-27T10:00:00Z`, fractional seconds allowed).
    static func parseExpiration(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }
}
