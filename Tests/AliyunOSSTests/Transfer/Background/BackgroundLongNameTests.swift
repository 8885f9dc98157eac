@testable import AliyunOSS
import Foundation
import OSSCRC64
import OSSLocalServer
import OSSResumable
import Testing

/// Background transfers of files whose names are close to NAME_MAX (255 bytes): the files named after them (a
/// download's `.<name>.<transferId>.download`, the daemon's `<file>.partial`) are shortened to fit, and nothing is
/// left behind.
@Suite("Background transfers: file names near NAME_MAX")
struct BackgroundLongNameTests {
    /// 250 bytes of UTF-8 (121 two-byte characters, then `long.bin`): the bytes a derived name keeps of it end
    /// inside a character, so the cut must move back to a boundary.
    static let longName = String(repeating: "é", count: 121) + "long.bin"

    static func names(_ url: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
    }

    /// Runs the daemon and reconciles until the service lists no transfer (at most `rounds` times).
    static func drive(_ service: OSSBackgroundTransferService, _ work: URL, _ session: String, rounds: Int = 8) async throws {
        let daemon = OSSSimulatedTransferDaemon(spoolDirectory: work.appendingPathComponent("spool").path, sessionIdentifier: session)
        var round = 0
        while try !service.backgroundTransfers().isEmpty, round < rounds {
            _ = try await daemon.run(exitWhenIdle: true)
            _ = try await service.reconcile()
            round += 1
        }
        #expect(try service.backgroundTransfers().isEmpty)
    }

    @Test("a background download to a 250-byte file name: byte-identical, nothing left behind")
    func download() async throws {
        #expect(Self.longName.utf8.count == 250)
        let work = try BackgroundTransferServiceTests.scratch()
        defer { try? FileManager.default.removeItem(at: work) }
        let folder = work.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let destination = folder.appendingPathComponent(Self.longName)
        let bytes = (0..<700_000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ ($0 >> 10)) }
        let key = "deep/" + Self.longName
        try await withServerAndClient(version: .v4) { server, client in
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: key, data: Data(bytes)))
            let service = BackgroundTransferServiceTests.service(client, work, "long-d")
            let id = try await service.startDownload(
                OSSBackgroundDownloadRequest(
                    bucketName: "bkt", objectKey: key, downloadToFileURL: destination, partSize: 262_144,
                    maximumQueuedParts: 2))
            // The temporary file: hidden, beside the destination, its suffix whole, within NAME_MAX.
            let temporary = try #require(try Self.names(folder).first)
            #expect(try Self.names(folder).count == 1)
            #expect(temporary.utf8.count <= 255 && temporary.utf8.count >= 254, "\(temporary.utf8.count)")
            #expect(temporary.hasPrefix(".é") && temporary.hasSuffix("." + id + ".download"))
            #expect(try service.backgroundTransfers().first?.temporaryFilePath == folder.path + "/" + temporary)

            try await Self.drive(service, work, "long-d")
            #expect(Array(try Data(contentsOf: destination)) == bytes)
            #expect(try Self.names(folder) == [Self.longName])
            #expect(try Self.names(work.appendingPathComponent("records")).isEmpty)
            #expect(try Self.names(work.appendingPathComponent("spool/long-d/files")).isEmpty)
            #expect(await server.stats()[.getObject].requests == 3, "each range once")
        }
    }

    @Test("a background upload of a file with a 250-byte name: the object is byte-identical, nothing left behind")
    func upload() async throws {
        let work = try BackgroundTransferServiceTests.scratch()
        defer { try? FileManager.default.removeItem(at: work) }
        let folder = work.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent(Self.longName)
        let bytes = (0..<450_000).map { UInt8(truncatingIfNeeded: $0 &* 29 &+ ($0 >> 12)) }
        try Data(bytes).write(to: file)
        let key = "up/" + Self.longName
        try await withServerAndClient(version: .v4) { server, client in
            let service = BackgroundTransferServiceTests.service(client, work, "long-u")
            _ = try await service.startUpload(
                OSSBackgroundUploadRequest(bucketName: "bkt", objectKey: key, uploadingFileURL: file, partSize: 200_000))
            try await Self.drive(service, work, "long-u")
            let head = try await client.headObject(OSSHeadObjectRequest(bucketName: "bkt", objectKey: key))
            #expect(head.crc64 == CRC64.checksum(bytes))
            let copy = work.appendingPathComponent("copy")
            _ = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: key), toFile: copy)
            #expect(Array(try Data(contentsOf: copy)) == bytes)
            #expect(try Self.names(folder) == [Self.longName])
            #expect(try Self.names(work.appendingPathComponent("records")).isEmpty)
            #expect(await server.stats()[.uploadPart].requests == 3, "each part once")
        }
    }

    @Test("the simulated daemon receives a body beside a 255-byte file name through a shortened .partial")
    func daemonPartialFile() async throws {
        let work = try BackgroundTransferServiceTests.scratch()
        defer { try? FileManager.default.removeItem(at: work) }
        let name = String(repeating: "p", count: 255)
        let destination = work.path + "/" + name
        let partial = OSSTransferSpool.partialPath(of: destination)
        #expect(partial == work.path + "/" + name.dropLast(8) + ".partial")
        #expect(OSSTransferSpool.partialPath(of: "/s/files/1-a") == "/s/files/1-a.partial")
        let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 3) }
        try await withServerAndClient(version: .v4) { _, client in
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "k", data: Data(bytes)))
            let url = try await client.presignConstrainURL(bucket: "bkt", key: "k", expiration: 600)
            let transport = OSSTransportKind.automatic.makeTransport(configuration: OSSClientConfiguration())
            let status: Int
            do {
                status = try await OSSSimulatedTransferDaemon.download(
                    .download(url: url, taskDescription: "t"), to: destination, transport: transport
                ).0
                try? await transport.shutdown()
            } catch {
                try? await transport.shutdown()
                throw error
            }
            #expect(status == 200)
            #expect(Array(try Data(contentsOf: URL(fileURLWithPath: destination))) == bytes)
            #expect(try Self.names(work) == [name])
        }
    }
}
