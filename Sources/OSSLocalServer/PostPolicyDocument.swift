import OSSSigning

import Foundation

/// A PostObject policy as OSS reads it: `{"expiration": "<ISO 8601>", "conditions": [...]}` with exact conditions
/// (`{"field": "value"}`), `["eq" | "starts-with", "$field", "value"]`, `["in" | "not-in", "$field", [values]]` and
/// `["content-length-range", min, max]`.
struct PostPolicyDocument: Sendable {
    enum Condition: Sendable {
        case equals(field: String, value: String)
        case startsWith(field: String, prefix: String)
        case oneOf(field: String, values: [String])
        case noneOf(field: String, values: [String])
        case lengthRange(min: Int64, max: Int64)

        /// The condition as OSS quotes it in `Policy Condition failed: ...`.
        var quoted: String {
            func q(_ s: String) -> String {
                "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
            }
            switch self {
            case .equals(let field, let value): return "[\(q("eq")), \(q("$" + field)), \(q(value))]"
            case .startsWith(let field, let prefix): return "[\(q("starts-with")), \(q("$" + field)), \(q(prefix))]"
            case .oneOf(let field, let values):
                return "[\(q("in")), \(q("$" + field)), [\(values.map(q).joined(separator: ", "))]]"
            case .noneOf(let field, let values):
                return "[\(q("not-in")), \(q("$" + field)), [\(values.map(q).joined(separator: ", "))]]"
            case .lengthRange(let low, let high): return "[\(q("content-length-range")), \(low), \(high)]"
            }
        }
    }

    var expiration: Date
    var conditions: [Condition]

    static func invalid(_ message: String) -> LocalOSSError {
        LocalOSSError(400, "InvalidPolicyDocument", "Invalid Policy: \(message)")
    }

    /// Decodes the Base64 `policy` form field.
    static func parse(base64 policy: String) throws(LocalOSSError) -> PostPolicyDocument {
        guard let data = Data(base64Encoded: policy) else { throw invalid("Invalid Base64 encoding.") }
        guard let object = try? JSONSerialization.jsonObject(with: data), let root = object as? [String: Any] else {
            throw invalid("Invalid JSON.")
        }
        guard let expirationText = root["expiration"] as? String else {
            throw invalid("Policy missing expiration.")
        }
        guard let expiration = OSSDateFormat.parseISO8601(expirationText) else {
            throw invalid("Invalid 'expiration' value: '\(expirationText)'")
        }
        guard let list = root["conditions"] as? [Any] else { throw invalid("Policy missing conditions.") }
        var conditions: [Condition] = []
        for item in list {
            if let simple = item as? [String: Any] {
                guard simple.count == 1, let entry = simple.first else {
                    throw invalid("Invalid Simple-Condition: Simple-Conditions must have exactly one property specified.")
                }
                let (field, value) = (entry.key, entry.value)
                guard let text = value as? String else {
                    throw invalid("Invalid Simple-Condition: value of \(field) must be a string.")
                }
                conditions.append(.equals(field: field.lowercased(), value: text))
            } else if let array = item as? [Any] {
                conditions.append(try parseArray(array))
            } else {
                throw invalid("Invalid Condition: a condition must be an object or an array.")
            }
        }
        return PostPolicyDocument(expiration: expiration, conditions: conditions)
    }

    private static func parseArray(_ array: [Any]) throws(LocalOSSError) -> Condition {
        guard array.count == 3, let op = (array[0] as? String)?.lowercased() else {
            throw invalid("Invalid Condition: a condition array must have three elements, starting with its operator.")
        }
        if op == "content-length-range" {
            guard let low = integer(array[1]), let high = integer(array[2]), low >= 0, low <= high else {
                throw invalid("Invalid content-length-range: the bounds must be integers with 0 <= min <= max.")
            }
            return .lengthRange(min: low, max: high)
        }
        guard let name = array[1] as? String, name.hasPrefix("$"), name.count > 1 else {
            throw invalid("Invalid Condition: the field name must be a string starting with '$'.")
        }
        let field = String(name.dropFirst()).lowercased()
        switch op {
        case "eq", "starts-with":
            guard let value = array[2] as? String else {
                throw invalid("Invalid Condition: the value of '\(op)' must be a string.")
            }
            return op == "eq" ? .equals(field: field, value: value) : .startsWith(field: field, prefix: value)
        case "in", "not-in":
            guard let values = array[2] as? [Any], let strings = values as? [String] else {
                throw invalid("Invalid Condition: the value of '\(op)' must be a list of strings.")
            }
            return op == "in" ? .oneOf(field: field, values: strings) : .noneOf(field: field, values: strings)
        default:
            throw invalid("Invalid Condition: unknown operator '\(op)'.")
        }
    }

    private static func integer(_ value: Any) -> Int64? {
        if let number = value as? NSNumber {
            let double = number.doubleValue
            guard double == double.rounded(), abs(double) < 9e15 else { return nil }
            return number.int64Value
        }
        return nil
    }

    /// The value of an exact or `eq` condition on `field`, if the policy has one.
    func required(_ field: String) -> String? {
        for case .equals(let name, let value) in conditions where name == field { return value }
        return nil
    }

    /// The smallest upper bound of the length ranges, if any: a file longer than this can be refused at once.
    var maximumLength: Int64? {
        var maximum: Int64?
        for case .lengthRange(_, let high) in conditions { maximum = min(high, maximum ?? high) }
        return maximum
    }

    /// Checks the file's size against every length range: `EntityTooLarge` or `EntityTooSmall`.
    func checkLength(_ size: Int64) throws(LocalOSSError) {
        for case .lengthRange(let low, let high) in conditions {
            if size > high { throw Self.tooLarge(size: size, maximum: high) }
            if size < low {
                throw LocalOSSError(
                    400, "EntityTooSmall", "Your proposed upload is smaller than the minimum allowed size.",
                    fields: [("ProposedSize", String(size)), ("MinSizeAllowed", String(low))])
            }
        }
    }

    static func tooLarge(size: Int64, maximum: Int64) -> LocalOSSError {
        LocalOSSError(
            400, "EntityTooLarge", "Your proposed upload exceeds the maximum allowed size.",
            fields: [("ProposedSize", String(size)), ("MaxSizeAllowed", String(maximum))])
    }

    /// Checks every condition but the length range against the form (`fields`: lower-cased names) and the bucket.
    func check(fields: [String: String], bucket: String) throws(LocalOSSError) {
        for condition in conditions {
            let holds: Bool
            switch condition {
            case .equals(let field, let value):
                holds = (field == "bucket" ? bucket : fields[field] ?? "") == value
            case .startsWith(let field, let prefix):
                holds = (field == "bucket" ? bucket : fields[field] ?? "").hasPrefix(prefix)
            case .oneOf(let field, let values):
                holds = values.contains(field == "bucket" ? bucket : fields[field] ?? "")
            case .noneOf(let field, let values):
                holds = !values.contains(field == "bucket" ? bucket : fields[field] ?? "")
            case .lengthRange:
                holds = true
            }
            guard holds else {
                throw LocalOSSError.accessDenied("Invalid according to Policy: Policy Condition failed: \(condition.quoted)")
            }
        }
    }
}
