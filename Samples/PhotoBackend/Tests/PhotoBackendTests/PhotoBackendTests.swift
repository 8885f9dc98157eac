import AliyunOSS
import AliyunOSSObservability
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import InMemoryTracing
import Metrics
import MetricsTestKit
import NIOCore
import OSSLocalServer
import PhotoBackend
import Testing
import Tracing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The sample backend, served by Hummingbird's router test framework, storing into the embedded local OSS server.
/// Metrics and spans go to the process-wide systems, bootstrapped once with in-memory backends, as an app would
/// bootstrap Prometheus or OpenTelemetry: the OSS client's figures must appear beside Hummingbird's, and its spans
/// inside the request's span.
@Suite(.serialized)
struct PhotoBackendTests {
    static let observed: (metrics: TestMetrics, tracer: InMemoryTracer) = {
        let metrics = TestMetrics()
        let tracer = InMemoryTracer()
        MetricsSystem.bootstrap(metrics)
        InstrumentationSystem.bootstrap(tracer)
        return (metrics, tracer)
    }()

    /// A backend over a fresh local server, with the client's observability reporting to the process-wide systems.
    func withBackend(
        maximumSize: Int64 = 1 << 30, _ body: @Sendable (PhotoBackend, LocalOSSServer, any TestClientProtocol) async throws -> Void
    ) async throws {
        _ = Self.observed
        try await withLocalOSSServer(LocalOSSServerConfiguration(region: "cn-hangzhou", buckets: ["photos"])) { server in
            var configuration = OSSClientConfiguration(region: "cn-hangzhou")
            configuration.observe(OSSObservability())
            try await withOSSClient(
                endpoint: server.endpoint.absoluteString, credentialProvider: server.credentials.provider,
                configuration: configuration
            ) { client in
                let backend = PhotoBackend(client: client, bucket: "photos", maximumSize: maximumSize)
                let app = Application(router: backend.router())
                try await app.test(.router) { http in try await body(backend, server, http) }
            }
        }
    }

    @Test func aPhotoGoesUpInPartsComesBackThroughAPresignedLinkAndIsTracedAndCounted() async throws {
        // Past one 8 MiB part, so the body is streamed up as a multipart upload.
        let photo = (0..<(9 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 11) }
        try await withBackend { backend, server, http in
            let put = try await http.execute(
                uri: "/photos/beach.jpg", method: .put, headers: [.contentType: "image/jpeg"], body: ByteBuffer(bytes: photo))
            #expect(put.status == .ok)
            let stored = try JSONDecoder().decode(PhotoBackend.Stored.self, from: Data(put.body.readableBytesView))
            #expect(stored.size == Int64(photo.count))
            let head = try await backend.client.headObject(OSSHeadObjectRequest(bucketName: "photos", objectKey: "photos/beach.jpg"))
            #expect(head.contentLength == Int64(photo.count) && head.contentType == "image/jpeg")
            #expect(stored.crc64 == head.crc64.map { String($0) } && stored.crc64 != nil)

            let link = try await http.execute(uri: "/photos/beach.jpg", method: .get)
            #expect(link.status == .seeOther)
            let location = try #require(link.headers[.location].flatMap(URL.init(string:)))
            #expect(location.absoluteString.hasPrefix(server.endpoint.absoluteString), "\(location)")
            let (fetched, response) = try await URLSession.shared.data(from: location)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(fetched == Data(photo), "the presigned link serves the stored bytes")

            let listing = try await http.execute(uri: "/photos", method: .get)
            let photos = try JSONDecoder().decode(PhotoBackend.Listing.self, from: Data(listing.body.readableBytesView)).photos
            #expect(photos == [.init(name: "beach.jpg", size: Int64(photo.count))])

            #expect(try await http.execute(uri: "/photos/.hidden", method: .get).status == .badRequest)
            #expect(try await http.execute(uri: "/photos/none.jpg", method: .get).status == .notFound)
            #expect(try await http.execute(uri: "/photos/beach.jpg", method: .delete).status == .noContent)
            #expect(try await http.execute(uri: "/photos/beach.jpg", method: .get).status == .notFound)
        }

        let (metrics, tracer) = Self.observed
        // The OSS client's metrics beside Hummingbird's.
        let uploadParts = [("operation", "UploadPart"), ("status_class", "2xx")]
        #expect(metrics.counterTotal(label: "oss_requests_total", dimensions: uploadParts) == 2)
        #expect(metrics.counterTotal(label: "oss_bytes_sent_total", dimensions: [("operation", "UploadPart")]) == 9 << 20)
        #expect(
            metrics.counterTotal(
                label: "oss_requests_total", dimensions: [("operation", "HeadObject"), ("status_class", "4xx")]) == 2)
        #expect(
            metrics.counterTotal(
                label: "hb.requests",
                dimensions: [("http.route", "/photos/{name}"), ("http.request.method", "GET"), ("http.response.status_code", "303")]
            ) == 1)

        // The OSS spans are children of the request's span.
        let spans = tracer.finishedSpans
        let request = try #require(spans.first { $0.operationName == "/photos/{name}" && $0.attributes.get("http.request.method") == .string("PUT") })
        #expect(request.kind == .server)
        let children = spans.filter { $0.parentSpanID == request.spanID }.map(\.operationName)
        #expect(Set(children) == ["InitiateMultipartUpload", "UploadPart", "CompleteMultipartUpload"], "\(children)")
        #expect(children.filter { $0 == "UploadPart" }.count == 2)
        let part = try #require(spans.first { $0.operationName == "UploadPart" && $0.parentSpanID == request.spanID })
        #expect(part.traceID == request.traceID && part.kind == .client)
        #expect(part.attributes.get("oss.bucket") == .string("photos"))
        #expect(part.attributes.get("oss.key") == nil, "keys only when the app opts in")
    }

    @Test func aPhotoPastTheLimitIsRefusedAndNothingIsStored() async throws {
        try await withBackend(maximumSize: 1 << 20) { backend, _, http in
            let big = ByteBuffer(repeating: 1, count: (1 << 20) + 1)
            #expect(try await http.execute(uri: "/photos/big.jpg", method: .put, body: big).status == .contentTooLarge)
            #expect(try await http.execute(uri: "/photos/a%2Fb", method: .put, body: ByteBuffer(string: "x")).status == .badRequest)
            let listed = try await backend.client.listObjectsV2(OSSListObjectsV2Request(bucketName: "photos"))
            #expect(listed.contents.isEmpty)
        }
    }
}
