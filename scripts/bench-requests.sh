#!/usr/bin/env bash
# Benchmark (not a test): the request pipeline under many small requests (10,000 HEADs, 2,000 PUTs of 1 KiB, 8 at a
# time) against the local server (release build, its own process), with metrics and tracing
#   off        no observability middleware installed (the default),
#   installed  OSSObservability installed, nothing bootstrapped (swift-metrics' and swift-distributed-tracing's no-op
#              defaults),
#   on         installed and bootstrapped process-wide with do-nothing backends (real handler and span objects).
# The modes alternate for ROUNDS rounds (default 5), each round in a rotated order (so no mode always runs first);
# the medians are printed side by side, with the client's CPU (user + system of the benchmark process) beside off's.
# Usage: scripts/bench-requests.sh [heads, default 10000] [puts, default 2000]
# SCRATCH: the release build directory (default .build-release, shared by every benchmark script); BIN and BENCH_BIN
#   point at other directories holding oss-local-server and oss-request-bench (with SKIP_BUILD=1).
# BASELINE: another oss-request-bench binary (e.g. one built from an earlier commit) to run beside this one in the
#   same rounds, for a before/after in one run: its rows are named `before off` ... and compared with `before off`.
set -euo pipefail
cd "$(dirname "$0")/.."
SCRATCH="${SCRATCH:-.build-release}"
HEADS="${1:-10000}"
PUTS="${2:-2000}"
ROUNDS="${ROUNDS:-5}"
WORK="$(mktemp -d "${BENCH_TMPDIR:-${TMPDIR:-/tmp}}/oss-bench-requests.XXXXXX")"
SERVER_PID=""
cleanup() {
    [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

if [ -z "${SKIP_BUILD:-}" ]; then
    echo "building oss-local-server and oss-request-bench (release)..." >&2
    swift build -c release --scratch-path "$SCRATCH" --product oss-local-server >&2
    # The request benchmark is a package of its own (Benchmarks/Package.swift).
    swift build -c release --package-path Benchmarks --scratch-path "$SCRATCH/benchmarks" --product oss-request-bench >&2
fi
BIN="${BIN:-$SCRATCH/release}"                          # where oss-local-server is
BENCH_BIN="${BENCH_BIN:-$SCRATCH/benchmarks/release}"   # where oss-request-bench is

export OSS_ACCESS_KEY_ID="LTAILocalDevAccessKeyId"
export OSS_ACCESS_KEY_SECRET="LocalDevAccessKeySecret0123456789"
BUCKET="bench"
"$BIN/oss-local-server" --host 127.0.0.1 --port 0 --data-dir "$WORK/data" --bucket "$BUCKET" \
    --access-key-id "$OSS_ACCESS_KEY_ID" --access-key-secret "$OSS_ACCESS_KEY_SECRET" > "$WORK/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 100); do grep -q "listening on" "$WORK/server.log" && break; sleep 0.1; done
SERVER="$(sed -n 's/^listening on //p' "$WORK/server.log" | head -1)"
[ -n "$SERVER" ] || { echo "the server did not start" >&2; cat "$WORK/server.log" >&2; exit 1; }

echo "== $HEADS HEADs and $PUTS PUTs of 1 KiB, 8 at a time, $ROUNDS rounds (modes alternating), load $(cut -d' ' -f1-3 /proc/loadavg) =="
RUNS=("off" "installed" "on")
[ -n "${BASELINE:-}" ] && RUNS+=("before off" "before installed" "before on")
for round in $(seq 1 "$ROUNDS"); do
    for i in "${!RUNS[@]}"; do
        run="${RUNS[$(( (i + round - 1) % ${#RUNS[@]} ))]}"
        mode="${run#before }"
        if [ "$run" = "$mode" ]; then bench="$BENCH_BIN/oss-request-bench"; prefix=""; else bench="$BASELINE"; prefix="before "; fi
        echo "$prefix$("$bench" "$SERVER" "$BUCKET" "$mode" "$HEADS" "$PUTS" 8)" >> "$WORK/results.txt"
    done
    echo "round $round done, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
done
python3 - "$WORK/results.txt" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    *words, a, b, c, d = line.split()
    rows.setdefault(" ".join(words), []).append([float(a), float(b), float(c), float(d)])
med = {m: [statistics.median(col) for col in zip(*r)] for m, r in rows.items()}
names = ["HEAD wall s", "HEAD CPU s", "PUT wall s", "PUT CPU s"]
print(f"{'median of ' + str(len(rows['off'])):<20}" + "".join(f"{n:>22}" for n in names))
for prefix in ["", "before "]:
    if prefix + "off" not in med:
        continue
    base = med[prefix + "off"]
    for mode in ["off", "installed", "on"]:
        cells = []
        for i, v in enumerate(med[prefix + mode]):
            delta = "" if mode == "off" else f" ({(v / base[i] - 1) * 100:+.1f}%)"
            cells.append(f"{v:.3f}{delta}")
        print(f"{prefix + mode:<20}" + "".join(f"{c:>22}" for c in cells))
print("every run (HEAD CPU s, PUT CPU s):")
for mode, r in rows.items():
    print(f"  {mode:<18}" + " ".join(f"{x[1]:.2f}/{x[3]:.2f}" for x in r))
PY
