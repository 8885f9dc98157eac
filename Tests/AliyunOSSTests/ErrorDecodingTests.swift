@testable import AliyunOSS
import Foundation
import Testing

@Suite("Server error decoding")
struct ErrorDecodingTests {
    let body = """
        <?xml version="1.0" encoding="UTF-8"?>
        <Error>
          <Code>NoSuchKey</Code>
          <Message>The specified key does not exist.</Message>
          <RequestId>65A4EC1D0B1C2D3E4F506172</RequestId>
          <HostId>examplebucket.oss-cn-hangzhou.aliyuncs.com</HostId>
          <Key>photos/2024/cat.jpg</Key>
          <EC>0026-00000001</EC>
        </Error>
        """

    @Test func decodesEveryField() {
        let error = OSSServerError.from(
            status: 404, headers: ["x-oss-request-id": "ignored", "authorization": "OSS a:b"], body: Array(body.utf8))
        #expect(error.statusCode == 404)
        #expect(error.code == "NoSuchKey")
        #expect(error.message == "The specified key does not exist.")
        #expect(error.requestId == "65A4EC1D0B1C2D3E4F506172")
        #expect(error.hostId == "examplebucket.oss-cn-hangzhou.aliyuncs.com")
        #expect(error.ec == "0026-00000001")
        #expect(error.fields["Key"] == "photos/2024/cat.jpg")
        #expect(error.headers["authorization"] == nil, "authentication headers are never kept")
        #expect(error.rawBody == Array(body.utf8))
    }

    @Test func headErrorsComeFromTheXOssErrHeader() {
        let encoded = Data(body.utf8).base64EncodedString()
        let error = OSSServerError.from(status: 404, headers: ["x-oss-err": encoded, "x-oss-ec": "0026-00000001"], body: [])
        #expect(error.code == "NoSuchKey")
        #expect(error.requestId == "65A4EC1D0B1C2D3E4F506172")
    }

    @Test func nonXMLBodiesAreKeptBounded() {
        let big = [UInt8](repeating: 0x41, count: 100_000)
        let error = OSSServerError.from(status: 502, headers: ["x-oss-request-id": "RID"], body: big)
        #expect(error.code == "")
        #expect(error.requestId == "RID")
        #expect(error.rawBody.count == OSSServerError.maximumRawBodySize)
        #expect(error.message.count == 512)
    }

    @Test func emptyBodyWithoutHeader() {
        let error = OSSServerError.from(status: 304, headers: [:], body: [])
        #expect(error.statusCode == 304 && error.code.isEmpty && error.rawBody.isEmpty)
    }
}
