import NIOCore
import NIOHTTP1
import OSSXML

import Foundation

/// RestoreObject (`POST /key?restore`): an Archive, ColdArchive or DeepColdArchive object becomes readable
/// `restoreDelay` after the request, for the `Days` of its `RestoreRequest`.
extension RequestHandler {
    /// A `RestoreRequest` document, checked as OSS checks it against the object's storage class.
    struct RestoreConfiguration: Equatable {
        /// The restore priorities, fastest first.
        static let tiers = ["Expedited", "Standard", "Bulk"]

        var days = 1
        /// `JobParameters/Tier`; only ColdArchive and DeepColdArchive objects take one (`Standard` when absent).
        var tier: String?

        /// Parses the body of a RestoreObject request (an empty body is the default configuration): a document that
        /// is not a `RestoreRequest`, an element its schema does not have (anywhere but `Days`, `JobParameters` and
        /// `JobParameters/Tier`, or inside those values), or `JobParameters` without a `Tier`, is MalformedXML; a
        /// `Days` or `Tier` value out of range is InvalidArgument.
        init(parsing body: ByteBuffer) throws(LocalOSSError) {
            guard body.readableBytes > 0 else { return }
            let root: OSSXMLNode
            do { root = try OSSXMLParser.parse(body.readableBytesView, root: "RestoreRequest") } catch {
                throw LocalOSSError.malformedXML("\(error)")
            }
            try Self.requireOnly(["Days", "JobParameters"], in: root)
            if let days = root.child("Days") { try Self.requireOnly([], in: days) }
            if let text = root.string("Days") {
                guard let n = Int(text), n >= 1 else {
                    throw LocalOSSError.invalidArgument("Days must be a positive integer.", name: "Days", value: text)
                }
                days = n
            }
            if let job = root.child("JobParameters") {
                try Self.requireOnly(["Tier"], in: job)
                if let tier = job.child("Tier") { try Self.requireOnly([], in: tier) }
                guard let text = job.string("Tier") else {
                    throw LocalOSSError.malformedXML("JobParameters must contain a Tier.")
                }
                guard Self.tiers.contains(text) else {
                    throw LocalOSSError.invalidArgument(
                        "The Tier must be Expedited, Standard or Bulk.", name: "Tier", value: text)
                }
                tier = text
            }
        }

        /// OSS validates a `RestoreRequest` against its schema: an element `node` may not contain is MalformedXML.
        private static func requireOnly(_ allowed: Set<String>, in node: OSSXMLNode) throws(LocalOSSError) {
            if let unknown = node.children.first(where: { !allowed.contains($0.name) }) {
                throw LocalOSSError.malformedXML("\(node.name) has no element \(unknown.name).")
            }
        }

        /// Checks the configuration against a storage class and returns the priority the restore runs at (`nil` for
        /// Archive, which has none). As OSS: Archive takes 1-7 days and no `JobParameters` (MalformedXML);
        /// ColdArchive 1-365 days at any tier; DeepColdArchive 1-365 days, Expedited or Standard.
        func priority(for storageClass: String) throws(LocalOSSError) -> String? {
            let maximumDays = storageClass == "Archive" ? 7 : 365
            guard days <= maximumDays else {
                throw LocalOSSError.invalidArgument(
                    "Days must be between 1 and \(maximumDays) for a \(storageClass) object.", name: "Days",
                    value: String(days))
            }
            if storageClass == "Archive" {
                guard tier == nil else {
                    throw LocalOSSError.malformedXML("JobParameters applies only to ColdArchive and DeepColdArchive objects.")
                }
                return nil
            }
            let chosen = tier ?? "Standard"
            if storageClass == "DeepColdArchive", chosen == "Bulk" {
                throw LocalOSSError.invalidArgument(
                    "A DeepColdArchive object is restored at Expedited or Standard priority.", name: "Tier", value: chosen)
            }
            return chosen
        }
    }

    func restoreObject(_ context: RequestContext, reader: RequestBodyReader) async throws -> ServerResponse {
        let (bucket, key) = try requireBucketAndKey(context)
        let body = try await reader.collect(limit: 64 << 10)
        let configuration = try RestoreConfiguration(parsing: body)
        let now = context.now.timeIntervalSince1970
        let delay = self.configuration.restoreDelay
        let versionId = try requestedVersionId(context)
        let object = try await store.object(bucket, key, versionId: versionId)
        guard let extra = object.extra, extra.needsRestore else {
            throw LocalOSSError(400, "OperationNotSupported", "The operation is not supported for this resource")
        }
        let priority = try configuration.priority(for: extra.storageClassName)
        var headers = HTTPHeaders()
        if let priority { headers.add(name: "x-oss-object-restore-priority", value: priority) }
        addVersionHeader(&headers, object)
        if let ready = extra.restoreReadyAt, now < ready {
            // A running restore can only be sped up (OSS: the priority may be raised, never lowered).
            guard let priority, let running = extra.restoreTier, Self.isFaster(priority, than: running) else {
                throw LocalOSSError(409, "RestoreAlreadyInProgress", "The restore operation is in progress.")
            }
            try await store.updateObject(bucket, key, versionId: versionId) { record in
                var updated = record.extra ?? ObjectExtra()
                updated.restoreTier = priority
                record.extra = updated
            }
            return ServerResponse(status: .accepted, headers: headers)
        }
        let days = configuration.days
        let alreadyRestored = extra.restoreReadyAt != nil && now < (extra.restoreExpiresAt ?? 0)
        try await store.updateObject(bucket, key, versionId: versionId) { record in
            var updated = record.extra ?? ObjectExtra()
            if !alreadyRestored {
                updated.restoreReadyAt = now + delay
                updated.restoreTier = priority
            }
            updated.restoreExpiresAt = (updated.restoreReadyAt ?? now) + Double(days) * 86_400
            record.extra = updated
        }
        return ServerResponse(status: alreadyRestored ? .ok : .accepted, headers: headers)
    }

    /// CleanRestoredObject (`POST /key?cleanRestoredObject`): drops the readable copy of a restored archived object
    /// (it is frozen again). A restore still running is `ArchiveRestoreNotFinished`; an object not restored, or whose
    /// copy has expired, `ArchiveRestoreFileStale`; an object that needs no restore, `OperationNotSupported`.
    func cleanRestoredObject(_ context: RequestContext) async throws -> ServerResponse {
        let (bucket, key) = try requireBucketAndKey(context)
        let versionId = try requestedVersionId(context)
        let object = try await store.object(bucket, key, versionId: versionId)
        guard let extra = object.extra, extra.needsRestore else {
            throw LocalOSSError(400, "OperationNotSupported", "The operation is not supported for this resource")
        }
        let now = context.now.timeIntervalSince1970
        if let ready = extra.restoreReadyAt, now < ready {
            throw LocalOSSError(409, "ArchiveRestoreNotFinished", "The archive file's restore is not finished.")
        }
        guard extra.restoreReadyAt != nil, now < (extra.restoreExpiresAt ?? 0) else {
            throw LocalOSSError(409, "ArchiveRestoreFileStale", "The archive file is not restored or its restored copy has expired.")
        }
        try await store.updateObject(bucket, key, versionId: versionId) { record in
            var updated = record.extra ?? ObjectExtra()
            updated.restoreReadyAt = nil
            updated.restoreExpiresAt = nil
            updated.restoreTier = nil
            record.extra = updated
        }
        var headers = HTTPHeaders()
        addVersionHeader(&headers, object)
        return ServerResponse(status: .ok, headers: headers)
    }

    private static func isFaster(_ tier: String, than other: String) -> Bool {
        guard let a = RestoreConfiguration.tiers.firstIndex(of: tier),
            let b = RestoreConfiguration.tiers.firstIndex(of: other)
        else { return false }
        return a < b
    }
}
