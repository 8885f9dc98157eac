import Crypto
import Foundation
import OSSSigning
import OSSTestSupport
import Testing

/// The hand-written fast paths of the signers against the general implementations they replace.
@Suite("Signing fast paths")
struct HMACAndEncodingTests {
    @Test("OSSHMAC equals swift-crypto's HMAC for SHA-1 and SHA-256, keys of 0...200 bytes (around both block sizes)")
    func hmacMatchesSwiftCrypto() {
        var rng = SplitMix64(seed: 7)
        for keyLength in 0...200 {
            let key = rng.bytes(keyLength)
            let message = rng.bytes(Int(rng.next() % 300))
            let sha1 = OSSHMAC.authenticationCode(Insecure.SHA1.self, key: key, message: message)
            let reference1 = HMAC<Insecure.SHA1>.authenticationCode(for: message, using: SymmetricKey(data: key))
            #expect(Array(sha1) == Array(reference1), "SHA-1, key \(keyLength) bytes")
            let sha256 = OSSHMAC.authenticationCode(SHA256.self, key: key, message: message)
            let reference256 = HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key))
            #expect(Array(sha256) == Array(reference256), "SHA-256, key \(keyLength) bytes")
        }
    }

    @Test("RFC 2202 test case 1 (HMAC-SHA1) and RFC 4231 test case 2 (HMAC-SHA256)")
    func publishedVectors() {
        let key1 = [UInt8](repeating: 0x0B, count: 20)
        let mac1 = OSSHMAC.authenticationCode(Insecure.SHA1.self, key: key1, message: Array("Hi There".utf8))
        #expect(mac1.map { String(format: "%02x", $0) }.joined() == "b617318655057264e28bc0b6fb378c8ef146be00")
        let mac2 = OSSHMAC.authenticationCode(
            SHA256.self, key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
        #expect(
            mac2.map { String(format: "%02x", $0) }.joined()
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test("V1 signature (HMAC + hand-written Base64) equals HMAC-SHA1 through Foundation's Base64")
    func v1SignatureMatchesFoundationBase64() {
        var rng = SplitMix64(seed: 11)
        for _ in 0..<500 {
            let secret = String(decoding: rng.bytes(Int(rng.next() % 80)).map { 0x21 + $0 % 94 }, as: UTF8.self)
            let text = String(decoding: rng.bytes(Int(rng.next() % 400)).map { 0x20 + $0 % 95 }, as: UTF8.self)
            let mac = HMAC<Insecure.SHA1>.authenticationCode(for: Array(text.utf8), using: SymmetricKey(data: Array(secret.utf8)))
            #expect(OSSSignerV1.signature(stringToSign: text, secret: secret) == Data(mac).base64EncodedString())
        }
    }

    // From 1600: before the Gregorian reform the formatter switches to the Julian calendar; HTTP dates (and ours)
    // are proleptic Gregorian.
    @Test("rfc1123 equals an en_US_POSIX DateFormatter in GMT, 1600 to 9999")
    func rfc1123MatchesDateFormatter() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        var rng = SplitMix64(seed: 13)
        var dates = [0, 951_782_400, 4_102_444_799, 253_402_300_799].map { Date(timeIntervalSince1970: $0) }
        for _ in 0..<2000 {
            let start: Int64 = -11_676_096_000  // 1600-01-01
            dates.append(Date(timeIntervalSince1970: TimeInterval(start + Int64(rng.next() % UInt64(253_402_300_800 - start)))))
        }
        for date in dates {
            #expect(OSSDateFormat.rfc1123(date) == formatter.string(from: date), "\(date.timeIntervalSince1970)")
        }
    }
}
