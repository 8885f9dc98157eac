import Foundation
import OSSSigning
import OSSXML

/// The server's models of object-level retention (ObjectWorm), written from OSS's API reference
/// (PutBucketObjectWormConfiguration, PutObjectRetention, GetObjectRetention, PutObjectLegalHold,
/// GetObjectLegalHold) and the element names alibabacloud-oss-v2 reads.
///
/// As OSS: ObjectWorm needs versioning, excludes the bucket retention policy (which needs no versioning, so the
/// two never meet), cannot be turned off, and disables AppendObject. A version under retention (its retain-until
/// date in the future) or under legal hold cannot be deleted: never in COMPLIANCE mode, in GOVERNANCE mode only by
/// a signed request with `x-oss-bypass-governance-retention: true`.

/// `<ObjectWormConfiguration>` (`?objectWorm`): `ObjectWormEnabled` and an optional default retention that every
/// new version gets.
struct ObjectWormDocument: ConfigurationDocument {
    static let root = "ObjectWormConfiguration"
    static let enabled = "Enabled"

    var objectWormEnabled: String
    var rule: Rule?

    enum CodingKeys: String, CodingKey {
        case objectWormEnabled = "ObjectWormEnabled"
        case rule = "Rule"
    }

    struct Rule: Codable, Sendable {
        var defaultRetention: DefaultRetention?
        enum CodingKeys: String, CodingKey { case defaultRetention = "DefaultRetention" }
    }

    /// `Mode` with exactly one of `Days` (1 to 36,500) and `Years` (1 to 100).
    struct DefaultRetention: Codable, Sendable {
        var mode: String
        var days: Int?
        var years: Int?
        enum CodingKeys: String, CodingKey {
            case mode = "Mode"
            case days = "Days"
            case years = "Years"
        }
    }

    func check(_ context: ConfigurationCheck) async throws {
        guard objectWormEnabled == Self.enabled else {
            throw LocalOSSError.invalidArgument(
                "ObjectWormEnabled is Enabled.", name: "ObjectWormEnabled", value: objectWormEnabled)
        }
        if let retention = rule?.defaultRetention {
            try RetentionDocument.checkMode(retention.mode)
            switch (retention.days, retention.years) {
            case (let days?, nil) where (1...36_500).contains(days): break
            case (nil, let years?) where (1...100).contains(years): break
            default:
                throw LocalOSSError.invalidArgument(
                    "A default retention has Days (1 to 36500) or Years (1 to 100), exactly one of them.",
                    name: "DefaultRetention")
            }
        }
        guard try await context.store.bucket(context.bucket).versioning == "Enabled" else {
            throw LocalOSSError(
                409, "InvalidBucketState", "ObjectWorm needs a bucket with versioning enabled.",
                fields: [("BucketName", context.bucket)])
        }
    }

    /// The retention a version written at `now` gets, if the configuration has a default.
    func defaultRetention(from now: Date) -> ObjectRetention? {
        guard let retention = rule?.defaultRetention else { return nil }
        let days = retention.days ?? (retention.years ?? 0) * 365
        return ObjectRetention(mode: retention.mode, until: now.timeIntervalSince1970 + Double(days) * 86_400)
    }
}

/// A version's retention as the store keeps it (in ``ObjectExtra``).
struct ObjectRetention: Codable, Sendable, Equatable {
    static let governance = "GOVERNANCE"
    static let compliance = "COMPLIANCE"

    var mode: String
    /// Unix seconds.
    var until: Double

    func isActive(at now: Date) -> Bool { now.timeIntervalSince1970 < until }
}

/// `<Retention><Mode>…</Mode><RetainUntilDate>2025-11-10T16:00:00.000Z</RetainUntilDate></Retention>`.
struct RetentionDocument: Codable, Sendable {
    static let root = "Retention"
    var mode: String
    var retainUntilDate: String

    enum CodingKeys: String, CodingKey {
        case mode = "Mode"
        case retainUntilDate = "RetainUntilDate"
    }

    init(_ retention: ObjectRetention) {
        mode = retention.mode
        retainUntilDate = OSSDateFormat.iso8601Milliseconds(Date(timeIntervalSince1970: retention.until))
    }

    static func checkMode(_ mode: String) throws(LocalOSSError) {
        guard mode == ObjectRetention.governance || mode == ObjectRetention.compliance else {
            throw .invalidArgument("Mode is GOVERNANCE or COMPLIANCE.", name: "Mode", value: mode)
        }
    }

    /// The retention this document asks for, checked as OSS does: a known mode and a date in the future.
    func retention(now: Date) throws(LocalOSSError) -> ObjectRetention {
        try Self.checkMode(mode)
        guard let date = OSSDateFormat.parseISO8601(retainUntilDate) else {
            throw .invalidArgument("RetainUntilDate is an ISO 8601 date.", name: "RetainUntilDate", value: retainUntilDate)
        }
        guard date > now else {
            throw .invalidArgument("RetainUntilDate must be in the future.", name: "RetainUntilDate", value: retainUntilDate)
        }
        return ObjectRetention(mode: mode, until: date.timeIntervalSince1970)
    }
}

/// `<LegalHold><Status>ON|OFF</Status></LegalHold>`.
struct LegalHoldDocument: Codable, Sendable {
    static let root = "LegalHold"
    var status: String
    enum CodingKeys: String, CodingKey { case status = "Status" }
}

extension LocalOSSError {
    /// A version that retention or a legal hold protects: refused as the bucket retention policy refuses.
    static func retained(_ key: String, _ why: String) -> LocalOSSError {
        LocalOSSError(409, "FileImmutable", "The object version is protected by \(why) and cannot be deleted.", fields: [("Key", key)])
    }

    /// An object-retention call on a bucket without ObjectWorm.
    static func objectWormNotEnabled(_ bucket: String) -> LocalOSSError {
        LocalOSSError(
            409, "InvalidBucketState", "ObjectWorm is not enabled for the bucket (PutBucketObjectWormConfiguration).",
            fields: [("BucketName", bucket)])
    }
}
