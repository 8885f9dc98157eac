import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

@Suite("ACLs, tagging, symlinks, storage classes and restore against the local server")
struct AccessTaggingTests {
    @Test func objectAndBucketACLs() async throws {
        try await withServerAndClient { _, client in
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "o", data: Data([1])))
            #expect(try await client.getObjectACL(OSSGetObjectACLRequest(bucketName: "bkt", objectKey: "o")).grant == .default)
            try await client.putObjectACL(OSSPutObjectACLRequest(bucketName: "bkt", objectKey: "o", acl: .publicRead))
            #expect(try await client.getObjectACL(OSSGetObjectACLRequest(bucketName: "bkt", objectKey: "o")).grant == .publicRead)
            #expect(try await client.getBucketACL(OSSGetBucketACLRequest(bucketName: "bkt")).grant == .private)
            try await client.putBucketACL(OSSPutBucketACLRequest(bucketName: "bkt", acl: .publicReadWrite))
            #expect(try await client.getBucketACL(OSSGetBucketACLRequest(bucketName: "bkt")).grant == .publicReadWrite)
            let bad = await serverError {
                try await client.putObjectACL(
                    OSSPutObjectACLRequest(bucketName: "bkt", objectKey: "o", acl: OSSACL(rawValue: "everyone")))
            }
            #expect(bad?.code == "InvalidArgument")
            let missing = await serverError {
                try await client.putObjectACL(OSSPutObjectACLRequest(bucketName: "bkt", objectKey: "none", acl: .private))
            }
            #expect(missing?.code == "NoSuchKey")
            var put = OSSPutObjectRequest(bucketName: "bkt", objectKey: "born-private", data: Data([1]))
            put.setACL(.private)
            _ = try await client.putObject(put)
            #expect(
                try await client.getObjectACL(OSSGetObjectACLRequest(bucketName: "bkt", objectKey: "born-private")).grant
                    == .private)
        }
    }

    /// What a reader without credentials sees: the SDK's public URL (iOS `presignPublicURLWithBucketName:`) opens
    /// a public-read object, or any object without its own ACL in a public-read bucket, and is refused otherwise.
    @Test func publicURLsFollowTheACLs() async throws {
        try await withServerAndClient { _, client in
            let anonymous = PresignTests()
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "pub/o", data: Data([1, 2, 3])))
            let url = try client.presignPublicURL(bucket: "bkt", key: "pub/o")
            #expect(try await anonymous.send("GET", url).0 == 403)
            try await client.putObjectACL(OSSPutObjectACLRequest(bucketName: "bkt", objectKey: "pub/o", acl: .publicRead))
            let (status, body) = try await anonymous.send("GET", url)
            #expect(status == 200 && body == [1, 2, 3])
            #expect(try await anonymous.send("PUT", url, body: [9]).0 == 403, "public-read allows no writes")
            try await client.putObjectACL(OSSPutObjectACLRequest(bucketName: "bkt", objectKey: "pub/o", acl: .private))
            #expect(try await anonymous.send("GET", url).0 == 403)

            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "pub/d", data: Data([4])))
            try await client.putBucketACL(OSSPutBucketACLRequest(bucketName: "bkt", acl: .publicRead))
            let inherited = try await anonymous.send("GET", try client.presignPublicURL(bucket: "bkt", key: "pub/d"))
            #expect(inherited.0 == 200 && inherited.1 == [4], "the default ACL follows the bucket's")
            #expect(try await anonymous.send("GET", url).0 == 403, "an object's own private ACL wins")
        }
    }

    @Test func taggingOnPutInitiateAndItsOwnCalls() async throws {
        try await withServerAndClient { _, client in
            var put = OSSPutObjectRequest(bucketName: "bkt", objectKey: "t", data: Data([1]))
            try put.setTags(["project": "a b+c=d:/.", "owner": "me"])
            _ = try await client.putObject(put)
            let request = OSSObjectTaggingRequest(bucketName: "bkt", objectKey: "t")
            #expect(try await client.getObjectTagging(request).tags == ["project": "a b+c=d:/.", "owner": "me"])
            #expect(try await client.headObject(OSSHeadObjectRequest(bucketName: "bkt", objectKey: "t")).taggingCount == 2)
            try await client.putObjectTagging(OSSPutObjectTaggingRequest(bucketName: "bkt", objectKey: "t", tags: ["k": "v"]))
            #expect(try await client.getObjectTagging(request).tags == ["k": "v"])
            try await client.deleteObjectTagging(request)
            #expect(try await client.getObjectTagging(request).tags.isEmpty)

            var initiate = OSSInitiateMultipartUploadRequest(bucketName: "bkt", objectKey: "mp")
            try initiate.setTags(["stage": "upload"])
            initiate.setStorageClass(.ia)
            let upload = try await client.initiateMultipartUpload(initiate)
            let part = try await client.uploadPart(
                OSSUploadPartRequest(
                    bucketName: "bkt", objectKey: "mp", uploadId: upload.uploadId, partNumber: 1, source: .data(Data([9]))))
            _ = try await client.completeMultipartUpload(
                OSSCompleteMultipartUploadRequest(
                    bucketName: "bkt", objectKey: "mp", uploadId: upload.uploadId,
                    parts: [OSSPartInfo(partNumber: 1, eTag: part.eTag)]))
            #expect(try await client.getObjectTagging(OSSObjectTaggingRequest(bucketName: "bkt", objectKey: "mp")).tags
                == ["stage": "upload"])
            #expect(try await client.headObject(OSSHeadObjectRequest(bucketName: "bkt", objectKey: "mp")).storageClass == "IA")

            let tooMany = Dictionary(uniqueKeysWithValues: (0..<11).map { ("k\($0)", "v") })
            let limit = await clientErrorCode {
                try await client.putObjectTagging(OSSPutObjectTaggingRequest(bucketName: "bkt", objectKey: "t", tags: tooMany))
            }
            #expect(limit == .invalidArgument)
            let hostile = await serverError {
                try await client.putObjectTagging(
                    OSSPutObjectTaggingRequest(bucketName: "bkt", objectKey: "t", tags: ["a<b>": "v"]))
            }
            #expect(hostile?.code == "InvalidTag")
            let control = await clientErrorCode {
                try await client.putObjectTagging(
                    OSSPutObjectTaggingRequest(bucketName: "bkt", objectKey: "t", tags: ["a\u{1}": "v"]))
            }
            #expect(control == .invalidArgument, "a control character would be dropped from the XML, so it is refused")
        }
    }

    @Test(arguments: [Int64(300_000), 1000])
    func resumableUploadsCarryTagsStorageClassAndACL(size: Int64) async throws {
        try await withServerAndClient { _, client in
            let file = try makeTemporaryFile(patternBytes(Int(size), seed: 9))
            defer { try? FileManager.default.removeItem(at: file) }
            var request = OSSResumableUploadRequest(
                bucketName: "bkt", objectKey: "resumable-\(size)", uploadingFileURL: file, partSize: 102_400)
            try request.setTags(["via": "resumable"])
            request.setStorageClass(.ia)
            request.setACL(.publicRead)
            _ = try await client.resumableUpload(request)
            let key = "resumable-\(size)"
            #expect(try await client.getObjectTagging(OSSObjectTaggingRequest(bucketName: "bkt", objectKey: key)).tags
                == ["via": "resumable"])
            #expect(try await client.headObject(OSSHeadObjectRequest(bucketName: "bkt", objectKey: key)).storageClass == "IA")
            #expect(try await client.getObjectACL(OSSGetObjectACLRequest(bucketName: "bkt", objectKey: key)).grant == .publicRead)
        }
    }

    @Test func symlinksResolveToTheirTarget() async throws {
        try await withServerAndClient { _, client in
            let bytes = patternBytes(1234)
            _ = try await client.putObject(
                OSSPutObjectRequest(bucketName: "bkt", objectKey: "dir/target file", source: .data(Data(bytes)),
                                    contentType: "text/csv"))
            _ = try await client.putSymlink(
                OSSPutSymlinkRequest(bucketName: "bkt", objectKey: "link", targetObjectName: "dir/target file"))
            #expect(try await client.getSymlink(OSSGetSymlinkRequest(bucketName: "bkt", objectKey: "link")).targetObjectName
                == "dir/target file")
            let get = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "link"))
            #expect(get.content.map(Array.init) == bytes)
            let head = try await client.headObject(OSSHeadObjectRequest(bucketName: "bkt", objectKey: "link"))
            #expect(head.contentLength == 1234)
            #expect(head.contentType == "text/csv")
            let notLink = await serverError {
                _ = try await client.getSymlink(OSSGetSymlinkRequest(bucketName: "bkt", objectKey: "dir/target file"))
            }
            #expect(notLink?.code == "NotSymlink")
            try await client.deleteObject(OSSDeleteObjectRequest(bucketName: "bkt", objectKey: "dir/target file"))
            let dangling = await serverError {
                _ = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "link"))
            }
            #expect(dangling?.statusCode == 404)
            #expect(dangling?.code == "SymlinkTargetNotExist")
        }
    }

    @Test func archiveObjectsNeedARestore() async throws {
        try await withServerAndClient { _, client in
            var put = OSSPutObjectRequest(bucketName: "bkt", objectKey: "cold", data: Data([1, 2, 3]))
            put.setStorageClass(.archive)
            _ = try await client.putObject(put)
            let request = OSSGetObjectRequest(bucketName: "bkt", objectKey: "cold")
            let frozen = await serverError { _ = try await client.getObject(request) }
            #expect(frozen?.statusCode == 403)
            #expect(frozen?.code == "InvalidObjectState")
            let head = OSSHeadObjectRequest(bucketName: "bkt", objectKey: "cold")
            #expect(try await client.headObject(head).storageClass == "Archive")
            #expect(try await client.headObject(head).restoreStatus == nil)
            let started = try await client.restoreObject(OSSRestoreObjectRequest(bucketName: "bkt", objectKey: "cold"))
            #expect(started.statusCode == 202)
            // The restore finishes after the server's restore delay (1 s by default). A loaded machine may take
            // longer than that between two requests, so poll the status rather than assume it is still running.
            var status = try await client.headObject(head).restoreStatus
            if status == .ongoing {
                let again = await serverError {
                    _ = try await client.restoreObject(OSSRestoreObjectRequest(bucketName: "bkt", objectKey: "cold"))
                }
                if let again {
                    #expect(again.code == "RestoreAlreadyInProgress")
                } else {
                    // The restore finished between the HEAD and the second request (a loaded machine): a second
                    // restore of a restored object is accepted, as by OSS.
                    #expect(try await client.headObject(head).restoreStatus != .ongoing)
                }
            }
            while status == .ongoing {
                try await Task.sleep(for: .milliseconds(100))
                status = try await client.headObject(head).restoreStatus
            }
            guard case .restored(let expiry) = status else {
                Issue.record("expected a finished restore, got \(String(describing: status))")
                return
            }
            #expect(expiry != nil)
            #expect(try await client.getObject(request).content.map(Array.init) == [1, 2, 3])

            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "warm", data: Data([1])))
            let standard = await serverError {
                _ = try await client.restoreObject(OSSRestoreObjectRequest(bucketName: "bkt", objectKey: "warm"))
            }
            #expect(standard?.code == "OperationNotSupported")
        }
    }
}
