#!/usr/bin/env python3
"""Prints the figures of one scripts/bench-all.sh run as a compact markdown table (for README.md).

    python3 scripts/bench_table.py LOG-DIR SIZE-MIB

LOG-DIR holds what bench-all.sh collected: machine.txt, micro.txt, floor.txt, server.txt, results.txt
("upload|client|wall|cpu|rss" lines from the transfer benchmarks), ratio.txt and waste.txt. A missing file
just leaves its rows out. Python 3 standard library only.
"""

import os
import re
import sys


def read(log, name):
    try:
        with open(os.path.join(log, name), encoding="utf-8") as f:
            return f.read()
    except OSError:
        return ""


def micro_rows(text):
    """{name: value} from the 44-column rows of oss-microbench and Benchmarks/python/micro_peers.py."""
    rows = {}
    for line in text.splitlines():
        if len(line) > 44 and re.match(r"\s*[0-9]", line[44:]):
            rows[line[:44].strip()] = line[44:62].strip()
    return rows


def size_label(mib):
    return f"{mib // 1024} GiB" if mib % 1024 == 0 else f"{mib} MiB"


def main():
    log, size_mib = sys.argv[1], int(sys.argv[2])
    size = size_label(size_mib)
    lines = []

    def row(what, ours="", oss2="", reference=""):
        lines.append(f"| {what} | {ours} | {oss2} | {reference} |")

    micro = micro_rows(read(log, "micro.txt"))
    peers = [
        ("V1 header sign (per request)", "oss2 V1 header sign (per request)", ""),
        ("V4 header sign (per request)", "oss2 V4 header sign (per request)", ""),
        ("V4 presign (per URL)", "oss2 V4 presign (per URL)", ""),
        ("CRC64 (folding path when available)", "oss2 CRC64 (crcmod)", ""),
        ("CRC64 slicing-by-8 (portable fallback)", "", ""),
        ("CRC64 combine (5 GiB second part)", "", ""),
        ("MD5 (swift-crypto)", "", "hashlib MD5 (OpenSSL)"),
        ("XML decode, 1000-part ListParts page", "", ""),
    ]
    for name, oss2_name, other in peers:
        if name in micro:
            ref = f"{micro[other]} ({other.split(' (')[0]})" if other and other in micro else ""
            row(name, micro[name], micro.get(oss2_name, ""), ref)

    floor = re.search(r"cpu per GiB ([0-9.]+) s", read(log, "floor.txt"))
    floor_speed = re.search(r"([0-9]+) MB/s", read(log, "floor.txt"))
    if floor and floor_speed:
        row("CPU floor: read + MD5 + CRC-64 on one core", "", "", f"{floor_speed.group(1)} MB/s, {floor.group(1)} CPU s/GiB")

    server = read(log, "server.txt")
    for verb in ("PUT", "GET"):
        m = re.search(rf"^{verb}\s+([0-9]+) MB/s\s+([0-9]+) MB/s", server, re.M)
        if m:
            row(f"local server, one curl {verb} of {size}", f"{m.group(1)} MB/s", "", f"trivial sink {m.group(2)} MB/s")

    results = []
    for line in read(log, "results.txt").splitlines():
        parts = line.split("|")
        if len(parts) == 5:
            kind, client, wall, cpu, rss = parts
            results.append((kind, client, float(wall), float(cpu), float(rss)))

    def figure(r):
        return f"{r[2]:.2f} s, {r[3]:.2f} CPU s, {r[4]:.0f} MiB"

    for kind in ("upload", "download"):
        rows = [r for r in results if r[0] == kind]
        curl = next((r for r in rows if r[1].startswith("curl")), None)
        for r in rows:
            m = re.match(r"this SDK, (defaults|tuned) \((.*)\)$", r[1])
            if not m:
                continue
            peer = next((p for p in rows if p[1].startswith("oss2") and p[1].endswith(f"({m.group(2)})")), None)
            row(f"{kind} {size}, {m.group(1)} ({m.group(2)}): wall, client CPU, peak RSS", figure(r),
                figure(peer) if peer else "", f"curl: {figure(curl)}" if curl else "")
        sizes = [r for r in rows if re.match(r"this SDK, tuned, [0-9]+ MiB$", r[1])]
        main_tuned = next((r for r in rows if r[1].startswith("this SDK, tuned (")), None) or \
            next((r for r in rows if r[1].startswith("this SDK, defaults (")), None)
        if sizes and main_tuned:
            points = sorted([(int(re.search(r"([0-9]+) MiB$", r[1]).group(1)), r[4]) for r in sizes] +
                            [(size_mib, main_tuned[4])])
            row(f"{kind} peak RSS by size ({', '.join(size_label(s) for s, _ in points)})",
                " / ".join(f"{rss:.0f}" for _, rss in points) + " MiB")

    ratio = read(log, "ratio.txt").strip()
    m = re.search(r"floor ([0-9.]+) s/GiB; this SDK ([0-9.]+) s/GiB = ([0-9.]+)x", ratio)
    if m:
        o = re.search(r"oss2 ([0-9.]+) s/GiB \(this SDK uses ([0-9]+)%", ratio)
        row("upload client CPU per GiB (tuned), and as a ratio to the floor", f"{m.group(2)} s = {m.group(3)}x the floor",
            f"{o.group(1)} s (ours is {o.group(2)}% of it)" if o else "", f"floor {m.group(1)} s")

    waste = read(log, "waste.txt")
    for kind in ("upload", "download"):
        m = re.search(rf"^KILL kind={kind} .*?part=([0-9]+) threads=([0-9]+) .*?killed_at=([0-9.]+)% .*?resent=(-?[0-9]+) "
                      rf"bound=([0-9]+) identical=(\w+)", waste, re.M)
        if m:
            part, threads, at, resent, bound, identical = m.groups()
            # Uploads: the parts in flight; downloads resume at the byte (kill_loop.download_bound).
            rule = f"{threads} x {int(part):,}" if kind == "upload" else f"{threads} x 128 KiB + 1.5 MiB"
            row(f"resume waste: {kind} killed with SIGKILL at {at}% (server counters), resumed",
                f"{int(resent):,} bytes sent twice (bound {rule} = {int(bound):,}); identical: {identical}")

    machine = read(log, "machine.txt").strip()
    print(f"Machine: {machine}. Release builds; every figure measured in one `scripts/bench-all.sh {size_mib}` run.")
    print()
    print("| benchmark | this project | oss2 (same settings, same run) | reference (same run) |")
    print("|---|---|---|---|")
    for line in lines:
        print(line)


if __name__ == "__main__":
    main()
