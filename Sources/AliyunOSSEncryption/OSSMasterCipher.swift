import Foundation
import _CryptoExtras

/// The master key that wraps each object's data key and IV: ``OSSRSAMasterCipher`` (the official SDKs' RSA), or any
/// key the app holds elsewhere: a KMS, a Keychain item, a Secure Enclave-backed service. `async` so that a remote
/// key service fits; the client calls ``wrap(_:)`` twice per object written (data key, IV) and ``unwrap(_:)`` twice
/// per object read.
public protocol OSSMasterCipher: Sendable {
    /// The envelope's `wrap-alg`, e.g. `RSA/NONE/PKCS1Padding` (what another SDK needs to unwrap).
    var wrapAlgorithm: String { get }
    /// The envelope's `matdesc`: a JSON object that tells which master key wrapped the data key; `nil` for none.
    var materialDescription: String? { get }
    /// Encrypts a data key or IV.
    func wrap(_ plaintext: Data) async throws -> Data
    /// Decrypts what ``wrap(_:)`` made.
    func unwrap(_ wrapped: Data) async throws -> Data
}

/// RSA with PKCS#1 v1.5 padding (`RSA/NONE/PKCS1Padding`), the official Go, Python and Java encryption clients'
/// master key. Writing needs the public key, reading the private key; PEM in PKCS#1 (`RSA PUBLIC KEY`,
/// `RSA PRIVATE KEY`), SubjectPublicKeyInfo (`PUBLIC KEY`) or PKCS#8 (`PRIVATE KEY`).
public struct OSSRSAMasterCipher: OSSMasterCipher {
    public static let algorithm = "RSA/NONE/PKCS1Padding"

    public let wrapAlgorithm = Self.algorithm
    public let materialDescription: String?
    // DER, parsed again for each wrap and unwrap: swift-crypto's RSA key types are not `Sendable`.
    private let publicKeyDER: Data?
    private let privateKeyDER: Data?

    /// - Parameters:
    ///   - publicKeyPEM: wraps new data keys; without it the cipher only reads. Derived from the private key when
    ///     absent.
    ///   - privateKeyPEM: unwraps; without it the cipher only writes.
    ///   - materialDescription: the `matdesc` written with every object, e.g. `["key": "backup-2026"]`; written as
    ///     compact JSON with sorted keys (the Go SDK's form).
    ///
    /// Keys of 1024 bits or more are accepted so that objects written with older keys stay readable; use 2048 bits
    /// or more for new keys.
    public init(
        publicKeyPEM: String? = nil, privateKeyPEM: String? = nil, materialDescription: [String: String] = [:]
    ) throws(OSSEncryptionError) {
        try self.init(
            publicKeyPEM: publicKeyPEM, privateKeyPEM: privateKeyPEM,
            materialDescriptionJSON: try Self.json(materialDescription))
    }

    /// As above, with the `matdesc` JSON text exactly as given (it must be a JSON object); `nil` or empty for none.
    public init(
        publicKeyPEM: String? = nil, privateKeyPEM: String? = nil, materialDescriptionJSON: String?
    ) throws(OSSEncryptionError) {
        guard publicKeyPEM != nil || privateKeyPEM != nil else {
            throw .invalidKey("give a public key (to write), a private key (to read) or both")
        }
        if let text = materialDescriptionJSON, !text.isEmpty {
            guard OSSMaterialDescription.parse(text) != nil else {
                throw .invalidKey("the material description is not a JSON object of strings")
            }
            materialDescription = text
        } else {
            materialDescription = nil
        }
        var privateKey: _RSA.Encryption.PrivateKey?
        if let pem = privateKeyPEM {
            do {
                privateKey = try _RSA.Encryption.PrivateKey(unsafePEMRepresentation: pem)
            } catch {
                throw .invalidKey("the private key is not an RSA private key in PKCS#1 or PKCS#8 PEM of 1024 bits or more")
            }
        }
        if let pem = publicKeyPEM {
            do {
                publicKeyDER = try _RSA.Encryption.PublicKey(unsafePEMRepresentation: pem).derRepresentation
            } catch {
                throw .invalidKey(
                    "the public key is not an RSA public key in PKCS#1 or SubjectPublicKeyInfo PEM of 1024 bits or more")
            }
        } else {
            publicKeyDER = privateKey?.publicKey.derRepresentation
        }
        privateKeyDER = privateKey?.derRepresentation
    }

    public func wrap(_ plaintext: Data) async throws -> Data {
        guard let publicKeyDER else { throw OSSEncryptionError.wrapFailed("the master cipher has no public key") }
        do {
            let publicKey = try _RSA.Encryption.PublicKey(unsafeDERRepresentation: publicKeyDER)
            return try publicKey.encrypt(plaintext, padding: ._WEAK_AND_INSECURE_PKCS_V1_5)
        } catch {
            throw OSSEncryptionError.wrapFailed("RSA encryption failed")
        }
    }

    public func unwrap(_ wrapped: Data) async throws -> Data {
        guard let privateKeyDER else { throw OSSEncryptionError.decryptionUnavailable }
        let privateKey = try _RSA.Encryption.PrivateKey(unsafeDERRepresentation: privateKeyDER)
        return try privateKey.decrypt(wrapped, padding: ._WEAK_AND_INSECURE_PKCS_V1_5)
    }

    static func json(_ description: [String: String]) throws(OSSEncryptionError) -> String? {
        guard !description.isEmpty else { return nil }
        do {
            let data = try JSONSerialization.data(
                withJSONObject: description, options: [.sortedKeys, .withoutEscapingSlashes])
            return String(decoding: data, as: UTF8.self)
        } catch {
            throw .invalidKey("the material description cannot be written as JSON")
        }
    }
}

/// `matdesc` values compare as JSON objects, not as text: the Python SDK writes `{"k": "v"}`, the Go SDK
/// `{"k":"v"}`, and both name the same master key.
enum OSSMaterialDescription {
    static func parse(_ text: String) -> [String: String]? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else { return nil }
        var result: [String: String] = [:]
        for (name, value) in object {
            guard let string = value as? String else { return nil }
            result[name] = string
        }
        return result
    }

    static func same(_ a: String?, _ b: String?) -> Bool {
        let a = a ?? "", b = b ?? ""
        if a == b { return true }
        guard let x = parse(a), let y = parse(b) else { return false }
        return x == y
    }
}
