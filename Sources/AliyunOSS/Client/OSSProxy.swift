/// An HTTP proxy every request goes through: the iOS SDK's `proxyHost` / `proxyPort`. URLSession on Apple
/// platforms takes it as its `connectionProxyDictionary`, AsyncHTTPClient (the Linux default) as its proxy, which
/// tunnels every request with `CONNECT`. On Linux, FoundationNetworking's URLSession ignores it (only libcurl's
/// `http_proxy` / `https_proxy` environment applies there).
public struct OSSProxy: Sendable, Hashable {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// The `connectionProxyDictionary` of a `URLSessionConfiguration` (the CFNetwork keys, spelled out because
    /// the HTTPS ones are not exported on every platform).
    var connectionProxyDictionary: [AnyHashable: Any] {
        ["HTTPEnable": 1, "HTTPProxy": host, "HTTPPort": port, "HTTPSEnable": 1, "HTTPSProxy": host, "HTTPSPort": port]
    }
}
