@testable import AliyunOSS
import Foundation
import Testing

/// The Errors article is the one list of codes people read (the README's list can be checked against it): its
/// tables must name every code the SDK has, with the SDK's disposition. And the codes are declared in one place.
@Suite("Error catalog")
struct ErrorCatalogTests {
    static var root: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
    }

    /// The rows of the article's table under `heading`: the first cell's code, and the other cells.
    static func table(under heading: String) throws -> [(code: String, cells: [String])] {
        let url = root.appendingPathComponent("Sources/AliyunOSS/AliyunOSS.docc/Articles/Errors.md")
        let lines = try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n")
        let start = try #require(lines.firstIndex(of: heading), "no \(heading) in the article")
        var rows: [(String, [String])] = []
        for line in lines[(start + 1)...] {
            if line.hasPrefix("#") { break }
            guard line.hasPrefix("| `") else { continue }
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            rows.append((cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`")), Array(cells.dropFirst())))
        }
        return rows
    }

    /// `final, *every request*` → (final, true).
    static func disposition(_ cell: String) -> (OSSErrorDisposition?, Bool) {
        let parts = cell.components(separatedBy: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        return (OSSErrorDisposition(rawValue: parts[0]), parts.contains("*every request*"))
    }

    /// The Swift name of a code (`networkError` for `NetworkError`).
    static func memberName(_ code: OSSClientErrorCode) -> String {
        code.rawValue.prefix(1).lowercased() + code.rawValue.dropFirst()
    }

    @Test func theArticleListsEveryClientCodeWithItsDisposition() throws {
        let rows = try Self.table(under: "### Client error codes")
        #expect(rows.map(\.code).sorted() == OSSClientErrorCode.allKnown.map(Self.memberName).sorted())
        for code in OSSClientErrorCode.allKnown {
            let row = try #require(rows.first { $0.code == Self.memberName(code) })
            let (disposition, everyRequest) = Self.disposition(row.cells[0])
            #expect(disposition == OSSErrorDisposition(OSSClientError(code, "x")), "\(code)")
            #expect(everyRequest == OSSErrorDisposition.affectsEveryRequest(OSSClientError(code, "x")), "\(code)")
            #expect(row.cells[1].count > 10, "\(code) says what to do")
        }
    }

    @Test func theArticleListsEveryKnownServerCodeWithItsStatusAndDisposition() throws {
        let rows = try Self.table(under: "### Server error codes")
        #expect(rows.map(\.code).sorted() == OSSServerError.knownCodes.keys.sorted())
        for row in rows {
            let known = try #require(OSSServerError.knownCodes[row.code])
            #expect(Int(row.cells[0]) == known.status, "\(row.code)")
            let error = OSSServerError(statusCode: known.status, code: row.code, message: "")
            let (disposition, everyRequest) = Self.disposition(row.cells[1])
            #expect(disposition == OSSErrorDisposition(error), "\(row.code)")
            #expect(everyRequest == OSSErrorDisposition.affectsEveryRequest(error), "\(row.code)")
        }
    }

    /// Client codes are declared in `Errors/OSSClientErrorCode.swift` only, and each one declared there is in
    /// `allKnown` (so a code cannot be added without a disposition, a row in the article and an exit status).
    @Test func clientCodesAreDeclaredInOnePlace() throws {
        let sources = Self.root.appendingPathComponent("Sources/AliyunOSS")
        let home = "Errors/OSSClientErrorCode.swift"
        let enumerator = try #require(FileManager.default.enumerator(atPath: sources.path))
        let declaration = try Regex(#"static let (\w+) = Self\(rawValue: "(\w+)"\)"#)
        var declared: [String] = []
        for case let path as String in enumerator where path.hasSuffix(".swift") {
            let text = try String(contentsOf: sources.appendingPathComponent(path), encoding: .utf8)
            if path == home {
                declared = text.matches(of: declaration).map { String(text[$0.range]) }
            } else {
                #expect(!text.contains("extension OSSClientErrorCode"), "\(path) declares client error codes")
                #expect(!text.contains("OSSClientErrorCode(rawValue:"), "\(path) makes a client error code")
            }
        }
        #expect(declared.count == OSSClientErrorCode.allKnown.count)
        for code in OSSClientErrorCode.allKnown {
            #expect(declared.contains { $0.contains("static let \(Self.memberName(code)) = Self(rawValue: \"\(code.rawValue)\")") })
        }
    }
}
