import Foundation
import Testing

/// The app-facing articles' code is the code of the AppleSnippets target, which is compiled (Swift 6, strict
/// concurrency, stand-ins for UIKit and SwiftUI where they do not exist): every ```swift block of these articles
/// must appear verbatim in its sources (indented as a whole where it sits in a function), so an article cannot
/// drift from code that compiles.
@Suite("DocC snippets")
struct DocSnippetsTests {
    static let articles = ["BackgroundTransfers.md", "UsingInAniOSApp.md", "DirectoryTransfers.md"]

    static var root: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// The ```swift blocks of an article, as lines.
    static func blocks(of article: String) throws -> [[String]] {
        let url = root.appendingPathComponent("Sources/AliyunOSS/AliyunOSS.docc/Articles/" + article)
        var blocks: [[String]] = []
        var current: [String]?
        for line in try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n") {
            if current == nil, line.trimmingCharacters(in: .whitespaces) == "```swift" {
                current = []
            } else if current != nil, line.trimmingCharacters(in: .whitespaces) == "```" {
                blocks.append(current!)
                current = nil
            } else if current != nil {
                current!.append(line)
            }
        }
        return blocks
    }

    /// Every Swift source of the snippets target, as lines.
    static func snippetSources() throws -> [String: [String]] {
        let directory = root.appendingPathComponent("Tests/AppleSnippets")
        var sources: [String: [String]] = [:]
        let enumerator = try #require(FileManager.default.enumerator(atPath: directory.path))
        for case let path as String in enumerator where path.hasSuffix(".swift") {
            sources[path] = try String(contentsOf: directory.appendingPathComponent(path), encoding: .utf8)
                .components(separatedBy: "\n")
        }
        return sources
    }

    /// Whether `block` appears in `lines` as consecutive lines, each with the same indentation added (blank lines
    /// stay blank).
    static func contains(_ block: [String], in lines: [String]) -> Bool {
        guard let first = block.first, !block.isEmpty, lines.count >= block.count else { return false }
        for start in 0...(lines.count - block.count) where lines[start].hasSuffix(first) {
            let indent = String(lines[start].dropLast(first.count))
            guard indent.allSatisfy({ $0 == " " }) else { continue }
            let matches = block.indices.allSatisfy { index in
                block[index].isEmpty ? lines[start + index].isEmpty : lines[start + index] == indent + block[index]
            }
            if matches { return true }
        }
        return false
    }

    @Test("every swift block of the article is in the compiled snippets, verbatim", arguments: articles)
    func blocksAreCompiled(article: String) throws {
        let blocks = try Self.blocks(of: article)
        #expect(!blocks.isEmpty)
        let sources = try Self.snippetSources()
        for block in blocks {
            let found = sources.values.contains { Self.contains(block, in: $0) }
            #expect(found, "this block of \(article) is not in Tests/AppleSnippets:\n\(block.joined(separator: "\n"))")
        }
    }

    @Test("a changed block is caught: one character, a dropped line, another indentation inside", arguments: articles)
    func changedBlocksAreCaught(article: String) throws {
        let sources = try Self.snippetSources()
        for block in try Self.blocks(of: article) {
            let middle = block.count / 2
            var edited = block
            edited[middle] += ")"
            var dropped = block
            if block.count >= 3 { dropped.remove(at: middle) }  // a one-line rest of a short block is no test
            var reindented = block
            if !reindented[middle].isEmpty { reindented[middle] = " " + reindented[middle] }
            for changed in [edited, dropped, reindented] where changed != block {
                #expect(!sources.values.contains { Self.contains(changed, in: $0) }, "\(changed.joined(separator: "\n"))")
            }
        }
    }
}
