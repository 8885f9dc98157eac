import Foundation
import OSSResumable
import Testing

@Suite("Durable writes")
struct OSSDurableFileTests {
    @Test("write replaces the file atomically and leaves no temporary file; failures name the path")
    func writeAndRename() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/f.json"
            try OSSDurableFile.write(Array("old".utf8), to: path, temporaryPath: dir + "/.f.tmp-1")
            try OSSDurableFile.write(Array("new".utf8), to: path, temporaryPath: dir + "/.f.tmp-2")
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "new")
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["f.json"])
            // A temporary path that exists already is never overwritten.
            try Data("keep".utf8).write(to: URL(fileURLWithPath: dir + "/.f.tmp-3"))
            #expect {
                try OSSDurableFile.write(Array("x".utf8), to: path, temporaryPath: dir + "/.f.tmp-3")
            } throws: { error in
                if case .fileCantWrite(let failed, _) = error as? OSSResumableError { failed == dir + "/.f.tmp-3" } else { false }
            }
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "new")

            try OSSDurableFile.rename(path, to: dir + "/g.json")
            #expect(FileManager.default.fileExists(atPath: dir + "/g.json") && !FileManager.default.fileExists(atPath: path))
            #expect {
                try OSSDurableFile.rename(dir + "/g.json", to: dir + "/missing/h.json")
            } throws: { error in
                if case .fileCantWrite(let failed, _) = error as? OSSResumableError { failed == dir + "/missing/h.json" } else { false }
            }
            #expect(OSSDurableFile.sync(path: dir + "/g.json") == nil)
            #expect(OSSDurableFile.syncDirectory(dir) == nil)
            #expect(OSSDurableFile.sync(path: dir + "/none") != nil)
            #expect(OSSDurableFile.parentDirectory(of: "/a") == "/" && OSSDurableFile.parentDirectory(of: "/a/b") == "/a")
        }
    }
}
