/// A glob pattern of ``OSSDirectoryTransferOptions/include`` and ``OSSDirectoryTransferOptions/exclude``, matched
/// against paths relative to the local directory (or keys minus the prefix), with `/` separators.
///
/// - `*` matches any characters but `/`; `?` one character but `/`; `[abc]`, `[a-z]` and `[!a-z]` one of a
///   set; `\` makes the next character literal.
/// - `**` as a whole component matches any number of components, none included: `docs/**/*.md`.
/// - A pattern without `/` matches the name at any depth: `*.tmp`, `.git`, `node_modules`.
/// - A pattern with a `/` matches the whole relative path from the top: `build/*.o`, `/TODO` (a leading `/` only
///   anchors).
/// - A trailing `/` matches directories only: `cache/`.
public struct OSSPathPattern: Sendable, Hashable, CustomStringConvertible {
    /// The pattern as written.
    public let pattern: String
    private let components: [String]
    private let anchored: Bool
    private let directoryOnly: Bool

    /// - Throws: ``OSSClientError`` `invalidArgument` for an empty pattern or an unclosed `[`.
    public init(_ pattern: String) throws {
        self.pattern = pattern
        var body = Substring(pattern)
        directoryOnly = body.hasSuffix("/")
        while body.hasSuffix("/") { body = body.dropLast() }
        var anchored = false
        while body.hasPrefix("/") {
            body = body.dropFirst()
            anchored = true
        }
        guard !body.isEmpty else { throw OSSClientError.invalidArgument("an empty path pattern: '\(pattern)'") }
        components = body.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        self.anchored = anchored || components.count > 1
        for component in components where component != "**" {
            guard Self.isWellFormed(Array(component)) else {
                throw OSSClientError.invalidArgument("a path pattern with an unclosed '[': '\(pattern)'")
            }
        }
    }

    public var description: String { pattern }

    /// Whether the pattern matches the item at `relativePath` (a directory when `isDirectory`).
    public func matches(_ relativePath: String, isDirectory: Bool) -> Bool {
        if directoryOnly && !isDirectory { return false }
        let path = relativePath.split(separator: "/", omittingEmptySubsequences: true).map { Array($0) }
        guard let last = path.last else { return false }
        if !anchored { return Self.matchComponent(Array(components[0]), last) }
        return Self.match(components.map { Array($0) }[...], path[...])
    }

    /// Components against components, `**` spanning any number of them.
    private static func match(_ pattern: ArraySlice<[Character]>, _ path: ArraySlice<[Character]>) -> Bool {
        guard let first = pattern.first else { return path.isEmpty }
        if first == ["*", "*"] {
            let rest = pattern.dropFirst()
            var tail = path
            while true {
                if match(rest, tail) { return true }
                guard !tail.isEmpty else { return false }
                tail = tail.dropFirst()
            }
        }
        guard let component = path.first, matchComponent(first, component) else { return false }
        return match(pattern.dropFirst(), path.dropFirst())
    }

    /// One component against one name: `*`, `?`, classes and escapes, by backtracking over the last `*`.
    static func matchComponent(_ pattern: [Character], _ name: [Character]) -> Bool {
        var (p, n) = (0, 0)
        var star: (p: Int, n: Int)?
        while n < name.count {
            if p < pattern.count {
                switch pattern[p] {
                case "*":
                    star = (p, n)
                    p += 1
                    continue
                case "?":
                    p += 1
                    n += 1
                    continue
                case "[":
                    if let (matched, next) = matchClass(pattern, from: p, name[n]), matched {
                        p = next
                        n += 1
                        continue
                    }
                case "\\" where p + 1 < pattern.count:
                    if pattern[p + 1] == name[n] {
                        p += 2
                        n += 1
                        continue
                    }
                default:
                    if pattern[p] == name[n] {
                        p += 1
                        n += 1
                        continue
                    }
                }
            }
            guard let last = star else { return false }
            // The last `*` takes one more character.
            star = (last.p, last.n + 1)
            p = last.p + 1
            n = last.n + 1
        }
        while p < pattern.count, pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }

    /// The class starting at `start` (`[`) against `character`: whether it matches and the index after `]`.
    private static func matchClass(_ pattern: [Character], from start: Int, _ character: Character) -> (Bool, Int)? {
        var index = start + 1
        var negated = false
        if index < pattern.count, pattern[index] == "!" || pattern[index] == "^" {
            negated = true
            index += 1
        }
        var matched = false
        var first = true
        while index < pattern.count {
            var low = pattern[index]
            if low == "]" && !first { return (matched != negated, index + 1) }
            first = false
            if low == "\\", index + 1 < pattern.count {
                index += 1
                low = pattern[index]
            }
            if index + 2 < pattern.count, pattern[index + 1] == "-", pattern[index + 2] != "]" {
                let high = pattern[index + 2]
                if low <= character && character <= high { matched = true }
                index += 3
            } else {
                if low == character { matched = true }
                index += 1
            }
        }
        return nil
    }

    private static func isWellFormed(_ pattern: [Character]) -> Bool {
        var index = 0
        while index < pattern.count {
            switch pattern[index] {
            case "\\": index += 2
            case "[":
                guard let (_, next) = matchClass(pattern, from: index, "\0") else { return false }
                index = next
            default: index += 1
            }
        }
        return true
    }
}

/// A batch's include and exclude patterns.
struct OSSPathFilter: Sendable {
    let include: [OSSPathPattern]
    let exclude: [OSSPathPattern]

    init(_ options: OSSDirectoryTransferOptions) throws {
        include = try options.include.map(OSSPathPattern.init)
        exclude = try options.exclude.map(OSSPathPattern.init)
    }

    /// Whether the walk leaves out the directory at `relativePath` (and everything under it).
    func prunes(directory relativePath: String) -> Bool {
        exclude.contains { $0.matches(relativePath, isDirectory: true) }
    }

    /// Whether the file at `relativePath` is taken, its directories being walked.
    func takes(file relativePath: String) -> Bool {
        if exclude.contains(where: { $0.matches(relativePath, isDirectory: false) }) { return false }
        return include.isEmpty || include.contains { $0.matches(relativePath, isDirectory: false) }
    }

    /// Whether a key's relative path is taken, with every directory on its way checked as the walk would (a
    /// listing is flat: an excluded directory's keys are left out one by one). `isDirectory` for a directory
    /// marker.
    func takes(keyPath relativePath: String, isDirectory: Bool) -> Bool {
        var directory = ""
        let components = relativePath.split(separator: "/", omittingEmptySubsequences: false)
        for component in components.dropLast() where !component.isEmpty {
            directory += directory.isEmpty ? String(component) : "/" + component
            if prunes(directory: directory) { return false }
        }
        return isDirectory ? !prunes(directory: relativePath) : takes(file: relativePath)
    }
}
