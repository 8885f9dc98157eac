import NIOHTTP1
import Testing

@testable import OSSLocalServer

/// A request target in absolute form (`http://host/path?query`, as a client sends it to a proxy; RFC 9112 section
/// 3.2.2: a server must accept it) is served as its origin form, the authority becoming the Host. scripts/oss2-suite.sh
/// relays oss2's requests for `<bucket>.oss-cn-shanghai.aliyuncs.com` to the local server that way (before, the
/// path `http://bkt.oss.test/dir/file` named no bucket the server knew).
@Suite struct AbsoluteFormTests {
    static func head(_ uri: String, host: String? = "127.0.0.1:1234") -> HTTPRequestHead {
        var headers = HTTPHeaders()
        if let host { headers.add(name: "Host", value: host) }
        return HTTPRequestHead(version: .http1_1, method: .GET, uri: uri, headers: headers)
    }

    @Test(arguments: [
        ("http://bkt.oss.test/dir/file?acl", "/dir/file?acl", "bkt.oss.test"),
        ("HTTP://bkt.oss.test:8080/a%2Fb", "/a%2Fb", "bkt.oss.test:8080"),
        ("http://oss.test?uploads", "/?uploads", "oss.test"),
        ("http://oss.test", "/", "oss.test"),
        ("https://user:pw@bkt.oss.test/k#fragment", "/k", "bkt.oss.test"),
    ])
    func absoluteFormBecomesOriginForm(uri: String, path: String, host: String) {
        let head = RequestHandler.originForm(Self.head(uri))
        #expect(head.uri == path)
        #expect(head.headers["host"] == [host], "the authority replaces the Host header")
        #expect(RequestHandler.originForm(Self.head(uri, host: nil)).headers["host"] == [host])
    }

    @Test func originFormIsLeftAsItIs() {
        for uri in ["/bkt/key", "/", "/bkt/http://not-a-target", "*"] {
            let head = RequestHandler.originForm(Self.head(uri))
            #expect(head.uri == uri && head.headers["host"] == ["127.0.0.1:1234"])
        }
    }
}
