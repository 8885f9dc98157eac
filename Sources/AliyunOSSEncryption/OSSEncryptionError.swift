/// Why client-side encryption refused to encrypt or decrypt. Every case names what was wrong, never key material:
/// no case carries a data key, an IV or a master key.
public enum OSSEncryptionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The object has no `x-oss-meta-client-side-encryption-key`: it was not written by an encryption client (the
    /// client reads it as is only when configured with ``OSSEncryptionClient/Configuration/readsUnencryptedObjects``).
    case notEncrypted(objectKey: String)
    /// The envelope lacks a header it needs (the named `x-oss-meta-client-side-encryption-*` header).
    case incompleteEnvelope(objectKey: String, missing: String)
    /// An envelope header is present but unreadable (not base64, not a number, a data key or IV of the wrong size).
    case malformedEnvelope(objectKey: String, header: String, reason: String)
    /// The content algorithm is not `AES/CTR/NoPadding`, the only one the envelope format defines.
    case unsupportedContentAlgorithm(String)
    /// No master cipher here wraps with this algorithm (the RSA master cipher wraps with `RSA/NONE/PKCS1Padding`).
    case unsupportedWrapAlgorithm(String)
    /// The master cipher could not unwrap the data key or IV: the wrong master key, or a tampered envelope.
    case unwrapFailed(objectKey: String, materialDescription: String?)
    /// The master cipher could not wrap a new data key (for example a public key too small for PKCS#1 v1.5).
    case wrapFailed(String)
    /// A PEM text is not an RSA key of the kind expected (public: PKCS#1 or SubjectPublicKeyInfo; private: PKCS#1 or
    /// PKCS#8; at least 1024 bits).
    case invalidKey(String)
    /// The master cipher has no private key, so it cannot unwrap.
    case decryptionUnavailable
    /// A multipart part size that is not a positive multiple of 16 (parts are encrypted at their own counter).
    case partSizeNotAligned(Int64)
    /// A multipart upload's context does not fit the request (a part number beyond the data size, a part of the
    /// wrong length, a context from another upload).
    case invalidMultipartContext(String)
    /// The decrypted bytes disagree with the plaintext length or MD5 the envelope carries: never returned as data.
    case plaintextMismatch(objectKey: String, what: String)
    /// A resumable transfer's record does not belong to this transfer (another file, object or key).
    case recordMismatch(String)

    public var description: String {
        switch self {
        case .notEncrypted(let key): "\(key) is not client-side encrypted (no envelope)"
        case .incompleteEnvelope(let key, let missing): "the encryption envelope of \(key) lacks \(missing)"
        case .malformedEnvelope(let key, let header, let reason): "\(header) of \(key) is malformed: \(reason)"
        case .unsupportedContentAlgorithm(let name): "unsupported content encryption algorithm \(name)"
        case .unsupportedWrapAlgorithm(let name): "unsupported key wrap algorithm \(name)"
        case .unwrapFailed(let key, let description):
            "the master key could not unwrap the data key of \(key)"
                + (description.map { " (material description \($0))" } ?? "")
                + ": a different master key, or a tampered envelope"
        case .wrapFailed(let reason): "the master key could not wrap a data key: \(reason)"
        case .invalidKey(let reason): "invalid master key: \(reason)"
        case .decryptionUnavailable: "the master cipher has no private key to unwrap with"
        case .partSizeNotAligned(let size): "the part size \(size) is not a positive multiple of 16"
        case .invalidMultipartContext(let reason): "invalid encrypted multipart upload: \(reason)"
        case .plaintextMismatch(let key, let what): "the decrypted \(key) does not match the envelope's \(what)"
        case .recordMismatch(let reason): "the transfer record does not match: \(reason)"
        }
    }
}
