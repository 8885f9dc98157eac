import Foundation
import OSSCRC64
import OSSResumable
import Testing

/// Names derived from a user's file name by adding to it fit NAME_MAX (255 bytes): the user's part is cut at a
/// character boundary, the added prefix and suffix are kept whole.
@Suite("Derived file names near NAME_MAX")
struct OSSDerivedFileNameTests {
    static let suffixes = [".tmp", ".partial", ".0123456789abcdef.download", ".osstmp-" + String(repeating: "f", count: 16)]

    @Test("a name that fits is the original with its prefix and suffix")
    func unchangedWhileItFits() {
        #expect(OSSDerivedFileName.path("/d/x.bin", suffix: ".tmp") == "/d/x.bin.tmp")
        #expect(OSSDerivedFileName.path("/d/x.bin", prefix: ".", suffix: ".1.download") == "/d/.x.bin.1.download")
        #expect(OSSDerivedFileName.path("x.bin", suffix: ".tmp") == "x.bin.tmp")
        #expect(OSSDerivedFileName.path("/x.bin", prefix: ".", suffix: ".tmp") == "/.x.bin.tmp")
        let exact = String(repeating: "a", count: 250)
        #expect(OSSDerivedFileName.path("/d/" + exact, prefix: ".", suffix: ".tmp") == "/d/." + exact + ".tmp")
    }

    @Test(
        "a long name is cut at a character boundary to fit 255 bytes, deterministically",
        arguments: [
            String(repeating: "é", count: 121) + "long.bin", String(repeating: "b", count: 255),
            String(repeating: "字", count: 85), String(repeating: "👍🏽", count: 31) + "abc",
        ])
    func shortened(name: String) {
        for suffix in Self.suffixes {
            for prefix in ["", "."] {
                let path = OSSDerivedFileName.path("/d/é/" + name, prefix: prefix, suffix: suffix)
                #expect(path == OSSDerivedFileName.path("/d/é/" + name, prefix: prefix, suffix: suffix))
                #expect(path.hasPrefix("/d/é/" + prefix) && path.hasSuffix(suffix))
                let file = String(path.dropFirst("/d/é/".count))
                #expect(file.utf8.count <= 255 && file.utf8.count >= 255 - 7, "\(file.utf8.count)")
                // The name's part is whole characters of the name, its beginning.
                let kept = String(decoding: Array(file.utf8.dropFirst(prefix.utf8.count).dropLast(suffix.utf8.count)), as: UTF8.self)
                #expect(prefix.utf8.count + kept.utf8.count + suffix.utf8.count == file.utf8.count)
                #expect(!kept.isEmpty && name.hasPrefix(kept))
                let fits = prefix.utf8.count + name.utf8.count + suffix.utf8.count <= 255
                #expect(fits ? kept == name : kept.count < name.count)
            }
        }
    }

    @Test("a part's slice copy to a 255-byte file name goes through a shortened .tmp and leaves only the copy")
    func sliceCopyToALongName() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bg-slice-long-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let bytes = (0..<1_500_000).map { UInt8(truncatingIfNeeded: $0 &* 17 &+ 3) }
        let source = directory.appendingPathComponent("src").path
        try Data(bytes).write(to: URL(fileURLWithPath: source))
        // 255 bytes; the 251 a `.tmp` leaves room for end inside the 125th `é`.
        let name = "ab" + String(repeating: "é", count: 126) + "c"
        #expect(name.utf8.count == 255)
        let copy = directory.path + "/" + name
        // A stale temporary file (a copy interrupted earlier) is found again by its deterministic name and replaced.
        let stale = OSSDerivedFileName.path(copy, suffix: ".tmp")
        #expect(stale == directory.path + "/ab" + String(repeating: "é", count: 124) + ".tmp")
        #expect(FileManager.default.createFile(atPath: stale, contents: Data("stale".utf8)))
        let digest = try OSSPartSliceCopy.copy(source: source, offset: 100_001, length: 1_200_000, to: copy)
        let slice = Array(bytes[100_001..<1_300_001])
        #expect(digest.crc64 == CRC64.checksum(slice))
        #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: copy))) == slice)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == [name, "src"].sorted())
    }
}
