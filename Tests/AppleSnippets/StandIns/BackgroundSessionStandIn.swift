// Where the real background URLSession system does not exist (Linux: it is compiled on Apple platforms only), a
// stand-in with its initializer's signature, so that the snippets type-check against the rest of the SDK here.
// On Apple platforms the snippets use AliyunOSS's own OSSURLSessionBackgroundTaskSystem.
#if !canImport(Darwin)
import AliyunOSS

public struct OSSURLSessionBackgroundTaskSystem: OSSBackgroundTaskSystem {
    public let sessionIdentifier: String

    public init(identifier: String, eventDirectory: String, discretionary: Bool = false) {
        sessionIdentifier = identifier
    }

    public func submit(_ task: OSSBackgroundTask) async throws {}
    public func pendingTaskDescriptions() async throws -> [String] { [] }
    public func deliveredEvents() async throws -> [OSSBackgroundTaskEvent] { [] }
    public func acknowledge(_ events: [OSSBackgroundTaskEvent]) async throws {}
    public func cancelTasks(describedAs descriptions: Set<String>) async throws {}
}
#endif
