import NIOCore
import NIOHTTP1
import OSSSigning
import OSSXML

import Foundation

/// Live channels (`PUT|GET|DELETE /<channel>?live`, `GET /?live`): their configuration only. The local server has no
/// RTMP ingest, so nothing is ever pushed to a channel (status and history are not implemented); oss2 creates, reads,
/// lists and deletes channels in its iterator tests, and lists them before deleting a bucket.
///
/// A channel is `buckets/<bucket>/live/<sha256(name)>.json` (written atomically, removed with its bucket).
extension RequestHandler {
    /// A live channel's stored configuration.
    struct LiveChannel: Codable {
        var name: String
        var description: String
        /// `enabled` or `disabled`.
        var status: String
        var fragDuration: Int
        var fragCount: Int
        var playlistName: String
        /// Unix seconds.
        var lastModified: Int64
    }

    private func liveDirectory(_ bucket: String) -> String { store.bucketDirectory(bucket) + "/live" }

    private func livePath(_ bucket: String, _ name: String) -> String {
        liveDirectory(bucket) + "/" + ObjectStore.keyDigest(name) + ".json"
    }

    private func liveChannels(_ bucket: String) -> [LiveChannel] {
        let decoder = JSONDecoder()
        return FileIO.list(liveDirectory(bucket)).compactMap { file in
            guard file.hasSuffix(".json"), let data = FileIO.read(liveDirectory(bucket) + "/" + file) else { return nil }
            return try? decoder.decode(LiveChannel.self, from: data)
        }.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
    }

    private func liveChannel(_ bucket: String, _ name: String) throws(LocalOSSError) -> LiveChannel {
        guard let data = FileIO.read(livePath(bucket, name)),
            let channel = try? JSONDecoder().decode(LiveChannel.self, from: data)
        else {
            throw LocalOSSError(404, "NoSuchLiveChannel", "The specified live channel does not exist.")
        }
        return channel
    }

    /// The URLs OSS gives a channel, as `PublishUrls` (where to push, RTMP) and `PlayUrls` (where to play its
    /// playlist) elements.
    private func writeLiveURLs(
        _ context: RequestContext, bucket: String, _ channel: LiveChannel, into w: inout OSSXMLWriter
    ) {
        let name = OSSPercentEncoding.encode(channel.name, keepSlash: true)
        w.open("PublishUrls")
        w.element("Url", "rtmp://\(bucket).\(context.hostId)/live/\(name)")
        w.close("PublishUrls")
        w.open("PlayUrls")
        w.element("Url", "http://\(bucket).\(context.hostId)/\(name)/\(channel.playlistName)")
        w.close("PlayUrls")
    }

    /// The bucket and channel name a channel request addresses, once the bucket is known to exist.
    private func requireLiveChannelName(_ context: RequestContext) async throws -> (bucket: String, name: String) {
        let (bucket, name) = try requireBucketAndKey(context)
        _ = try await store.bucket(bucket)
        return (bucket, name)
    }

    /// PutLiveChannel: `LiveChannelConfiguration` with Description, Status and an HLS Target.
    func putLiveChannel(_ context: RequestContext, reader: RequestBodyReader) async throws -> ServerResponse {
        let (bucket, name) = try await requireLiveChannelName(context)
        let body = try await reader.collect(limit: 64 << 10)
        let root: OSSXMLNode
        do { root = try OSSXMLParser.parse(body.readableBytesView, root: "LiveChannelConfiguration") } catch {
            throw LocalOSSError.malformedXML("\(error)")
        }
        guard !name.contains("/") else {
            throw LocalOSSError.invalidArgument("A live channel name has no '/'.", name: "ChannelName", value: name)
        }
        let status = root.string("Status") ?? "enabled"
        guard status == "enabled" || status == "disabled" else {
            throw LocalOSSError.invalidArgument("Status is enabled or disabled.", name: "Status", value: status)
        }
        guard let target = root.child("Target"), target.string("Type") == "HLS" else {
            throw LocalOSSError.invalidArgument("The Target Type must be HLS.", name: "Type")
        }
        func count(_ field: String, default value: Int) throws(LocalOSSError) -> Int {
            guard let text = target.string(field) else { return value }
            guard let n = Int(text), (1...100).contains(n) else {
                throw LocalOSSError.invalidArgument("\(field) must be between 1 and 100.", name: field, value: text)
            }
            return n
        }
        let playlist = target.string("PlaylistName") ?? "playlist.m3u8"
        guard playlist.hasSuffix(".m3u8"), (6...128).contains(playlist.utf8.count), !playlist.contains("/") else {
            throw LocalOSSError.invalidArgument(
                "PlaylistName must end with .m3u8 and be 6 to 128 bytes.", name: "PlaylistName", value: playlist)
        }
        let channel = LiveChannel(
            name: name, description: root.string("Description") ?? "", status: status,
            fragDuration: try count("FragDuration", default: 5), fragCount: try count("FragCount", default: 3),
            playlistName: playlist, lastModified: Int64(context.now.timeIntervalSince1970))
        try FileIO.makeDirectory(liveDirectory(bucket))
        try FileIO.writeAtomically(
            try JSONEncoder().encode(channel), to: livePath(bucket, name), tempDirectory: store.tempDirectory)
        var w = OSSXMLWriter()
        w.open("CreateLiveChannelResult")
        writeLiveURLs(context, bucket: bucket, channel, into: &w)
        w.close("CreateLiveChannelResult")
        return .xml(w.output)
    }

    /// GetLiveChannelInfo (`GET /<channel>?live`); its `comp=stat` and `comp=history` forms are not implemented.
    func getLiveChannel(_ context: RequestContext) async throws -> ServerResponse {
        let (bucket, name) = try await requireLiveChannelName(context)
        guard context.query["comp"] == nil else {
            throw LocalOSSError.notImplemented("Live channel status and history are not implemented by the local server.")
        }
        let channel = try liveChannel(bucket, name)
        var w = OSSXMLWriter()
        w.open("LiveChannelConfiguration")
        w.element("Description", channel.description)
        w.element("Status", channel.status)
        w.open("Target")
        w.element("Type", "HLS")
        w.element("FragDuration", String(channel.fragDuration))
        w.element("FragCount", String(channel.fragCount))
        w.element("PlaylistName", channel.playlistName)
        w.close("Target")
        w.close("LiveChannelConfiguration")
        return .xml(w.output)
    }

    func deleteLiveChannel(_ context: RequestContext) async throws -> ServerResponse {
        let (bucket, name) = try await requireLiveChannelName(context)
        _ = try liveChannel(bucket, name)
        FileIO.remove(livePath(bucket, name))
        return ServerResponse(status: .noContent)
    }

    /// ListLiveChannel (`GET /?live`): by name, after `marker`, under `prefix`, at most `max-keys` (100, up to 1000).
    func listLiveChannel(_ context: RequestContext) async throws -> ServerResponse {
        let bucket = try requireBucket(context)
        _ = try await store.bucket(bucket)
        let q = context.query
        let prefix = q["prefix"] ?? ""
        let marker = q["marker"] ?? ""
        let maxKeys = try parseLimit(q["max-keys"], name: "max-keys", defaultValue: 100)
        let matching = liveChannels(bucket).filter {
            $0.name.hasPrefix(prefix) && (marker.isEmpty || marker.utf8.lexicographicallyPrecedes($0.name.utf8))
        }
        let page = matching.prefix(maxKeys)
        let truncated = matching.count > page.count
        var w = OSSXMLWriter()
        w.open("ListLiveChannelResult")
        w.element("Prefix", prefix)
        w.element("Marker", marker)
        w.element("MaxKeys", String(maxKeys))
        w.element("IsTruncated", truncated ? "true" : "false")
        w.element("NextMarker", truncated ? page.last?.name ?? "" : "")
        for channel in page {
            w.open("LiveChannel")
            w.element("Name", channel.name)
            w.element("Description", channel.description)
            w.element("Status", channel.status)
            w.element("LastModified", isoDate(channel.lastModified))
            writeLiveURLs(context, bucket: bucket, channel, into: &w)
            w.close("LiveChannel")
        }
        w.close("ListLiveChannelResult")
        return .xml(w.output)
    }
}
