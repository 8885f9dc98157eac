#!/usr/bin/env bash
# Benchmark (not a test): a 1 GiB PUT and GET with curl against the local OSS server (release build),
# beside the same transfers against a trivial sink (scripts/bench-sink.py), printed in MB/s.
# Usage: scripts/bench-server.sh [size-in-MiB, default 1024]
# The payload and the server's data directory live in $BENCH_TMPDIR (default $TMPDIR or /tmp). The server
# fsyncs every object before acknowledging it, so on a slow disk the PUT figure is the disk's fsync'd write
# speed; run with BENCH_TMPDIR=/dev/shm to measure the server itself.
# SCRATCH: the release build directory (default .build-release, shared by every benchmark script).
set -euo pipefail
cd "$(dirname "$0")/.."
SCRATCH="${SCRATCH:-.build-release}"
SIZE_MIB="${1:-1024}"
SIZE=$((SIZE_MIB * 1024 * 1024))
WORK="$(mktemp -d "${BENCH_TMPDIR:-${TMPDIR:-/tmp}}/oss-bench.XXXXXX")"
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT

echo "building oss-local-server (release)..." >&2
swift build -c release --scratch-path "$SCRATCH" --product oss-local-server >&2
BIN="$SCRATCH/release/oss-local-server"

AK="LTAILocalDevAccessKeyId"
SK="LocalDevAccessKeySecret0123456789"
BUCKET="bench"
KEY="bench-object.bin"

head -c "$SIZE" /dev/urandom > "$WORK/payload.bin"

# Start a process in the background (in this shell, so cleanup can kill it); wait for its "listening on URL" line.
start() {
    local name="$1"; shift
    "$@" > "$WORK/$name.log" 2>&1 &
    PIDS+=($!)
}
url_of() {
    local log="$WORK/$1.log"
    for _ in $(seq 1 100); do
        if grep -q "listening on" "$log"; then sed -n 's/^listening on //p' "$log" | head -1; return; fi
        sleep 0.1
    done
    echo "$1 did not start" >&2; cat "$log" >&2; exit 1
}

start server "$BIN" --port 0 --data-dir "$WORK/data" --bucket "$BUCKET" --access-key-id "$AK" --access-key-secret "$SK"
start sink python3 scripts/bench-sink.py
SERVER="$(url_of server)"
SINK="$(url_of sink)"

# V1 presigned URL: signature over "VERB\n\n<content-type>\n<expires>\n/bucket/key".
presign() {
    local verb="$1" type="$2" expires sig
    expires=$(( $(date +%s) + 3600 ))
    sig=$(printf '%s\n\n%s\n%s\n/%s/%s' "$verb" "$type" "$expires" "$BUCKET" "$KEY" \
        | openssl dgst -sha1 -hmac "$SK" -binary | base64 | sed 's/+/%2B/g; s/\//%2F/g; s/=/%3D/g')
    echo "$SERVER/$BUCKET/$KEY?OSSAccessKeyId=$AK&Expires=$expires&Signature=$sig"
}

mbps() { awk -v b="$1" 'BEGIN { printf "%.0f", b / 1000000 }'; }

PUT_URL="$(presign PUT application/octet-stream)"
server_put=$(curl -sS -f -o /dev/null -w '%{speed_upload}' -H 'Content-Type: application/octet-stream' -T "$WORK/payload.bin" "$PUT_URL")
GET_URL="$(presign GET "")"
server_get=$(curl -sS -f -o /dev/null -w '%{speed_download}' "$GET_URL")
curl -sS -f "$GET_URL" | cmp -s - "$WORK/payload.bin" || { echo "GET returned different bytes" >&2; exit 1; }
sink_put=$(curl -sS -f -o /dev/null -w '%{speed_upload}' -T "$WORK/payload.bin" "$SINK/upload")
sink_get=$(curl -sS -f -o /dev/null -w '%{speed_download}' "$SINK/$SIZE")

printf '%-10s %14s %14s\n' "${SIZE_MIB} MiB" "oss-local-server" "trivial sink"
printf '%-10s %11s MB/s %9s MB/s\n' "PUT" "$(mbps "$server_put")" "$(mbps "$sink_put")"
printf '%-10s %11s MB/s %9s MB/s\n' "GET" "$(mbps "$server_get")" "$(mbps "$sink_get")"
