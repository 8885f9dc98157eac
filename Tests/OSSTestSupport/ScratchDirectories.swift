import Foundation

/// A fresh directory `<prefix>-<UUID>` under the system temporary directory; the caller removes it.
package func makeWorkDirectory(_ prefix: String = "oss-tests") throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
