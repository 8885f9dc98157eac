import Foundation

/// The lifecycle run on demand: `POST /-/lifecycle/run[?now=2027-01-01T00:00:00Z][&bucket=b]` on the admin
/// endpoint, or ``LocalOSSServer/runLifecycle(now:bucket:)``, applies every bucket's lifecycle rules at the given
/// (simulated) date as OSS's daily run would, and says what it did (ObjectStore+Lifecycle.swift).
extension RequestHandler {
    func runLifecycle(_ context: RequestContext) async throws -> ServerResponse {
        var now = context.now
        if let text = context.query["now"] {
            guard let date = try? Date(text, strategy: .iso8601) else {
                throw LocalOSSError.invalidArgument("now is an ISO 8601 date (2027-01-01T00:00:00Z).", name: "now", value: String(text.prefix(64)))
            }
            now = date
        }
        let report = try await store.runLifecycle(now: now, only: context.query["bucket"])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return .json(String(decoding: try encoder.encode(report), as: UTF8.self))
    }
}

/// What one lifecycle run did (`POST /-/lifecycle/run`, ``LocalOSSServer/runLifecycle(now:)``).
public struct LocalOSSLifecycleReport: Codable, Sendable, Equatable {
    /// One thing a rule did.
    public struct Action: Codable, Sendable, Equatable {
        public var bucket: String
        /// The rule's ID (empty when it has none).
        public var rule: String
        /// `Expiration` (an object deleted, or in a versioned bucket hidden by a delete marker),
        /// `ExpiredObjectDeleteMarker`, `NoncurrentVersionExpiration`, `AbortMultipartUpload`, `Transition`,
        /// `NoncurrentVersionTransition`.
        public var action: String
        public var key: String
        /// The version removed or moved, or the delete marker added.
        public var versionId: String?
        public var uploadId: String?
        /// The storage class a transition moved the object to.
        public var storageClass: String?
    }

    /// The time the rules were applied at (the simulated date, or the server's clock).
    public var now: Date
    public var actions: [Action]
    /// Objects a rule matched but the bucket's retention policy (WORM) protects: left in place, as OSS does.
    public var protected: [String]
}

