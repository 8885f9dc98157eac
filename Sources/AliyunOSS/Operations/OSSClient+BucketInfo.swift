import OSSXML

extension OSSClient {
    /// GetBucketInfo: the bucket's creation date, endpoints, location, storage class, owner and ACL.
    public func getBucketInfo(_ request: OSSGetBucketInfoRequest) async throws -> OSSGetBucketInfoResult {
        let operation = OSSOperation(
            name: "GetBucketInfo", method: "GET", bucket: request.bucketName, query: ["bucketInfo": ""])
        return try await execute(operation) { response in
            let xml = try await response.xml(root: "BucketInfo")
            guard let bucket = xml.child("Bucket") else {
                throw OSSClientError(.exceptionCaught, "a BucketInfo response has no <Bucket>")
            }
            return OSSGetBucketInfoResult(
                bucketName: bucket.string("Name") ?? request.bucketName, creationDate: bucket.date("CreationDate"),
                extranetEndpoint: bucket.string("ExtranetEndpoint"), intranetEndpoint: bucket.string("IntranetEndpoint"),
                location: bucket.string("Location"), region: bucket.string("Region"),
                storageClass: bucket.string("StorageClass"), ownerId: bucket.child("Owner")?.string("ID"),
                ownerDisplayName: bucket.child("Owner")?.string("DisplayName"),
                acl: bucket.child("AccessControlList")?.string("Grant"), requestId: response.requestId)
        }
    }

    /// GetBucketLocation: the bucket's region as `oss-<region>`.
    public func getBucketLocation(_ request: OSSGetBucketLocationRequest) async throws -> OSSGetBucketLocationResult {
        let operation = OSSOperation(
            name: "GetBucketLocation", method: "GET", bucket: request.bucketName, query: ["location": ""])
        return try await execute(operation) { response in
            let xml = try await response.xml(root: "LocationConstraint")
            return OSSGetBucketLocationResult(location: xml.text, requestId: response.requestId)
        }
    }
}
