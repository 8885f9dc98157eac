import Foundation
import Testing

/// The README's table of operations (this SDK beside the official Go, Python and Swift SDKs v2) is kept true by
/// this test: "this SDK"'s column is derived from the declarations in Sources/AliyunOSS (every `OSSAPI("Name"`,
/// every `OSSOperation(name:` and every bucket configuration family's Put/Get/Delete, List for named families), and
/// the table must say yes exactly there, with the count in its first row.
@Suite("README operations table")
struct OperationsTableTests {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The API names the SDK declares.
    static func declaredOperations() throws -> Set<String> {
        var names = Set<String>()
        let sources = packageRoot.appendingPathComponent("Sources/AliyunOSS")
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
        #expect(files.count > 20, "the SDK's sources are found")
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            names.formUnion(matches(#"OSSAPI\(\s*"([A-Z][A-Za-z0-9]+)""#, text).map { $0[0] })
            names.formUnion(matches(#"(?:OSSOperation|processOperation)\(\s*name: "([A-Z][A-Za-z0-9]+)""#, text).map { $0[0] })
            let family = #"struct \w+: (OSSDeletableBucketConfiguration|OSSBucketConfiguration)\b[^{]*\{\s*public static let family = OSSBucketConfigurationFamily\(\s*name: "(\w+)""#
            for match in matches(family, text) {
                names.formUnion(["PutBucket" + match[1], "GetBucket" + match[1]])
                if match[0] == "OSSDeletableBucketConfiguration" { names.insert("DeleteBucket" + match[1]) }
            }
            for match in matches(#"OSSBucketConfigurationEntries\(\s*stem: "(\w+)""#, text) {
                names.formUnion(["Put", "Get", "Delete", "List"].map { $0 + match[0] })
            }
        }
        return names
    }

    /// Each match's capture groups.
    static func matches(_ pattern: String, _ text: String) -> [[String]] {
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return [] }
        let range = NSRange(text.startIndex..., in: text)
        return regex.matches(in: text, range: range).map { match in
            (1..<match.numberOfRanges).map { i in Range(match.range(at: i), in: text).map { String(text[$0]) } ?? "" }
        }
    }

    @Test func ourColumnIsWhatTheCodeDeclares() throws {
        let declared = try Self.declaredOperations()
        #expect(declared.contains("PutBucketCors") && declared.contains("ListObjectsV2") && declared.contains("ListStyle"))
        let readme = try String(contentsOf: Self.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        guard let begin = readme.range(of: "<!-- operations:begin -->"), let end = readme.range(of: "<!-- operations:end -->") else {
            Issue.record("README.md has no <!-- operations:begin --> ... <!-- operations:end --> table")
            return
        }
        let rows = readme[begin.upperBound..<end.lowerBound].split(separator: "\n")
            .map { $0.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) } }
            .filter { $0.count >= 6 }
        let operations = rows.filter { !$0[1].hasPrefix("**") && $0[1] != "operation" && !$0[1].hasPrefix("---") }
        var yes = Set<String>()
        var seen = Set<String>()
        for row in operations {
            let name = row[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            #expect(seen.insert(name.lowercased()).inserted, "\(name) has two rows")
            if row[2] == "yes" { yes.insert(name.lowercased()) }
        }
        let lowered = Set(declared.map { $0.lowercased() })
        #expect(lowered.subtracting(yes).sorted() == [], "declared in Sources/AliyunOSS but not yes in the README's table")
        #expect(yes.subtracting(lowered).sorted() == [], "yes in the README's table but not declared in Sources/AliyunOSS")
        let count = rows.first { $0[1] == "**operations**" }
        #expect(count?[2] == "**\(lowered.count)**", "the count row says \(count?[2] ?? "nothing"), the code declares \(lowered.count)")
    }
}
