import Foundation
import Crypto
import _CryptoExtras

/// An object's plain data key and IV. Held in memory only while an object is encrypted or decrypted; never written,
/// logged or put in an error (its description says nothing).
struct OSSContentKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    static let keyLength = 32
    static let blockLength = 16

    let key: SymmetricKey
    /// The initial counter block.
    let iv: [UInt8]

    /// A new random data key and IV. As the official clients do, bytes 8 to 11 of the IV are zero, so the low 64
    /// bits of the counter cannot wrap within any object OSS can hold.
    static func random() -> OSSContentKey {
        var generator = SystemRandomNumberGenerator()
        var iv = (0..<blockLength).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        for index in 8..<12 { iv[index] = 0 }
        return OSSContentKey(key: SymmetricKey(size: .bits256), iv: iv)
    }

    init(key: SymmetricKey, iv: [UInt8]) {
        self.key = key
        self.iv = iv
    }

    /// Checks the sizes an unwrapped key and IV must have.
    init(unwrappedKey: Data, unwrappedIV: Data, objectKey: String) throws(OSSEncryptionError) {
        guard unwrappedKey.count == Self.keyLength else {
            throw .malformedEnvelope(
                objectKey: objectKey, header: "x-oss-meta-" + OSSEncryptionEnvelope.Header.key,
                reason: "the data key is not 32 bytes")
        }
        guard unwrappedIV.count == Self.blockLength else {
            throw .malformedEnvelope(
                objectKey: objectKey, header: "x-oss-meta-" + OSSEncryptionEnvelope.Header.start,
                reason: "the IV is not 16 bytes")
        }
        self.init(key: SymmetricKey(data: unwrappedKey), iv: Array(unwrappedIV))
    }

    var keyBytes: Data { key.withUnsafeBytes { Data($0) } }

    var description: String { "OSSContentKey(redacted)" }
    var debugDescription: String { description }

    /// The counter block of the block that holds plaintext byte `offset`: the IV read as a 128-bit big-endian number
    /// plus `offset / 16`, modulo 2^128 (the counter of the official clients' AES-CTR).
    func counter(atByte offset: Int64) -> [UInt8] {
        var block = iv
        var carry = UInt64(offset / Int64(Self.blockLength))
        var index = Self.blockLength - 1
        while carry != 0 && index >= 0 {
            let sum = UInt64(block[index]) + (carry & 0xFF)
            block[index] = UInt8(truncatingIfNeeded: sum)
            carry = (carry >> 8) + (sum >> 8)
            index -= 1
        }
        return block
    }
}

/// AES-256-CTR over a byte stream that starts at any plaintext offset and arrives in chunks of any size: each chunk
/// is run at the counter of its first byte, the keystream bytes before it within that block skipped. Encryption and
/// decryption are the same operation.
struct OSSCTRStream: Sendable {
    let contentKey: OSSContentKey
    /// The plaintext offset of the next byte.
    private(set) var offset: Int64

    init(_ contentKey: OSSContentKey, offset: Int64 = 0) {
        self.contentKey = contentKey
        self.offset = offset
    }

    mutating func apply(_ bytes: Data) throws -> Data {
        guard !bytes.isEmpty else { return Data() }
        let skip = Int(offset % Int64(OSSContentKey.blockLength))
        let nonce = try AES._CTR.Nonce(nonceBytes: contentKey.counter(atByte: offset))
        let output: Data
        if skip == 0 {
            output = try AES._CTR.encrypt(bytes, using: contentKey.key, nonce: nonce)
        } else {
            var padded = Data(count: skip)
            padded.append(bytes)
            output = try AES._CTR.encrypt(padded, using: contentKey.key, nonce: nonce).dropFirst(skip)
        }
        offset += Int64(bytes.count)
        return Data(output)
    }
}
