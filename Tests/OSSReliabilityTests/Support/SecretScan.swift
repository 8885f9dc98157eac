import Foundation

/// Every form a secret could take in a log line or a file: as is, percent-encoded, Base64.
func secretForms(_ secret: String) -> [String] {
    [secret, OSSPercentEncodingForms.encode(secret), Data(secret.utf8).base64EncodedString()]
}

/// Bytes of every regular file under `root` (recursively), by path.
func filesWithContents(under root: URL) -> [(path: String, bytes: [UInt8])] {
    guard let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return [] }
    var out: [(String, [UInt8])] = []
    for case let url as URL in enumerator {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            continue
        }
        if let data = FileManager.default.contents(atPath: url.path) { out.append((url.path, Array(data))) }
    }
    return out
}

/// Whether `haystack` contains `needle` as a byte sequence.
func containsBytes(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard !needle.isEmpty, haystack.count >= needle.count else { return false }
    let first = needle[0]
    var i = 0
    while i <= haystack.count - needle.count {
        if haystack[i] == first, Array(haystack[i..<(i + needle.count)]) == needle { return true }
        i += 1
    }
    return false
}

enum OSSPercentEncodingForms {
    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }
}
