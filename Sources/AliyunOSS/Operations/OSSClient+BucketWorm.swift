#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The bucket retention policy (WORM): POST actions and a result in a header, so its five calls are declared here
/// rather than as a configuration family. States and refusals: ``OSSBucketWorm``.
extension OSSClient {
    /// InitiateBucketWorm (`POST /?worm`): creates an `InProgress` policy that protects every object for
    /// `retentionPeriodInDays` (1 to 25,550) and lapses after 24 hours unless locked. Returns its id.
    public func initiateBucketWorm(retentionPeriodInDays: Int, bucketName: String) async throws -> OSSInitiateBucketWormResult {
        try await perform(OSSInitiateBucketWormRequest(bucketName: bucketName, days: retentionPeriodInDays))
    }

    /// AbortBucketWorm (`DELETE /?worm`): deletes an unlocked policy; a locked one is `WORMConfigurationLocked`.
    @discardableResult
    public func abortBucketWorm(bucketName: String) async throws -> OSSEmptyResult {
        try await perform(OSSCall(OSSAPI("AbortBucketWorm", "DELETE", subresource: "worm"), bucket: bucketName, as: OSSEmptyResult.self))
    }

    /// CompleteBucketWorm (`POST /?wormId=…`): locks the policy; from then on it can only be extended.
    @discardableResult
    public func completeBucketWorm(wormId: String, bucketName: String) async throws -> OSSEmptyResult {
        try await perform(OSSCompleteBucketWormRequest(bucketName: bucketName, wormId: wormId))
    }

    /// ExtendBucketWorm (`POST /?wormExtend&wormId=…`): lengthens a locked policy's retention period; a shorter or
    /// equal one is `InvalidWORMConfiguration`.
    @discardableResult
    public func extendBucketWorm(wormId: String, retentionPeriodInDays: Int, bucketName: String) async throws -> OSSEmptyResult {
        try await perform(OSSExtendBucketWormRequest(bucketName: bucketName, wormId: wormId, days: retentionPeriodInDays))
    }

    /// GetBucketWorm (`GET /?worm`): the bucket's policy; `NoSuchWORMConfiguration` when it has none (or an
    /// unlocked one lapsed).
    public func getBucketWorm(bucketName: String) async throws -> OSSGetBucketWormResult {
        try await perform(OSSCall(OSSAPI("GetBucketWorm", "GET", subresource: "worm"), bucket: bucketName, as: OSSGetBucketWormResult.self))
    }
}

/// The result of InitiateBucketWorm.
public struct OSSInitiateBucketWormResult: Sendable {
    /// `x-oss-worm-id`: what CompleteBucketWorm and ExtendBucketWorm name.
    public var wormId: String
    public var requestId: String
}

/// The result of GetBucketWorm.
public struct OSSGetBucketWormResult: Sendable {
    public var worm: OSSBucketWorm
    public var requestId: String
}

struct OSSInitiateBucketWormRequest: OSSBucketOperation {
    typealias Result = OSSInitiateBucketWormResult
    var bucketName: String
    var days: Int
    var api: OSSAPI { OSSAPI("InitiateBucketWorm", "POST", subresource: "worm") }
    var body: OSSWormPeriod<OSSWormInitiate>? { OSSWormPeriod(days: days) }
    func validate() throws { try OSSWormPeriodCheck.check(days) }
}

struct OSSCompleteBucketWormRequest: OSSBucketOperation {
    typealias Result = OSSEmptyResult
    var bucketName: String
    var wormId: String
    var api: OSSAPI { OSSAPI("CompleteBucketWorm", "POST") }
    static var parameters: [OSSParameter<Self>] { [.query("wormId", \.wormId)] }
    func validate() throws { try OSSWormPeriodCheck.check(wormId: wormId) }
}

struct OSSExtendBucketWormRequest: OSSBucketOperation {
    typealias Result = OSSEmptyResult
    var bucketName: String
    var wormId: String
    var days: Int
    var api: OSSAPI { OSSAPI("ExtendBucketWorm", "POST", subresource: "wormExtend") }
    static var parameters: [OSSParameter<Self>] { [.query("wormId", \.wormId)] }
    var body: OSSWormPeriod<OSSWormExtend>? { OSSWormPeriod(days: days) }

    func validate() throws {
        try OSSWormPeriodCheck.check(wormId: wormId)
        try OSSWormPeriodCheck.check(days)
    }
}

/// `<InitiateWormConfiguration>` or `<ExtendWormConfiguration>` (as `Root` names) with `<RetentionPeriodInDays>`.
struct OSSWormPeriod<Root: OSSWormPeriodRoot>: OSSXMLDocument, Encodable {
    static var root: String { Root.name }
    var days: Int

    enum CodingKeys: String, CodingKey { case days = "RetentionPeriodInDays" }
}

protocol OSSWormPeriodRoot: Sendable { static var name: String { get } }
enum OSSWormInitiate: OSSWormPeriodRoot { static let name = "InitiateWormConfiguration" }
enum OSSWormExtend: OSSWormPeriodRoot { static let name = "ExtendWormConfiguration" }

enum OSSWormPeriodCheck {
    static func check(_ days: Int) throws {
        guard OSSBucketWorm.retentionDays.contains(days) else {
            throw OSSClientError.invalidArgument("a retention period is 1 to 25550 days, not \(days)")
        }
    }

    static func check(wormId: String) throws {
        guard !wormId.isEmpty else { throw OSSClientError.invalidArgument("a WORM id is not empty") }
    }
}

extension OSSInitiateBucketWormResult: OSSDeclaredResult {
    static func decode(_ response: OSSHTTPResponse) async throws -> Self {
        guard let id = response.headers["x-oss-worm-id"], !id.isEmpty else {
            throw OSSClientError(.exceptionCaught, "InitiateBucketWorm answered without x-oss-worm-id")
        }
        return Self(wormId: id, requestId: response.requestId)
    }
}

extension OSSGetBucketWormResult: OSSDeclaredResult {
    static func decode(_ response: OSSHTTPResponse) async throws -> Self {
        Self(worm: try await response.xml(OSSBucketWorm.self, root: "WormConfiguration"), requestId: response.requestId)
    }
}
