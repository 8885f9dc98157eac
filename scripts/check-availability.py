#!/usr/bin/env python3
"""The availability gate: no standard-library, Concurrency, Synchronization or Observation API newer than the
package's minimum Apple platforms is used outside `if #available` / `guard #available` / `@available`.

A Linux compiler does not enforce Apple availability, but this toolchain's modules carry it: their symbol graphs
(extracted with swift-symbolgraph-extract from the toolchain's .swiftinterface files) give every public declaration
with its `@available(macOS …, iOS …, tvOS …, watchOS …)`. This script reads the sources as an Apple platform compiles
them (`#if` evaluated for Apple: `canImport(Darwin)` true, `canImport(Glibc)` and Package.swift's Linux-only
conditions false, unknown conditions both ways), finds each use of a name whose every declaration is newer than the
minimum, and reports it unless an enclosing `#available` check or `@available` attribute covers that version.

What it cannot see (listed in docs/APPLE-GATE.md): Foundation, Dispatch, os and the other Apple SDK frameworks (their
Apple availability is not in the Linux toolchain); a name that the standard library declares both before and after
the minimum with the same argument labels (it cannot resolve overloads by type); uses inside string interpolations.

Usage:
  scripts/check-availability.py [paths…]     check the given files or folders (default: Sources Samples Tests Benchmarks)
  scripts/check-availability.py --self-test  check scripts/availability-fixtures: each line marked `// expect: new`
                                             must be reported and no other line
"""

import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOMAINS = ("macOS", "iOS", "tvOS", "watchOS")
MODULES = ("Swift", "_Concurrency", "Synchronization", "Observation", "_StringProcessing")
TYPE_KINDS = {"swift.struct", "swift.class", "swift.enum", "swift.protocol", "swift.typealias"}
CALLABLE_KINDS = {"swift.func", "swift.method", "swift.type.method", "swift.func.op", "swift.init", "swift.macro"}


def version(text):
    return tuple(int(part) for part in text.split("."))


def minimum_platforms():
    """The deployment minimums declared in Package.swift, e.g. {'macOS': (13,), 'iOS': (16,)}."""
    manifest = open(os.path.join(ROOT, "Package.swift")).read()
    found = {}
    for domain, number in re.findall(r"\.(macOS|iOS|tvOS|watchOS)\(\.v(\d+(?:_\d+)*)\)", manifest):
        found[domain] = version(number.replace("_", "."))
    missing = [d for d in DOMAINS if d not in found]
    if missing:
        sys.exit(f"check-availability: Package.swift declares no minimum for {', '.join(missing)}")
    return found


def load_symbols():
    """name -> list of (kind, labels or None, {domain: introduced}) from the toolchain's symbol graphs."""
    with tempfile.TemporaryDirectory(prefix="oss-symbolgraph-") as out:
        return read_symbol_graphs(out)


def read_symbol_graphs(out):
    for module in MODULES:
        result = subprocess.run(
            ["swift-symbolgraph-extract", "-module-name", module, "-target", target_triple(), "-output-dir", out,
             "-minimum-access-level", "public"],
            capture_output=True, text=True)
        if result.returncode != 0:
            sys.exit(f"check-availability: swift-symbolgraph-extract {module} failed:\n{result.stderr}")
    table = {}
    for name in os.listdir(out):
        graph = json.load(open(os.path.join(out, name)))
        for symbol in graph["symbols"]:
            title = symbol["names"]["title"]
            kind = symbol["kind"]["identifier"]
            introduced = {}
            for entry in symbol.get("availability", []):
                if entry.get("domain") in DOMAINS and "introduced" in entry:
                    i = entry["introduced"]
                    introduced[entry["domain"]] = (i.get("major", 0), i.get("minor", 0), i.get("patch", 0))
            base, labels = title, None
            if "(" in title and kind in CALLABLE_KINDS:
                base = title[: title.index("(")]
                labels = [label for label in title[title.index("(") + 1: -1].split(":") if label != ""]
            table.setdefault(base, []).append((kind, labels, introduced))
            # Tuple element labels in a declaration (`components: (seconds: Int64, attoseconds: Int64)`) are names
            # a use may mean too: they are as old as the declaration.
            text = "".join(fragment.get("spelling", "") for fragment in symbol.get("declarationFragments", []))
            for label in re.findall(r"[(,]\s*(\w+)\s*:", text.split("->")[-1] if "->" in text else text.split(":", 1)[-1]):
                table.setdefault(label, []).append(("tuple.label", None, introduced))
    return table


def target_triple():
    result = subprocess.run(["swiftc", "-print-target-info"], capture_output=True, text=True, check=True)
    return json.loads(result.stdout)["target"]["triple"]


def is_new(introduced, minimum):
    return any(d in introduced and introduced[d] > pad(minimum[d]) for d in DOMAINS)


def pad(v):
    return tuple(v) + (0,) * (3 - len(v))


# ---------------------------------------------------------------------------------------------------------------
# Reading sources as an Apple platform compiles them

APPLE_MODULES = {"Darwin", "Foundation", "Dispatch", "os", "ObjectiveC", "CryptoKit", "Security", "UIKit", "AppKit",
                 "SwiftUI", "Combine", "Network", "CoreFoundation", "XCTest", "Testing", "Synchronization",
                 "Observation", "Crypto", "Logging"}
NON_APPLE_MODULES = {"Glibc", "Musl", "FoundationNetworking", "WinSDK", "Android", "Bionic", "WASILibc", "ucrt",
                     "AsyncHTTPClient", "NIOCore", "NIOPosix", "NIOHTTP1", "_NIOFileSystem", "NIOFoundationCompat"}
APPLE_OSES = {"macOS", "iOS", "tvOS", "watchOS", "visionOS", "Darwin"}
LINUX_ONLY_FLAGS = {"OSS_ASYNC_HTTP_CLIENT"}


def evaluate(condition):
    """True, False or None (unknown) for an #if condition as any Apple platform sees it."""
    tokens = re.findall(r"\w+\s*\([^()]*\)|\|\||&&|!|\(|\)|[\w.]+", condition)
    position = 0

    def atom():
        nonlocal position
        token = tokens[position]
        position += 1
        if token == "!":
            value = atom()
            return None if value is None else not value
        if token == "(":
            value = disjunction()
            position += 1  # ")"
            return value
        call = re.match(r"(\w+)\s*\(([^()]*)\)", token)
        if call:
            function, argument = call.group(1), call.group(2).strip()
            if function == "canImport":
                module = argument.split(",")[0].strip()
                if module in APPLE_MODULES:
                    return True
                if module in NON_APPLE_MODULES:
                    return False
                return None
            if function == "os":
                return argument in APPLE_OSES
            if function in ("compiler", "swift"):
                return True
            return None
        if token == "true":
            return True
        if token == "false":
            return False
        if token in LINUX_ONLY_FLAGS:
            return False
        return None

    def conjunction():
        nonlocal position
        value = atom()
        while position < len(tokens) and tokens[position] == "&&":
            position += 1
            right = atom()
            value = False if value is False or right is False else (None if value is None or right is None else True)
        return value

    def disjunction():
        nonlocal position
        value = conjunction()
        while position < len(tokens) and tokens[position] == "||":
            position += 1
            right = conjunction()
            value = True if value is True or right is True else (None if value is None or right is None else False)
        return value

    try:
        return disjunction()
    except IndexError:
        return None


def apple_lines(lines):
    """The lines an Apple build compiles (others blanked); unknown conditions keep every branch."""
    kept = []
    stack = []  # (parent_active, branch_taken, this_active)
    active = True
    for line in lines:
        stripped = line.strip()
        directive = re.match(r"#(if|elseif|else|endif)\b(.*)", stripped)
        if directive:
            word, rest = directive.group(1), directive.group(2).split("//")[0].strip()
            if word == "if":
                value = evaluate(rest)
                stack.append([active, value is True, active and value is not False])
            elif word == "elseif" and stack:
                parent, taken, _ = stack[-1]
                value = evaluate(rest)
                stack[-1] = [parent, taken or value is True, parent and not taken and value is not False]
            elif word == "else" and stack:
                parent, taken, _ = stack[-1]
                stack[-1] = [parent, True, parent and not taken]
            elif word == "endif" and stack:
                stack.pop()
            active = stack[-1][2] if stack else True
            kept.append("")
            continue
        kept.append(line if active else "")
    return kept


def strip_comments_and_strings(text):
    """Blanks comments and string literals, keeping every newline (so line numbers hold)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text[i] == '"' or (text[i] == "#" and re.match(r'#+"', text[i:])):
            hashes = len(re.match(r"#*", text[i:]).group(0))
            start = i + hashes
            triple = text.startswith('"""', start)
            close = ('"""' if triple else '"') + "#" * hashes
            j = start + (3 if triple else 1)
            while j < n and not text.startswith(close, j):
                if text[j] == "\\" and hashes == 0:
                    j += 1
                elif text[j] == "\n" and not triple:
                    break
                j += 1
            j = min(n, j + len(close))
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


# ---------------------------------------------------------------------------------------------------------------
# Availability regions

def parse_platforms(arguments):
    """{'macOS': (14, 0, 0), ...} from the argument list of #available / @available; None if not a version list."""
    versions = {}
    for part in arguments.split(","):
        part = part.strip()
        match = re.match(r"(macOS|iOS|tvOS|watchOS|visionOS|macCatalyst|OSX)\s+([\d.]+)", part)
        if match:
            domain = "macOS" if match.group(1) == "OSX" else match.group(1)
            versions[domain] = pad(version(match.group(2)))
    return versions or None


def matching_brace(code, open_index):
    depth = 0
    for j in range(open_index, len(code)):
        if code[j] == "{":
            depth += 1
        elif code[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return len(code)


def enclosing_block_end(code, index):
    depth = 0
    for j in range(index, len(code)):
        if code[j] == "{":
            depth += 1
        elif code[j] == "}":
            if depth == 0:
                return j
            depth -= 1
    return len(code)


def guarded_regions(code):
    """(start, end, versions) character ranges covered by an availability check or attribute."""
    regions = []
    for match in re.finditer(r"(#available|@available)\s*\(([^()]*)\)", code):
        versions = parse_platforms(match.group(2))
        if versions is None:
            continue
        after = match.end()
        if match.group(1) == "@available":
            brace = code.find("{", after)
            newline = code.find("\n", after)
            # A declaration with a body: its braces; a stored property or a one-line declaration: its line.
            next_line_end = code.find("\n", newline + 1) if newline >= 0 else len(code)
            if brace >= 0 and (code.rfind("=", after, brace) < 0 or code.rfind("\n", after, brace) == newline):
                regions.append((match.start(), matching_brace(code, brace), versions))
            else:
                regions.append((match.start(), next_line_end, versions))
            continue
        preceding = code[max(0, match.start() - 40): match.start()]
        if re.search(r"\bguard\s*$", preceding) or re.search(r"\bguard\b[^{}]*$", preceding):
            else_brace = code.find("{", after)
            regions.append((matching_brace(code, else_brace), enclosing_block_end(code, matching_brace(code, else_brace) + 1), versions))
        else:
            brace = code.find("{", after)
            regions.append((match.start(), matching_brace(code, brace), versions))
    return regions


# ---------------------------------------------------------------------------------------------------------------
# Uses

DECLARATION = re.compile(
    r"\b(?:func|var|let|case|struct|class|enum|actor|protocol|typealias|associatedtype|macro)\s+`?([A-Za-z_]\w*)")
KEYWORDS = {"init", "deinit", "subscript", "self", "Self", "super", "get", "set", "some", "any", "newValue", "oldValue", "error"}
IDENTIFIER = re.compile(r"(?<![\w$#@])([A-Za-z_]\w*)")


def call_labels(code, open_paren):
    """The argument labels of the call whose '(' is at open_paren."""
    depth, labels, j, start = 0, [], open_paren, open_paren + 1
    while j < len(code):
        c = code[j]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                break
        elif c == "," and depth == 1:
            start = j + 1
        elif c == ":" and depth == 1:
            label = code[start:j].strip()
            if re.fullmatch(r"[A-Za-z_]\w*", label):
                labels.append(label)
        j += 1
    return labels


def compatible(call, declared):
    """Whether a call with labels `call` can name a declaration with labels `declared` (defaults may be left out)."""
    if declared is None:
        return True
    remaining = iter(declared)
    return all(any(label == d for d in remaining) for label in call)


def check_file(path, symbols, minimum, own_names):
    raw = open(path, encoding="utf-8").read()
    code = strip_comments_and_strings("\n".join(apple_lines(raw.split("\n"))))
    regions = guarded_regions(code)
    line_starts = [0] + [m.end() for m in re.finditer("\n", code)]
    findings = []
    for match in IDENTIFIER.finditer(code):
        name = match.group(1)
        if name in own_names or name in KEYWORDS or name not in symbols:
            continue
        after = code[match.end():]
        stripped = after.lstrip(" ")
        if stripped.startswith(":") and not stripped.startswith("::"):
            continue  # an argument label or a parameter name
        candidates = symbols[name]
        if stripped.startswith("(") or stripped.startswith("{"):
            labels = call_labels(code, match.end() + (len(after) - len(stripped))) if stripped.startswith("(") else []
            callable_ = [c for c in candidates if c[0] in CALLABLE_KINDS and compatible(labels, c[1])]
            types = [c for c in candidates if c[0] in TYPE_KINDS]
            candidates = callable_ + types
        if all(c[0] == "tuple.label" for c in candidates):
            continue  # a label of a newer declaration's tuple is not an API of its own
        if not candidates or not all(is_new(c[2], minimum) for c in candidates):
            continue
        needed = {}
        for _, _, introduced in candidates:
            for domain, v in introduced.items():
                needed[domain] = min(needed.get(domain, v), v)
        offset = match.start()
        covered = dict((d, pad(minimum[d])) for d in DOMAINS)
        for start, end, versions in regions:
            if start <= offset <= end:
                for domain, v in versions.items():
                    if domain in covered:
                        covered[domain] = max(covered[domain], v)
        missing = [d for d in DOMAINS if d in needed and needed[d] > covered[d]]
        if missing:
            line = next(i for i in range(len(line_starts) - 1, -1, -1) if line_starts[i] <= offset) + 1
            wanted = ", ".join(f"{d} {'.'.join(map(str, needed[d][:2]))}" for d in DOMAINS if d in needed)
            findings.append((path, line, name, wanted))
    return findings


def swift_files(paths):
    for path in paths:
        if os.path.isfile(path):
            yield path
            continue
        for folder, _, files in os.walk(path):
            if "/.build" in folder or "/." in folder:
                continue
            for name in sorted(files):
                if name.endswith(".swift"):
                    yield os.path.join(folder, name)


def declared_names(files):
    names = set()
    for path in files:
        text = strip_comments_and_strings(open(path, encoding="utf-8").read())
        names.update(DECLARATION.findall(text))
    return names


def main(argv):
    os.chdir(ROOT)
    minimum = minimum_platforms()
    symbols = load_symbols()
    if argv[1:] == ["--self-test"]:
        fixtures = sorted(swift_files(["scripts/availability-fixtures"]))
        findings = []
        for path in fixtures:
            findings += check_file(path, symbols, minimum, declared_names([path]))
        reported = {(p, line) for p, line, _, _ in findings}
        expected = set()
        for path in fixtures:
            for number, line in enumerate(open(path, encoding="utf-8"), 1):
                if "// expect: new" in line:
                    expected.add((path, number))
        missed, extra = expected - reported, reported - expected
        for path, line in sorted(missed):
            print(f"self-test: {path}:{line}: a newer API was not reported")
        for path, line, name, wanted in findings:
            if (path, line) in extra:
                print(f"self-test: {path}:{line}: '{name}' reported, but the line is not marked")
        if missed or extra or not expected:
            return 1
        print(f"check-availability self-test: {len(expected)} uses of newer APIs found, none reported elsewhere")
        return 0
    paths = argv[1:] or ["Sources", "Samples", "Tests", "Benchmarks"]
    files = list(swift_files(paths))
    own = declared_names(files)
    findings = []
    for path in files:
        findings += check_file(path, symbols, minimum, own)
    for path, line, name, wanted in findings:
        print(f"{path}:{line}: '{name}' needs {wanted}; the package's minimum is "
              + ", ".join(f"{d} {'.'.join(map(str, minimum[d]))}" for d in DOMAINS)
              + ": guard it with `if #available` or `@available`")
    names = sum(1 for s in symbols.values()
                if not all(c[0] == "tuple.label" for c in s) and all(is_new(c[2], minimum) for c in s))
    print(f"check-availability: {len(files)} files, {names} names newer than the minimum, {len(findings)} unguarded uses")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
