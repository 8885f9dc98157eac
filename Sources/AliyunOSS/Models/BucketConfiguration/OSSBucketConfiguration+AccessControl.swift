/// Access-control families beside the bucket ACL and the JSON bucket policy: the public access block.

/// `<PublicAccessBlockConfiguration>` (PutBucketPublicAccessBlock, `?publicAccessBlock`): while it is on, public
/// ACLs (`public-read`, `public-read-write`) and bucket policies granting access to everyone (`"Principal": ["*"]`
/// not narrowed to source addresses) count for nothing, and OSS refuses to set new ones (403 `AccessDenied`). A
/// bucket never configured answers `blockPublicAccess: false`. The same document, put with
/// ``OSSClient/putPublicAccessBlock(_:)``, blocks public access for every bucket of the account.
public struct OSSPublicAccessBlockConfiguration: OSSDeletableBucketConfiguration, Hashable {
    public static let family = OSSBucketConfigurationFamily(
        name: "PublicAccessBlock", subresource: "publicAccessBlock", root: "PublicAccessBlockConfiguration")

    /// Whether public access is blocked. OSS treats an absent element as `false`.
    public var blockPublicAccess: Bool?

    public init(blockPublicAccess: Bool) {
        self.blockPublicAccess = blockPublicAccess
    }
}
