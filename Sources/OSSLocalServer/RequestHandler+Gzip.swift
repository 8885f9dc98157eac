import NIOHTTP1

import Foundation

/// OSS's HTTP compression of GetObject and HeadObject replies: with `Accept-Encoding: gzip`, an object of at least
/// 1 KB whose Content-Type is a web text type is sent gzip-encoded and chunked; the reply then has
/// `Content-Encoding: gzip` and `Vary: Accept-Encoding`, and no ETag, Content-Length or Accept-Ranges
/// (https://www.alibabacloud.com/help/en/oss/how-do-i-compress-objects-that-i-download-from-oss-in-the-gzip-format).
/// oss2's test_gzip_get and test_get_object_with_url_to_file_chunked expect exactly that.
extension RequestHandler {
    /// The Content-Types OSS compresses.
    static let gzipContentTypes: Set<String> = [
        "text/cache-manifest", "text/xml", "text/css", "text/html", "text/plain", "application/javascript",
        "application/x-javascript", "application/rss+xml", "application/json", "text/json",
    ]

    /// The smallest object OSS compresses.
    static let gzipMinimumSize: Int64 = 1024

    /// Whether a whole-object GET or HEAD reply is sent gzip-encoded.
    func repliesWithGzip(_ context: RequestContext, contentType: String, size: Int64) -> Bool {
        guard size >= Self.gzipMinimumSize, let accepted = context.header("accept-encoding") else { return false }
        let mediaType = contentType.split(separator: ";", maxSplits: 1).first.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        guard let mediaType, Self.gzipContentTypes.contains(mediaType) else { return false }
        return accepted.split(separator: ",").contains { item in
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard parts.first == "gzip" else { return false }
            // `gzip;q=0` refuses gzip.
            return !parts.dropFirst().contains { $0.hasPrefix("q=") && (Double($0.dropFirst(2)) ?? 1) == 0 }
        }
    }

    /// Turns a whole-object reply into a gzip-encoded one.
    func encodeWithGzip(_ response: inout ServerResponse) {
        response.gzip = true
        response.headers.remove(name: "ETag")
        response.headers.remove(name: "Accept-Ranges")
        response.headers.replaceOrAdd(name: "Content-Encoding", value: "gzip")
        response.headers.replaceOrAdd(name: "Vary", value: "Accept-Encoding")
    }
}
