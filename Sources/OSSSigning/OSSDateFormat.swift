#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The date formats OSS uses, formatted and parsed by hand: fast, locale-free, always UTC, whole seconds.
///
/// - ``rfc1123(_:)``: `Mon, 15 Jan 2024 08:30:45 GMT` (HTTP `Date`, `Last-Modified`; two-digit day).
/// - ``iso8601Basic(_:)``: `20240115T083045Z` (V4 `x-oss-date`).
/// - ``iso8601Milliseconds(_:)``: `2024-01-15T08:30:45.000Z` (XML bodies; oss2 insists on `.000Z`).
public enum OSSDateFormat {
    private static let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    struct Civil {
        var year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, weekday: Int
    }

    static func civil(_ date: Date) -> Civil {
        let t = Int64(date.timeIntervalSince1970.rounded(.down))
        var days = t / 86_400
        var secs = t % 86_400
        if secs < 0 {
            secs += 86_400
            days -= 1
        }
        let weekday = Int(((days % 7) + 7) % 7)
        // Howard Hinnant's civil_from_days.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        return Civil(
            year: Int(y), month: Int(m), day: Int(d),
            hour: Int(secs / 3600), minute: Int(secs % 3600 / 60), second: Int(secs % 60), weekday: weekday
        )
    }

    static func date(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Date? {
        guard (1...12).contains(month), (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute),
            (0...60).contains(second), (1...9999).contains(year)
        else { return nil }
        // Howard Hinnant's days_from_civil.
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = Int64(month > 2 ? month - 3 : month + 9)
        let doy = (153 * mp + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        // Reject days that do not exist in the month (e.g. 31 Feb).
        let check = civil(Date(timeIntervalSince1970: TimeInterval(days * 86_400)))
        guard check.day == day, check.month == month else { return nil }
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    private static func pad2(_ v: Int, into s: inout String) {
        s.unicodeScalars.append(Unicode.Scalar(UInt8(48 + v / 10)))
        s.unicodeScalars.append(Unicode.Scalar(UInt8(48 + v % 10)))
    }

    private static func pad4(_ v: Int, into s: inout String) {
        pad2(v / 100, into: &s)
        pad2(v % 100, into: &s)
    }

    private static let weekdayBytes: [UInt8] = Array("ThuFriSatSunMonTueWed".utf8)
    private static let monthBytes: [UInt8] = Array("JanFebMarAprMayJunJulAugSepOctNovDec".utf8)

    /// `Mon, 15 Jan 2024 08:30:45 GMT`, written straight into the string's storage.
    public static func rfc1123(_ date: Date) -> String {
        let c = civil(date)
        guard (0...9999).contains(c.year) else { return rfc1123Slow(c) }
        return String(unsafeUninitializedCapacity: 29) { out in
            func put2(_ v: Int, at i: Int) {
                out[i] = UInt8(48 + v / 10)
                out[i + 1] = UInt8(48 + v % 10)
            }
            for k in 0..<3 {
                out[k] = weekdayBytes[c.weekday * 3 + k]
                out[8 + k] = monthBytes[(c.month - 1) * 3 + k]
            }
            out[3] = UInt8(ascii: ",")
            out[4] = UInt8(ascii: " ")
            put2(c.day, at: 5)
            out[7] = UInt8(ascii: " ")
            out[11] = UInt8(ascii: " ")
            put2(c.year / 100, at: 12)
            put2(c.year % 100, at: 14)
            out[16] = UInt8(ascii: " ")
            put2(c.hour, at: 17)
            out[19] = UInt8(ascii: ":")
            put2(c.minute, at: 20)
            out[22] = UInt8(ascii: ":")
            put2(c.second, at: 23)
            out[25] = UInt8(ascii: " ")
            out[26] = UInt8(ascii: "G")
            out[27] = UInt8(ascii: "M")
            out[28] = UInt8(ascii: "T")
            return 29
        }
    }

    /// The appending form, for years outside 0...9999.
    private static func rfc1123Slow(_ c: Civil) -> String {
        var s = ""
        s += weekdays[c.weekday]
        s += ", "
        pad2(c.day, into: &s)
        s += " "
        s += months[c.month - 1]
        s += " "
        pad4(c.year, into: &s)
        s += " "
        appendTime(c, separator: ":", into: &s)
        s += " GMT"
        return s
    }

    /// `20240115T083045Z`.
    public static func iso8601Basic(_ date: Date) -> String {
        let c = civil(date)
        var s = ""
        s.reserveCapacity(16)
        appendDate(c, separator: "", into: &s)
        s += "T"
        appendTime(c, separator: "", into: &s)
        s += "Z"
        return s
    }

    /// `2024-01-15T08:30:45.000Z`.
    public static func iso8601Milliseconds(_ date: Date) -> String {
        let c = civil(date)
        var s = ""
        s.reserveCapacity(24)
        appendDate(c, separator: "-", into: &s)
        s += "T"
        appendTime(c, separator: ":", into: &s)
        s += ".000Z"
        return s
    }

    /// `YYYY`, `MM` and `DD` with `separator` between them.
    private static func appendDate(_ c: Civil, separator: String, into s: inout String) {
        pad4(c.year, into: &s)
        s += separator
        pad2(c.month, into: &s)
        s += separator
        pad2(c.day, into: &s)
    }

    /// `hh`, `mm` and `ss` with `separator` between them.
    private static func appendTime(_ c: Civil, separator: String, into s: inout String) {
        pad2(c.hour, into: &s)
        s += separator
        pad2(c.minute, into: &s)
        s += separator
        pad2(c.second, into: &s)
    }

    private static func number(_ bytes: some Collection<UInt8>) -> Int? {
        guard !bytes.isEmpty, bytes.count <= 9 else { return nil }
        var v = 0
        for b in bytes {
            guard b >= 48, b <= 57 else { return nil }
            v = v * 10 + Int(b - 48)
        }
        return v
    }

    /// Parses `Mon, 15 Jan 2024 08:30:45 GMT` (also accepts a one-digit day). Returns `nil` for anything else.
    public static func parseRFC1123(_ text: String) -> Date? {
        parseIMFFixdate(text) ?? parseRFC1123Fields(text)
    }

    /// The form every server sends (`Sun, 06 Nov 1994 08:49:37 GMT`, 29 bytes), read at fixed offsets without
    /// splitting (it runs on every response); `nil` for any other text, which ``parseRFC1123Fields(_:)`` then reads
    /// (it accepts the same text, and more).
    static func parseIMFFixdate(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { b -> Date? in
            guard b.count == 29, b[3] == 44, b[4] == 32, b[7] == 32, b[11] == 32, b[16] == 32, b[19] == 58, b[22] == 58,
                b[25] == 32, (b[26] == 71 && b[27] == 77 && b[28] == 84) || (b[26] == 85 && b[27] == 84 && b[28] == 67),
                b[0..<3].allSatisfy({ ($0 | 0x20) >= 97 && ($0 | 0x20) <= 122 })
            else { return nil }
            guard let month = monthNumber(b[8], b[9], b[10]), let day = number(b[5..<7]), let year = number(b[12..<16]),
                let h = number(b[17..<19]), let m = number(b[20..<22]), let s = number(b[23..<25])
            else { return nil }
            return date(year: year, month: month, day: day, hour: h, minute: m, second: s)
        }
    }

    /// `Jan` ... `Dec` (as written, case-sensitive) to 1 ... 12, from the formatter's `monthBytes`.
    private static func monthNumber(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> Int? {
        for month in 0..<12 where monthBytes[month * 3] == a && monthBytes[month * 3 + 1] == b && monthBytes[month * 3 + 2] == c {
            return month + 1
        }
        return nil
    }

    /// Any RFC 1123 date whose six fields are separated by spaces (repeated spaces allowed).
    static func parseRFC1123Fields(_ text: String) -> Date? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 6, parts[0].hasSuffix(","), parts[5] == "GMT" || parts[5] == "UTC" else { return nil }
        guard let day = number(parts[1].utf8),
            let monthIndex = months.firstIndex(of: String(parts[2])),
            let year = number(parts[3].utf8), parts[3].utf8.count == 4
        else { return nil }
        let time = Array(parts[4].utf8)
        guard time.count == 8, time[2] == 58, time[5] == 58,
            let h = number(time[0..<2]), let m = number(time[3..<5]), let s = number(time[6..<8])
        else { return nil }
        return date(year: year, month: monthIndex + 1, day: day, hour: h, minute: m, second: s)
    }

    /// Parses `20240115T083045Z`. Returns `nil` for anything else.
    public static func parseISO8601Basic(_ text: String) -> Date? {
        let b = Array(text.utf8)
        guard b.count == 16, b[8] == 84, b[15] == 90,
            let y = number(b[0..<4]), let mo = number(b[4..<6]), let d = number(b[6..<8]),
            let h = number(b[9..<11]), let mi = number(b[11..<13]), let s = number(b[13..<15])
        else { return nil }
        return date(year: y, month: mo, day: d, hour: h, minute: mi, second: s)
    }

    /// Parses `2024-01-15T08:30:45.000Z` or `2024-01-15T08:30:45Z` (fractional seconds are dropped).
    public static func parseISO8601(_ text: String) -> Date? {
        let b = Array(text.utf8)
        guard b.count >= 20, b.last == 90, b[4] == 45, b[7] == 45, b[10] == 84, b[13] == 58, b[16] == 58,
            let y = number(b[0..<4]), let mo = number(b[5..<7]), let d = number(b[8..<10]),
            let h = number(b[11..<13]), let mi = number(b[14..<16]), let s = number(b[17..<19])
        else { return nil }
        if b.count > 20 {
            guard b[19] == 46, number(b[20..<(b.count - 1)]) != nil else { return nil }
        }
        return date(year: y, month: mo, day: d, hour: h, minute: mi, second: s)
    }
}
