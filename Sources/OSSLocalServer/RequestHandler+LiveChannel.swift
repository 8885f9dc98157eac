import OSSXML

/// ListLiveChannel (`GET /?live`). The local server has no RTMP ingest, so no live channel can exist (PutLiveChannel
/// is not implemented) and every listing is empty, as OSS answers for a bucket without channels. oss2 lists a bucket's
/// live channels before deleting it, so this keeps its bucket clean-up working.
extension RequestHandler {
    func listLiveChannel(_ context: RequestContext) async throws -> ServerResponse {
        _ = try await store.bucket(try requireBucket(context))
        let q = context.query
        let maxKeys = try parseLimit(q["max-keys"], name: "max-keys", defaultValue: 100)
        var w = OSSXMLWriter()
        w.open("ListLiveChannelResult")
        w.element("Prefix", q["prefix"] ?? "")
        w.element("Marker", q["marker"] ?? "")
        w.element("MaxKeys", String(maxKeys))
        w.element("IsTruncated", "false")
        w.element("NextMarker", "")
        w.close("ListLiveChannelResult")
        return .xml(w.output)
    }
}
