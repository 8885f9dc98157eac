#!/usr/bin/env bash
# Benchmark (not a test): the request pipeline under many small requests, with metrics and tracing off, installed
# (nothing bootstrapped) and on (bootstrapped process-wide with do-nothing backends: real handler and span objects),
# and beside them a "floor": the same spans and metric objects made by a minimal middleware in the benchmark (no
# attributes, no response watching), what swift-distributed-tracing and swift-metrics cost by themselves.
#
# One process per run, with one client per mode: blocks of requests (500 HEADs, then 100 PUTs of 1 KiB, 8 at a
# time) alternate between the clients in a rotated order, ROUNDS rounds (default 20: 10,000 HEADs and 2,000 PUTs per
# mode), and each block's CPU time is taken by itself, so the slow and fast moments of a shared machine fall on every
# mode alike. Printed: the median CPU microseconds per request of each mode, and each mode's ratio to "off" in the
# same round (median and quartiles).
#
# Two runs: against the local server (release build, its own process), and `in-process`, where a transport in the
# benchmark answers at once (no socket, no server): the SDK's own per-request work, which the middleware adds to.
# Usage: scripts/bench-requests.sh [heads per block, default 500] [puts per block, default 100]
# SCRATCH: the release build directory (default .build-release, shared by every benchmark script); BIN and BENCH_BIN
#   point at other directories holding oss-local-server and oss-request-bench (with SKIP_BUILD=1).
# BASELINE: another oss-request-bench binary (e.g. one built from an earlier commit) run right after this one on the
#   same server, each round of runs alternating, for a before/after: each prints its own ratios to its own "off".
set -euo pipefail
cd "$(dirname "$0")/.."
SCRATCH="${SCRATCH:-.build-release}"
HEADS="${1:-500}"
PUTS="${2:-100}"
ROUNDS="${ROUNDS:-20}"
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

BENCHES=("$BENCH_BIN/oss-request-bench")
[ -n "${BASELINE:-}" ] && BENCHES+=("$BASELINE")
for endpoint in "$SERVER" in-process; do
    for bench in "${BENCHES[@]}"; do
        [ "$bench" = "${BASELINE:-}" ] && echo "== before ($BASELINE)" || echo "== this build"
        echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
        "$bench" "$endpoint" "$BUCKET" "$ROUNDS" "$HEADS" "$PUTS" 8
        echo
    done
done
