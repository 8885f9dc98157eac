import Foundation
import NIOHTTP1
@testable import OSSLocalServer
import OSSSigning
import OSSTestSupport
import Testing

/// Seeded fuzzing of the local server's Range, fault-rule and authentication parsers, called directly.
/// (The same parsers are also driven over raw HTTP in ``RawHTTPFuzzTests``.)
@Suite("Fuzz: local server Range, fault rule and Authorization parsing")
struct ServerParserFuzzTests {
    @Test("Range: never traps, and every range it grants lies inside the object")
    func rangeParsing() {
        let seeds = [
            "bytes=0-99", "bytes=-100", "bytes=500-", "bytes=0-0,5-9", "BYTES = 1-2", "bytes=9223372036854775807-",
            "bytes=-9223372036854775808", "bytes=0-9223372036854775807", "bytes=+1-+2", "bytes=--1",
        ].map { Array($0.utf8) }
        let sizes: [Int64] = [0, 1, 2, 99, 100, 1000, Int64.max]
        runFuzz("server-range", seed: ReliabilityScale.seed(0x5241_4E00), count: ReliabilityScale.count(40_000)) { rng, _ in
            let header = String(decoding: Mutator.mutate(rng.element(seeds), &rng), as: UTF8.self)
            let size = rng.chance(1, in: 2) ? rng.element(sizes) : Int64(rng.below(5000))
            let standard = rng.chance(1, in: 2)
            do {
                guard let range = try ObjectConditions.range(header, size: size, standard: standard) else { return .rejected }
                #expect(range.lowerBound >= 0 && range.upperBound < size, "\(header) on \(size) -> \(range)")
                return .accepted
            } catch let error as LocalOSSError {
                #expect(error.status == 416 && error.code == "InvalidRange")
                #expect(standard, "legacy behaviour never answers 416")
                return .rejected
            } catch {
                Issue.record("untyped error \(error)")
                return .rejected
            }
        }
    }

    @Test("fault rules: parsing arbitrary text never traps")
    func faultRuleParsing() {
        let seeds = [
            "UploadPart:random=0.1:seed=7:drop=5000", "GetObject:always:drop=1000:times=2", "*:nth=3:status=503",
            "*:random=0.1:seed=42:status=500:code=InternalError", "PutObject:delay=1500", "any:every=2:skew=-3600",
        ].map { Array($0.utf8) }
        runFuzz("fault-rule", seed: ReliabilityScale.seed(0x4641_5500), count: ReliabilityScale.count(20_000)) { rng, _ in
            let text = String(decoding: Mutator.mutate(rng.element(seeds), &rng), as: UTF8.self)
            return (try? LocalOSSFaultRule(parsing: text)) == nil ? .rejected : .accepted
        }
    }

    static let configuration = LocalOSSServerConfiguration(
        stsCredentials: [OSSCredentials(accessKeyId: "STS.Fuzz", accessKeySecret: "FuzzSecret", securityToken: "FuzzToken")],
        buckets: ["bkt"])

    static func context(_ request: OSSSignableRequest, now: Date) -> RequestContext {
        RequestContext(
            head: HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: request.method), uri: "/"),
            method: request.method, bucket: request.bucket, key: request.key, query: request.query,
            headers: request.headers, requestId: "fuzz", now: now, hostId: "127.0.0.1")
    }

    /// A validly signed request in one of the four modes.
    static func signed(mode: Int, now: Date, sts: Bool) throws -> OSSSignableRequest {
        let credentials = sts
            ? configuration.stsCredentials[0]
            : OSSCredentials(accessKeyId: configuration.accessKeyId, accessKeySecret: configuration.accessKeySecret)
        var request = OSSSignableRequest(
            method: "PUT", bucket: "bkt", key: "dir/obj name+%.bin", query: ["partNumber": "1", "uploadId": "ABC"],
            headers: ["content-type": "application/octet-stream", "content-md5": "1B2M2Y8AsgTpgAmY7PhCfg==", "x-oss-meta-a": "b"])
        switch mode {
        case 0: try OSSSignerV1().sign(&request, credentials: credentials, date: now)
        case 1: try OSSSignerV4(region: "cn-hangzhou").sign(&request, credentials: credentials, date: now)
        case 2: try OSSSignerV1().presign(&request, credentials: credentials, date: now, expiresIn: 600)
        default: try OSSSignerV4(region: "cn-hangzhou").presign(&request, credentials: credentials, date: now, expiresIn: 600)
        }
        return request
    }

    /// The signature a request carries, read as leniently as the server reads it (V4 fields split on `,` and
    /// `=` with white space trimmed around names and values, hex lower-cased; V1 after the last `:`, trimmed).
    /// A tampered request may only be accepted when this is unchanged (e.g. `Signature\r\n=...`).
    static func providedSignature(_ request: OSSSignableRequest) -> String {
        if let auth = request[header: "authorization"] {
            if auth.hasPrefix("OSS4-HMAC-SHA256 ") {
                var signature = ""
                for item in auth.dropFirst(17).split(separator: ",") {
                    let pair = item.split(separator: "=", maxSplits: 1)
                    if pair.count == 2, String(pair[0]).trimmingWhitespace() == "Signature" {
                        signature = String(pair[1]).trimmingWhitespace().lowercased()
                    }
                }
                return "v4|" + signature
            }
            let rest = auth.split(separator: ":", omittingEmptySubsequences: false).last ?? ""
            return "v1|" + String(rest).trimmingWhitespace()
        }
        if let v1 = request.query["Signature"] { return v1 }
        return (request.query["x-oss-signature"] ?? "").lowercased()
    }

    @Test("valid signatures in all four modes are accepted (the fuzzer's baseline)")
    func baselineAccepted() throws {
        let authenticator = RequestAuthenticator(configuration: Self.configuration)
        let now = Date()
        for mode in 0..<4 {
            for sts in [false, true] {
                let request = try Self.signed(mode: mode, now: now, sts: sts)
                #expect(throws: Never.self, "mode \(mode) sts \(sts)") {
                    try authenticator.authenticate(Self.context(request, now: now))
                }
            }
        }
    }

    @Test("Authorization: mutated signatures, keys, buckets and methods are never accepted")
    func authorizationParsing() throws {
        let authenticator = RequestAuthenticator(configuration: Self.configuration)
        let now = Date(timeIntervalSince1970: 1_763_700_000)
        let baselines = try (0..<8).map { try Self.signed(mode: $0 % 4, now: now, sts: $0 >= 4) }
        let signatureFields = ["authorization", "Signature", "x-oss-signature"]
        runFuzz("server-authorization", seed: ReliabilityScale.seed(0x4155_5400), count: ReliabilityScale.count(30_000)) {
            rng, _ in
            let original = rng.element(baselines)
            var request = original
            var mustReject = true
            switch rng.below(6) {
            case 0:
                // The signature itself (header or query).
                if let auth = request[header: "authorization"] {
                    request[header: "authorization"] = String(decoding: Mutator.mutate(Array(auth.utf8), &rng), as: UTF8.self)
                } else {
                    let name = request.query["Signature"] != nil ? "Signature" : "x-oss-signature"
                    let value = request.query[name] ?? ""
                    request.query[name] = String(decoding: Mutator.mutate(Array(value.utf8), &rng), as: UTF8.self)
                }
            case 1:
                request.key = (request.key ?? "") + String(UnicodeScalar(UInt8(0x21 + rng.below(90))))
            case 2:
                request.bucket = rng.element(["bkt2", "bk", "other-bucket", "BKT"])
            case 3:
                request.method = rng.element(["GET", "POST", "DELETE", "HEAD"])
            case 4:
                // Random garbage for the Authorization header (any scheme).
                request[header: "authorization"] = String(
                    decoding: Mutator.mutate(Array("OSS4-HMAC-SHA256 Credential=a/b/c/d/e,Signature=f".utf8), &rng),
                    as: UTF8.self)
            default:
                // Any other header or query value: may be accepted only if it was not signed.
                mustReject = false
                let name = rng.element(Array(request.headers.keys) + Array(request.query.keys))
                let value = request.headers[name] ?? request.query[name] ?? ""
                let mutated = String(decoding: Mutator.mutate(Array(value.utf8), &rng), as: UTF8.self)
                if request.headers[name] != nil { request[header: name] = mutated } else { request.query[name] = mutated }
                if signatureFields.contains(name) { mustReject = mutated.lowercased() != value.lowercased() }
            }
            do {
                try authenticator.authenticate(Self.context(request, now: now.addingTimeInterval(Double(rng.below(60)))))
                if mustReject, Self.providedSignature(request) != Self.providedSignature(original) {
                    Issue.record("accepted a tampered request: \(request)")
                }
                return .accepted
            } catch let error as LocalOSSError {
                #expect(error.status == 403 || error.status == 400, "\(error.status) \(error.code)")
                #expect(
                    [
                        "SignatureDoesNotMatch", "InvalidAccessKeyId", "AccessDenied", "RequestTimeTooSkewed",
                        "InvalidArgument", "InvalidSecurityToken",
                    ].contains(error.code), "unexpected code \(error.code)")
                return .rejected
            } catch {
                Issue.record("untyped error \(error)")
                return .rejected
            }
        }
    }
}
