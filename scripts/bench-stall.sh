#!/usr/bin/env bash
# Benchmark (not a test): 16 MiB resumable transfers (1 MiB parts, both directions, both transports) through a
# server that stalls, resets or black-holes a quarter of the data requests, with the SDK's default configuration
# (stall detection at 5 s), and the same upload with stall detection off (--stall-timeout 0) for comparison.
# Every result is compared byte for byte with the source.
# Usage: scripts/bench-stall.sh [size-in-MiB, default 16] [rate, default 0.25]
# SCRATCH: the release build directory (default .build-release).
set -euo pipefail
cd "$(dirname "$0")/.."
SCRATCH="${SCRATCH:-.build-release}"
SIZE_MIB="${1:-16}"
RATE="${2:-0.25}"
WORK="$(mktemp -d "${BENCH_TMPDIR:-${TMPDIR:-/tmp}}/oss-bench-stall.XXXXXX")"
PID=""
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
if [ ! -x "$SCRATCH/release/oss-local-server" ] || [ ! -x "$SCRATCH/release/oss" ]; then
    swift build -c release --scratch-path "$SCRATCH" --product oss-local-server >&2
    swift build -c release --scratch-path "$SCRATCH" --product oss >&2
fi
head -c "$((SIZE_MIB << 20))" /dev/urandom > "$WORK/source.bin"

# A third of the faulty requests each: stalled after 100 KB, reset after 100 KB, answered never.
third="$(python3 -c "print(round($RATE / 3, 4))")"
start_server() {
    [ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null || true
    rm -rf "$WORK/data"
    "$SCRATCH/release/oss-local-server" --port 0 --data-dir "$WORK/data" --bucket bench --admin \
        --fault "UploadPart:random=$third:seed=11:stall=100000" \
        --fault "UploadPart:random=$third:seed=12:drop=100000" \
        --fault "UploadPart:random=$third:seed=13:blackhole" \
        --fault "GetObject:random=$third:seed=21:stall=100000" \
        --fault "GetObject:random=$third:seed=22:drop=100000" \
        --fault "GetObject:random=$third:seed=23:blackhole" > "$WORK/server.log" 2>&1 &
    PID=$!
    for _ in $(seq 1 100); do grep -q "listening on" "$WORK/server.log" && break; sleep 0.1; done
    export OSS_ENDPOINT="$(sed -n 's/^listening on //p' "$WORK/server.log" | head -1)"
}
export OSS_ACCESS_KEY_ID=LTAILocalDevAccessKeyId OSS_ACCESS_KEY_SECRET=LocalDevAccessKeySecret0123456789
export OSS_REGION=cn-hangzhou

run() {  # label, then the oss arguments
    local label="$1"; shift
    local begin end status=0
    begin="$(date +%s.%N)"
    timeout 600 "$SCRATCH/release/oss" "$@" > "$WORK/run.log" 2>&1 || status=$?
    end="$(date +%s.%N)"
    printf '%-44s %6.1f s  exit %s  %s\n' "$label" "$(echo "$end - $begin" | bc)" "$status" "$(faults)"
    curl -s -X POST "$OSS_ENDPOINT/-/stats/reset" > /dev/null
}

faults() {  # the server's counters since the last reset: faults injected, part uploads and GETs
    curl -s "$OSS_ENDPOINT/-/stats" | python3 -c '
import json, sys
s = json.load(sys.stdin)
ops = s.get("operations", s)
def count(name):
    for key, value in (ops.items() if isinstance(ops, dict) else []):
        if key.lower() == name.lower() and isinstance(value, dict):
            return value.get("requests", 0)
    return 0
print("faults injected %s, UploadPart %s, GetObject %s" % (s.get("faultsInjected", "?"), count("UploadPart"), count("GetObject")))'
}

echo "16 MiB-class transfers, ${SIZE_MIB} MiB in 1 MiB parts, 3 threads; faulty data requests: $RATE"
for transport in asynchttpclient urlsession; do
    start_server
    run "upload   $transport (stall 5 s, default)" cp --transport "$transport" --part-size 1048576 \
        --threads 3 "$WORK/source.bin" oss://bench/object
    run "download $transport (stall 5 s, default)" cp --transport "$transport" --part-size 1048576 \
        --threads 3 oss://bench/object "$WORK/back-$transport.bin"
    cmp -s "$WORK/source.bin" "$WORK/back-$transport.bin" && echo "  byte-identical" || echo "  DIFFERENT"
done
start_server
run "upload   asynchttpclient (stall detection off)" cp --stall-timeout 0 --part-size 1048576 --threads 3 \
    "$WORK/source.bin" oss://bench/object-off
