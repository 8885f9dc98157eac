#!/usr/bin/env bash
# Benchmark (not a test): `oss cp --encryption-key` of one file up and down against a local oss-local-server, with
# the parts in flight given (--threads). Prints one line per direction: seconds and MiB/s.
# Usage: scripts/bench-encryption.sh [MiB, default 256] [threads, default 4] [part size in bytes, default 4 MiB]
# BIN: the directory holding `oss` and `oss-local-server` (default .build/debug; build them first).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN="${BIN:-.build/debug}"
MIB="${1:-256}"
THREADS="${2:-4}"
PART="${3:-4194304}"
WORK="$(mktemp -d "${BENCH_TMPDIR:-${TMPDIR:-/tmp}}/oss-bench-cse.XXXXXX")"
PID=""
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
"$BIN/oss-local-server" --port 0 --data-dir "$WORK/data" --bucket bench-cse > "$WORK/server.out" 2> "$WORK/server.err" &
PID=$!
for _ in $(seq 1 100); do grep -q "listening on" "$WORK/server.out" && break; sleep 0.1; done
export OSS_ENDPOINT="$(sed -n 's/^listening on //p' "$WORK/server.out" | head -1)"
export OSS_ACCESS_KEY_ID=LTAILocalDevAccessKeyId OSS_ACCESS_KEY_SECRET=LocalDevAccessKeySecret0123456789
export OSS_REGION=cn-hangzhou
openssl genrsa -out "$WORK/key.pem" 2048 2> /dev/null
head -c "$((MIB * 1024 * 1024))" /dev/urandom > "$WORK/plain.bin"
run() {
    local what="$1"; shift
    local start end
    start=$(date +%s.%N)
    "$BIN/oss" cp "$@" --encryption-key "$WORK/key.pem" --threads "$THREADS" --part-size "$PART" \
        --checkpoint-dir "$WORK/checkpoints" > /dev/null
    end=$(date +%s.%N)
    awk -v w="$what" -v s="$start" -v e="$end" -v m="$MIB" -v t="$THREADS" \
        'BEGIN { printf "%-8s %4d MiB  threads %-2d  %6.2f s  %7.1f MiB/s\n", w, m, t, e - s, m / (e - s) }'
}
run upload "$WORK/plain.bin" oss://bench-cse/plain.bin
run download oss://bench-cse/plain.bin "$WORK/back.bin"
cmp "$WORK/plain.bin" "$WORK/back.bin"
