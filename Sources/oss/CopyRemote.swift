import AliyunOSS
import ArgumentParser

extension Copy {
    /// `oss cp oss://a/k oss://b/k2`: a server-side copy (CopyObject, or UploadPartCopy parts for objects larger
    /// than one part). A destination ending in `/` keeps the source's name.
    func serverSideCopy() async throws {
        let origin = try parseRemote(source, requireKey: true)
        let target = PathRule.remoteTarget(try parseRemote(destination, requireKey: false), sourceName: PathRule.name(of: origin.key))
        var request = OSSCopyLargeObjectRequest(
            sourceBucketName: origin.bucket, sourceObjectKey: origin.key, bucketName: target.bucket,
            objectKey: target.key, threadNum: threads)
        if let partSize { request.partSize = partSize }
        let copy = request
        let result = try await withClient(connection) { try await $0.copyLargeObject(copy) }
        say("copied \(origin) to \(target) on the server etag \(result.eTag ?? "-") crc64 \(result.crc64.map(String.init) ?? "-")"
            + (result.partCount > 0 ? " (\(result.partCount) parts)" : ""))
    }
}
