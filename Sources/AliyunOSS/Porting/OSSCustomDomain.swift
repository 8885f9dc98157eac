/// How ``OSSAddressingStyle/automatic`` tells an OSS endpoint from a custom domain (CNAME), as the iOS SDK does:
/// hosts under the OSS domains, or listed in ``OSSClientConfiguration/cnameExcludeList``, are OSS endpoints
/// (virtual-hosted); IP literals and `localhost` use path style; any other host is a custom domain bound to
/// the bucket (`https://cdn.example.com/key`).
enum OSSCustomDomain {
    /// The OSS service domains.
    static let ossDomains = ["aliyuncs.com", "aliyun-inc.com", "aliyun.com"]

    /// Whether `host` is under one of `domains` (equal to it or a subdomain).
    static func host(_ host: String, isUnderAnyOf domains: [String]) -> Bool {
        let host = host.lowercased()
        return domains.contains { domain in
            let domain = domain.lowercased().trimmingPrefixDot()
            return !domain.isEmpty && (host == domain || host.hasSuffix("." + domain))
        }
    }
}

extension String {
    fileprivate func trimmingPrefixDot() -> String {
        hasPrefix(".") ? String(dropFirst()) : self
    }
}
