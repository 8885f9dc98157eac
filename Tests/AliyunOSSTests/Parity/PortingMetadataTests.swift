import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

/// An iOS `objectMeta` dictionary ported verbatim into `metadata` means the same on every operation that creates an
/// object: `x-oss-meta-*` names are user metadata (never `x-oss-meta-x-oss-meta-*`), standard headers
/// (`Content-Language`, `Cache-Control`, `x-oss-object-acl`, `x-oss-storage-class`, ...) are those headers.
@Suite struct PortingMetadataTests {
    /// What an iOS app typically puts in `objectMeta`.
    static let iOSObjectMeta = [
        "x-oss-meta-owner": "alice", "Content-Language": "fr", "Cache-Control": "no-cache",
        "x-oss-object-acl": "public-read", "x-oss-storage-class": "IA", "plain": "p",
    ]

    /// The object `key` carries exactly what ``iOSObjectMeta`` asks for.
    static func expectPortedMetadata(_ client: OSSClient, _ key: String, storageClass: Bool = true) async throws {
        let head = try await client.headObject(OSSHeadObjectRequest(bucketName: "bkt", objectKey: key))
        #expect(head.metadata == ["owner": "alice", "plain": "p"], "\(key): \(head.metadata)")
        #expect(head.headers["content-language"] == "fr", "\(key)")
        #expect(head.headers["cache-control"] == "no-cache", "\(key)")
        if storageClass { #expect(head.storageClass == "IA", "\(key)") }
        let acl = try await client.getObjectACL(OSSGetObjectACLRequest(bucketName: "bkt", objectKey: key))
        #expect(acl.grant == .publicRead, "\(key)")
    }

    @Test func putAndInitiateTakeIOSObjectMeta() async throws {
        try await withParityServer { _, client in
            var put = OSSPutObjectRequest(bucketName: "bkt", objectKey: "put.txt", data: Data("p".utf8))
            put.metadata = Self.iOSObjectMeta
            _ = try await client.putObject(put)
            try await Self.expectPortedMetadata(client, "put.txt")

            try await uploadOnePart(
                client, OSSInitiateMultipartUploadRequest(bucketName: "bkt", objectKey: "mp.txt", metadata: Self.iOSObjectMeta))
            try await Self.expectPortedMetadata(client, "mp.txt")
        }
    }

    /// Fails without the fix: append added `x-oss-meta-` to every name.
    @Test func appendTakesIOSObjectMeta() async throws {
        try await withParityServer { _, client in
            var append = OSSAppendObjectRequest(
                bucketName: "bkt", objectKey: "log.txt", appendPosition: 0, source: .data(Data("a".utf8)))
            append.metadata = Self.iOSObjectMeta
            _ = try await client.appendObject(append)
            try await Self.expectPortedMetadata(client, "log.txt")
            // iOS guesses the first append's Content-Type from the key, as put does.
            let head = try await client.headObject(OSSHeadObjectRequest(bucketName: "bkt", objectKey: "log.txt"))
            #expect(head.contentType == "text/plain")
        }
    }

    /// Fails without the fix: copy added `x-oss-meta-` to every name.
    @Test func copyTakesIOSObjectMeta() async throws {
        try await withParityServer { _, client in
            var put = OSSPutObjectRequest(bucketName: "bkt", objectKey: "src.txt", data: Data("s".utf8))
            put.metadata = ["x-oss-meta-old": "1"]
            _ = try await client.putObject(put)
            _ = try await client.copyObject(
                OSSCopyObjectRequest(
                    sourceBucketName: "bkt", sourceObjectKey: "src.txt", bucketName: "bkt", objectKey: "copy.txt",
                    metadata: Self.iOSObjectMeta))
            try await Self.expectPortedMetadata(client, "copy.txt")

            // An ACL alone is not metadata: the copy keeps the source's (COPY).
            _ = try await client.copyObject(
                OSSCopyObjectRequest(
                    sourceBucketName: "bkt", sourceObjectKey: "src.txt", bucketName: "bkt", objectKey: "acl-copy.txt",
                    metadata: ["x-oss-object-acl": "public-read"]))
            let head = try await client.headObject(OSSHeadObjectRequest(bucketName: "bkt", objectKey: "acl-copy.txt"))
            #expect(head.metadata == ["old": "1"])
            let acl = try await client.getObjectACL(OSSGetObjectACLRequest(bucketName: "bkt", objectKey: "acl-copy.txt"))
            #expect(acl.grant == .publicRead)
        }
    }

    @Test func resumableCompleteMetaHeaderAndSymlinkTakeIOSObjectMeta() async throws {
        try await withParityServer { _, client in
            let file = try makeTemporaryFile(patternBytes(300_000))
            defer { try? FileManager.default.removeItem(at: file) }
            var request = OSSResumableUploadRequest(
                bucketName: "bkt", objectKey: "big.bin", uploadingFileURL: file, partSize: 102_400)
            request.completeMetaHeader = Self.iOSObjectMeta
            _ = try await client.resumableUpload(request)
            try await Self.expectPortedMetadata(client, "big.bin")

            _ = try await client.putSymlink(
                OSSPutSymlinkRequest(
                    bucketName: "bkt", objectKey: "link", targetObjectName: "big.bin",
                    metadata: ["x-oss-meta-via": "link", "plain": "p"]))
            let head = try await client.headObject(OSSHeadObjectRequest(bucketName: "bkt", objectKey: "link"))
            #expect(head.metadata["via"] == "link" || head.metadata["owner"] == "alice", "\(head.metadata)")
            #expect(head.metadata.keys.allSatisfy { !$0.hasPrefix("x-oss-meta-") }, "\(head.metadata)")
        }
    }

    /// A Content-Type in the iOS dictionary is the object's Content-Type (it used to become `x-oss-meta-content-type`).
    @Test func contentTypeInTheDictionaryIsTheContentType() async throws {
        try await withParityServer { _, client in
            var put = OSSPutObjectRequest(bucketName: "bkt", objectKey: "x.bin", data: Data("x".utf8))
            put.metadata = ["Content-Type": "text/csv"]
            _ = try await client.putObject(put)
            let head = try await client.headObject(OSSHeadObjectRequest(bucketName: "bkt", objectKey: "x.bin"))
            #expect(head.contentType == "text/csv")
            #expect(head.metadata.isEmpty)
        }
    }
}
