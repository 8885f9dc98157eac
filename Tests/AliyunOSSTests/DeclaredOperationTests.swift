@testable import AliyunOSS
import Foundation
import Testing

/// Operations stated as declarations (`OSSDeclaredOperation`): what they send and how their answers are read.
@Suite("Declared operations")
struct DeclaredOperationTests {
    static func response(_ xml: String, headers: [String: String] = [:]) -> OSSHTTPResponse {
        OSSHTTPResponse(
            status: 200, headers: headers.merging(["x-oss-request-id": "RID"]) { a, _ in a },
            body: OSSResponseBody(chunks: [Data(xml.utf8)]))
    }

    @Test func aBodyIsTheModelsXMLWithItsMD5() throws {
        let request = OSSPutObjectTaggingRequest(bucketName: "b", objectKey: "k/1", tags: ["z": "1 & 2", "a": ""])
        let operation = try request.operation()
        #expect(operation.name == "PutObjectTagging" && operation.method == "PUT")
        #expect(operation.bucket == "b" && operation.key == "k/1")
        #expect(operation.query == ["tagging": ""])
        guard case .bytes(let body) = operation.body else {
            Issue.record("the body is not bytes")
            return
        }
        let xml = String(decoding: body, as: UTF8.self)
        #expect(
            xml
                == "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Tagging><TagSet><Tag><Key>a</Key><Value></Value></Tag>"
                + "<Tag><Key>z</Key><Value>1 &amp; 2</Value></Tag></TagSet></Tagging>")
        #expect(operation.headers["content-md5"] == OSSFileDigest.contentMD5(Array(body)))
        #expect(operation.headers["content-type"] == "application/xml")
    }

    @Test func fieldsGoToHeadersAndQueryAndNilIsNotSent() throws {
        let acl = try OSSPutObjectACLRequest(bucketName: "b", objectKey: "k", acl: .publicRead).operation()
        #expect(acl.headers["x-oss-object-acl"] == "public-read")
        #expect(acl.query == ["acl": ""])
        #expect(acl.headers["content-md5"] == nil)

        let list = try OSSListBucketsRequest(prefix: "p", maxKeys: 5).operation()
        #expect(list.query == ["prefix": "p", "max-keys": "5"])
        #expect(list.bucket == nil)
    }

    @Test func validationRunsBeforeAnythingIsSent() {
        let bad = OSSPutBucketACLRequest(bucketName: "b", acl: .default)
        let error = #expect(throws: OSSClientError.self) { try bad.operation() }
        #expect(error?.code == .invalidArgument)
        let days = OSSRestoreObjectRequest(bucketName: "b", objectKey: "k", days: 0)
        #expect(throws: OSSClientError.self) { try days.operation() }
        let tags = OSSPutObjectTaggingRequest(
            bucketName: "b", objectKey: "k", tags: Dictionary(uniqueKeysWithValues: (0..<11).map { ("k\($0)", "v") }))
        #expect(throws: OSSClientError.self) { try tags.operation() }
    }

    @Test func resultsReadTheirDocumentIgnoringWhatTheyDoNotName() async throws {
        let tagging = try await OSSGetObjectTaggingResult.decode(
            Self.response(
                "<Tagging><TagSet><Tag><Key>a</Key><Value>1</Value><Extra/></Tag><Tag><Key>b</Key></Tag></TagSet>"
                    + "<Future>x</Future></Tagging>"))
        #expect(tagging.tags == ["a": "1", "b": ""])
        #expect(tagging.requestId == "RID")

        let acl = try await OSSGetACLResult.decode(
            Self.response(
                "<AccessControlPolicy><Owner><ID>0022</ID></Owner>"
                    + "<AccessControlList><Grant>public-read</Grant></AccessControlList></AccessControlPolicy>"))
        #expect(acl.grant == .publicRead && acl.ownerId == "0022")

        let info = try await OSSGetBucketInfoResult.decode(
            Self.response(
                "<BucketInfo><Bucket><Name>b</Name><CreationDate>2024-01-15T08:30:45.000Z</CreationDate>"
                    + "<Owner><ID>o</ID><DisplayName>d</DisplayName></Owner>"
                    + "<AccessControlList><Grant>private</Grant></AccessControlList><Versioning>Enabled</Versioning>"
                    + "</Bucket></BucketInfo>"))
        #expect(info.bucketName == "b" && info.ownerDisplayName == "d" && info.acl == "private")
        #expect(info.creationDate == Date(timeIntervalSince1970: 1_705_307_445))

        let location = try await OSSGetBucketLocationResult.decode(
            Self.response("<LocationConstraint>oss-cn-hangzhou</LocationConstraint>"))
        #expect(location.location == "oss-cn-hangzhou")

        let buckets = try await OSSListBucketsResult.decode(
            Self.response(
                "<ListAllMyBucketsResult><IsTruncated>true</IsTruncated><NextMarker>m</NextMarker><Buckets>"
                    + "<Bucket><Name>one</Name><Region>cn-hangzhou</Region></Bucket><Bucket><Name>two</Name></Bucket>"
                    + "</Buckets></ListAllMyBucketsResult>"))
        #expect(buckets.buckets.map(\.name) == ["one", "two"] && buckets.isTruncated && buckets.nextMarker == "m")
    }

    @Test func aMissingElementIsAClientErrorThatNamesIt() async throws {
        let error = await #expect(throws: OSSClientError.self) {
            try await OSSGetObjectTaggingResult.decode(
                Self.response("<Tagging><TagSet><Tag><Key>a</Key></Tag><Tag><Value>v</Value></Tag></TagSet></Tagging>"))
        }
        #expect(error?.code == .exceptionCaught)
        #expect(error?.message.contains("Tagging/TagSet/Tag[2]/Key") == true)

        let wrongRoot = await #expect(throws: OSSClientError.self) {
            try await OSSGetACLResult.decode(Self.response("<Error><Code>x</Code></Error>"))
        }
        #expect(wrongRoot?.code == .exceptionCaught)
    }
}
