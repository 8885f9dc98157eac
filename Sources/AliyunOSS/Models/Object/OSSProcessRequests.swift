#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// TriggerCallBack (the iOS `OSSCallBackRequest`): asks OSS to run an upload callback for an object that is
/// already stored (`POST /key?x-oss-process` with `trigger/callback`), e.g. when the callback of its upload failed.
public struct OSSCallBackRequest: Sendable {
    public var bucketName: String
    /// The stored object's key (iOS `objectName`).
    public var objectName: String
    /// The callback parameters (`callbackUrl`, `callbackBody`, `callbackBodyType`, `callbackHost`), encoded by the
    /// SDK (Base64 JSON), as in iOS.
    public var callbackParam: [String: String]
    /// Callback variables (`x:name` → value).
    public var callbackVar: [String: String]?
    /// A typed callback instead of the dictionaries (takes precedence over them).
    public var callback: OSSCallback?

    public init(
        bucketName: String, objectName: String, callbackParam: [String: String] = [:],
        callbackVar: [String: String]? = nil, callback: OSSCallback? = nil
    ) {
        self.bucketName = bucketName
        self.objectName = objectName
        self.callbackParam = callbackParam
        self.callbackVar = callbackVar
        self.callback = callback
    }
}

/// The result of TriggerCallBack.
public struct OSSCallBackResult: Sendable {
    /// The callback server's reply (iOS `serverReturnJsonString` / `serverReturnXML`, as bytes).
    public var serverCallbackBody: Data
    public var requestId: String
    public var headers: [String: String]
}

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
