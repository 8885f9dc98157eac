#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Object-level retention (ObjectWorm): the bucket family that turns it on, and the retention and legal hold a
/// version carries (PutObjectRetention, PutObjectLegalHold; calls in OSSClient+ObjectWorm.swift).
///
/// As OSS documents it: ObjectWorm needs versioning, cannot be turned off, excludes the bucket retention policy
/// (``OSSBucketWorm``) and disables AppendObject. A version under retention (until a future date) or legal hold
/// cannot be deleted: never in COMPLIANCE mode, in GOVERNANCE mode only with `x-oss-bypass-governance-retention`.

/// `<ObjectWormConfiguration>` (PutBucketObjectWormConfiguration, `?objectWorm`): turns ObjectWorm on, with an
/// optional default retention every new version gets. There is no delete: OSS never turns it off.
public struct OSSBucketObjectWormConfiguration: OSSBucketConfiguration, Hashable {
    public static let family = OSSBucketConfigurationFamily(
        name: "ObjectWormConfiguration", subresource: "objectWorm", root: "ObjectWormConfiguration")
    /// The only value OSS takes for ``objectWormEnabled``.
    public static let enabled = "Enabled"

    public var objectWormEnabled: String
    public var rule: Rule?

    public init(defaultRetention: DefaultRetention? = nil) {
        objectWormEnabled = Self.enabled
        rule = defaultRetention.map { Rule(defaultRetention: $0) }
    }

    enum CodingKeys: String, CodingKey {
        case objectWormEnabled = "ObjectWormEnabled"
        case rule = "Rule"
    }

    public func validate() throws {
        guard objectWormEnabled == Self.enabled else {
            throw OSSClientError.invalidArgument("ObjectWormEnabled is Enabled, not \(objectWormEnabled.debugDescription)")
        }
        if let retention = rule?.defaultRetention {
            switch (retention.days, retention.years) {
            case (let days?, nil) where (1...36_500).contains(days): break
            case (nil, let years?) where (1...100).contains(years): break
            default:
                throw OSSClientError.invalidArgument("a default retention has days (1 to 36500) or years (1 to 100), exactly one")
            }
        }
    }

    /// `<Rule>`.
    public struct Rule: Codable, Sendable, Hashable {
        public var defaultRetention: DefaultRetention?
        public init(defaultRetention: DefaultRetention?) { self.defaultRetention = defaultRetention }
        enum CodingKeys: String, CodingKey { case defaultRetention = "DefaultRetention" }
    }

    /// `<DefaultRetention>`: a mode and a period in days or in years (one of them).
    public struct DefaultRetention: Codable, Sendable, Hashable {
        public var mode: OSSObjectRetention.Mode
        public var days: Int?
        public var years: Int?

        public init(mode: OSSObjectRetention.Mode, days: Int? = nil, years: Int? = nil) {
            self.mode = mode
            self.days = days
            self.years = years
        }

        enum CodingKeys: String, CodingKey {
            case mode = "Mode"
            case days = "Days"
            case years = "Years"
        }
    }
}

/// A version's retention (`<Retention>`): a mode and the date until which the version cannot be deleted.
public struct OSSObjectRetention: Sendable, Hashable {
    /// `GOVERNANCE` (a request with the bypass header and the permission may delete or shorten) or `COMPLIANCE`
    /// (nobody may, and the date is only ever extended).
    public struct Mode: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let governance = Mode(rawValue: "GOVERNANCE")
        public static let compliance = Mode(rawValue: "COMPLIANCE")
        public var description: String { rawValue }
    }

    public var mode: Mode
    /// Sent and read as ISO 8601 with milliseconds (`2025-11-10T16:00:00.000Z`); OSS keeps whole seconds.
    public var retainUntilDate: Date

    public init(mode: Mode, retainUntilDate: Date) {
        self.mode = mode
        self.retainUntilDate = retainUntilDate
    }
}

/// A version's legal hold (`<LegalHold><Status>`): `ON` keeps it from deletion whatever its retention says.
public struct OSSObjectLegalHold: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let on = OSSObjectLegalHold(rawValue: "ON")
    public static let off = OSSObjectLegalHold(rawValue: "OFF")
    public var description: String { rawValue }
}
