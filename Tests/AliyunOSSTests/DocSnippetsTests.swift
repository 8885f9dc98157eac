import AliyunOSS
import Foundation
import Testing

/// The app-facing articles' code is the code of the AppleSnippets target, which is compiled (Swift 6, strict
/// concurrency, stand-ins for UIKit and SwiftUI where they do not exist): every ```swift block of these articles
/// must appear verbatim in its sources (indented as a whole where it sits in a function), so an article cannot
/// drift from code that compiles.
@Suite("DocC snippets")
struct DocSnippetsTests {
    static let articles = [
        "BackgroundTransfers.md", "UsingInAniOSApp.md", "DirectoryTransfers.md", "BrowserUploads.md",
    ]

    static var root: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// Checks that every ```swift block of `article` (there are `count`) is `source`'s code verbatim, and that an
    /// edited block is not (the check can fail).
    static func expectBlocksVerbatim(of article: String, count: Int, in source: URL) throws {
        let blocks = try blocks(of: article)
        #expect(blocks.count == count)
        let lines = try String(contentsOf: source, encoding: .utf8).components(separatedBy: "\n")
        for block in blocks {
            #expect(contains(block, in: lines), "not in \(source.lastPathComponent):\n\(block.joined(separator: "\n"))")
            var edited = block
            edited[block.count / 2] += ")"
            #expect(!contains(edited, in: lines))
        }
    }

    /// The ```swift blocks of an article, as lines.
    static func blocks(of article: String) throws -> [[String]] {
        try blocks(in: root.appendingPathComponent("Sources/AliyunOSS/AliyunOSS.docc/Articles/" + article))
    }

    /// The ```swift blocks of a Markdown file, as lines.
    static func blocks(in url: URL) throws -> [[String]] {
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

    /// Every Swift source of a snippets target (`Tests/AppleSnippets` by default), as lines.
    static func snippetSources(_ target: String = "AppleSnippets") throws -> [String: [String]] {
        let directory = root.appendingPathComponent("Tests/" + target)
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

/// README.md's ```swift blocks: the Package.swift under Install is evaluated by SwiftPM and must name this package's
/// products; every other block must stand verbatim in the compiled ReadmeSnippets target, and a block that begins with
/// imports in a file with exactly those imports, so a block that forgets one (`import Foundation` for `URL`, the SDK
/// beside `OSSLocalServer`) fails to compile there instead of in a newcomer's first build.
@Suite("README snippets")
struct ReadmeSnippetsTests {
    static var readme: URL { DocSnippetsTests.root.appendingPathComponent("README.md") }

    static func isManifest(_ block: [String]) -> Bool { block.first?.hasPrefix("// swift-tools-version") == true }

    /// A block's leading `import` lines (blank lines among them dropped) and the rest.
    static func splitImports(_ block: [String]) -> (imports: Set<String>, rest: [String]) {
        var rest = block[...]
        var imports: Set<String> = []
        while let first = rest.first, first.hasPrefix("import ") || first.isEmpty {
            if !first.isEmpty { imports.insert(first) }
            rest = rest.dropFirst()
        }
        return (imports, Array(rest))
    }

    /// The `import` lines of a source file (at the start of a line, outside any indentation).
    static func imports(of lines: [String]) -> Set<String> { Set(lines.filter { $0.hasPrefix("import ") }) }

    @Test("every code block is in the compiled ReadmeSnippets target, verbatim, with exactly the imports it shows")
    func codeBlocksCompile() throws {
        let blocks = try DocSnippetsTests.blocks(in: Self.readme).filter { !Self.isManifest($0) }
        #expect(blocks.count >= 4)
        let sources = try DocSnippetsTests.snippetSources("ReadmeSnippets")
        for block in blocks {
            let (imports, rest) = Self.splitImports(block)
            let files = sources.filter { imports.isEmpty || Self.imports(of: $0.value) == imports }
            let found = files.values.contains { DocSnippetsTests.contains(rest, in: $0) }
            #expect(
                found,
                "this README block is not in Tests/ReadmeSnippets (in a file importing exactly \(imports.sorted())):\n\(block.joined(separator: "\n"))")
        }
    }

    @Test("a block missing an import is caught: the Quick start without `import Foundation`")
    func missingImportIsCaught() throws {
        let sources = try DocSnippetsTests.snippetSources("ReadmeSnippets")
        let quickStart = try #require(
            try DocSnippetsTests.blocks(in: Self.readme).first { Self.splitImports($0).imports.contains("import Foundation") })
        let (imports, rest) = Self.splitImports(quickStart)
        let fewer = imports.subtracting(["import Foundation"])
        #expect(!sources.values.contains { Self.imports(of: $0) == fewer && DocSnippetsTests.contains(rest, in: $0) })
    }

    @Test("the Package.swift block evaluates and depends on this package's products by its name")
    func manifestBlockEvaluates() throws {
        let manifest = try #require(try DocSnippetsTests.blocks(in: Self.readme).first(where: Self.isManifest))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("readme-manifest-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        for folder in ["Sources/MyApp", "Tests/MyAppTests"] {
            try FileManager.default.createDirectory(
                at: directory.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        try Data(manifest.joined(separator: "\n").utf8).write(to: directory.appendingPathComponent("Package.swift"))
        try Data("print(1)\n".utf8).write(to: directory.appendingPathComponent("Sources/MyApp/main.swift"))
        try Data("\n".utf8).write(to: directory.appendingPathComponent("Tests/MyAppTests/MyAppTests.swift"))

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swift", "package", "dump-package"]
        process.currentDirectoryURL = directory
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let json = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "swift package dump-package failed on the README's Package.swift")

        // This package's name and products, from its own manifest.
        let ours = try String(contentsOf: DocSnippetsTests.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let name = try #require(ours.firstMatch(of: /let package = Package\(\s*name: "([^"]+)"/)?.output.1)
        let products = Set(ours.matches(of: /\.library\(name: "([^"]+)"/).map { String($0.output.1) })

        let dumped = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        let text = String(decoding: json, as: UTF8.self)
        #expect(text.contains("\"identity\" : \"\(name)\""), "the README depends on another package name than \(name)")
        let targets = try #require(dumped["targets"] as? [[String: Any]])
        var named: [String] = []
        for target in targets {
            for dependency in target["dependencies"] as? [[String: Any]] ?? [] {
                if let product = dependency["product"] as? [Any], let productName = product.first as? String {
                    named.append(productName)
                    #expect((product.count > 1 ? product[1] as? String : nil) == String(name))
                }
            }
        }
        #expect(Set(named) == ["AliyunOSS", "OSSLocalServer"])
        #expect(Set(named).isSubset(of: products), "the README names a product this package does not have")
    }

    /// The executable targets built from `Samples/`, by name, from the package manifest.
    /// The executables of the samples' own package (Samples/Package.swift): its `sample("name", ...)` targets and its
    /// `.executableTarget(name: ...)` ones.
    static func sampleTargets() throws -> Set<String> {
        let manifest = try String(
            contentsOf: DocSnippetsTests.root.appendingPathComponent("Samples/Package.swift"), encoding: .utf8)
        var names = Set(manifest.matches(of: /\n\s+sample\("([a-z-]+)"/).map { String($0.output.1) })
        for target in manifest.components(separatedBy: ".executableTarget(").dropFirst() {
            // The target's own name is its first argument (`sample(...)` passes a variable there instead).
            if let name = target.prefixMatch(of: /\s*name: "([^"]+)"/)?.output.1 { names.insert(String(name)) }
        }
        return names
    }

    @Test("the README lists every sample the package builds, and no other")
    func sampleListIsComplete() throws {
        let readme = try String(contentsOf: Self.readme, encoding: .utf8)
        let paragraph = try #require(readme.components(separatedBy: "\n\n").first { $0.hasPrefix("Samples are a package of their own") })
        let listed = paragraph.components(separatedBy: "(`swift run")[0].matches(of: /`([a-z-]+)`/).map { String($0.output.1) }
        let built = try Self.sampleTargets()
        #expect(!built.isEmpty)
        #expect(Set(listed) == built, "README lists \(listed.sorted()), the package builds \(built.sorted())")
    }

    @Test("the README's module table names every library the package offers")
    func moduleTableIsComplete() throws {
        let readme = try String(contentsOf: Self.readme, encoding: .utf8)
        let manifest = try String(contentsOf: DocSnippetsTests.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let products = Set(manifest.matches(of: /\.library\(name: "([^"]+)"/).map { String($0.output.1) })
        let table = readme.components(separatedBy: "\n").filter { $0.hasPrefix("| `") }
        let listed = Set(table.compactMap { $0.firstMatch(of: /^\| `([A-Za-z0-9]+)`/).map { String($0.output.1) } })
        #expect(!products.isEmpty)
        #expect(products.isSubset(of: listed), "README's module table lacks \(products.subtracting(listed).sorted())")
    }

    @Test("the README's error list names every client error code the SDK throws, and no other")
    func errorListIsComplete() throws {
        let readme = try String(contentsOf: Self.readme, encoding: .utf8)
        let bullet = try #require(readme.components(separatedBy: "\n- ").first { $0.hasPrefix("`OSSClientError` with") })
        let listed = bullet.components(separatedBy: "\n- ")[0].matches(of: /`([a-z][A-Za-z0-9]+)`/).map { String($0.output.1) }
        // The README names the Swift members (`fileChanged`), whose raw values are the same names capitalised.
        let known = OSSClientErrorCode.allKnown.map { $0.rawValue.prefix(1).lowercased() + $0.rawValue.dropFirst() }
        #expect(listed.count == Set(listed).count, "the README names a code twice")
        #expect(Set(listed) == Set(known), "README: \(Set(listed).symmetricDifference(known).sorted()) differ from the code")
    }
}
