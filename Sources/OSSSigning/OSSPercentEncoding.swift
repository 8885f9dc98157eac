/// RFC 3986 percent-encoding as OSS uses it: the unreserved set `A-Z a-z 0-9 - _ . ~` is kept, everything
/// else becomes `%XX` with upper-case hex. A space is always `%20`, never `+`.
public enum OSSPercentEncoding {
    private static let hex: [UInt8] = Array("0123456789ABCDEF".utf8)

    @inline(__always)
    static func isUnreserved(_ b: UInt8) -> Bool {
        (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39)
            || b == 0x2D || b == 0x5F || b == 0x2E || b == 0x7E
    }

    /// Encodes `text`, keeping `/` literal when `keepSlash` is true (V4 canonical URI, URL paths).
    public static func encode(_ text: some StringProtocol, keepSlash: Bool = false) -> String {
        let utf8 = text.utf8
        if utf8.allSatisfy({ isUnreserved($0) || (keepSlash && $0 == 0x2F) }) {
            return String(text)
        }
        var out = [UInt8]()
        out.reserveCapacity(utf8.count * 3)
        for b in utf8 {
            if isUnreserved(b) || (keepSlash && b == 0x2F) {
                out.append(b)
            } else {
                out.append(0x25)
                out.append(hex[Int(b >> 4)])
                out.append(hex[Int(b & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: return b - 0x30
        case 0x41...0x46: return b - 0x41 + 10
        case 0x61...0x66: return b - 0x61 + 10
        default: return nil
        }
    }

    /// Decodes `%XX` escapes (and `+` as a space when `plusAsSpace`, for query strings).
    /// Returns `nil` for a malformed escape or bytes that are not valid UTF-8.
    public static func decode(_ text: some StringProtocol, plusAsSpace: Bool = false) -> String? {
        let utf8 = Array(text.utf8)
        if !utf8.contains(0x25) && !(plusAsSpace && utf8.contains(0x2B)) {
            return String(text)
        }
        var out = [UInt8]()
        out.reserveCapacity(utf8.count)
        var i = 0
        while i < utf8.count {
            let b = utf8[i]
            if b == 0x25 {
                guard i + 2 < utf8.count, let hi = hexValue(utf8[i + 1]), let lo = hexValue(utf8[i + 2]) else {
                    return nil
                }
                out.append(hi << 4 | lo)
                i += 3
            } else {
                out.append(plusAsSpace && b == 0x2B ? 0x20 : b)
                i += 1
            }
        }
        // Invalid UTF-8 decodes with replacement characters, so a round trip that changes the bytes means invalid
        // input. (`String(validating:as:)` would say so directly, but needs macOS 15 / iOS 18.)
        let decoded = String(decoding: out, as: UTF8.self)
        return decoded.utf8.elementsEqual(out) ? decoded : nil
    }

    /// Parses a raw query string (`a=1&b&c=x%20y`) into decoded names and values, treating `+` as a space.
    /// A parameter without `=` or with nothing after it has the empty value. Returns `nil` if any part is malformed.
    public static func parseQuery(_ query: some StringProtocol) -> [String: String]? {
        var result: [String: String] = [:]
        for item in query.split(separator: "&", omittingEmptySubsequences: true) {
            let pieces = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(pieces[0], plusAsSpace: true) else { return nil }
            let value: String
            if pieces.count == 2 {
                guard let v = decode(pieces[1], plusAsSpace: true) else { return nil }
                value = v
            } else {
                value = ""
            }
            if result[name] == nil { result[name] = value }
        }
        return result
    }

    /// Builds a query string from decoded names and values, sorted by name; empty values are written as the name alone.
    public static func encodeQuery(_ query: [String: String]) -> String {
        query.map { (encode($0.key), encode($0.value)) }
            .sorted { $0.0 < $1.0 }
            .map { $0.1.isEmpty ? $0.0 : "\($0.0)=\($0.1)" }
            .joined(separator: "&")
    }
}
