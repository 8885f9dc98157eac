#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Data redundancy transition: a task that converts a bucket from locally redundant (LRS) to zone-redundant
/// storage (ZRS), the only direction OSS offers. A task is `Queueing`, then `Processing`, then `Finished`; a bucket
/// has one task in progress at a time, and a `Processing` task cannot be deleted.
extension OSSClient {
    /// CreateBucketDataRedundancyTransition (`POST /?redundancyTransition&x-oss-target-redundancy-type=ZRS`):
    /// starts a task; returns its id.
    public func createBucketDataRedundancyTransition(
        targetRedundancyType: String = "ZRS", bucketName: String
    ) async throws -> OSSCreateBucketDataRedundancyTransitionResult {
        try await perform(OSSRedundancyTransitionRequest(
            api: OSSAPI("CreateBucketDataRedundancyTransition", "POST", subresource: "redundancyTransition"),
            bucketName: bucketName, targetRedundancyType: targetRedundancyType, as: OSSCreateBucketDataRedundancyTransitionResult.self))
    }

    /// GetBucketDataRedundancyTransition (`GET /?redundancyTransition&x-oss-redundancy-transition-taskid=…`);
    /// `BucketDataRedundancyTransitionTaskNotExist` for an unknown id.
    public func getBucketDataRedundancyTransition(
        taskId: String, bucketName: String
    ) async throws -> OSSGetBucketDataRedundancyTransitionResult {
        try await perform(OSSRedundancyTransitionRequest(
            api: OSSAPI("GetBucketDataRedundancyTransition", "GET", subresource: "redundancyTransition"),
            bucketName: bucketName, taskId: taskId, as: OSSGetBucketDataRedundancyTransitionResult.self))
    }

    /// ListBucketDataRedundancyTransition (`GET /?redundancyTransition`): the bucket's tasks.
    public func listBucketDataRedundancyTransition(bucketName: String) async throws -> OSSListDataRedundancyTransitionResult {
        try await perform(OSSCall(
            OSSAPI("ListBucketDataRedundancyTransition", "GET", subresource: "redundancyTransition"), bucket: bucketName,
            as: OSSListDataRedundancyTransitionResult.self))
    }

    /// ListUserDataRedundancyTransition (`GET /?redundancyTransition` on the service): the account's tasks across
    /// buckets, a page of at most `maxKeys` (1 to 100) after `continuationToken`.
    public func listUserDataRedundancyTransition(
        maxKeys: Int? = nil, continuationToken: String? = nil
    ) async throws -> OSSListDataRedundancyTransitionResult {
        try await perform(OSSListUserRedundancyTransitionRequest(maxKeys: maxKeys, continuationToken: continuationToken))
    }

    /// DeleteBucketDataRedundancyTransition (`DELETE /?redundancyTransition&x-oss-redundancy-transition-taskid=…`);
    /// a `Processing` task is `BucketDataRedundancyTransitionTaskStatusConflict`.
    @discardableResult
    public func deleteBucketDataRedundancyTransition(taskId: String, bucketName: String) async throws -> OSSEmptyResult {
        try await perform(OSSRedundancyTransitionRequest(
            api: OSSAPI("DeleteBucketDataRedundancyTransition", "DELETE", subresource: "redundancyTransition"),
            bucketName: bucketName, taskId: taskId, as: OSSEmptyResult.self))
    }
}

/// A redundancy transition task: `<BucketDataRedundancyTransition>`.
public struct OSSDataRedundancyTransition: Codable, Sendable, Hashable {
    /// The bucket (in listings).
    public var bucket: String?
    public var taskId: String
    /// `Queueing`, `Processing` or `Finished`.
    public var status: String?
    public var createTime: String?
    /// When processing began (from `Processing` on).
    public var startTime: String?
    /// When the task finished (`Finished` only).
    public var endTime: String?
    /// 0 to 100 (from `Processing` on).
    public var processPercentage: Int?
    /// Hours left, an estimate (from `Processing` on).
    public var estimatedRemainingTime: Int?

    enum CodingKeys: String, CodingKey {
        case bucket = "Bucket", taskId = "TaskId", status = "Status", createTime = "CreateTime", startTime = "StartTime"
        case endTime = "EndTime", processPercentage = "ProcessPercentage", estimatedRemainingTime = "EstimatedRemainingTime"
    }
}

/// The result of CreateBucketDataRedundancyTransition.
public struct OSSCreateBucketDataRedundancyTransitionResult: Sendable {
    public var taskId: String
    public var requestId: String
}

/// The result of GetBucketDataRedundancyTransition.
public struct OSSGetBucketDataRedundancyTransitionResult: Sendable {
    public var transition: OSSDataRedundancyTransition
    public var requestId: String
}

/// The result of ListBucketDataRedundancyTransition and ListUserDataRedundancyTransition.
public struct OSSListDataRedundancyTransitionResult: Sendable {
    public var transitions: [OSSDataRedundancyTransition]
    public var isTruncated: Bool
    public var nextContinuationToken: String?
    public var requestId: String
}

struct OSSRedundancyTransitionRequest<Result: OSSDeclaredResult>: OSSBucketOperation {
    var api: OSSAPI
    var bucketName: String
    var targetRedundancyType: String?
    var taskId: String?

    init(api: OSSAPI, bucketName: String, targetRedundancyType: String? = nil, taskId: String? = nil, as result: Result.Type) {
        self.api = api
        self.bucketName = bucketName
        self.targetRedundancyType = targetRedundancyType
        self.taskId = taskId
    }

    static var parameters: [OSSParameter<Self>] {
        [.query("x-oss-target-redundancy-type", \.targetRedundancyType), .query("x-oss-redundancy-transition-taskid", \.taskId)]
    }

    func validate() throws {
        if let taskId, taskId.isEmpty { throw OSSClientError.invalidArgument("\(api.name): a task id is not empty") }
        if let targetRedundancyType, targetRedundancyType.isEmpty {
            throw OSSClientError.invalidArgument("\(api.name): the target redundancy type is not empty")
        }
    }
}

struct OSSListUserRedundancyTransitionRequest: OSSDeclaredOperation {
    typealias Result = OSSListDataRedundancyTransitionResult
    var maxKeys: Int?
    var continuationToken: String?
    var api: OSSAPI { OSSAPI("ListUserDataRedundancyTransition", "GET", subresource: "redundancyTransition") }
    static var parameters: [OSSParameter<Self>] { [.query("max-keys", \.maxKeys), .query("continuation-token", \.continuationToken)] }

    func validate() throws {
        if let maxKeys, !(1...100).contains(maxKeys) {
            throw OSSClientError.invalidArgument("ListUserDataRedundancyTransition: max-keys is 1 to 100, not \(maxKeys)")
        }
    }
}

extension OSSCreateBucketDataRedundancyTransitionResult: OSSDeclaredResult {
    static func decode(_ response: OSSHTTPResponse) async throws -> Self {
        let task = try await response.xml(OSSDataRedundancyTransition.self, root: "BucketDataRedundancyTransition")
        return Self(taskId: task.taskId, requestId: response.requestId)
    }
}

extension OSSGetBucketDataRedundancyTransitionResult: OSSDeclaredResult {
    static func decode(_ response: OSSHTTPResponse) async throws -> Self {
        Self(
            transition: try await response.xml(OSSDataRedundancyTransition.self, root: "BucketDataRedundancyTransition"),
            requestId: response.requestId)
    }
}

extension OSSListDataRedundancyTransitionResult: OSSDeclaredResult {
    private struct Document: Decodable {
        var transitions: [OSSDataRedundancyTransition]
        var isTruncated: Bool?
        var nextContinuationToken: String?
        enum CodingKeys: String, CodingKey {
            case transitions = "BucketDataRedundancyTransition", isTruncated = "IsTruncated"
            case nextContinuationToken = "NextContinuationToken"
        }
    }

    static func decode(_ response: OSSHTTPResponse) async throws -> Self {
        let d = try await response.xml(Document.self, root: "ListBucketDataRedundancyTransition")
        return Self(
            transitions: d.transitions, isTruncated: d.isTruncated ?? false,
            nextContinuationToken: d.nextContinuationToken.flatMap { $0.isEmpty ? nil : $0 }, requestId: response.requestId)
    }
}
