extension OSSClient {
    /// GetBucketStat (`GET /?stat`): the bucket's storage, object and multipart upload counts.
    public func getBucketStat(bucketName: String) async throws -> OSSGetBucketStatResult {
        try await perform(
            OSSCall(OSSAPI("GetBucketStat", "GET", subresource: "stat"), bucket: bucketName, as: OSSGetBucketStatResult.self))
    }

    /// Whether the bucket exists, asked with GetBucketAcl as the official SDKs do: `NoSuchBucket` is `false`; a
    /// bucket that answers, or refuses the caller (`AccessDenied`: it exists but belongs to someone else), is `true`.
    /// Any other failure is thrown.
    public func doesBucketExist(_ bucketName: String) async throws -> Bool {
        do {
            _ = try await getBucketACL(OSSGetBucketACLRequest(bucketName: bucketName))
            return true
        } catch let error as OSSServerError where error.code == "NoSuchBucket" {
            return false
        } catch let error as OSSServerError where error.code == "AccessDenied" {
            return true
        }
    }
}

extension OSSGetBucketStatResult: OSSDeclaredResult {
    static func decode(_ response: OSSHTTPResponse) async throws -> Self {
        Self(stat: try await response.xml(OSSBucketStat.self, root: "BucketStat"), requestId: response.requestId)
    }
}
