import AliyunOSS
import Foundation
import Testing

/// The calls a port from the iOS SDK looks for. Each entry below calls an `OSSClient` method by the name the
/// DocC article "Porting from the iOS SDK" gives it, so a renamed or removed method breaks the build; the test
/// then reads the article's table and checks that it covers the 44 iOS methods once each and names only calls that
/// are listed here (so the table cannot drift from the SDK either).
@Suite struct PortingMethodNameTests {
    static let article = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/AliyunOSS/AliyunOSS.docc/Articles/PortingFromiOS.md")

    /// Swift call name → a closure calling it (never run: it exists so the compiler checks the name, the labels and
    /// the request type).
    static let calls: [String: any Sendable] = [
        "OSSClient(endpoint:credentialProvider:)": { @Sendable (p: any OSSCredentialProvider) in
            _ = try OSSClient(endpoint: "https://oss-cn-hangzhou.aliyuncs.com", credentialProvider: p)
        },
        "OSSClient(endpoint:credentialProvider:configuration:)": {
            @Sendable (p: any OSSCredentialProvider, c: OSSClientConfiguration) in
            _ = try OSSClient(endpoint: "https://oss-cn-hangzhou.aliyuncs.com", credentialProvider: p, configuration: c)
        },
        "listBuckets(_:)": { @Sendable (c: OSSClient, r: OSSListBucketsRequest) in _ = try await c.listBuckets(r) },
        "listBucketsPaginator(_:)": { @Sendable (c: OSSClient, r: OSSListBucketsRequest) in _ = c.listBucketsPaginator(r) },
        "putBucket(_:)": { @Sendable (c: OSSClient, r: OSSPutBucketRequest) in _ = try await c.putBucket(r) },
        "deleteBucket(_:)": { @Sendable (c: OSSClient, r: OSSDeleteBucketRequest) in _ = try await c.deleteBucket(r) },
        "getBucket(_:)": { @Sendable (c: OSSClient, r: OSSGetBucketRequest) in _ = try await c.getBucket(r) },
        "getBucketPaginator(_:)": { @Sendable (c: OSSClient, r: OSSGetBucketRequest) in _ = c.getBucketPaginator(r) },
        "listObjectsV2(_:)": { @Sendable (c: OSSClient, r: OSSListObjectsV2Request) in _ = try await c.listObjectsV2(r) },
        "getBucketInfo(_:)": { @Sendable (c: OSSClient, r: OSSGetBucketInfoRequest) in _ = try await c.getBucketInfo(r) },
        "getBucketLocation(_:)": { @Sendable (c: OSSClient, r: OSSGetBucketLocationRequest) in
            _ = try await c.getBucketLocation(r)
        },
        "getBucketACL(_:)": { @Sendable (c: OSSClient, r: OSSGetBucketACLRequest) in _ = try await c.getBucketACL(r) },
        "putBucketACL(_:)": { @Sendable (c: OSSClient, r: OSSPutBucketACLRequest) in _ = try await c.putBucketACL(r) },
        "headObject(_:)": { @Sendable (c: OSSClient, r: OSSHeadObjectRequest) in _ = try await c.headObject(r) },
        "getObjectMeta(_:)": { @Sendable (c: OSSClient, r: OSSGetObjectMetaRequest) in _ = try await c.getObjectMeta(r) },
        "getObject(_:)": { @Sendable (c: OSSClient, r: OSSGetObjectRequest) in _ = try await c.getObject(r) },
        "getObject(_:toFile:)": { @Sendable (c: OSSClient, r: OSSGetObjectRequest, u: URL) in
            _ = try await c.getObject(r, toFile: u)
        },
        "resumableDownload(_:)": { @Sendable (c: OSSClient, r: OSSResumableDownloadRequest) in
            _ = try await c.resumableDownload(r)
        },
        "getObjectACL(_:)": { @Sendable (c: OSSClient, r: OSSGetObjectACLRequest) in _ = try await c.getObjectACL(r) },
        "putObject(_:)": { @Sendable (c: OSSClient, r: OSSPutObjectRequest) in _ = try await c.putObject(r) },
        "putObjectACL(_:)": { @Sendable (c: OSSClient, r: OSSPutObjectACLRequest) in _ = try await c.putObjectACL(r) },
        "appendObject(_:)": { @Sendable (c: OSSClient, r: OSSAppendObjectRequest) in _ = try await c.appendObject(r) },
        "copyObject(_:)": { @Sendable (c: OSSClient, r: OSSCopyObjectRequest) in _ = try await c.copyObject(r) },
        "uploadPartCopy(_:)": { @Sendable (c: OSSClient, r: OSSUploadPartCopyRequest) in _ = try await c.uploadPartCopy(r) },
        "deleteMultipleObjects(_:)": { @Sendable (c: OSSClient, r: OSSDeleteMultipleObjectsRequest) in
            _ = try await c.deleteMultipleObjects(r)
        },
        "deleteObject(_:)": { @Sendable (c: OSSClient, r: OSSDeleteObjectRequest) in _ = try await c.deleteObject(r) },
        "putSymlink(_:)": { @Sendable (c: OSSClient, r: OSSPutSymlinkRequest) in _ = try await c.putSymlink(r) },
        "getSymlink(_:)": { @Sendable (c: OSSClient, r: OSSGetSymlinkRequest) in _ = try await c.getSymlink(r) },
        "restoreObject(_:)": { @Sendable (c: OSSClient, r: OSSRestoreObjectRequest) in _ = try await c.restoreObject(r) },
        "getObjectTagging(_:)": { @Sendable (c: OSSClient, r: OSSGetObjectTaggingRequest) in
            _ = try await c.getObjectTagging(r)
        },
        "putObjectTagging(_:)": { @Sendable (c: OSSClient, r: OSSPutObjectTaggingRequest) in
            _ = try await c.putObjectTagging(r)
        },
        "deleteObjectTagging(_:)": { @Sendable (c: OSSClient, r: OSSDeleteObjectTaggingRequest) in
            _ = try await c.deleteObjectTagging(r)
        },
        "initiateMultipartUpload(_:)": { @Sendable (c: OSSClient, r: OSSInitiateMultipartUploadRequest) in
            _ = try await c.initiateMultipartUpload(r)
        },
        "uploadPart(_:)": { @Sendable (c: OSSClient, r: OSSUploadPartRequest) in _ = try await c.uploadPart(r) },
        "completeMultipartUpload(_:)": { @Sendable (c: OSSClient, r: OSSCompleteMultipartUploadRequest) in
            _ = try await c.completeMultipartUpload(r)
        },
        "listParts(_:)": { @Sendable (c: OSSClient, r: OSSListPartsRequest) in _ = try await c.listParts(r) },
        "listPartsPaginator(_:)": { @Sendable (c: OSSClient, r: OSSListPartsRequest) in _ = c.listPartsPaginator(r) },
        "listMultipartUploads(_:)": { @Sendable (c: OSSClient, r: OSSListMultipartUploadsRequest) in
            _ = try await c.listMultipartUploads(r)
        },
        "listMultipartUploadsPaginator(_:)": { @Sendable (c: OSSClient, r: OSSListMultipartUploadsRequest) in
            _ = c.listMultipartUploadsPaginator(r)
        },
        "abortMultipartUpload(_:)": { @Sendable (c: OSSClient, r: OSSAbortMultipartUploadRequest) in
            _ = try await c.abortMultipartUpload(r)
        },
        "resumableUpload(_:)": { @Sendable (c: OSSClient, r: OSSResumableUploadRequest) in
            _ = try await c.resumableUpload(r)
        },
        "presignConstrainURL(bucket:key:method:expiration:parameters:headers:)": { @Sendable (c: OSSClient) in
            _ = try await c.presignConstrainURL(
                bucket: "b", key: "k", method: "GET", expiration: 60, parameters: [:], headers: [:])
        },
        "presignPublicURL(bucket:key:)": { @Sendable (c: OSSClient) in _ = try c.presignPublicURL(bucket: "b", key: "k") },
        "invoke(_:decode:)": { @Sendable (c: OSSClient, o: OSSOperation) in
            _ = try await c.invoke(o) { $0.status }
        },
        "doesObjectExist(inBucket:objectKey:)": { @Sendable (c: OSSClient) in
            _ = try await c.doesObjectExist(inBucket: "b", objectKey: "k")
        },
        "shutdown()": { @Sendable (c: OSSClient) in try await c.shutdown() },
    ]

    /// The article's table rows: (iOS method, the "Here" and "What differs" columns).
    static func tableRows() throws -> [(ios: String, here: String)] {
        let text = try String(contentsOf: article, encoding: .utf8)
        return text.split(separator: "\n").compactMap { line in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard line.hasPrefix("| `"), cells.count >= 4 else { return nil }
            return (cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`")), cells[2] + " " + cells[3])
        }
    }

    /// `OSSClient` calls a row names: ``OSSClient/name(labels)`` links, plain `name(labels)` code spans and
    /// `OSSClient(labels)` initializers.
    static func namedCalls(_ cell: String) -> [String] {
        var names: [String] = []
        for span in cell.components(separatedBy: "`") where !span.isEmpty {
            var name = span
            if name.hasPrefix("OSSClient/") { name.removeFirst("OSSClient/".count) }
            guard let first = name.unicodeScalars.first,
                CharacterSet.lowercaseLetters.contains(first) || name.hasPrefix("OSSClient("),
                name.hasSuffix(")"), name.allSatisfy({ $0.isLetter || $0.isNumber || "(_:)".contains($0) })
            else { continue }
            names.append(name)
        }
        return names
    }

    @Test func theArticleCoversEveryIOSMethodWithCallsThatExist() throws {
        let rows = try Self.tableRows()
        #expect(rows.count == 44, "the iOS OSSClient declares 44 public methods")
        #expect(Set(rows.map(\.ios)).count == rows.count, "each iOS method once")
        for ios in ["copyObject:", "appendObject:", "deleteMultipleObjects:", "doesObjectExistInBucket:objectKey:error:",
                    "getBucket:", "getBucketInfo:", "putSymlink:", "restoreObject:", "putObjectTagging:"] {
            #expect(rows.contains { $0.ios == ios }, "\(ios) has a row")
        }
        var named = Set<String>()
        for row in rows {
            let calls = Self.namedCalls(row.here)
            // Rows for the presign variants say "the same" (one Swift call with more arguments); abort is a
            // method of the request.
            #expect(
                !calls.isEmpty || row.here.hasPrefix("the same") || row.here.contains("cancel()"),
                "\(row.ios) names no call: \(row.here)")
            for call in calls {
                #expect(Self.calls[call] != nil, "\(row.ios) names \(call), which is not an OSSClient call")
                named.insert(call)
            }
        }
        #expect(named == Set(Self.calls.keys), "listed here but not in the article: \(Set(Self.calls.keys).subtracting(named))")
    }
}
