import AliyunOSS
import Foundation
import OSSSigning

/// The transport the SDK's clients run on in tests: `OSS_TRANSPORT=urlsession|asynchttpclient` (scripts/test.sh runs
/// the SDK's suites once per transport), else the platform's default.
package let transportUnderTest: OSSTransportKind =
    ProcessInfo.processInfo.environment["OSS_TRANSPORT"].flatMap(OSSTransportKind.init(name:)) ?? .automatic

/// The path-style URL of a request to the local server at `endpoint`: `/bucket/key`, the key and the query
/// percent-encoded with OSS's rules.
package func pathStyleURL(_ endpoint: URL, bucket: String?, key: String?, query: [String: String]) -> String {
    var path = "/"
    if let bucket {
        path += bucket + "/"
        if let key { path += OSSPercentEncoding.encode(key, keepSlash: true) }
    }
    var url = endpoint.absoluteString + path
    if !query.isEmpty { url += "?" + OSSPercentEncoding.encodeQuery(query) }
    return url
}
