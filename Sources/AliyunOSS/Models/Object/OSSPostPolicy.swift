#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A PostObject policy: what a browser form upload may do, until when.
///
/// The backend builds one, signs it with ``OSSClient/postPolicyForm(bucket:policy:)`` and hands the resulting
/// ``OSSPostPolicyForm`` to the browser, which posts the fields and the file straight to the bucket. OSS refuses
/// the upload unless every condition holds.
///
/// ```swift
/// let policy = OSSPostPolicy(
///     expiration: Date().addingTimeInterval(600),
///     conditions: [
///         .keyPrefix("users/alice/"), .contentLengthRange(1...10 << 20),
///         .contentType(.startsWith("image/")), .successActionStatus(201),
///     ])
/// ```
public struct OSSPostPolicy: Sendable, Hashable {
    /// When the policy stops being accepted (written as `2024-01-15T08:30:45.000Z`).
    public var expiration: Date
    /// The conditions, in the order they are written into the policy document.
    public var conditions: [Condition]

    public init(expiration: Date, conditions: [Condition] = []) {
        self.expiration = expiration
        self.conditions = conditions
    }

    /// How a form field's value must look.
    public enum Match: Sendable, Hashable {
        /// Exactly this value: `["eq", "$field", value]`.
        case equals(String)
        /// A value that starts with this prefix (an empty prefix allows any value): `["starts-with", "$field", prefix]`.
        case startsWith(String)
        /// One of these values: `["in", "$field", [values]]`.
        case oneOf([String])
        /// None of these values: `["not-in", "$field", [values]]`.
        case noneOf([String])
    }

    /// One condition of the policy.
    public struct Condition: Sendable, Hashable {
        enum Storage: Sendable, Hashable {
            case exact(String, String)
            case match(String, Match)
            case lengthRange(Int64, Int64)
        }

        let storage: Storage

        /// `{"field": value}`: the form field (or, for `bucket`, the bucket) must be exactly `value`.
        public static func exact(_ field: String, _ value: String) -> Condition {
            Condition(storage: .exact(field, value))
        }

        /// The form field `field` (case-insensitive, without `$`) must match.
        public static func field(_ field: String, _ match: Match) -> Condition {
            Condition(storage: .match(field, match))
        }

        /// `{"bucket": name}`.
        public static func bucket(_ name: String) -> Condition { .exact("bucket", name) }

        /// The object key must be exactly `key`.
        public static func key(_ key: String) -> Condition { .field("key", .equals(key)) }

        /// The object key must start with `prefix` (a user's folder).
        public static func keyPrefix(_ prefix: String) -> Condition { .field("key", .startsWith(prefix)) }

        /// The file must be `range` bytes long: `["content-length-range", min, max]`.
        public static func contentLengthRange(_ range: ClosedRange<Int64>) -> Condition {
            Condition(storage: .lengthRange(range.lowerBound, range.upperBound))
        }

        /// The `Content-Type` form field must match.
        public static func contentType(_ match: Match) -> Condition { .field("content-type", match) }

        /// `success_action_status` must be `status` (200, 201 or 204; 201 answers with a `PostResponse` XML).
        public static func successActionStatus(_ status: Int) -> Condition {
            .field("success_action_status", .equals(String(status)))
        }

        /// `success_action_redirect` must match (OSS answers 303 to that URL with bucket, key and etag).
        public static func successActionRedirect(_ match: Match) -> Condition {
            .field("success_action_redirect", match)
        }

        /// The `x-oss-meta-<name>` field must match.
        public static func metadata(_ name: String, _ match: Match) -> Condition {
            let lower = name.lowercased()
            return .field(lower.hasPrefix("x-oss-meta-") ? lower : "x-oss-meta-" + lower, match)
        }

        /// The form field this condition is about, lower-cased (`content-length-range` for the length range).
        public var fieldName: String {
            switch storage {
            case .exact(let field, _), .match(let field, _): return field.lowercased()
            case .lengthRange: return "content-length-range"
            }
        }

        /// The value the form must send when the condition names one exactly.
        var requiredValue: String? {
            switch storage {
            case .exact(_, let value), .match(_, .equals(let value)): return value
            default: return nil
            }
        }
    }

    /// Requires the upload to carry `callback` (the exact `callback` field) with its variables (exact `x:<name>`
    /// fields, which OSS fills into the callback body).
    ///
    /// - Throws: ``OSSClientError`` `.invalidArgument` for a callback ``OSSCallback/headers()`` refuses.
    public mutating func addCallback(_ callback: OSSCallback) throws {
        guard let encoded = try callback.headers()["x-oss-callback"] else {
            throw OSSClientError.invalidArgument("the callback could not be encoded")
        }
        conditions.append(.exact("callback", encoded))
        for (name, value) in callback.variables.sorted(by: { $0.key < $1.key }) {
            conditions.append(.exact(name.hasPrefix("x:") ? name : "x:" + name, value))
        }
    }

    /// The policy document: `{"expiration":"…","conditions":[…]}`, compact, keys in this order, non-ASCII text
    /// written as UTF-8 (byte for byte Python's `json.dumps(policy, separators=(",", ":"), ensure_ascii=False)`).
    public func document() -> String {
        var json = "{\"expiration\":"
        Self.appendString(OSSDateFormat.iso8601Milliseconds(expiration), to: &json)
        json += ",\"conditions\":["
        for (index, condition) in conditions.enumerated() {
            if index > 0 { json += "," }
            switch condition.storage {
            case .exact(let field, let value):
                json += "{"
                Self.appendString(field, to: &json)
                json += ":"
                Self.appendString(value, to: &json)
                json += "}"
            case .lengthRange(let low, let high):
                json += "[\"content-length-range\",\(low),\(high)]"
            case .match(let field, let match):
                let (op, value): (String, [String]?) =
                    switch match {
                    case .equals(let v): ("eq", [v])
                    case .startsWith(let v): ("starts-with", [v])
                    case .oneOf: ("in", nil)
                    case .noneOf: ("not-in", nil)
                    }
                json += "["
                Self.appendString(op, to: &json)
                json += ","
                Self.appendString("$" + field, to: &json)
                json += ","
                if let value {
                    Self.appendString(value[0], to: &json)
                } else {
                    let list: [String] =
                        switch match {
                        case .oneOf(let values), .noneOf(let values): values
                        default: []
                        }
                    json += "["
                    for (i, item) in list.enumerated() {
                        if i > 0 { json += "," }
                        Self.appendString(item, to: &json)
                    }
                    json += "]"
                }
                json += "]"
            }
        }
        json += "]}"
        return json
    }

    /// A JSON string literal: `"` and `\` escaped, control characters as `\n`-style or `\u00xx` escapes.
    static func appendString(_ text: String, to json: inout String) {
        json += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": json += "\\\""
            case "\\": json += "\\\\"
            case "\n": json += "\\n"
            case "\r": json += "\\r"
            case "\t": json += "\\t"
            case "\u{08}": json += "\\b"
            case "\u{0C}": json += "\\f"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    json += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    json.unicodeScalars.append(scalar)
                }
            }
        }
        json += "\""
    }
}

/// A signed PostObject form: post ``fields`` (in order), then the file as the last field named `file`, as
/// `multipart/form-data` to ``url``.
public struct OSSPostPolicyForm: Sendable, Hashable {
    /// One form field.
    public struct Field: Sendable, Hashable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The bucket's URL (`POST /`).
    public var url: String
    /// The policy document (JSON) that was signed.
    public var policyDocument: String
    /// The fields: the values the policy requires exactly (key, success_action_status, callback, …), then the
    /// signature fields (`policy` and V1 `OSSAccessKeyId`/`Signature`, or V4 `x-oss-signature-version`,
    /// `x-oss-credential`, `x-oss-date`, `x-oss-signature`, and `x-oss-security-token` with STS).
    public var fields: [Field]

    /// The value of the field named `name` (case-insensitive).
    public subscript(field name: String) -> String? {
        let lower = name.lowercased()
        return fields.first { $0.name.lowercased() == lower }?.value
    }
}
