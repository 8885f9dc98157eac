import Foundation
import OSSResumable
import Testing

@Suite("Base directory: records that survive a move of their directory")
struct OSSBaseDirectoryTests {
    @Test func relativeAndResolvedPaths() {
        let base = OSSBaseDirectory(path: "/data/app-1/")
        #expect(base.path == "/data/app-1")
        #expect(base.relativePath(of: "/data/app-1/Documents/a.bin") == "Documents/a.bin")
        #expect(base.relativePath(of: "/data/app-1/./Documents/../a.bin") == "a.bin")
        #expect(base.relativePath(of: "/data/app-10/a.bin") == nil, "a sibling sharing the prefix is outside")
        #expect(base.relativePath(of: "/data/app-1") == nil)
        #expect(base.portable("/elsewhere/a.bin") == "/elsewhere/a.bin")
        #expect(base.portable("Documents/a.bin") == "Documents/a.bin")
        #expect(base.resolve("Documents/a.bin") == "/data/app-1/Documents/a.bin")
        #expect(base.resolve("/elsewhere/a.bin") == "/elsewhere/a.bin")
        #expect(throws: OSSResumableError.recordNeedsBaseDirectory(path: "Documents/a.bin")) {
            _ = try OSSBaseDirectory.resolve("Documents/a.bin", against: nil)
        }
    }

    @Test("record names from relative paths do not depend on where the base directory is")
    func namesArePortable() {
        let name = OSSRecordStore.uploadRecordName(
            filePath: "Documents/a.bin", bucket: "b", key: "k", requestedPartSize: 102_400, crcMode: .enabled)
        let absolute = OSSRecordStore.uploadRecordName(
            filePath: "/data/app-1/Documents/a.bin", bucket: "b", key: "k", requestedPartSize: 102_400, crcMode: .enabled)
        #expect(name != absolute)
        #expect(
            OSSRecordStore.downloadRecordName(bucket: "b", key: "k", requestedRange: nil, destinationPath: "Documents/a.bin")
                != OSSRecordStore.downloadRecordName(bucket: "b", key: "k", requestedRange: nil, destinationPath: "/Documents/a.bin"))
    }

    @Test("a store with a base directory writes relative paths without inode, and reads them back resolved after a move")
    func storeRelativizesAndResolves() throws {
        try withTemporaryDirectory { dir in
            let first = OSSBaseDirectory(path: dir + "/app-1")
            let store = OSSRecordStore(directoryPath: "Library/Transfers", baseDirectory: first)
            #expect(store.directoryPath == dir + "/app-1/Library/Transfers")
            var upload = OSSRecordCodecTests.sampleUpload()
            upload.filePath = dir + "/app-1/Documents/a.bin"
            try store.save(upload, name: "u.upload.record")
            var download = try OSSRecordCodecTests.sampleDownload()
            download.destinationPath = dir + "/app-1/Documents/d.bin"
            download.tempFilePath = dir + "/app-1/Documents/d.bin.osstmp-0123456789abcdef"
            try store.save(download, name: "d.download.record")
            let text = try String(contentsOfFile: store.recordPath(name: "u.upload.record"), encoding: .utf8)
            #expect(text.contains("\"filePath\":\"Documents/a.bin\""))
            #expect(!text.contains(dir))
            #expect(!text.contains("\"inode\""), "an inode does not survive a restore")

            try FileManager.default.moveItem(atPath: dir + "/app-1", toPath: dir + "/app-2")
            let moved = OSSRecordStore(directoryPath: "Library/Transfers", baseDirectory: OSSBaseDirectory(path: dir + "/app-2"))
            let loaded = try #require(try moved.load(OSSUploadRecord.self, name: "u.upload.record"))
            #expect(loaded.filePath == dir + "/app-2/Documents/a.bin")
            #expect(loaded.fileIdentity == upload.fileIdentity.withoutFileSystemIdentity)
            let loadedDownload = try #require(try moved.load(OSSDownloadRecord.self, name: "d.download.record"))
            #expect(loadedDownload.destinationPath == dir + "/app-2/Documents/d.bin")
            #expect(loadedDownload.tempFilePath == dir + "/app-2/Documents/d.bin.osstmp-0123456789abcdef")

            // Without the base directory the record is refused with a precise error, not misread.
            let blind = OSSRecordStore(directoryPath: dir + "/app-2/Library/Transfers")
            #expect(throws: OSSResumableError.recordNeedsBaseDirectory(path: "Documents/a.bin")) {
                _ = try blind.load(OSSUploadRecord.self, name: "u.upload.record")
            }
        }
    }
}
