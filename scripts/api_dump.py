#!/usr/bin/env python3
"""The public API of this package's library products as plain text, one declaration per line, sorted.

    api_dump.py SYMBOLGRAPH_DIR OUT_DIR

SYMBOLGRAPH_DIR holds the symbol graphs `swift package dump-symbol-graph` writes (`Module.symbols.json` and
`Module@Other.symbols.json` for extensions of other modules' types). For each module in MODULES this writes
OUT_DIR/<Module>.txt: every public symbol as `<kind> <path>: <declaration>`, every conformance as
`<path> conforms to <protocol>`, with doc comments, source locations and availability left out, so the file changes
exactly when a declaration a user can see changes. The files describe the Linux build (where AsyncHTTPClientTransport
exists too); a declaration that differs on Apple platforms is checked by scripts/apple-gate.sh's build, not here. scripts/check-api.sh compares it with api/ in the repository.
"""
import json
import os
import sys

# The modules a user can import (the library products and what AliyunOSS re-exports).
MODULES = ["AliyunOSS", "AliyunOSSObservability", "OSSSigning", "OSSCRC64", "OSSResumable", "OSSLocalServer"]

# Conformances the compiler adds to every type (their list changes with the toolchain, not with our sources).
IMPLICIT = {"Swift.Copyable", "Swift.Escapable", "Swift.SendableMetatype", "Swift.BitwiseCopyable"}


def declaration(symbol):
    text = "".join(fragment["spelling"] for fragment in symbol.get("declarationFragments", []))
    return " ".join(text.split())


def lines_for(module, graph_dir):
    files = sorted(f for f in os.listdir(graph_dir)
                   if f == f"{module}.symbols.json" or f.startswith(f"{module}@"))
    if not files:
        raise SystemExit(f"api_dump.py: no symbol graph for {module} in {graph_dir}")
    lines = set()
    for name in files:
        with open(os.path.join(graph_dir, name), encoding="utf-8") as handle:
            graph = json.load(handle)
        # An extension of another module's type is listed under that module's name.
        prefix = "" if "@" not in name else name.split("@", 1)[1].rsplit(".symbols.json", 1)[0] + "."
        paths, names = {}, {}
        for symbol in graph.get("symbols", []):
            path = prefix + ".".join(symbol["pathComponents"])
            names[symbol["identifier"]["precise"]] = path
            if symbol.get("accessLevel") not in ("public", "open"):
                continue
            paths[symbol["identifier"]["precise"]] = path
            kind = symbol["kind"]["identifier"].removeprefix("swift.")
            lines.add(f"{kind} {path}: {declaration(symbol)}")
        for relation in graph.get("relationships", []):
            if relation["kind"] != "conformsTo" or relation["source"] not in paths:
                continue
            target = names.get(relation["target"]) or relation.get("targetFallback") or relation["target"]
            if target in IMPLICIT:
                continue
            lines.add(f"{paths[relation['source']]} conforms to {target}")
    return sorted(lines)


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    graph_dir, out_dir = sys.argv[1:]
    os.makedirs(out_dir, exist_ok=True)
    for module in MODULES:
        with open(os.path.join(out_dir, f"{module}.txt"), "w", encoding="utf-8") as handle:
            handle.write(f"# The public API of {module} (scripts/check-api.sh; regenerate with --update).\n")
            for line in lines_for(module, graph_dir):
                handle.write(line + "\n")


if __name__ == "__main__":
    main()
