import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

@Suite("AppendObject against the local server")
struct AppendOperationTests {
    @Test func appendsChainTheirCRCAndCheckPositions() async throws {
        try await withServerAndClient { _, client in
            let first = patternBytes(3000, seed: 1)
            let second = patternBytes(5000, seed: 2)
            let a = try await client.appendObject(
                OSSAppendObjectRequest(
                    bucketName: "bkt", objectKey: "log", appendPosition: 0, source: .data(Data(first)),
                    contentType: "text/plain"))
            #expect(a.xOssNextAppendPosition == 3000)
            #expect(a.crc64 == CRC64.checksum(first))
            let file = try makeTemporaryFile(second)
            defer { try? FileManager.default.removeItem(at: file) }
            let b = try await client.appendObject(
                OSSAppendObjectRequest(
                    bucketName: "bkt", objectKey: "log", appendPosition: a.xOssNextAppendPosition, source: .file(file),
                    initCRC64: a.crc64, sendContentMD5: true))
            #expect(b.xOssNextAppendPosition == 8000)
            #expect(b.crc64 == CRC64.checksum(first + second))
            let head = try await client.headObject(OSSHeadObjectRequest(bucketName: "bkt", objectKey: "log"))
            #expect(head.objectType == "Appendable")
            #expect(head.contentType == "text/plain")
            let get = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "log"))
            #expect(get.content.map(Array.init) == first + second)

            let wrong = await serverError {
                _ = try await client.appendObject(
                    OSSAppendObjectRequest(bucketName: "bkt", objectKey: "log", appendPosition: 10, source: .data(Data([1]))))
            }
            #expect(wrong?.statusCode == 409)
            #expect(wrong?.code == "PositionNotEqualToLength")
            #expect(wrong?.headers["x-oss-next-append-position"] == "8000")

            // A wrong initial CRC makes the combined CRC disagree with the server's whole-object CRC.
            let crc = await clientErrorCode {
                _ = try await client.appendObject(
                    OSSAppendObjectRequest(
                        bucketName: "bkt", objectKey: "log", appendPosition: 8000, source: .data(Data([7])),
                        initCRC64: 12345))
            }
            #expect(crc == .invalidCRC)

            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "normal", data: Data([1])))
            let notAppendable = await serverError {
                _ = try await client.appendObject(
                    OSSAppendObjectRequest(bucketName: "bkt", objectKey: "normal", appendPosition: 1, source: .data(Data([2]))))
            }
            #expect(notAppendable?.statusCode == 409)
            #expect(notAppendable?.code == "ObjectNotAppendable")
        }
    }

    @Test func manyAppendsReadBackAndCopy() async throws {
        try await withServerAndClient(extraBuckets: ["other"]) { _, client in
            var all: [UInt8] = []
            var crc: UInt64 = 0
            for i in 0..<40 {
                let piece = patternBytes(1 + (i * 997) % 3000, seed: UInt64(i + 10))
                // The SDK checks every answer's whole-object CRC against initCRC64 combined with the piece's.
                let r = try await client.appendObject(
                    OSSAppendObjectRequest(
                        bucketName: "bkt", objectKey: "many", appendPosition: Int64(all.count),
                        source: .data(Data(piece)), initCRC64: crc))
                all += piece
                crc = try #require(r.crc64)
                #expect(r.xOssNextAppendPosition == Int64(all.count))
            }
            #expect(crc == CRC64.checksum(all))
            let whole = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "many"))
            #expect(whole.content.map(Array.init) == all)
            let ranged = try await client.getObject(
                OSSGetObjectRequest(bucketName: "bkt", objectKey: "many", range: .closed(1000, 20_000)))
            #expect(ranged.content.map(Array.init) == Array(all[1000...20_000]))
            let head = try await client.headObject(OSSHeadObjectRequest(bucketName: "bkt", objectKey: "many"))
            #expect(head.objectType == "Appendable")
            #expect(head.contentLength == Int64(all.count))
            #expect(head.headers["x-oss-next-append-position"] == String(all.count))

            let copied = try await client.copyObject(
                OSSCopyObjectRequest(sourceBucketName: "bkt", sourceObjectKey: "many", bucketName: "other", objectKey: "c"))
            #expect(copied.crc64 == crc)
            _ = try await client.deleteObject(OSSDeleteObjectRequest(bucketName: "bkt", objectKey: "many"))
            let copy = try await client.getObject(OSSGetObjectRequest(bucketName: "other", objectKey: "c"))
            #expect(copy.content.map(Array.init) == all)
        }
    }
}
