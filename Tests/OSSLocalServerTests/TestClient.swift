import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import OSSLocalServer
import OSSSigning
import OSSTestSupport

/// A minimal signed HTTP client for the tests: AsyncHTTPClient plus OSSSigning, path-style addressing.
struct TestClient: Sendable {
    enum Version: Sendable, CaseIterable { case v1, v4 }

    struct Response: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var body: [UInt8]
        func header(_ name: String) -> String? { headers.first(name: name) }
        var text: String { String(decoding: body, as: UTF8.self) }
        /// The `<Code>` of an error body (or of the Base64 `x-oss-err` header on HEAD).
        var errorCode: String? {
            var xml = text
            if xml.isEmpty, let b64 = header("x-oss-err"), let data = Data(base64Encoded: b64) {
                xml = String(decoding: data, as: UTF8.self)
            }
            guard let start = xml.range(of: "<Code>"), let end = xml.range(of: "</Code>") else { return nil }
            return String(xml[start.upperBound..<end.lowerBound])
        }
    }

    var endpoint: URL
    var credentials: OSSCredentials
    var version: Version = .v1
    var region = "cn-hangzhou"
    /// Shifts the signing time (to test clock skew).
    var clockOffset: TimeInterval = 0

    init(endpointURL: URL, credentials: OSSCredentials, version: Version = .v1) {
        self.endpoint = endpointURL
        self.credentials = credentials
        self.version = version
    }

    init(_ server: LocalOSSServer, version: Version = .v1) {
        self.endpoint = server.endpoint
        self.credentials = server.credentials
        self.version = version
    }

    func url(bucket: String?, key: String?, query: [String: String]) -> String {
        pathStyleURL(endpoint, bucket: bucket, key: key, query: query)
    }

    var signer: any OSSRequestSigner {
        switch version {
        case .v1: return OSSSignerV1()
        case .v4: return OSSSignerV4(region: region)
        }
    }

    /// Signs and sends a request.
    func send(
        _ method: String, bucket: String? = nil, key: String? = nil, query: [String: String] = [:],
        headers: [String: String] = [:], body: [UInt8] = [], sign: Bool = true
    ) async throws -> Response {
        var request = OSSSignableRequest(method: method, bucket: bucket, key: key, query: query, headers: headers)
        if sign {
            try signer.sign(&request, credentials: credentials, date: Date().addingTimeInterval(clockOffset))
        }
        return try await execute(method, url: url(bucket: bucket, key: key, query: request.query),
                                 headers: request.headers, body: body)
    }

    /// A presigned URL for the request.
    func presignedURL(
        _ method: String, bucket: String, key: String, expiresIn: Int64 = 300, date: Date = Date()
    ) throws -> String {
        var request = OSSSignableRequest(method: method, bucket: bucket, key: key)
        try signer.presign(&request, credentials: credentials, date: date, expiresIn: expiresIn)
        return url(bucket: bucket, key: key, query: request.query)
    }

    func execute(_ method: String, url: String, headers: [String: String] = [:], body: [UInt8] = []) async throws
        -> Response
    {
        var request = HTTPClientRequest(url: url)
        request.method = HTTPMethod(rawValue: method)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        // HTTPClient.shared asks for gzip by itself (it decodes it), and the server then compresses text objects as
        // OSS does; the tests see the server's plain replies unless they ask for an encoding.
        if !request.headers.contains(name: "accept-encoding") {
            request.headers.add(name: "Accept-Encoding", value: "identity")
        }
        if !body.isEmpty || method == "PUT" || method == "POST" {
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        let collected = try await response.body.collect(upTo: 64 << 20)
        return Response(status: Int(response.status.code), headers: response.headers, body: Array(collected.readableBytesView))
    }
}

func randomBytes(_ count: Int) -> [UInt8] {
    // Eight bytes per draw: byte by byte, the megabytes the kill loops use take seconds in a debug build.
    var g = SystemRandomNumberGenerator()
    var bytes: [UInt8] = []
    bytes.reserveCapacity(count + 8)
    while bytes.count < count {
        withUnsafeBytes(of: g.next() as UInt64) { bytes.append(contentsOf: $0) }
    }
    return Array(bytes.prefix(count))
}

/// The text of the first `<name>` element in an XML body.
func xmlValue(_ name: String, in text: String) -> String? {
    guard let start = text.range(of: "<\(name)>"), let end = text.range(of: "</\(name)>", range: start.upperBound..<text.endIndex)
    else { return nil }
    return String(text[start.upperBound..<end.lowerBound])
}

func xmlValues(_ name: String, in text: String) -> [String] {
    var values: [String] = []
    var rest = text[...]
    while let start = rest.range(of: "<\(name)>"), let end = rest.range(of: "</\(name)>", range: start.upperBound..<rest.endIndex) {
        values.append(String(rest[start.upperBound..<end.lowerBound]))
        rest = rest[end.upperBound...]
    }
    return values
}
