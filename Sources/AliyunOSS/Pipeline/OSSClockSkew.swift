#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The offset between the server's clock and ours, learnt from `RequestTimeTooSkewed` replies and applied to
/// every signing time afterwards.
actor OSSClockSkew {
    private(set) var offset: TimeInterval = 0
    private let localNow: @Sendable () -> Date

    init(localNow: @escaping @Sendable () -> Date = { Date() }) {
        self.localNow = localNow
    }

    /// The current time as the server sees it.
    func now() -> Date {
        localNow().addingTimeInterval(offset)
    }

    /// Records the server's time: `serverTime` is the time the server reported at (about) this moment.
    func correct(serverTime: Date) {
        offset = serverTime.timeIntervalSince(localNow())
    }

    /// The server's time from a `RequestTimeTooSkewed` error: the `<ServerTime>` field, else the `Date` header.
    static func serverTime(from error: OSSServerError) -> Date? {
        if let text = error.fields["ServerTime"] {
            if let date = OSSDateFormat.parseISO8601(text) ?? OSSDateFormat.parseRFC1123(text) { return date }
        }
        if let text = error.headers["date"] { return OSSDateFormat.parseRFC1123(text) }
        return nil
    }
}
