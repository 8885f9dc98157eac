/// The account-level public access block (PutPublicAccessBlock, GetPublicAccessBlock, DeletePublicAccessBlock):
/// the bucket family's document on `/?publicAccessBlock` of the service rather than of a bucket.
extension OSSClient {
    /// PutPublicAccessBlock: blocks (or stops blocking) public access for every bucket of the account.
    @discardableResult
    public func putPublicAccessBlock(_ configuration: OSSPublicAccessBlockConfiguration) async throws -> OSSEmptyResult {
        try await perform(OSSPutPublicAccessBlockCall(configuration: configuration))
    }

    /// GetPublicAccessBlock: the account's setting (`false` when never put).
    public func getPublicAccessBlock() async throws -> OSSGetBucketConfigurationResult<OSSPublicAccessBlockConfiguration> {
        try await perform(
            OSSCall(
                OSSAPI("GetPublicAccessBlock", "GET", subresource: "publicAccessBlock"), bucket: nil,
                as: OSSGetBucketConfigurationResult<OSSPublicAccessBlockConfiguration>.self))
    }

    /// DeletePublicAccessBlock: removes the account's setting.
    @discardableResult
    public func deletePublicAccessBlock() async throws -> OSSEmptyResult {
        try await perform(
            OSSCall(OSSAPI("DeletePublicAccessBlock", "DELETE", subresource: "publicAccessBlock"), bucket: nil, as: OSSEmptyResult.self))
    }
}

/// PutPublicAccessBlock's declaration: the family's document, on the service.
struct OSSPutPublicAccessBlockCall: OSSDeclaredOperation {
    typealias Result = OSSEmptyResult
    var configuration: OSSPublicAccessBlockConfiguration
    var api: OSSAPI { OSSAPI("PutPublicAccessBlock", "PUT", subresource: "publicAccessBlock") }
    var bucket: String? { nil }
    var key: String? { nil }
    static var parameters: [OSSParameter<Self>] { [] }
    var body: OSSBucketConfigurationDocument<OSSPublicAccessBlockConfiguration>? {
        OSSBucketConfigurationDocument(configuration: configuration)
    }
    func validate() throws {}
}
