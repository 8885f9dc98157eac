import Foundation
import OSSSigning
import Testing

@Suite("Signing units")
struct SigningUnitTests {
    let date = Date(timeIntervalSince1970: 1_705_307_445)

    @Test func dateFormats() {
        #expect(OSSDateFormat.rfc1123(date) == "Mon, 15 Jan 2024 08:30:45 GMT")
        #expect(OSSDateFormat.iso8601Basic(date) == "20240115T083045Z")
        #expect(OSSDateFormat.iso8601Milliseconds(date) == "2024-01-15T08:30:45.000Z")
        #expect(OSSDateFormat.rfc1123(Date(timeIntervalSince1970: 0)) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(OSSDateFormat.rfc1123(Date(timeIntervalSince1970: 951_782_400)) == "Tue, 29 Feb 2000 00:00:00 GMT")
    }

    @Test func dateParsersRoundTripAndRejectGarbage() {
        for t in stride(from: 0.0, to: 4_102_444_800, by: 86_400 * 37 + 3_601) {
            let d = Date(timeIntervalSince1970: t)
            #expect(OSSDateFormat.parseRFC1123(OSSDateFormat.rfc1123(d)) == d)
            #expect(OSSDateFormat.parseISO8601Basic(OSSDateFormat.iso8601Basic(d)) == d)
            #expect(OSSDateFormat.parseISO8601(OSSDateFormat.iso8601Milliseconds(d)) == d)
        }
        for bad in ["", "Mon, 31 Feb 2024 08:30:45 GMT", "Mon, 15 Foo 2024 08:30:45 GMT", "15 Jan 2024", "Mon, 15 Jan 2024 25:30:45 GMT",
            "Mon, 15 Jan 2024 08:30:45 PST", "Mon, 99999999999 Jan 2024 08:30:45 GMT"]
        {
            #expect(OSSDateFormat.parseRFC1123(bad) == nil, "\(bad)")
        }
        for bad in ["", "20240115T083045", "2024011XT083045Z", "20241315T083045Z", "20240115T086045Z"] {
            #expect(OSSDateFormat.parseISO8601Basic(bad) == nil, "\(bad)")
        }
        #expect(OSSDateFormat.parseISO8601("2024-01-15T08:30:45Z") == date)
        #expect(OSSDateFormat.parseISO8601("2024-01-15T08:30:45.x00Z") == nil)
    }

    @Test func percentEncoding() {
        #expect(OSSPercentEncoding.encode("a b+c/d~e_f.g-h", keepSlash: true) == "a%20b%2Bc/d~e_f.g-h")
        #expect(OSSPercentEncoding.encode("a b+c/d", keepSlash: false) == "a%20b%2Bc%2Fd")
        #expect(OSSPercentEncoding.encode("!'()*") == "%21%27%28%29%2A")
        #expect(OSSPercentEncoding.encode("文") == "%E6%96%87")
        #expect(OSSPercentEncoding.decode("a%20b+c%2F") == "a b+c/")
        #expect(OSSPercentEncoding.decode("a%20b+c", plusAsSpace: true) == "a b c")
        #expect(OSSPercentEncoding.decode("%E6%96%87") == "文")
        #expect(OSSPercentEncoding.decode("%") == nil)
        #expect(OSSPercentEncoding.decode("%G1") == nil)
        #expect(OSSPercentEncoding.decode("%FF") == nil, "invalid UTF-8 is refused")
        #expect(OSSPercentEncoding.parseQuery("uploads&a=1&b=&c=x+y%2Bz") == ["uploads": "", "a": "1", "b": "", "c": "x y+z"])
        #expect(OSSPercentEncoding.parseQuery("a=%zz") == nil)
        #expect(OSSPercentEncoding.encodeQuery(["uploads": "", "b": "x y", "a": "/"]) == "a=%2F&b=x%20y&uploads")
    }

    @Test func emptyCredentialsAreRefused() {
        var request = OSSSignableRequest(method: "GET", bucket: "b", key: "k")
        let empty = OSSCredentials(accessKeyId: "", accessKeySecret: "")
        #expect(throws: OSSSigningError.self) { try OSSSignerV1().sign(&request, credentials: empty, date: date) }
        #expect(throws: OSSSigningError.self) {
            try OSSSignerV4(region: "cn-hangzhou").sign(&request, credentials: empty, date: date)
        }
    }

    @Test func v4NeedsARegionAndBoundsExpiry() {
        let credentials = OSSCredentials(accessKeyId: "ak", accessKeySecret: "sk")
        var request = OSSSignableRequest(method: "GET", bucket: "b", key: "k")
        #expect(throws: OSSSigningError.self) { try OSSSignerV4(region: "").sign(&request, credentials: credentials, date: date) }
        let signer = OSSSignerV4(region: "cn-hangzhou")
        #expect(throws: OSSSigningError.self) {
            try signer.presign(&request, credentials: credentials, date: date, expiresIn: 604_801)
        }
        #expect(throws: OSSSigningError.self) { try signer.presign(&request, credentials: credentials, date: date, expiresIn: 0) }
        #expect(throws: Never.self) { try signer.presign(&request, credentials: credentials, date: date, expiresIn: 604_800) }
    }

    @Test func credentialsNeverPrintTheirSecrets() {
        let c = OSSCredentials(accessKeyId: "AKID", accessKeySecret: "TOPSECRET", securityToken: "TOKEN123")
        let printed = "\(c) \(String(reflecting: c))"
        #expect(printed.contains("AKID"))
        #expect(!printed.contains("TOPSECRET"))
        #expect(!printed.contains("TOKEN123"))
    }

    @Test func v1IgnoresNonSubresourceQuery() {
        let request = OSSSignableRequest(
            method: "GET", bucket: "b", key: nil, query: ["prefix": "x", "max-keys": "5", "acl": ""])
        #expect(OSSSignerV1.stringToSign(for: request, dateLine: "D") == "GET\n\n\nD\n/b/?acl")
    }
}
