import OSSXML

/// GetBucketStat (`GET /?stat`): what the bucket holds, counted now (OSS refreshes its figures within the hour;
/// here they are exact). Multipart uploads in progress are counted with their parts, not in `Storage`.
extension RequestHandler {
    func getBucketStat(_ context: RequestContext) async throws -> ServerResponse {
        let stat = try await store.statistics(try requireBucket(context))
        func size(_ storageClass: String) -> Int64 { stat.byClass[storageClass]?.storage ?? 0 }
        func count(_ storageClass: String) -> Int64 { stat.byClass[storageClass]?.count ?? 0 }
        let document = BucketStatDocument(
            storage: stat.storage, objectCount: stat.objectCount, multipartUploadCount: stat.multipartUploadCount,
            liveChannelCount: 0, lastModifiedTime: stat.lastModified,
            standardStorage: size("Standard"), standardObjectCount: count("Standard"),
            infrequentAccessStorage: size("IA"), infrequentAccessRealStorage: size("IA"),
            infrequentAccessObjectCount: count("IA"),
            archiveStorage: size("Archive"), archiveRealStorage: size("Archive"), archiveObjectCount: count("Archive"),
            coldArchiveStorage: size("ColdArchive"), coldArchiveRealStorage: size("ColdArchive"),
            coldArchiveObjectCount: count("ColdArchive"),
            deepColdArchiveStorage: size("DeepColdArchive"), deepColdArchiveRealStorage: size("DeepColdArchive"),
            deepColdArchiveObjectCount: count("DeepColdArchive"),
            multipartPartCount: stat.multipartPartCount, deleteMarkerCount: stat.deleteMarkerCount)
        return .xml(try OSSXMLEncoder().encode(document, root: "BucketStat"))
    }
}

/// `<BucketStat>` as OSS documents it (element names are the property names, first letter upper-cased).
private struct BucketStatDocument: Encodable {
    var storage: Int64
    var objectCount: Int64
    var multipartUploadCount: Int64
    var liveChannelCount: Int64
    var lastModifiedTime: Int64
    var standardStorage: Int64
    var standardObjectCount: Int64
    var infrequentAccessStorage: Int64
    var infrequentAccessRealStorage: Int64
    var infrequentAccessObjectCount: Int64
    var archiveStorage: Int64
    var archiveRealStorage: Int64
    var archiveObjectCount: Int64
    var coldArchiveStorage: Int64
    var coldArchiveRealStorage: Int64
    var coldArchiveObjectCount: Int64
    var deepColdArchiveStorage: Int64
    var deepColdArchiveRealStorage: Int64
    var deepColdArchiveObjectCount: Int64
    var multipartPartCount: Int64
    var deleteMarkerCount: Int64
}
