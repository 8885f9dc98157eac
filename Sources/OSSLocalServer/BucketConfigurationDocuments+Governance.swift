import Foundation
import OSSXML

/// The server's models of the governance families (bucket tags, default encryption, logging), written
/// from OSS's API reference with OSS's checks.

/// `<Tagging><TagSet><Tag>…</Tag></TagSet></Tagging>` on a bucket: at most 20 tags, keys of 1-64 characters,
/// values of at most 128, keys unique.
struct BucketTagsDocument: ConfigurationDocument {
    static let root = "Tagging"
    static let maximumTags = 20
    static let unsetDocument = """
        <?xml version="1.0" encoding="UTF-8"?>
        <Tagging><TagSet/></Tagging>
        """

    var set: TagSet
    enum CodingKeys: String, CodingKey { case set = "TagSet" }

    struct TagSet: Codable, Sendable {
        var tags: [Tag]
        enum CodingKeys: String, CodingKey { case tags = "Tag" }
    }

    struct Tag: Codable, Sendable {
        var key: String
        var value: String?
        enum CodingKeys: String, CodingKey {
            case key = "Key"
            case value = "Value"
        }
    }

    func check(_ context: ConfigurationCheck) throws {
        guard set.tags.count <= Self.maximumTags else {
            throw LocalOSSError(400, "InvalidTag", "A bucket has at most \(Self.maximumTags) tags.")
        }
        var keys = Set<String>()
        for tag in set.tags {
            guard !tag.key.isEmpty, tag.key.count <= 64, !tag.key.lowercased().hasPrefix("http://"),
                !tag.key.lowercased().hasPrefix("https://"), !tag.key.lowercased().hasPrefix("acs:"),
                !tag.key.lowercased().hasPrefix("aliyun")
            else { throw LocalOSSError(400, "InvalidTag", "The TagKey you have provided is invalid.", fields: [("Tag", tag.key)]) }
            guard (tag.value ?? "").count <= 128 else {
                throw LocalOSSError(400, "InvalidTag", "The TagValue you have provided is invalid.", fields: [("Tag", tag.key)])
            }
            guard keys.insert(tag.key).inserted else {
                throw LocalOSSError(400, "InvalidTag", "Cannot provide multiple Tags with the same key.", fields: [("Tag", tag.key)])
            }
        }
    }
}

extension BucketTagsDocument {
    /// The stored document without the tags `keys` names.
    static func removing(_ keys: Set<String>, from stored: [UInt8]) throws -> [UInt8] {
        var document = try parse(stored)
        document.set.tags.removeAll { keys.contains($0.key) }
        return Array(try OSSXMLEncoder().encode(document, root: root).utf8)
    }
}

/// `<ServerSideEncryptionRule><ApplyServerSideEncryptionByDefault>…</…></…>`: `SSEAlgorithm` AES256, KMS or SM4;
/// a KMS key and `KMSDataEncryption` (SM4) only with KMS.
struct EncryptionDocument: ConfigurationDocument {
    static let root = "ServerSideEncryptionRule"

    var byDefault: ByDefault
    enum CodingKeys: String, CodingKey { case byDefault = "ApplyServerSideEncryptionByDefault" }

    struct ByDefault: Codable, Sendable {
        var algorithm: String
        var dataEncryption: String?
        var keyId: String?
        enum CodingKeys: String, CodingKey {
            case algorithm = "SSEAlgorithm"
            case dataEncryption = "KMSDataEncryption"
            case keyId = "KMSMasterKeyID"
        }
    }

    func check(_ context: ConfigurationCheck) throws {
        guard ["AES256", "KMS", "SM4"].contains(byDefault.algorithm) else {
            throw LocalOSSError.invalidArgument(
                "The server-side encryption type is not supported.", name: "SSEAlgorithm", value: byDefault.algorithm)
        }
        if let key = byDefault.keyId, !key.isEmpty, byDefault.algorithm != "KMS" {
            throw LocalOSSError.invalidArgument("KMSMasterKeyID is only valid with KMS.", name: "KMSMasterKeyID", value: key)
        }
        if let data = byDefault.dataEncryption, !data.isEmpty {
            guard byDefault.algorithm == "KMS", data == "SM4" else {
                throw LocalOSSError.invalidArgument(
                    "KMSDataEncryption is SM4, and only with KMS.", name: "KMSDataEncryption", value: data)
            }
        }
    }
}

/// `<BucketLoggingStatus>` with an optional `<LoggingEnabled>`: the target bucket must exist (and, on OSS, have
/// the same owner and region: here every bucket does).
struct LoggingDocument: ConfigurationDocument {
    static let root = "BucketLoggingStatus"
    static let unsetDocument = """
        <?xml version="1.0" encoding="UTF-8"?>
        <BucketLoggingStatus/>
        """

    var enabled: Enabled?
    enum CodingKeys: String, CodingKey { case enabled = "LoggingEnabled" }

    struct Enabled: Codable, Sendable {
        var bucket: String
        var prefix: String?
        var role: String?
        enum CodingKeys: String, CodingKey {
            case bucket = "TargetBucket"
            case prefix = "TargetPrefix"
            case role = "LoggingRole"
        }
    }

    func check(_ context: ConfigurationCheck) async throws {
        guard let enabled else { return }
        guard Router.isValidBucketName(enabled.bucket), (try? await context.store.bucket(enabled.bucket)) != nil else {
            throw LocalOSSError(
                400, "InvalidTargetBucketForLogging", "The target bucket for logging does not exist.",
                fields: [("TargetBucket", enabled.bucket)])
        }
        if let prefix = enabled.prefix, prefix.utf8.count > 32 || prefix.hasPrefix("/") {
            throw LocalOSSError.invalidArgument("TargetPrefix is at most 32 bytes and does not start with '/'.", name: "TargetPrefix", value: prefix)
        }
    }
}
