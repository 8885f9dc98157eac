import Foundation

/// The public API of the SDK's modules, read from their sources: every `public`/`open` type and every public
/// member, named the way DocC links name them (`OSSClient`, `OSSClient/putObject(_:)`,
/// `OSSClientConfiguration/Timeouts/read`, `OSSClientErrorCode/invalidArgument`). Used to check that the names the
/// porting article cites exist.
///
/// A reader of declarations, not a compiler: string literals and comments are removed first, then braces are
/// counted to know which type a declaration belongs to. Enum cases of public enums and requirements of public
/// protocols count as public.
struct PublicAPIIndex: CustomStringConvertible {
    private(set) var names: Set<String> = []
    var description: String { "PublicAPIIndex(\(names.count) names)" }

    init(sourceDirectories: [URL]) throws {
        for directory in sourceDirectories {
            guard let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil) else { continue }
            for case let file as URL in files where file.pathExtension == "swift" {
                index(Self.stripped(try String(contentsOf: file, encoding: .utf8)))
            }
        }
    }

    func contains(_ name: String) -> Bool { names.contains(name) }

    /// The source without comments and with every string literal emptied, so that neither braces nor `public`
    /// inside them are read.
    static func stripped(_ source: String) -> String {
        var out = ""
        let chars = Array(source)
        var i = 0
        func starts(_ text: String, at index: Int) -> Bool {
            let t = Array(text)
            return index + t.count <= chars.count && Array(chars[index..<index + t.count]) == t
        }
        while i < chars.count {
            if starts("//", at: i) {
                while i < chars.count, chars[i] != "\n" { i += 1 }
            } else if starts("/*", at: i) {
                i += 2
                while i < chars.count, !starts("*/", at: i) { i += 1 }
                i += 2
            } else if chars[i] == "#" || chars[i] == "\"" {
                var hashes = 0
                var j = i
                while j < chars.count, chars[j] == "#" { hashes += 1; j += 1 }
                guard j < chars.count, chars[j] == "\"" else {
                    out.append(chars[i])
                    i += 1
                    continue
                }
                let multiline = starts("\"\"\"", at: j)
                let quote = multiline ? "\"\"\"" : "\""
                j += quote.count
                let close = quote + String(repeating: "#", count: hashes)
                while j < chars.count, !starts(close, at: j) {
                    if chars[j] == "\\", hashes == 0 { j += 1 }
                    j += 1
                }
                i = j + close.count
                out += "\"\""
            } else {
                out.append(chars[i])
                i += 1
            }
        }
        return out
    }

    private struct Scope {
        /// The type's DocC path (`OSSClientConfiguration/Timeouts`); `nil` for a function body or closure.
        var name: String?
        var kind: String
        var isPublic: Bool
    }

    private static let typeDeclaration = try! NSRegularExpression(
        pattern: #"^\s*(?:@[\w().: ]+\s+)*((?:(?:public|open|internal|private|fileprivate|final|indirect|package)\s+)*)(struct|class|enum|actor|protocol|extension)\s+([A-Za-z_][\w.]*)"#)
    private static let memberDeclaration = try! NSRegularExpression(
        pattern: #"^\s*(?:@[\w().: ]+\s+)*((?:(?:public|open|internal|private|fileprivate|static|class|final|override|mutating|nonmutating|nonisolated|convenience|required|lazy|weak|unowned|indirect|dynamic|package|private\(set\)|fileprivate\(set\)|internal\(set\))\s+)*)(func|var|let|case|init|subscript|typealias|associatedtype)\b\s*([^\n]*)"#)

    private mutating func index(_ source: String) {
        var stack: [Scope] = []
        var pending: Scope?
        let lines = source.components(separatedBy: "\n")
        for (lineIndex, line) in lines.enumerated() {
            let range = NSRange(line.startIndex..., in: line)
            if let match = Self.typeDeclaration.firstMatch(in: line, range: range) {
                let modifiers = Self.group(match, 1, in: line) ?? ""
                let kind = Self.group(match, 2, in: line) ?? ""
                let name = Self.group(match, 3, in: line) ?? ""
                let outer = stack.last?.name
                let path = (kind == "extension" || outer == nil ? name : outer! + "." + name)
                    .replacingOccurrences(of: ".", with: "/")
                let isPublic = modifiers.contains("public") || modifiers.contains("open")
                if isPublic, kind != "extension" { names.insert(path) }
                pending = Scope(name: path, kind: kind, isPublic: isPublic)
            } else if stack.isEmpty, let match = Self.memberDeclaration.firstMatch(in: line, range: range),
                Self.group(match, 2, in: line) == "func", (Self.group(match, 1, in: line) ?? "").contains("public")
            {
                // A public top-level function (`withOSSClient(...)`), named without a type.
                var rest = Self.group(match, 3, in: line) ?? ""
                var extra = lineIndex + 1
                while extra < lines.count, rest.filter({ $0 == "(" }).count > rest.filter({ $0 == ")" }).count {
                    rest += " " + lines[extra]
                    extra += 1
                }
                names.formUnion(Self.memberNames(kind: "func", rest: rest))
            } else if let top = stack.last, let currentType = top.name,
                let match = Self.memberDeclaration.firstMatch(in: line, range: range)
            {
                // Only direct members of a type: a `case` of a `switch` inside a method is not one.
                let modifiers = Self.group(match, 1, in: line) ?? ""
                let kind = Self.group(match, 2, in: line) ?? ""
                var rest = Self.group(match, 3, in: line) ?? ""
                let restricted = ["private", "internal", "fileprivate", "package"].contains { modifiers.contains($0) }
                let implicitlyPublic =
                    top.isPublic && !restricted
                    && ((kind == "case" && top.kind == "enum") || top.kind == "protocol" || top.kind == "extension")
                if modifiers.contains("public") || modifiers.contains("open") || implicitlyPublic {
                    // A parameter list may run over several lines.
                    var extra = lineIndex + 1
                    while kind == "func" || kind == "init", extra < lines.count,
                        rest.filter({ $0 == "(" }).count > rest.filter({ $0 == ")" }).count
                    {
                        rest += " " + lines[extra]
                        extra += 1
                    }
                    for name in Self.memberNames(kind: kind, rest: rest) { names.insert(currentType + "/" + name) }
                }
            }
            // Braces open and close scopes; the first `{` after a type declaration opens that type.
            for character in line {
                if character == "{" {
                    stack.append(pending ?? Scope(name: nil, kind: "", isPublic: false))
                    pending = nil
                } else if character == "}" {
                    _ = stack.popLast()
                }
            }
        }
    }

    /// The DocC names a member declaration introduces: `name`, `name(labels)` for functions and initializers,
    /// one per case for `case a, b(Int)`.
    static func memberNames(kind: String, rest: String) -> [String] {
        switch kind {
        case "func":
            let name = String(rest.prefix { $0 != "(" && $0 != "<" && $0 != " " })
            return [name + labels(afterName: rest)]
        case "init":
            let rest = rest.hasPrefix("?") || rest.hasPrefix("!") ? String(rest.dropFirst()) : rest
            return ["init" + labels(afterName: rest)]
        case "case":
            return splitTopLevel(rest, separator: ",").map { item in
                String(item.trimmingCharacters(in: .whitespaces).prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "`" })
                    .replacingOccurrences(of: "`", with: "")
            }.filter { !$0.isEmpty }
        default:
            let name = rest.trimmingCharacters(in: .whitespaces)
                .prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "`" }
            return [String(name).replacingOccurrences(of: "`", with: "")]
        }
    }

    /// `(_:maxBytes:)` for `(_ request: R, maxBytes: Int = 1)`.
    static func labels(afterName rest: String) -> String {
        guard let open = rest.firstIndex(of: "(") else { return "()" }
        var depth = 0
        var inside = ""
        var previous: Character = " "
        for character in rest[open...] {
            if "([<".contains(character) { depth += 1 }
            if ")]".contains(character) || (character == ">" && previous != "-") { depth -= 1 }
            inside.append(character)
            previous = character
            if depth == 0 { break }
        }
        let parameters = splitTopLevel(String(inside.dropFirst().dropLast()), separator: ",")
        let labels = parameters.compactMap { parameter -> String? in
            let head = parameter.split(separator: ":", maxSplits: 1).first.map(String.init)?
                .trimmingCharacters(in: .whitespaces) ?? ""
            guard !head.isEmpty else { return nil }
            return String(head.split(separator: " ").first ?? "_") + ":"
        }
        return "(" + labels.joined() + ")"
    }

    static func splitTopLevel(_ text: String, separator: Character) -> [String] {
        var parts: [String] = []
        var current = ""
        var depth = 0
        var previous: Character = " "
        for character in text {
            defer { previous = character }
            if "([<{".contains(character) { depth += 1 }
            if ")]}".contains(character) || (character == ">" && previous != "-") { depth -= 1 }
            if character == separator, depth == 0 {
                parts.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        if !current.trimmingCharacters(in: .whitespaces).isEmpty { parts.append(current) }
        return parts
    }

    private static func group(_ match: NSTextCheckingResult, _ index: Int, in line: String) -> String? {
        guard let range = Range(match.range(at: index), in: line) else { return nil }
        return String(line[range])
    }
}
