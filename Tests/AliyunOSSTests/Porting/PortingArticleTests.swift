import Foundation
import Testing

/// Keeps the porting article (`PortingFromiOS.md`) true: its table covers every iOS item of the audit, every Swift
/// name it links exists in the SDK's public API, and its code examples are the compiled ones in
/// `PortingArticleExamples.swift`.
@Suite struct PortingArticleTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let article = root.appendingPathComponent("Sources/AliyunOSS/AliyunOSS.docc/Articles/PortingFromiOS.md")
    static let examples = root.appendingPathComponent("Tests/AliyunOSSTests/Porting/PortingArticleExamples.swift")

    /// The iOS items the table must have a row for: `OSSClient`'s methods, the request, configuration and
    /// credential-provider properties read in the audit of aliyun-oss-ios-sdk 2.11.1.
    static let iOSItems = [
        "initWithEndpoint:credentialProvider:", "initWithEndpoint:credentialProvider:clientConfiguration:",
        "client.region", "cloudBoxId", "getService:", "createBucket:", "deleteBucket:", "getBucket:", "getBucketInfo:",
        "getBucketACL:", "getObjectACL:", "putObjectACL:", "deleteObject:", "deleteMultipleObjects:", "putSymlink:",
        "getSymlink:", "restoreObject:", "getObjectTagging:", "putObjectTagging:", "deleteObjectTagging:", "headObject:",
        "getObject:", "putObject:", "appendObject:", "appendObject:withCrc64ecma:", "copyObject:",
        "multipartUploadInit:", "uploadPart:", "listParts:", "listMultipartUploads:", "abortMultipartUpload:",
        "completeMultipartUpload:", "abortResumableMultipartUpload:", "multipartUpload:", "resumableUpload:",
        "sequentialMultipartUpload:", "presignConstrainURLWithBucketName:withObjectKey:withExpirationInterval:",
        "…withExpirationInterval:withParameters:", "…httpMethod:withExpirationInterval:withParameters:",
        "…withParameters:contentType:contentMd5:", "…withParameters:withHeaders:",
        "presignPublicURLWithBucketName:withObjectKey:", "presignPublicURLWithBucketName:withObjectKey:withParameters:",
        "doesObjectExistInBucket:objectKey:error:", "imageActionPersist:", "triggerCallBack:",
        // OSSClientConfiguration
        "maxRetryCount", "userAgentMark", "cnameExcludeList", "signVersion", "isPathStyleAccessEnable",
        "maxConcurrentRequestCount", "HTTPMaximumConnectionsPerHost", "timeoutIntervalForRequest",
        "timeoutIntervalForResource", "crc64Verifiable", "enableBackgroundTransmitService",
        "backgroundSesseionIdentifier", "proxyHost", "proxyPort", "isHttpdnsEnable", "isCustomPathPrefixEnable",
        "isAllowUACarrySystemInfo", "isFollowRedirectsEnable", "isAllowResetRetryCount", "isAllowNetworkMetricInfo",
        // OSSRequest and the request classes
        "OSSRequest.isAuthenticationRequired", "OSSRequest.cancel", "OSSRequest.crcFlag", "uploadRetryCallback",
        "contentDisposition", "contentEncoding", "cacheControl", "expires", "contentMd5", "contentSHA1", "objectMeta",
        "callbackParam", "callbackVar", "contentType", "xOssProcess", "headerFields", "downloadToFileURL",
        "downloadProgress", "range", "onRecieveData", "uploadingData", "uploadingFileURL", "bucketName", "objectKey",
        "uploadProgress", "completeMetaHeader", "cancel", "partSize", "threadNum", "deleteUploadIdOnCancelling",
        "recordDirectoryPath", "uploadId", "md5String", "terminationMode", "runningChildrenRequest", "sequential",
        "sourceCopyFrom", "keys", "quiet", "encodingType", "prefix", "marker", "delimiter", "maxKeys",
        "serverReturnJsonString",
        // Credential providers and errors
        "OSSAuthCredentialProvider", "OSSFederationCredentialProvider", "OSSStsTokenCredentialProvider",
        "OSSPlainTextAKSKPairCredentialProvider", "OSSCustomSignerCredentialProvider", "OSSClientErrorCODE",
    ]

    /// The statuses a row may have.
    static let statuses: Set<String> = ["same", "renamed", "different", "default", "not offered"]

    struct Row {
        var iOS: String
        var swift: String
        var status: String
    }

    /// The rows of the article's table (the one headed `| iOS | Swift | Status | Notes |`).
    static func rows(of text: String) -> [Row] {
        var rows: [Row] = []
        var inTable = false
        for line in text.components(separatedBy: "\n") {
            if line.hasPrefix("| iOS | Swift | Status |") {
                inTable = true
                continue
            }
            guard inTable else { continue }
            guard line.hasPrefix("|") else {
                if !rows.isEmpty { break }
                continue
            }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard cells.count >= 5, !cells[1].hasPrefix("---") else { continue }
            rows.append(Row(iOS: cells[1], swift: cells[2], status: cells[3]))
        }
        return rows
    }

    /// The DocC symbol links (``Name``) of a cell.
    static func links(in cell: String) -> [String] {
        let parts = cell.components(separatedBy: "``")
        return stride(from: 1, to: parts.count, by: 2).map { parts[$0] }
    }

    /// The iOS names a first cell lists: its code spans, split at `/` (`proxyHost` / `proxyPort`), with the
    /// qualifiers a row adds (`get `range``) dropped.
    static func iOSNames(in cell: String) -> [String] {
        let parts = cell.components(separatedBy: "`")
        return stride(from: 1, to: parts.count, by: 2).map { parts[$0].trimmingCharacters(in: .whitespaces) }
    }

    /// The names of `rows` that the index lacks, as `iOS item: Swift name`.
    static func missingNames(_ rows: [Row], in index: PublicAPIIndex) -> [String] {
        rows.flatMap { row in links(in: row.swift).filter { !index.contains($0) }.map { "\(row.iOS): \($0)" } }
    }

    static func sdkIndex() throws -> PublicAPIIndex {
        try PublicAPIIndex(
            sourceDirectories: ["AliyunOSS", "OSSSigning", "OSSCRC64"].map {
                root.appendingPathComponent("Sources/\($0)")
            })
    }

    @Test func everySwiftNameInTheTableExists() throws {
        let rows = Self.rows(of: try String(contentsOf: Self.article, encoding: .utf8))
        #expect(rows.count >= 100, "the table has \(rows.count) rows")
        let index = try Self.sdkIndex()
        #expect(Self.missingNames(rows, in: index) == [])
        for row in rows {
            #expect(Self.statuses.contains(row.status), "\(row.iOS): unknown status '\(row.status)'")
            #expect(
                !Self.links(in: row.swift).isEmpty || row.status == "not offered",
                "\(row.iOS) names no Swift symbol but is not 'not offered'")
        }
        // Links in the rest of the article are checked too.
        let text = try String(contentsOf: Self.article, encoding: .utf8)
        let prose = Self.links(in: text).filter { !$0.contains(" ") }
        #expect(prose.filter { !index.contains($0) } == [])
    }

    /// The check is not a formality: a misspelt or removed name, a member of the wrong type and wrong labels are
    /// all reported.
    @Test func aBogusNameIsCaught() throws {
        let index = try Self.sdkIndex()
        #expect(index.contains("OSSClient/putObject(_:)"))
        #expect(index.contains("OSSClientConfiguration/Timeouts/read"))
        #expect(index.contains("OSSClientErrorCode/invalidArgument"))
        #expect(index.contains("withOSSClient(endpoint:credentialProvider:configuration:isolation:_:)"))
        let bogus = [
            Row(iOS: "`putObject:`", swift: "``OSSClient/putObjekt(_:)``", status: "same"),
            Row(iOS: "`putObject:`", swift: "``OSSClient/putObject(request:)``", status: "same"),
            Row(iOS: "`sequential`", swift: "``OSSGetObjectRequest/sequential``", status: "same"),
            Row(iOS: "`proxyHost`", swift: "``OSSClientConfig/proxy``", status: "same"),
        ]
        #expect(Self.missingNames(bogus, in: index).count == bogus.count)
    }

    @Test func everyIOSItemHasARow() throws {
        let rows = Self.rows(of: try String(contentsOf: Self.article, encoding: .utf8))
        let listed = Set(rows.flatMap { Self.iOSNames(in: $0.iOS) }.flatMap { name -> [String] in
            // `OSSRequest.crcFlag`, `client.region` and bare names alike; a qualified name also lists its last part.
            [name] + (name.split(separator: " ").last.map { [String($0)] } ?? [])
        })
        let missing = Self.iOSItems.filter { !listed.contains($0) }
        #expect(missing == [], "iOS items without a row: \(missing)")
    }

    @Test func theExamplesAreTheCompiledOnes() throws {
        let text = try String(contentsOf: Self.article, encoding: .utf8)
        let blocks = text.components(separatedBy: "```swift\n").dropFirst().map {
            $0.components(separatedBy: "```").first ?? ""
        }
        #expect(blocks.count >= 5)
        func normalized(_ code: String) -> String {
            code.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty }.joined(separator: "\n")
        }
        let compiled = normalized(try String(contentsOf: Self.examples, encoding: .utf8))
        for block in blocks {
            #expect(compiled.contains(normalized(block)), "not in PortingArticleExamples.swift:\n\(block)")
        }
    }
}
