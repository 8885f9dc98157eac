import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import OSSLocalServer
import OSSSigning
import OSSTestSupport
import OSSXML
import Testing

/// A raw signed-request sender for the attack suites: OSSSigning builds the signature, the test tampers with it,
/// AsyncHTTPClient sends it path-style to the local server.
struct AttackClient: Sendable {
    struct Reply: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var body: [UInt8]

        /// The `<Error>` document (from the body, or from `x-oss-err` on HEAD), parsed by OSSXMLParser.
        var error: OSSXMLNode? {
            var document = body
            if document.isEmpty, let b64 = headers.first(name: "x-oss-err"), let data = Data(base64Encoded: b64) {
                document = Array(data)
            }
            return try? OSSXMLParser.parse(document, root: "Error")
        }

        var code: String? { error?.string("Code") }
    }

    let endpoint: URL

    init(_ server: LocalOSSServer) {
        endpoint = server.endpoint
    }

    /// The URL of `request` (path-style), its query percent-encoded with OSS rules.
    func url(bucket: String?, key: String?, query: [String: String]) -> String {
        pathStyleURL(endpoint, bucket: bucket, key: key, query: query)
    }

    /// Sends `request` as is: every header it holds, its query, and `body`.
    func send(
        _ request: OSSSignableRequest, body: [UInt8] = [], bucket: String? = nil, key: String? = nil,
        query: [String: String]? = nil
    ) async throws -> Reply {
        var http = HTTPClientRequest(
            url: url(bucket: bucket ?? request.bucket, key: key ?? request.key, query: query ?? request.query))
        http.method = HTTPMethod(rawValue: request.method)
        for (name, value) in request.headers where name != "host" && name != "content-length" {
            http.headers.add(name: name, value: value)
        }
        if !body.isEmpty || request.method == "PUT" || request.method == "POST" {
            http.body = .bytes(ByteBuffer(bytes: body))
        }
        let response = try await HTTPClient.shared.execute(http, timeout: .seconds(30))
        var collected = try await response.body.collect(upTo: 16 << 20)
        let bytes = collected.readBytes(length: collected.readableBytes) ?? []
        return Reply(status: Int(response.status.code), headers: response.headers, body: bytes)
    }
}

/// Flips one character of a signature (keeping it the same length and alphabet).
func tamper(_ signature: String) -> String {
    var chars = Array(signature)
    guard let index = chars.indices.first(where: { chars[$0].isLetter || chars[$0].isNumber }) else { return signature + "x" }
    chars[index] = chars[index] == "a" ? "b" : "a"
    return String(chars)
}
