import AliyunOSS
import Foundation

/// The `swift` code blocks of the porting article (`PortingFromiOS.md`), compiled with the test target. Never run:
/// `PortingArticleTests` checks that each block of the article appears here verbatim, so an example that stops
/// compiling breaks the build, and an edited example that is not copied here fails the test.
enum PortingArticleExamples {
    static func asyncAwait(client: OSSClient, fileURL: URL) async throws {
        // iOS:   OSSTask *task = [client putObject:put]; [task continueWithBlock:^id(OSSTask *t) { ... }];
        let result = try await client.putObject(OSSPutObjectRequest(bucketName: "b", objectKey: "cat.jpg", fileURL: fileURL))
        print(result.eTag ?? "")
    }

    static func abortLikeIOS(client: OSSClient, fileURL: URL) async throws {
        var once = OSSResumableUploadRequest(bucketName: "b", objectKey: "big.bin", uploadingFileURL: fileURL)
        once.recordDirectoryPath = nil          // nothing kept: a failure aborts the upload, as on iOS
        once.deleteUploadIdOnCancelling = true  // the default
        _ = try await client.resumableUpload(once)
    }

    static func iOSLimits(provider: any OSSCredentialProvider) throws {
        var configuration = OSSClientConfiguration()
        configuration.maxConcurrentRequestCount = 5           // iOS maxConcurrentRequestCount
        configuration.timeouts.read = .seconds(15)            // iOS timeoutIntervalForRequest
        configuration.timeouts.request = .seconds(7 * 24 * 3600)  // iOS timeoutIntervalForResource
        let iOSLike = try OSSClient(
            endpoint: "https://oss-cn-hangzhou.aliyuncs.com", credentialProvider: provider, configuration: configuration)
        _ = iOSLike
    }

    static func dictionaries(client: OSSClient, fileURL: URL) async throws {
        var put = OSSPutObjectRequest(bucketName: "b", objectKey: "report.pdf", fileURL: fileURL)
        put.metadata = ["x-oss-meta-owner": "alice", "Content-Language": "fr", "x-oss-object-acl": "public-read"]
        put.callbackParam = ["callbackUrl": "https://app.example.com/uploaded", "callbackBody": "object=${object}&who=${x:who}"]
        put.callbackVar = ["x:who": "alice"]
        let uploaded = try await client.putObject(put)
        let reply = uploaded.serverCallbackBody  // the app server's answer
        _ = reply
    }

    static func sequentialAndAnonymous(client: OSSClient, fileURL: URL) async throws {
        var upload = OSSResumableUploadRequest(bucketName: "b", objectKey: "video.mp4", uploadingFileURL: fileURL)
        upload.sequential = true
        _ = try await client.resumableUpload(upload)

        var get = OSSGetObjectRequest(bucketName: "b", objectKey: "public/logo.png")
        get.isAuthenticationRequired = false
        let logo = try await client.getObject(get).content
        _ = logo
    }
}
