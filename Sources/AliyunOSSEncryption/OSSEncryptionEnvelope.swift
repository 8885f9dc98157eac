import Foundation

/// The envelope an encrypted object carries in its metadata, the format of the official Go, Python and Java
/// encryption clients: the data key and the IV (the initial AES-CTR counter block), each wrapped by the master key
/// and base64-encoded, the two algorithms, the master key's description, and for multipart uploads the data size
/// and part size. Nothing in it is secret: the data key and IV appear only wrapped.
public struct OSSEncryptionEnvelope: Sendable, Hashable {
    /// The user metadata names (after `x-oss-meta-`).
    public enum Header {
        public static let key = "client-side-encryption-key"
        public static let start = "client-side-encryption-start"
        public static let contentAlgorithm = "client-side-encryption-cek-alg"
        public static let wrapAlgorithm = "client-side-encryption-wrap-alg"
        public static let materialDescription = "client-side-encryption-matdesc"
        public static let unencryptedContentLength = "client-side-encryption-unencrypted-content-length"
        public static let unencryptedContentMD5 = "client-side-encryption-unencrypted-content-md5"
        public static let dataSize = "client-side-encryption-data-size"
        public static let partSize = "client-side-encryption-part-size"
    }

    /// The one content algorithm the format defines: AES-256 in counter mode.
    public static let contentAlgorithmAESCTR = "AES/CTR/NoPadding"

    /// The data key, wrapped by the master cipher.
    public var wrappedKey: Data
    /// The IV (16 bytes before wrapping), wrapped by the master cipher.
    public var wrappedIV: Data
    public var contentAlgorithm: String
    public var wrapAlgorithm: String
    /// The master key's description (`matdesc`), a JSON object; `nil` when the writer gave none.
    public var materialDescription: String?
    /// The plaintext's length, when the writer recorded it (a single PutObject).
    public var unencryptedContentLength: Int64?
    /// The plaintext's MD5 in base64 (Content-MD5 form), when the writer recorded it.
    public var unencryptedContentMD5: String?
    /// A multipart upload's total plaintext size, when the writer knew it.
    public var dataSize: Int64?
    /// A multipart upload's part size (a multiple of 16).
    public var partSize: Int64?

    public init(
        wrappedKey: Data, wrappedIV: Data, contentAlgorithm: String = Self.contentAlgorithmAESCTR,
        wrapAlgorithm: String, materialDescription: String? = nil, unencryptedContentLength: Int64? = nil,
        unencryptedContentMD5: String? = nil, dataSize: Int64? = nil, partSize: Int64? = nil
    ) {
        self.wrappedKey = wrappedKey
        self.wrappedIV = wrappedIV
        self.contentAlgorithm = contentAlgorithm
        self.wrapAlgorithm = wrapAlgorithm
        self.materialDescription = materialDescription
        self.unencryptedContentLength = unencryptedContentLength
        self.unencryptedContentMD5 = unencryptedContentMD5
        self.dataSize = dataSize
        self.partSize = partSize
    }

    /// Whether `metadata` (user metadata, names after `x-oss-meta-`, any case) carries an envelope at all.
    public static func isPresent(in metadata: [String: String]) -> Bool {
        metadata.contains { $0.key.lowercased() == Header.key && !$0.value.isEmpty }
    }

    /// Reads the envelope from an object's user metadata (names after `x-oss-meta-`, any case).
    public init(metadata: [String: String], objectKey: String) throws(OSSEncryptionError) {
        var lower: [String: String] = [:]
        for (name, value) in metadata { lower[name.lowercased()] = value }
        func required(_ name: String) throws(OSSEncryptionError) -> String {
            guard let value = lower[name], !value.isEmpty else {
                throw .incompleteEnvelope(objectKey: objectKey, missing: "x-oss-meta-" + name)
            }
            return value
        }
        func base64(_ name: String) throws(OSSEncryptionError) -> Data {
            guard let data = Data(base64Encoded: try required(name)), !data.isEmpty else {
                throw .malformedEnvelope(objectKey: objectKey, header: "x-oss-meta-" + name, reason: "not base64")
            }
            return data
        }
        func number(_ name: String) throws(OSSEncryptionError) -> Int64? {
            guard let text = lower[name], !text.isEmpty else { return nil }
            guard let value = Int64(text), value >= 0 else {
                throw .malformedEnvelope(
                    objectKey: objectKey, header: "x-oss-meta-" + name, reason: "not a non-negative integer")
            }
            return value
        }
        wrappedKey = try base64(Header.key)
        wrappedIV = try base64(Header.start)
        contentAlgorithm = try required(Header.contentAlgorithm)
        wrapAlgorithm = try required(Header.wrapAlgorithm)
        materialDescription = lower[Header.materialDescription].flatMap { $0.isEmpty ? nil : $0 }
        unencryptedContentLength = try number(Header.unencryptedContentLength)
        unencryptedContentMD5 = lower[Header.unencryptedContentMD5].flatMap { $0.isEmpty ? nil : $0 }
        dataSize = try number(Header.dataSize)
        partSize = try number(Header.partSize)
    }

    /// The envelope as request headers (`x-oss-meta-client-side-encryption-*`).
    public var headers: [String: String] {
        var result = [
            "x-oss-meta-" + Header.key: wrappedKey.base64EncodedString(),
            "x-oss-meta-" + Header.start: wrappedIV.base64EncodedString(),
            "x-oss-meta-" + Header.contentAlgorithm: contentAlgorithm,
            "x-oss-meta-" + Header.wrapAlgorithm: wrapAlgorithm,
        ]
        result["x-oss-meta-" + Header.materialDescription] = materialDescription
        result["x-oss-meta-" + Header.unencryptedContentLength] = unencryptedContentLength.map(String.init)
        result["x-oss-meta-" + Header.unencryptedContentMD5] = unencryptedContentMD5
        result["x-oss-meta-" + Header.dataSize] = dataSize.map(String.init)
        result["x-oss-meta-" + Header.partSize] = partSize.map(String.init)
        return result
    }
}
