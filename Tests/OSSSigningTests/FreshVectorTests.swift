import Foundation
import OSSSigning
import Testing

/// Fresh examples signed right now by oss2 and alibabacloud-oss-v2 (Tests/python/fresh_signing_examples.py, run with
/// the .venv that scripts/test.sh creates), for keys with spaces, unicode, `+`, `%`, `~`, `/` and more: our signer,
/// given the same inputs and instant, must produce the same signature.
@Suite("Fresh vectors from the official Python SDKs")
struct FreshVectorTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func runGenerator() async throws -> [String: Any] {
        let python = packageRoot.appendingPathComponent(".venv/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            Issue.record("no Python venv at \(python.path): run ./scripts/test.sh, which creates it with oss2 and alibabacloud-oss-v2")
            return [:]
        }
        let process = Process()
        process.executableURL = python
        process.arguments = [packageRoot.appendingPathComponent("Tests/python/fresh_signing_examples.py").path]
        let output = Pipe()
        process.standardOutput = output
        // The pipe is read and the exit awaited on a Dispatch thread, never on Swift's cooperative pool (which the
        // in-process servers of other tests need).
        let (data, status): (Data, Int32) = try await withCheckedThrowingContinuation { continuation in
            do { try process.run() } catch {
                continuation.resume(throwing: error)
                return
            }
            DispatchQueue.global().async {
                let data = output.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(returning: (data, process.terminationStatus))
            }
        }
        #expect(status == 0, "the generator failed")
        return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
    }

    static func signature(ofAuthorization auth: String) -> String {
        if auth.hasPrefix("OSS4-HMAC-SHA256") {
            return String(auth.components(separatedBy: "Signature=")[1].prefix { $0 != "," && $0 != " " })
        }
        return String(auth.split(separator: ":").last ?? "")
    }

    @Test func everyFreshExampleSignsIdentically() async throws {
        let document = try await Self.runGenerator()
        let examples = try #require(document["examples"] as? [[String: Any]])
        #expect(examples.count > 300)
        let base = OSSCredentials(
            accessKeyId: document["access_key_id"] as! String, accessKeySecret: document["access_key_secret"] as! String)
        var sts = base
        sts.securityToken = document["security_token"] as? String
        let bucket = document["bucket"] as! String
        let expires = Int64(document["expires"] as! Int)
        var compared = 0
        for e in examples {
            let variant = e["variant"] as! String
            let label = "\(e["sdk"]!) \(variant) sts=\(e["sts"]!) \(e["method"]!) key=\(e["key"]!)"
            let credentials = (e["sts"] as! Bool) ? sts : base
            var request = OSSSignableRequest(
                method: e["method"] as! String, bucket: bucket, key: e["key"] as? String,
                query: e["query"] as! [String: String], headers: e["user_headers"] as! [String: String])
            let signer: any OSSRequestSigner = variant.hasPrefix("v1") ? OSSSignerV1() : OSSSignerV4(region: "cn-hangzhou")
            if variant.hasSuffix("header") {
                let wire = e["wire_headers"] as! [String: String]
                let date = try #require(
                    wire["x-oss-date"].flatMap(OSSDateFormat.parseISO8601Basic) ?? wire["date"].flatMap(OSSDateFormat.parseRFC1123),
                    "\(label)")
                try signer.sign(&request, credentials: credentials, date: date)
                let ours = Self.signature(ofAuthorization: request[header: "authorization"] ?? "")
                #expect(ours == Self.signature(ofAuthorization: e["authorization"] as! String), "\(label)")
            } else {
                let q = e["url_query"] as! [String: String]
                if variant == "v1_presign" {
                    let absolute = try #require(Int64(q["Expires"] ?? ""))
                    let date = Date(timeIntervalSince1970: TimeInterval(absolute - expires))
                    try signer.presign(&request, credentials: credentials, date: date, expiresIn: expires)
                    #expect(request.query["Signature"] == q["Signature"], "\(label)")
                } else {
                    let date = try #require(OSSDateFormat.parseISO8601Basic(q["x-oss-date"] ?? ""))
                    let seconds = try #require(Int64(q["x-oss-expires"] ?? ""))
                    try signer.presign(&request, credentials: credentials, date: date, expiresIn: seconds)
                    #expect(request.query["x-oss-signature"] == q["x-oss-signature"], "\(label)")
                }
            }
            compared += 1
        }
        #expect(compared == examples.count)
    }
}
