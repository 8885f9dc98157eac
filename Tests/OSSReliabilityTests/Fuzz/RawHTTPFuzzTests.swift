import Foundation
import OSSLocalServer
import OSSSigning
import OSSTestSupport
import OSSXML
import Testing

/// Drives the local server's request-line, query, header, Range and Authorization parsing over real HTTP with
/// raw (possibly malformed) requests.
@Suite("Fuzz: local server over raw HTTP")
struct RawHTTPFuzzTests {
    static let object: [UInt8] = (0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }

    static func signedHead(_ method: String, key: String, server: LocalOSSServer, extra: [String: String] = [:])
        throws -> [String: String]
    {
        var request = OSSSignableRequest(method: method, bucket: "bkt", key: key, headers: extra)
        try OSSSignerV1().sign(&request, credentials: server.credentials, date: Date())
        return request.headers
    }

    static func render(_ method: String, target: String, headers: [String: String], body: [UInt8] = []) -> [UInt8] {
        var text = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { text += "\(name): \(value)\r\n" }
        text += "Content-Length: \(body.count)\r\n\r\n"
        return Array(text.utf8) + body
    }

    /// Checks a reply: a sane status, and an `<Error>` document that parses for every error with a body.
    static func checkReply(_ reply: RawHTTPResponse, context: String) {
        #expect((100..<600).contains(reply.status), "\(context): status \(reply.status)")
        #expect(reply.headers["x-oss-request-id"] != nil || reply.status == 400, "\(context): no request id")
        if reply.status >= 400, !reply.body.isEmpty {
            let root = try? OSSXMLParser.parse(reply.body, root: "Error")
            #expect(root?.string("Code")?.isEmpty == false, "\(context): error body does not parse")
        }
    }

    @Test("mutated raw requests get a sane reply or a closed connection, never a hang or a dead server")
    func mutatedRequests() async throws {
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["bkt"])) { server in
            let putHeaders = try Self.signedHead("PUT", key: "obj", server: server, extra: ["content-type": "application/octet-stream"])
            let putBytes = try await RawHTTP.exchange(
                port: server.port, request: Self.render("PUT", target: "/bkt/obj", headers: putHeaders, body: Self.object))
            let put = try #require(RawHTTP.parse(putBytes))
            #expect(put.status == 200)
            let getHeaders = try Self.signedHead("GET", key: "obj", server: server)
            let templates: [[UInt8]] = [
                Self.render("GET", target: "/bkt/obj", headers: getHeaders),
                Self.render("GET", target: "/bkt/obj?uploadId=x&partNumber=1&list-type=2", headers: getHeaders),
                Self.render("GET", target: "/bkt/dir%2F..%2F..%2Fetc%2Fpasswd?prefix=a%20b+c", headers: getHeaders),
                Self.render(
                    "GET", target: "/bkt/obj",
                    headers: ["authorization": "OSS4-HMAC-SHA256 Credential=LTAILocalDevAccessKeyId/20261121/cn-hangzhou/oss/aliyun_v4_request,AdditionalHeaders=host,Signature=00",
                              "x-oss-date": "20261121T120000Z", "x-oss-content-sha256": "UNSIGNED-PAYLOAD"]),
                Array("GET /bkt/obj?OSSAccessKeyId=LTAILocalDevAccessKeyId&Expires=99999999999&Signature=abc%3D HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8),
            ]
            let count = ReliabilityScale.httpCount(600)
            var rng = SplitMix64(seed: ReliabilityScale.seed(0x4854_5400))
            let requests = (0..<count).map { _ in Mutator.mutate(rng.element(templates), &rng) }
            let port = server.port
            // 16 connections at a time: requests cut short make the exchange wait for the half-close.
            let outcomes = try await withThrowingTaskGroup(of: (Int, Result<[UInt8], any Error>).self) { group in
                var results: [(Int, Result<[UInt8], any Error>)] = []
                var next = 0
                func launch(_ index: Int) {
                    let request = requests[index]
                    group.addTask {
                        do { return (index, .success(try await RawHTTP.exchange(port: port, request: request, halfCloseAfterMilliseconds: 1000))) } catch {
                            return (index, .failure(error))
                        }
                    }
                }
                while next < min(16, count) { launch(next); next += 1 }
                while let result = try await group.next() {
                    results.append(result)
                    if next < count { launch(next); next += 1 }
                }
                return results
            }
            var replies = 0
            var closed = 0
            for (index, outcome) in outcomes {
                switch outcome {
                case .failure(let error):
                    Issue.record("request \(index): \(error) for \(String(decoding: requests[index].prefix(200), as: UTF8.self))")
                case .success(let bytes):
                    if let reply = RawHTTP.parse(bytes) {
                        replies += 1
                        Self.checkReply(reply, context: "request \(index)")
                    } else {
                        closed += 1
                    }
                }
            }
            // Still alive and serving the same bytes.
            let after = try #require(RawHTTP.parse(try await RawHTTP.exchange(
                port: server.port, request: Self.render("GET", target: "/bkt/obj", headers: try Self.signedHead("GET", key: "obj", server: server)))))
            #expect(after.status == 200)
            #expect(after.body == Self.object)
            reportFigure("fuzz", ["target": "server-raw-http", "inputs": count, "replies": replies, "closed": closed])
        }
    }

    @Test("random Range headers on a signed GET: 200, 206 with the right slice, or 416")
    func rangeOverHTTP() async throws {
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["bkt"])) { server in
            let putHeaders = try Self.signedHead("PUT", key: "obj", server: server)
            let put = try #require(RawHTTP.parse(try await RawHTTP.exchange(
                port: server.port, request: Self.render("PUT", target: "/bkt/obj", headers: putHeaders, body: Self.object))))
            #expect(put.status == 200)
            let size = Self.object.count
            var rng = SplitMix64(seed: ReliabilityScale.seed(0x5247_4500))
            let count = ReliabilityScale.httpCount(400)
            var statuses: [Int: Int] = [:]
            for index in 0..<count {
                let a = rng.below(size + 200) - 100
                let b = rng.below(size + 200) - 100
                let forms = ["bytes=\(a)-\(b)", "bytes=\(a)-", "bytes=-\(b)", "bytes=\(a)-\(b),0-1", "bytes = \(a) - \(b)",
                             "bytes=\(a)-\(b)0000000000000000000", "items=\(a)-\(b)", "bytes=\(b)-\(a)"]
                let standard = rng.chance(1, in: 2)
                // x-oss-range-behavior is an x-oss-* header, so it is signed; Range is not.
                var headers = try Self.signedHead(
                    "GET", key: "obj", server: server, extra: standard ? ["x-oss-range-behavior": "standard"] : [:])
                headers["range"] = rng.element(forms)
                let reply = try #require(RawHTTP.parse(try await RawHTTP.exchange(
                    port: server.port, request: Self.render("GET", target: "/bkt/obj", headers: headers))))
                statuses[reply.status, default: 0] += 1
                let context = "request \(index) Range \(headers["range"] ?? "") standard \(standard)"
                switch reply.status {
                case 200:
                    #expect(reply.body == Self.object, "\(context)")
                case 206:
                    let contentRange = try #require(reply.headers["content-range"], "\(context)")
                    let numbers = contentRange.dropFirst(6).split(whereSeparator: { $0 == "-" || $0 == "/" }).compactMap { Int($0) }
                    #expect(numbers.count == 3 && numbers[2] == size, "\(context): \(contentRange)")
                    if numbers.count == 3, numbers[0] <= numbers[1], numbers[1] < size {
                        #expect(reply.body == Array(Self.object[numbers[0]...numbers[1]]), "\(context)")
                    }
                case 416:
                    #expect(standard, "\(context): 416 in legacy mode")
                    Self.checkReply(reply, context: context)
                default:
                    Issue.record("\(context): status \(reply.status)")
                }
            }
            reportFigure("fuzz", ["target": "server-range-http", "inputs": count, "statuses": statuses.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ",")])
        }
    }
}
