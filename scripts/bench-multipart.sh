#!/usr/bin/env bash
# Benchmark (not a test): CompleteMultipartUpload latency (8 MiB and 512 MiB, 64 parts each) and GET of a
# multipart object vs a single-PUT object of the same size, against the release oss-local-server.
# Usage: scripts/bench-multipart.sh [sizes-in-MiB, default 8,512] [parts, default 64]
# SCRATCH: the release build directory (default .build-release). Needs oss2 (.venv/bin/python if present).
set -euo pipefail
cd "$(dirname "$0")/.."
SCRATCH="${SCRATCH:-.build-release}"
SIZES="${1:-8,512}"
PARTS="${2:-64}"
PY="python3"; [ -x .venv/bin/python ] && PY=".venv/bin/python"
WORK="$(mktemp -d "${BENCH_TMPDIR:-${TMPDIR:-/tmp}}/oss-bench-mp.XXXXXX")"
PID=""
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
if [ ! -x "$SCRATCH/release/oss-local-server" ]; then
    swift build -c release --scratch-path "$SCRATCH" --product oss-local-server >&2
fi
"$SCRATCH/release/oss-local-server" --port 0 --data-dir "$WORK/data" --bucket bench-mp > "$WORK/server.log" 2>&1 &
PID=$!
for _ in $(seq 1 100); do grep -q "listening on" "$WORK/server.log" && break; sleep 0.1; done
URL="$(sed -n 's/^listening on //p' "$WORK/server.log" | head -1)"
"$PY" scripts/bench_multipart.py "$URL" bench-mp --sizes-mib "$SIZES" --parts "$PARTS"
