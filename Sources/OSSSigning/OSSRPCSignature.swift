import Crypto

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The RPC-style signature of Alibaba Cloud's APIs (STS, ECS, ...: `SignatureMethod=HMAC-SHA1`,
/// `SignatureVersion=1.0`), computed alike by the SDK's STS client and the local STS stand-in that checks it.
///
/// The string to sign is `METHOD&%2F&<encoded canonical query>`, the canonical query being every parameter but
/// `Signature`, sorted by name (byte order), each name and value percent-encoded per RFC 3986 and joined as
/// `name=value&...`; the signature is the base64 HMAC-SHA1 of it keyed with `<secret>&`.
package enum OSSRPCSignature {
    package static func stringToSign(_ parameters: [String: String], method: String) -> String {
        let canonical = parameters.filter { $0.key != "Signature" }
            .sorted { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }
            .map { OSSPercentEncoding.encode($0.key) + "=" + OSSPercentEncoding.encode($0.value) }
            .joined(separator: "&")
        return method + "&" + OSSPercentEncoding.encode("/") + "&" + OSSPercentEncoding.encode(canonical)
    }

    package static func signature(_ parameters: [String: String], method: String, secret: String) -> String {
        let mac = HMAC<Insecure.SHA1>.authenticationCode(
            for: Data(stringToSign(parameters, method: method).utf8), using: SymmetricKey(data: Data((secret + "&").utf8)))
        return Data(mac).base64EncodedString()
    }
}
