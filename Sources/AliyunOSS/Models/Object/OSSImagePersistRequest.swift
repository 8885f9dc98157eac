/// ImagePersist (the iOS `OSSImagePersistRequest`): processes an image with an `x-oss-process` action and saves
/// the result as another object (`POST /key?x-oss-process` with `…|sys/saveas`).
public struct OSSImagePersistRequest: Sendable {
    public var fromBucket: String
    public var fromObject: String
    public var toBucket: String
    public var toObject: String
    /// The image action, with or without its `image/` prefix (`resize,w_100`).
    public var action: String

    public init(fromBucket: String, fromObject: String, toBucket: String, toObject: String, action: String) {
        self.fromBucket = fromBucket
        self.fromObject = fromObject
        self.toBucket = toBucket
        self.toObject = toObject
        self.action = action
    }
}

/// The result of ImagePersist.
public struct OSSImagePersistResult: Sendable {
    public var requestId: String
    public var headers: [String: String]
}
