/// How the bucket is placed in request URLs.
public struct OSSAddressingStyle: Hashable, Sendable, CustomStringConvertible {
    enum Kind: Hashable, Sendable {
        case automatic, virtualHosted, pathStyle, cname
    }

    let kind: Kind

    /// Virtual-hosted (`https://bucket.endpoint/key`) for OSS endpoints (the OSS domains and
    /// ``OSSClientConfiguration/cnameExcludeList``), path-style for IP literals and `localhost`, and CNAME
    /// (`https://host/key`) for any other host, which is taken as a custom domain bound to the bucket (as the iOS
    /// SDK does). The default.
    public static let automatic = Self(kind: .automatic)
    /// Always `https://bucket.endpoint/key`.
    public static let virtualHosted = Self(kind: .virtualHosted)
    /// Always `https://endpoint/bucket/key`.
    public static let pathStyle = Self(kind: .pathStyle)
    /// The endpoint is a custom domain bound to one bucket: `https://cname/key`.
    public static let cname = Self(kind: .cname)

    public var description: String {
        switch kind {
        case .automatic: "automatic"
        case .virtualHosted: "virtualHosted"
        case .pathStyle: "pathStyle"
        case .cname: "cname"
        }
    }
}
