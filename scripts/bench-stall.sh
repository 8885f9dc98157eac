#!/usr/bin/env bash
# Benchmark (not a test): 16 MiB resumable transfers (1 MiB parts, both directions, both transports) through a
# server that stalls, resets or black-holes every 4th data request, with the SDK's default configuration (stall
# detection at 5 s), and one upload with stall detection off (--stall-timeout 0) for comparison.
# Every result is compared byte for byte with the source.
# Usage: scripts/bench-stall.sh [size-in-MiB, default 16] [every Nth data request misbehaves, default 4]
# SCRATCH: the release build directory (default .build-release).
set -euo pipefail
cd "$(dirname "$0")/.."
SCRATCH="${SCRATCH:-.build-release}"
SIZE_MIB="${1:-16}"
EVERY="${2:-4}"
WORK="$(mktemp -d "${BENCH_TMPDIR:-${TMPDIR:-/tmp}}/oss-bench-stall.XXXXXX")"
PID=""
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
if [ ! -x "$SCRATCH/release/oss-local-server" ] || [ ! -x "$SCRATCH/release/oss" ]; then
    swift build -c release --scratch-path "$SCRATCH" --product oss-local-server >&2
    swift build -c release --scratch-path "$SCRATCH" --product oss >&2
fi
head -c "$((SIZE_MIB << 20))" /dev/urandom > "$WORK/source.bin"

# Every 4th data request misbehaves one way: stalls after 100 KB (stall), is reset after 100 KB (drop), or is
# swallowed and never answered (blackhole).
start_server() {  # the fault action for UploadPart and GetObject
    [ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null || true
    rm -rf "$WORK/data"
    "$SCRATCH/release/oss-local-server" --port 0 --data-dir "$WORK/data" --bucket bench --admin \
        --fault "UploadPart:every=$EVERY:$1" --fault "GetObject:every=$EVERY:$1" > "$WORK/server.log" 2>&1 &
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

echo "${SIZE_MIB} MiB in 1 MiB parts, 3 threads; every ${EVERY}th UploadPart and GetObject misbehaves"
for fault in stall=100000 drop=100000 blackhole; do
    for transport in asynchttpclient urlsession; do
        start_server "$fault"
        run "$fault up   $transport" cp --transport "$transport" --part-size 1048576 --threads 3 \
            "$WORK/source.bin" oss://bench/object
        run "$fault down $transport" cp --transport "$transport" --part-size 1048576 --threads 3 \
            oss://bench/object "$WORK/back.bin"
        cmp -s "$WORK/source.bin" "$WORK/back.bin" || echo "  DIFFERENT"
        rm -f "$WORK/back.bin"
    done
done
echo "for comparison, stall detection off (--stall-timeout 0): each stalled part waits out the 60 s read timeout"
start_server stall=100000
run "stall=100000 up   asynchttpclient, detection off" cp --stall-timeout 0 --part-size 1048576 --threads 3 \
    "$WORK/source.bin" oss://bench/object-off
