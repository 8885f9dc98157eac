extension OSSClientError {
    /// The metadata header that marks an object encrypted on the client side: the wrapped content key of the
    /// official SDKs' envelope (Go, Python and Java SDKs, and `AliyunOSSEncryption`).
    static let clientSideEncryptionKeyHeader = "x-oss-meta-client-side-encryption-key"

    /// `encryptedObject` when `headers` (lower-cased names, a HEAD's or a GET's) carry the client-side-encryption
    /// envelope, else `nil`: the one check every path that writes an object's stored bytes to a file or a stream
    /// for the caller passes (GetObject to a file, the resumable download, the download stream), unless its request
    /// accepts ciphertext.
    static func ciphertextRefusal(headers: [String: String], bucket: String, key: String) -> OSSClientError? {
        guard headers[clientSideEncryptionKeyHeader] != nil else { return nil }
        return OSSClientError(
            .encryptedObject,
            "oss://\(bucket)/\(key) is encrypted on the client side (its metadata carries the client-side-encryption "
                + "envelope): its stored bytes are ciphertext, so nothing was written. Read it with OSSEncryptionClient "
                + "and its master key, or set acceptsCiphertext on the request to take the stored bytes")
    }
}
