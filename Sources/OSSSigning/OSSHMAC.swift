import Crypto

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// HMAC (RFC 2104) over swift-crypto's hash functions, computed with two plain hashes and a pad on the stack.
///
/// Gives the same bytes as `HMAC<H>.authenticationCode(for:using:)` (the tests compare them for keys of every
/// length around the block size); it skips building a `SymmetricKey` and the keyed-HMAC object per call, which
/// cost more than hashing a request's string-to-sign itself.
public enum OSSHMAC {
    /// `HMAC-H(key, message)`.
    public static func authenticationCode<H: HashFunction>(
        _ hash: H.Type, key: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer
    ) -> H.Digest {
        let blockSize = H.blockByteCount
        if key.count > blockSize {
            // A key longer than a block is hashed first (RFC 2104 §2).
            var keyHasher = H()
            keyHasher.update(bufferPointer: key)
            let hashedKey = keyHasher.finalize()
            return hashedKey.withUnsafeBytes { authenticationCode(H.self, key: $0, message: message) }
        }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: blockSize) { pad in
            pad.initialize(repeating: 0x36)
            for (index, byte) in key.enumerated() { pad[index] ^= byte }
            var inner = H()
            inner.update(bufferPointer: UnsafeRawBufferPointer(pad))
            inner.update(bufferPointer: message)
            let innerDigest = inner.finalize()
            for index in 0..<blockSize { pad[index] ^= 0x36 ^ 0x5C }
            var outer = H()
            outer.update(bufferPointer: UnsafeRawBufferPointer(pad))
            innerDigest.withUnsafeBytes { outer.update(bufferPointer: $0) }
            return outer.finalize()
        }
    }

    /// `HMAC-H(key, message)` for byte arrays.
    public static func authenticationCode<H: HashFunction>(_ hash: H.Type, key: [UInt8], message: [UInt8]) -> H.Digest {
        key.withUnsafeBytes { k in message.withUnsafeBytes { m in authenticationCode(H.self, key: k, message: m) } }
    }

    /// `HMAC-H(key, UTF-8 of message)`.
    static func authenticationCode<H: HashFunction>(_ hash: H.Type, key: UnsafeRawBufferPointer, message: String)
        -> H.Digest
    {
        var message = message
        return message.withUTF8 { authenticationCode(H.self, key: key, message: UnsafeRawBufferPointer($0)) }
    }
}

/// Standard Base64 (RFC 4648, with padding), written straight into a `String`.
enum OSSBase64 {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func encode(_ bytes: UnsafeRawBufferPointer) -> String {
        let count = bytes.count
        let length = (count + 2) / 3 * 4
        return alphabet.withUnsafeBufferPointer { table in
            String(unsafeUninitializedCapacity: length) { out in
                var i = 0
                var o = 0
                while i + 3 <= count {
                    let v = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
                    out[o] = table[Int(v >> 18 & 63)]
                    out[o + 1] = table[Int(v >> 12 & 63)]
                    out[o + 2] = table[Int(v >> 6 & 63)]
                    out[o + 3] = table[Int(v & 63)]
                    i += 3
                    o += 4
                }
                let rest = count - i
                if rest > 0 {
                    let v = UInt32(bytes[i]) << 16 | (rest == 2 ? UInt32(bytes[i + 1]) << 8 : 0)
                    out[o] = table[Int(v >> 18 & 63)]
                    out[o + 1] = table[Int(v >> 12 & 63)]
                    out[o + 2] = rest == 2 ? table[Int(v >> 6 & 63)] : UInt8(ascii: "=")
                    out[o + 3] = UInt8(ascii: "=")
                    o += 4
                }
                return o
            }
        }
    }
}
