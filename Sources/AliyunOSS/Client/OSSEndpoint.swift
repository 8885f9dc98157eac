import Foundation

/// A parsed endpoint: scheme, host, optional port and path. `https` is assumed when no scheme is given.
public struct OSSEndpoint: Sendable, Hashable, CustomStringConvertible {
    public var scheme: String
    /// The host name or IP literal (IPv6 in brackets).
    public var host: String
    public var port: Int?
    /// The endpoint's path without a trailing `/` (`/oss` for `https://gw.example.com/oss/`), `""` for none.
    /// Requests keep it only with ``OSSClientConfiguration/isCustomPathPrefixEnabled`` (the iOS
    /// `isCustomPathPrefixEnable`); otherwise it is dropped, as iOS drops it by default.
    public var path: String = ""

    /// Parses `oss-cn-hangzhou.aliyuncs.com`, `https://oss-cn-hangzhou.aliyuncs.com`, `http://127.0.0.1:9000`.
    public init(_ text: String) throws {
        var rest = Substring(text.trimmingCharactersInWhitespace())
        var scheme = "https"
        if let range = rest.range(of: "://") {
            scheme = rest[..<range.lowerBound].lowercased()
            rest = rest[range.upperBound...]
        }
        guard scheme == "http" || scheme == "https" else {
            let hint = scheme == "oss" ? "oss:// names buckets; the endpoint is the service's address, " : ""
            throw OSSClientError.invalidArgument(
                "unsupported endpoint scheme '\(scheme)' in '\(text)': use http or https (\(hint)did you mean https://\(rest)?)")
        }
        var path = ""
        if let slash = rest.firstIndex(of: "/") {
            path = String(rest[slash...].prefix { $0 != "?" && $0 != "#" })
            while path.hasSuffix("/") { path.removeLast() }
            rest = rest[..<slash]
        }
        guard path.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0 != "%" }) else {
            throw OSSClientError.invalidArgument("the path of endpoint '\(text)' must be plain ASCII without spaces or '%'")
        }
        var host = String(rest)
        var port: Int?
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else {
                throw OSSClientError.invalidArgument("malformed IPv6 endpoint '\(text)'")
            }
            let after = host[host.index(after: close)...]
            if after.hasPrefix(":") {
                guard let p = Int(after.dropFirst()), (1...65535).contains(p) else {
                    throw OSSClientError.invalidArgument("invalid port in endpoint '\(text)'")
                }
                port = p
            } else if !after.isEmpty {
                throw OSSClientError.invalidArgument("malformed endpoint '\(text)'")
            }
            host = String(host[...close])
        } else if let colon = host.lastIndex(of: ":") {
            guard let p = Int(host[host.index(after: colon)...]), (1...65535).contains(p) else {
                throw OSSClientError.invalidArgument("invalid port in endpoint '\(text)'")
            }
            port = p
            host = String(host[..<colon])
        }
        guard !host.isEmpty,
            host.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-.[]:_".unicodeScalars.contains($0)) })
        else {
            throw OSSClientError.invalidArgument("invalid endpoint host in '\(text)'")
        }
        self.scheme = scheme
        self.host = host.lowercased()
        self.port = port
        self.path = path
    }

    /// How a client reaches OSS in a region.
    public enum Network: String, Sendable, Hashable, CaseIterable {
        /// `oss-<region>.aliyuncs.com`: from the internet.
        case `public`
        /// `oss-<region>-internal.aliyuncs.com`: from ECS or a VPC in the same region (no traffic charge).
        case `internal`
        /// `oss-accelerate.aliyuncs.com`: transfer acceleration (the bucket must have it enabled).
        case accelerate
        /// `oss-accelerate-overseas.aliyuncs.com`: transfer acceleration outside the Chinese mainland.
        case accelerateOverseas
        /// `<region>.oss.aliyuncs.com`: IPv4 and IPv6.
        case dualStack
    }

    /// The endpoint of `region` over `network`, HTTPS unless `scheme` says `http`: `cn-hangzhou` (or
    /// `oss-cn-hangzhou`) with ``Network/internal`` is `https://oss-cn-hangzhou-internal.aliyuncs.com`. Bucket
    /// addressing (virtual-hosted, path-style, CNAME) is unchanged: it follows the client configuration.
    /// - Throws: ``OSSClientError`` `invalidArgument` for an empty region, one that is not a region id
    ///   (lower-case letters, digits, `-`), or a scheme other than http(s).
    public init(region: String, network: Network = .public, scheme: String = "https") throws {
        var id = region.trimmingCharactersInWhitespace().lowercased()
        if id.hasPrefix("oss-") { id.removeFirst(4) }
        guard !id.isEmpty, id.first != "-", id.last != "-",
            id.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" })
        else {
            throw OSSClientError.invalidArgument("'\(region)' is not an OSS region id (e.g. cn-hangzhou)")
        }
        let host: String
        switch network {
        case .public: host = "oss-\(id).aliyuncs.com"
        case .internal: host = "oss-\(id)-internal.aliyuncs.com"
        case .accelerate: host = "oss-accelerate.aliyuncs.com"
        case .accelerateOverseas: host = "oss-accelerate-overseas.aliyuncs.com"
        case .dualStack: host = "\(id).oss.aliyuncs.com"
        }
        try self.init("\(scheme.lowercased())://\(host)")
    }

    /// Refuses a scheme-less endpoint for which the assumed `https` is a guess likely wrong: an IP address,
    /// `localhost`, or a port other than 443 (`127.0.0.1:9000` is almost always a plain-HTTP local server, and
    /// `https` against it retries and ends in a TLS error). A host name alone (`oss-cn-hangzhou.aliyuncs.com`)
    /// keeps `https`, as the official SDKs do.
    static func requireScheme(whereGuessFails text: String, _ parsed: OSSEndpoint) throws {
        guard !text.contains("://"), parsed.isIPOrLocalhost || (parsed.port != nil && parsed.port != 443) else { return }
        let address = parsed.authority + parsed.path
        throw OSSClientError.invalidArgument(
            "the endpoint '\(text.trimmingCharactersInWhitespace())' has no scheme: did you mean http://\(address)? "
                + "(or https://\(address) if it serves TLS; https is assumed only for a host name without a port)")
    }

    /// `host[:port]`.
    public var authority: String {
        port.map { "\(host):\($0)" } ?? host
    }

    public var description: String { "\(scheme)://\(authority)" }

    /// Whether the host is an IPv4 or IPv6 literal or `localhost` (these get path-style addressing automatically).
    public var isIPOrLocalhost: Bool {
        if host == "localhost" || host.hasPrefix("[") { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in
            !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCII) && (UInt16(part).map { $0 <= 255 } ?? false)
        }
    }
}

extension String {
    func trimmingCharactersInWhitespace() -> String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s = s.dropFirst() }
        while let l = s.last, l.isWhitespace { s = s.dropLast() }
        return String(s)
    }
}
