import Foundation
import NIOHTTP1
import OSSSigning
import OSSXML

/// Data redundancy transition (Create, Get, List per bucket and per account, Delete) as OSS documents it: only
/// LRS to ZRS, one task in progress per bucket, `Queueing` then `Processing` then `Finished` (after which the bucket
/// is ZRS), and a `Processing` task cannot be deleted. A local task moves on with the clock:
/// ``LocalOSSServerConfiguration/redundancyTransitionTimes`` says how long each state lasts.
extension RequestHandler {
    static let redundancySubresource = "redundancyTransition"

    func redundancyTransition(_ operation: LocalOSSOperation, context: RequestContext) async throws -> ServerResponse {
        if operation == .listUserDataRedundancyTransition { return try await listUserRedundancyTransitions(context) }
        let bucket = try requireBucket(context)
        let times = configuration.redundancyTransitionTimes
        let now = context.now
        switch operation {
        case .createBucketDataRedundancyTransition:
            let target = try requiredParameter("x-oss-target-redundancy-type", context)
            guard target == "ZRS" else {
                throw LocalOSSError.invalidArgument(
                    "A bucket converts from LRS to ZRS only.", name: "x-oss-target-redundancy-type", value: String(target.prefix(16)))
            }
            let id = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
            try await updateConfigurationEntries(bucket, Self.redundancySubresource, RedundancyTask.self) { tasks in
                let states = tasks.map { $0.entry.status(at: now, times) }
                if states.contains(.finished) {
                    throw LocalOSSError.invalidArgument("The bucket is already ZRS.", name: "x-oss-target-redundancy-type", value: target)
                }
                if !states.isEmpty {
                    throw LocalOSSError(
                        409, "BucketDataRedundancyTransitionTaskStatusConflict",
                        "The bucket has a redundancy transition task in progress.", fields: [("BucketName", bucket)])
                }
                tasks.append(ConfigurationEntry(name: id, entry: RedundancyTask(created: now.timeIntervalSince1970)))
            }
            return .xml(try OSSXMLEncoder().encode(TransitionDocument(taskId: id), root: "BucketDataRedundancyTransition"))
        case .getBucketDataRedundancyTransition:
            let task = try await redundancyTask(bucket, context)
            return .xml(try OSSXMLEncoder().encode(task.entry.document(task.name, bucket: bucket, now, times), root: "BucketDataRedundancyTransition"))
        case .listBucketDataRedundancyTransition:
            let tasks = try await configurationEntries(bucket, Self.redundancySubresource, RedundancyTask.self)
            let list = TransitionList(transitions: tasks.map { $0.entry.document($0.name, bucket: bucket, now, times) })
            return .xml(try OSSXMLEncoder().encode(list, root: "ListBucketDataRedundancyTransition"))
        default:
            let id = try requiredParameter("x-oss-redundancy-transition-taskid", context)
            try await updateConfigurationEntries(bucket, Self.redundancySubresource, RedundancyTask.self) { tasks in
                guard let task = tasks.first(where: { $0.name == id }) else { throw Self.noSuchTransition(id) }
                guard task.entry.status(at: now, times) != .processing else {
                    throw LocalOSSError(
                        409, "BucketDataRedundancyTransitionTaskStatusConflict", "A Processing task cannot be deleted.",
                        fields: [("TaskId", id)])
                }
                tasks.removeAll { $0.name == id }
            }
            return ServerResponse(status: .noContent)
        }
    }

    private static func noSuchTransition(_ id: String) -> LocalOSSError {
        LocalOSSError(404, "BucketDataRedundancyTransitionTaskNotExist", "The redundancy transition task does not exist.", fields: [("TaskId", id)])
    }

    private func redundancyTask(_ bucket: String, _ context: RequestContext) async throws -> ConfigurationEntry<RedundancyTask> {
        let id = try requiredParameter("x-oss-redundancy-transition-taskid", context)
        let tasks = try await configurationEntries(bucket, Self.redundancySubresource, RedundancyTask.self)
        guard let task = tasks.first(where: { $0.name == id }) else { throw Self.noSuchTransition(id) }
        return task
    }

    /// ListUserDataRedundancyTransition: every bucket's tasks, by task id, `max-keys` (1 to 100, default 100) a page.
    private func listUserRedundancyTransitions(_ context: RequestContext) async throws -> ServerResponse {
        var maxKeys = 100
        if let text = context.query["max-keys"] {
            guard let value = Int(text), (1...100).contains(value) else {
                throw LocalOSSError.invalidArgument("max-keys is 1 to 100.", name: "max-keys", value: String(text.prefix(16)))
            }
            maxKeys = value
        }
        let token = context.query["continuation-token"] ?? ""
        var all: [TransitionDocument] = []
        for bucket in await store.listBuckets() {
            let tasks = (try? await configurationEntries(bucket.name, Self.redundancySubresource, RedundancyTask.self)) ?? []
            all += tasks.map { $0.entry.document($0.name, bucket: bucket.name, context.now, configuration.redundancyTransitionTimes) }
        }
        let after = all.sorted { $0.taskId < $1.taskId }.filter { token.isEmpty || $0.taskId > token }
        let page = Array(after.prefix(maxKeys))
        let truncated = after.count > page.count
        let list = TransitionList(transitions: page, isTruncated: truncated, nextContinuationToken: truncated ? page.last?.taskId : nil)
        return .xml(try OSSXMLEncoder().encode(list, root: "ListBucketDataRedundancyTransition"))
    }
}

private struct RedundancyTask: Codable, Sendable {
    enum Status: String { case queueing = "Queueing", processing = "Processing", finished = "Finished" }
    /// Seconds since 1970.
    var created: TimeInterval

    func status(at now: Date, _ times: (queueing: TimeInterval, processing: TimeInterval)) -> Status {
        let elapsed = now.timeIntervalSince1970 - created
        if elapsed < times.queueing { return .queueing }
        return elapsed < times.queueing + times.processing ? .processing : .finished
    }

    func document(_ id: String, bucket: String, _ now: Date, _ times: (queueing: TimeInterval, processing: TimeInterval)) -> TransitionDocument {
        let status = status(at: now, times)
        let date = { (offset: TimeInterval) in OSSDateFormat.iso8601Milliseconds(Date(timeIntervalSince1970: created + offset)) }
        var document = TransitionDocument(taskId: id, bucket: bucket, status: status.rawValue, createTime: date(0))
        if status != .queueing {
            document.startTime = date(times.queueing)
            let done = (now.timeIntervalSince1970 - created - times.queueing) / max(times.processing, 0.001)
            document.processPercentage = status == .finished ? 100 : Int(min(99, max(0, done * 100)))
            document.estimatedRemainingTime = 0
        }
        if status == .finished { document.endTime = date(times.queueing + times.processing) }
        return document
    }
}

private struct TransitionDocument: Encodable {
    var taskId: String
    var bucket: String?
    var status: String?
    var createTime: String?
    var startTime: String?
    var endTime: String?
    var processPercentage: Int?
    var estimatedRemainingTime: Int?
    enum CodingKeys: String, CodingKey {
        case bucket = "Bucket", taskId = "TaskId", status = "Status", createTime = "CreateTime", startTime = "StartTime"
        case endTime = "EndTime", processPercentage = "ProcessPercentage", estimatedRemainingTime = "EstimatedRemainingTime"
    }
}

private struct TransitionList: Encodable {
    var transitions: [TransitionDocument]
    var isTruncated: Bool?
    var nextContinuationToken: String?
    enum CodingKeys: String, CodingKey {
        case transitions = "BucketDataRedundancyTransition", isTruncated = "IsTruncated", nextContinuationToken = "NextContinuationToken"
    }
}

extension Router {
    /// The redundancy transition calls on a bucket.
    static func redundancyTransitionOperation(_ method: String, _ q: [String: String]) -> LocalOSSOperation? {
        guard q["redundancyTransition"] != nil else { return nil }
        switch method {
        case "POST": return .createBucketDataRedundancyTransition
        case "GET":
            return q["x-oss-redundancy-transition-taskid"] == nil ? .listBucketDataRedundancyTransition : .getBucketDataRedundancyTransition
        case "DELETE": return .deleteBucketDataRedundancyTransition
        default: return nil
        }
    }
}
