@testable import AliyunOSS
import Foundation
import OSSXML
import Testing

@Suite("XML result decoding (golden bodies)")
struct XMLDecodingTests {
    @Test func listPartsWithASinglePartIsAList() throws {
        let xml = try OSSXMLParser.parse(
            Array(
                """
                <ListPartsResult>
                  <Bucket>examplebucket</Bucket>
                  <Key>big/archive.bin</Key>
                  <UploadId>0004B9894A22E5B1888A1E29F8236E2D</UploadId>
                  <PartNumberMarker>0</PartNumberMarker>
                  <NextPartNumberMarker>1</NextPartNumberMarker>
                  <MaxParts>1000</MaxParts>
                  <IsTruncated>false</IsTruncated>
                  <Part>
                    <PartNumber>1</PartNumber>
                    <LastModified>2024-01-15T08:30:45.000Z</LastModified>
                    <ETag>"3858F62230AC3C915F300C664312C11F"</ETag>
                    <HashCrc64ecma>11051210869376104954</HashCrc64ecma>
                    <Size>102400</Size>
                  </Part>
                </ListPartsResult>
                """.utf8))
        let request = OSSListPartsRequest(bucketName: "examplebucket", objectKey: "big/archive.bin", uploadId: "u")
        let result = try OSSClient.decodeListParts(xml, request: request, requestId: "r")
        #expect(result.parts.count == 1)
        let part = try #require(result.parts.first)
        #expect(part.partNumber == 1)
        #expect(part.eTag == "\"3858F62230AC3C915F300C664312C11F\"")
        #expect(part.size == 102_400)
        #expect(part.crc64 == 11_051_210_869_376_104_954)
        #expect(part.lastModified == Date(timeIntervalSince1970: 1_705_307_445))
        #expect(result.nextPartNumberMarker == 1 && result.isTruncated == false && result.maxParts == 1000)
        #expect(result.uploadId == "0004B9894A22E5B1888A1E29F8236E2D")
    }

    @Test func listPartsRejectsGarbageNumbers() throws {
        let xml = try OSSXMLParser.parse(
            Array("<ListPartsResult><Part><PartNumber>x</PartNumber><Size>1</Size></Part></ListPartsResult>".utf8))
        let request = OSSListPartsRequest(bucketName: "b1c", objectKey: "k", uploadId: "u")
        let error = #expect(throws: OSSClientError.self) {
            try OSSClient.decodeListParts(xml, request: request, requestId: "")
        }
        #expect(error?.code == .exceptionCaught)
    }

    @Test func listMultipartUploadsDecodesURLEncodedFields() throws {
        let xml = try OSSXMLParser.parse(
            Array(
                """
                <ListMultipartUploadsResult>
                  <EncodingType>url</EncodingType>
                  <Bucket>examplebucket</Bucket>
                  <KeyMarker></KeyMarker>
                  <UploadIdMarker></UploadIdMarker>
                  <NextKeyMarker>big%2Farchive%20%2B1.bin</NextKeyMarker>
                  <NextUploadIdMarker>0004B98</NextUploadIdMarker>
                  <Delimiter>%2F</Delimiter>
                  <Prefix>big%2F</Prefix>
                  <MaxUploads>1000</MaxUploads>
                  <IsTruncated>true</IsTruncated>
                  <Upload>
                    <Key>big%2Farchive%20%2B1.bin</Key>
                    <UploadId>0004B98</UploadId>
                    <Initiated>2024-01-15T08:30:45.000Z</Initiated>
                  </Upload>
                  <CommonPrefixes><Prefix>big%2Fsub%2F</Prefix></CommonPrefixes>
                </ListMultipartUploadsResult>
                """.utf8))
        let result = try OSSClient.decodeListMultipartUploads(
            xml, request: OSSListMultipartUploadsRequest(bucketName: "examplebucket"), requestId: "r")
        #expect(result.uploads.map(\.objectKey) == ["big/archive +1.bin"])
        #expect(result.nextKeyMarker == "big/archive +1.bin")
        #expect(result.prefix == "big/" && result.delimiter == "/")
        #expect(result.commonPrefixes == ["big/sub/"])
        #expect(result.isTruncated)
        #expect(result.keyMarker == "")
    }

    @Test func listObjectsKeepsTextExactly() throws {
        let xml = try OSSXMLParser.parse(
            Array(
                """
                <ListBucketResult>
                  <Name>b</Name>
                  <Prefix></Prefix>
                  <MaxKeys>2</MaxKeys>
                  <KeyCount>2</KeyCount>
                  <IsTruncated>true</IsTruncated>
                  <NextContinuationToken>tok</NextContinuationToken>
                  <Contents><Key> spaced key </Key><Size>3</Size><ETag>"E"</ETag><LastModified>2024-01-15T08:30:45.000Z</LastModified></Contents>
                  <Contents><Key>a&amp;b&lt;c</Key><Size>0</Size></Contents>
                </ListBucketResult>
                """.utf8))
        let result = try OSSClient.decodeListObjectsV2(xml, request: OSSListObjectsV2Request(bucketName: "b1c"), requestId: "")
        #expect(result.contents.map(\.objectKey) == [" spaced key ", "a&b<c"])
        #expect(result.contents.first?.size == 3)
        #expect(result.nextContinuationToken == "tok" && result.isTruncated && result.keyCount == 2)
    }

    @Test func badPercentEncodingIsATypedError() throws {
        let xml = try OSSXMLParser.parse(
            Array("<ListBucketResult><EncodingType>url</EncodingType><Contents><Key>%ZZ</Key></Contents></ListBucketResult>".utf8))
        let error = #expect(throws: OSSClientError.self) {
            try OSSClient.decodeListObjectsV2(xml, request: OSSListObjectsV2Request(bucketName: "b1c"), requestId: "")
        }
        #expect(error?.code == .exceptionCaught)
    }

    @Test func completeBodyIsSortedAndQuoted() {
        let body = OSSClient.completeBody([
            OSSPartInfo(partNumber: 2, eTag: "BBB"), OSSPartInfo(partNumber: 1, eTag: "\"AAA\""),
        ])
        #expect(
            body
                == "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>&quot;AAA&quot;</ETag></Part><Part><PartNumber>2</PartNumber><ETag>&quot;BBB&quot;</ETag></Part></CompleteMultipartUpload>"
        )
    }
}
