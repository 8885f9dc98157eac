@testable import AliyunOSS
import Foundation
import Testing

/// The versioning calls as declarations: what they send and how OSS's answers (the documented shapes) are read.
@Suite("Versioning models")
struct VersioningModelTests {
    static func response(_ xml: String, headers: [String: String] = [:]) -> OSSHTTPResponse {
        OSSHTTPResponse(
            status: 200, headers: headers.merging(["x-oss-request-id": "RID"]) { a, _ in a },
            body: OSSResponseBody(chunks: [Data(xml.utf8)]))
    }

    static func bodyText(_ operation: OSSOperation) -> String? {
        guard case .bytes(let body) = operation.body else { return nil }
        return String(decoding: body, as: UTF8.self)
    }

    @Test func putBucketVersioningSendsTheConfigurationAndRefusesOtherStates() throws {
        let operation = try OSSPutBucketVersioningRequest(bucketName: "b", status: .enabled).operation()
        #expect(operation.name == "PutBucketVersioning" && operation.method == "PUT")
        #expect(operation.query == ["versioning": ""] && operation.key == nil)
        #expect(
            Self.bodyText(operation)
                == "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<VersioningConfiguration><Status>Enabled</Status>"
                + "</VersioningConfiguration>")
        #expect(operation.headers["content-md5"] != nil)
        let off = OSSPutBucketVersioningRequest(bucketName: "b", status: OSSVersioningStatus(rawValue: "Disabled"))
        let error = #expect(throws: OSSClientError.self) { try off.operation() }
        #expect(error?.code == .invalidArgument)
    }

    @Test func getBucketVersioningReadsTheStatusOrNone() async throws {
        let enabled = try await OSSGetBucketVersioningResult.decode(
            Self.response(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<VersioningConfiguration>\n  <Status>Suspended</Status>\n"
                    + "</VersioningConfiguration>"))
        #expect(enabled.status == .suspended && enabled.requestId == "RID")
        let never = try await OSSGetBucketVersioningResult.decode(Self.response("<VersioningConfiguration/>"))
        #expect(never.status == nil)
        let info = try await OSSGetBucketInfoResult.decode(
            Self.response("<BucketInfo><Bucket><Name>b</Name><Versioning>Enabled</Versioning></Bucket></BucketInfo>"))
        #expect(info.versioning == .enabled)
    }

    @Test func listObjectVersionsSendsItsMarkersAndAsksForURLEncoding() throws {
        let request = OSSListObjectVersionsRequest(
            bucketName: "b", prefix: "p/", delimiter: "/", keyMarker: "p/a", versionIdMarker: "CAEQ", maxKeys: 2)
        let operation = try request.operation()
        #expect(operation.name == "ListObjectVersions" && operation.method == "GET")
        #expect(
            operation.query == [
                "versions": "", "prefix": "p/", "delimiter": "/", "key-marker": "p/a", "version-id-marker": "CAEQ",
                "max-keys": "2", "encoding-type": "url",
            ])
        let orphan = OSSListObjectVersionsRequest(bucketName: "b", versionIdMarker: "CAEQ")
        #expect(throws: OSSClientError.self) { try orphan.operation() }
    }

    /// The shape of OSS's documented ListVersionsResult, URL-encoded: a version, a delete marker over it, the
    /// `null` version, and a common prefix.
    static let versionsPage = """
        <?xml version="1.0" encoding="UTF-8"?>
        <ListVersionsResult>
          <Name>examplebucket</Name>
          <Prefix>ex%20</Prefix>
          <KeyMarker>ex%20a</KeyMarker>
          <VersionIdMarker>CAEQMxiBgICbof2D0BYiIDA3MjQ0ODE5MWYxZDYwMzJlZjU1****</VersionIdMarker>
          <MaxKeys>3</MaxKeys>
          <Delimiter>%2F</Delimiter>
          <EncodingType>url</EncodingType>
          <IsTruncated>true</IsTruncated>
          <NextKeyMarker>ex%20c</NextKeyMarker>
          <NextVersionIdMarker>CAEQGhiBgMCw8NnE1BYiIGUzYmQ3MmQ3NDRmODQ4ZjQ5ZDc0OGM1ZTJh****</NextVersionIdMarker>
          <DeleteMarker>
            <Key>ex%20b%26c</Key>
            <VersionId>CAEQMhiBgIDXiaaB0BYiIGQzYmRkZGUxMTM1ZDRjOTZhNjk4YjRjMTAx****</VersionId>
            <IsLatest>true</IsLatest>
            <LastModified>2019-04-09T07:27:28.000Z</LastModified>
            <Owner>
              <ID>12345125285864390</ID>
              <DisplayName>12345125285864390</DisplayName>
            </Owner>
          </DeleteMarker>
          <Version>
            <Key>ex%20b%26c</Key>
            <VersionId>CAEQMxiBgMDNoP2D0BYiIDE3MWUxNzgxZDQxNTRiODI5OGYwZGMwNGY3****</VersionId>
            <IsLatest>false</IsLatest>
            <LastModified>2019-04-09T07:27:15.000Z</LastModified>
            <ETag>"F0D7C2A63C6D5B8A4BE3DD8B6CB6D7A5"</ETag>
            <Type>Normal</Type>
            <Size>93731</Size>
            <StorageClass>Standard</StorageClass>
            <Owner>
              <ID>12345125285864390</ID>
              <DisplayName>12345125285864390</DisplayName>
            </Owner>
          </Version>
          <Version>
            <Key>ex%20c</Key>
            <VersionId>null</VersionId>
            <IsLatest>true</IsLatest>
            <LastModified>2019-04-09T07:27:01.000Z</LastModified>
            <ETag>"5B3C1A2E053D763E1B002CC607C5A0FE-2"</ETag>
            <Type>Multipart</Type>
            <Size>20</Size>
            <StorageClass>ColdArchive</StorageClass>
            <RestoreInfo>ongoing-request="true"</RestoreInfo>
            <TransitionTime>2019-05-01T00:00:00.000Z</TransitionTime>
          </Version>
          <CommonPrefixes>
            <Prefix>ex%20d%2F</Prefix>
          </CommonPrefixes>
        </ListVersionsResult>
        """

    @Test func aVersionsPageKeepsItsOrderAndDecodesKeysAndMarkers() async throws {
        let page = try await OSSListObjectVersionsResult.decode(Self.response(Self.versionsPage))
        #expect(page.bucketName == "examplebucket" && page.requestId == "RID")
        #expect(page.prefix == "ex " && page.delimiter == "/" && page.keyMarker == "ex a")
        #expect(page.versionIdMarker == "CAEQMxiBgICbof2D0BYiIDA3MjQ0ODE5MWYxZDYwMzJlZjU1****")
        #expect(page.maxKeys == 3 && page.isTruncated)
        #expect(page.nextKeyMarker == "ex c")
        #expect(page.nextVersionIdMarker == "CAEQGhiBgMCw8NnE1BYiIGUzYmQ3MmQ3NDRmODQ4ZjQ5ZDc0OGM1ZTJh****")
        #expect(page.commonPrefixes == ["ex d/"])

        #expect(page.entries.map(\.isDeleteMarker) == [true, false, false])
        #expect(page.entries.map(\.objectKey) == ["ex b&c", "ex b&c", "ex c"])
        #expect(page.entries.map(\.isLatest) == [true, false, true])
        let marker = try #require(page.deleteMarkers.first)
        #expect(marker.versionId == "CAEQMhiBgIDXiaaB0BYiIGQzYmRkZGUxMTM1ZDRjOTZhNjk4YjRjMTAx****")
        #expect(marker.lastModified == Date(timeIntervalSince1970: 1_554_794_848))
        #expect(marker.owner == OSSOwner(id: "12345125285864390", displayName: "12345125285864390"))

        #expect(page.versions.count == 2)
        let old = page.versions[0]
        #expect(old.eTag == "\"F0D7C2A63C6D5B8A4BE3DD8B6CB6D7A5\"" && old.size == 93731)
        #expect(old.objectType == "Normal" && old.storageClass == "Standard" && !old.isLatest)
        let null = page.versions[1]
        #expect(null.versionId == "null" && null.objectType == "Multipart" && null.owner == nil)
        #expect(null.restoreInfo == "ongoing-request=\"true\"")
        #expect(null.transitionTime == Date(timeIntervalSince1970: 1_556_668_800))
    }

    @Test func aMalformedVersionsPageIsAClientErrorNamingTheElement() async {
        let noId = await thrownClientError {
            _ = try await OSSListObjectVersionsResult.decode(
                Self.response("<ListVersionsResult><Version><Key>k</Key></Version></ListVersionsResult>"))
        }
        #expect(noId?.code == .exceptionCaught)
        #expect(noId?.message.contains("VersionId") == true)
        let badKey = await thrownClientError {
            _ = try await OSSListObjectVersionsResult.decode(
                Self.response(
                    "<ListVersionsResult><EncodingType>url</EncodingType><Version><Key>%zz</Key>"
                        + "<VersionId>v</VersionId></Version></ListVersionsResult>"))
        }
        #expect(badKey?.code == .exceptionCaught)
    }

    @Test func thePaginatorFollowsBothMarkersAndRefusesAStuckOne() async throws {
        let client = try OSSClient(
            endpoint: "http://127.0.0.1:9",
            credentialProvider: OSSStaticCredentialProvider(accessKeyId: "a", accessKeySecret: "s"))
        let first = OSSListObjectVersionsRequest(bucketName: "b", prefix: "p")
        let paginator = OSSListObjectVersionsPaginator(client: client, request: first)
        try await client.shutdown()
        var page = OSSListObjectVersionsResult(
            bucketName: "b", isTruncated: true, nextKeyMarker: "k", nextVersionIdMarker: "v2", entries: [],
            commonPrefixes: [], requestId: "r")
        let next = try #require(try paginator.nextRequest(first, page))
        #expect(next.keyMarker == "k" && next.versionIdMarker == "v2" && next.prefix == "p")
        #expect(throws: OSSClientError.self) { try paginator.nextRequest(next, page) }
        page.nextVersionIdMarker = "v1"
        #expect(try paginator.nextRequest(next, page)?.versionIdMarker == "v1", "the same key, an older version")
        page.isTruncated = false
        #expect(try paginator.nextRequest(next, page) == nil)
    }

    @Test func versionIdsTravelAsTheVersionIdQueryOnEveryDeclaredObjectCall() throws {
        let v = "CAEQNhiBgMDJgZCA0BYiIDc4MGZjZGI2OTBjOTRmNTE5NmU5NmFhZjhjYmY0****"
        let put = try OSSPutObjectACLRequest(bucketName: "b", objectKey: "k", acl: .private, versionId: v).operation()
        #expect(put.query == ["acl": "", "versionId": v] && put.headers["x-oss-object-acl"] == "private")
        #expect(try OSSGetObjectACLRequest(bucketName: "b", objectKey: "k", versionId: v).operation().query["versionId"] == v)
        #expect(
            try OSSPutObjectTaggingRequest(bucketName: "b", objectKey: "k", tags: ["a": "1"], versionId: v).operation()
                .query == ["tagging": "", "versionId": v])
        #expect(
            try OSSRestoreObjectRequest(bucketName: "b", objectKey: "k", versionId: v).operation().query
                == ["restore": "", "versionId": v])
        let tagging = try OSSCall(
            OSSAPI("GetObjectTagging", "GET", subresource: "tagging"), bucket: "b", key: "k", versionId: v,
            as: OSSGetObjectTaggingResult.self
        ).operation()
        #expect(tagging.query == ["tagging": "", "versionId": v])
        // Without a version nothing is added.
        #expect(try OSSGetObjectACLRequest(bucketName: "b", objectKey: "k").operation().query == ["acl": ""])
    }

    @Test func resultsCarryTheVersionIdHeader() async throws {
        let tagging = try await OSSGetObjectTaggingResult.decode(
            Self.response("<Tagging><TagSet/></Tagging>", headers: ["x-oss-version-id": "v1"]))
        #expect(tagging.versionId == "v1")
        let acl = try await OSSGetACLResult.decode(
            Self.response(
                "<AccessControlPolicy><AccessControlList><Grant>default</Grant></AccessControlList></AccessControlPolicy>",
                headers: ["x-oss-version-id": "v2"]))
        #expect(acl.versionId == "v2")
    }

    @Test func deleteMultipleObjectsNamesVersionsAndReadsMarkers() async throws {
        let request = OSSDeleteMultipleObjectsRequest(
            bucketName: "b",
            objects: [OSSObjectIdentifier(objectKey: "a & b", versionId: "CAEQ1"), OSSObjectIdentifier(objectKey: "c")])
        let operation = try request.operation()
        #expect(operation.query == ["delete": "", "encoding-type": "url"])
        #expect(
            Self.bodyText(operation)
                == "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Delete><Quiet>false</Quiet>"
                + "<Object><Key>a &amp; b</Key><VersionId>CAEQ1</VersionId></Object>"
                + "<Object><Key>c</Key></Object></Delete>")
        #expect(request.keys == ["a & b", "c"])
        #expect(throws: OSSClientError.self) {
            try OSSDeleteMultipleObjectsRequest(bucketName: "b", objects: [.init(objectKey: "k", versionId: "")])
                .operation()
        }

        let result = try await OSSDeleteMultipleObjectsResult.decode(
            Self.response(
                """
                <?xml version="1.0" encoding="UTF-8"?>
                <DeleteResult>
                  <EncodingType>url</EncodingType>
                  <Deleted>
                    <Key>a%20%26%20b</Key>
                    <VersionId>CAEQ1</VersionId>
                  </Deleted>
                  <Deleted>
                    <Key>c</Key>
                    <DeleteMarker>true</DeleteMarker>
                    <DeleteMarkerVersionId>CAEQ9</DeleteMarkerVersionId>
                  </Deleted>
                </DeleteResult>
                """))
        #expect(
            result.deleted == [
                OSSDeletedObject(objectKey: "a & b", versionId: "CAEQ1"),
                OSSDeletedObject(objectKey: "c", deleteMarker: true, deleteMarkerVersionId: "CAEQ9"),
            ])
        #expect(result.deletedObjects == ["a & b", "c"])
    }
}
