import NIOCore
import NIOHTTP1

import Foundation

extension RequestHandler {
    /// `GET /-/stats`, `POST /-/stats/reset`, `GET|POST|DELETE /-/faults`, `POST /-/sts`, `POST /-/lifecycle/run`.
    /// No signature needed.
    func handleAdmin(_ context: RequestContext, reader: RequestBodyReader) async throws -> ServerResponse {
        let path = context.head.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? ""
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        switch (context.method, path) {
        case ("GET", "/-/stats"):
            let stats = await state.snapshot()
            return .json(String(decoding: try encoder.encode(stats), as: UTF8.self))
        case ("POST", "/-/stats/reset"), ("DELETE", "/-/stats"):
            await state.reset()
            return ServerResponse(status: .noContent)
        case ("GET", "/-/faults"):
            let rules = await state.activeRules().map(\.description)
            return .json(String(decoding: try encoder.encode(rules), as: UTF8.self))
        case ("POST", "/-/faults"):
            let body = try await reader.collect(limit: 64 << 10)
            let text = String(decoding: body.readableBytesView, as: UTF8.self).trimmingWhitespace()
            var rules: [LocalOSSFaultRule] = []
            do {
                if text.hasPrefix("{") {
                    rules = [try JSONDecoder().decode(LocalOSSFaultRule.self, from: Data(text.utf8))]
                } else if text.hasPrefix("[") {
                    rules = try JSONDecoder().decode([LocalOSSFaultRule].self, from: Data(text.utf8))
                } else {
                    for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) where !line.isEmpty {
                        rules.append(try LocalOSSFaultRule(parsing: String(line)))
                    }
                }
            } catch {
                throw LocalOSSError.invalidArgument("\(error)")
            }
            guard !rules.isEmpty else { throw LocalOSSError.invalidArgument("no fault rule in the body") }
            for rule in rules { await state.add(rule) }
            return .json(String(decoding: try encoder.encode(rules.map(\.description)), as: UTF8.self))
        case ("POST", "/-/lifecycle/run"):
            return try await runLifecycle(context)
        case ("DELETE", "/-/faults"):
            await state.clear()
            return ServerResponse(status: .noContent)
        case ("POST", "/-/sts"):
            // `?seconds=N` (default 3600): issue temporary credentials, as STS AssumeRole would.
            let seconds = context.query["seconds"].map { Int($0) } ?? 3600
            guard let seconds, seconds >= 0, seconds <= 43_200 else {
                throw LocalOSSError.invalidArgument("seconds must be 0...43200", name: "seconds")
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            encoder.dateEncodingStrategy = .iso8601
            let credential = issuer.issue(lifetime: .seconds(seconds), now: context.now)
            return .json(String(decoding: try encoder.encode(credential), as: UTF8.self))
        default:
            throw LocalOSSError(404, "NoSuchAdminEndpoint", "Admin endpoints: GET /-/stats, POST /-/stats/reset, GET|POST|DELETE /-/faults, POST /-/sts?seconds=N, POST /-/lifecycle/run?now=DATE.")
        }
    }
}
