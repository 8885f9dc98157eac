#!/usr/bin/env bash
# Benchmark (not a test): the multipart upload path against the single-PUT path on the release local server, in
# one run: one curl PUT of the file, `oss cp` with 8 MiB x 4 parts (tuned), `oss cp` with its defaults (about 64
# parts, see Sources/oss/PartSizing.swift), `oss cp` with the SDK's default 1 MiB parts, and oss2's
# resumable_upload (8 MiB x 4). Wall time, client CPU, server CPU, each the best of RUNS; the ratio to curl.
# Then the part-size sweep behind the CLI's default (wall time per part size, 4 threads) at SWEEP_MIB.
# Usage: scripts/bench-upload-paths.sh [size-MiB, default 512]
# SCRATCH: the release build directory (default .build-release); RUNS (default 3); SWEEP_MIB (default: the size;
# 0 skips the sweep). Needs curl and oss2 (.venv/bin/python if present).
set -euo pipefail
cd "$(dirname "$0")/.."
SCRATCH="${SCRATCH:-.build-release}"
SIZE_MIB="${1:-512}"
RUNS="${RUNS:-3}"
SWEEP_MIB="${SWEEP_MIB:-$SIZE_MIB}"
PY="python3"; [ -x .venv/bin/python ] && PY=".venv/bin/python"
if [ -z "${SKIP_BUILD:-}" ]; then
    for product in oss-local-server oss; do
        swift build -c release --scratch-path "$SCRATCH" --product "$product" >&2
    done
fi
BIN="$SCRATCH/release"
WORK="$(mktemp -d "${BENCH_TMPDIR:-${TMPDIR:-/tmp}}/oss-bench-up.XXXXXX")"
SERVER_PID=""
cleanup() { [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
export OSS_ACCESS_KEY_ID="LTAILocalDevAccessKeyId"
export OSS_ACCESS_KEY_SECRET="LocalDevAccessKeySecret0123456789"
BUCKET="bench-up"
"$BIN/oss-local-server" --port 0 --data-dir "$WORK/data" --bucket "$BUCKET" \
    --access-key-id "$OSS_ACCESS_KEY_ID" --access-key-secret "$OSS_ACCESS_KEY_SECRET" > "$WORK/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 100); do grep -q "listening on" "$WORK/server.log" && break; sleep 0.1; done
SERVER="$(sed -n 's/^listening on //p' "$WORK/server.log" | head -1)"
head -c $((SIZE_MIB * 1048576)) /dev/urandom > "$WORK/file.bin"

server_cpu() { awk '{print $14 + $15}' "/proc/$SERVER_PID/stat"; }  # clock ticks
# measure LABEL COMMAND...: the best of RUNS (by wall time): "wall client-cpu server-cpu".
measure() {
    local label="$1"; shift
    local best=""
    for _ in $(seq 1 "$RUNS"); do
        rm -rf "$WORK/records"
        local before; before=$(server_cpu)
        local start; start=$(date +%s.%N)
        /usr/bin/time -f "%U %S" -o "$WORK/time" "$@" > "$WORK/out" 2>&1 || { cat "$WORK/out" >&2; exit 1; }
        local end; end=$(date +%s.%N)
        local after; after=$(server_cpu)
        local line
        line=$(awk -v s="$start" -v e="$end" -v b="$before" -v a="$after" -v t="$(getconf CLK_TCK)" \
            '{printf "%.3f %.2f %.2f", e - s, $1 + $2, (a - b) / t}' "$WORK/time")
        if [ -z "$best" ] || awk -v x="${line%% *}" -v y="${best%% *}" 'BEGIN {exit !(x < y)}'; then best="$line"; fi
    done
    echo "$label $best"
}
put_url() { "$BIN/oss" presign "oss://$BUCKET/curl.bin" --method PUT --endpoint "$SERVER" | tail -1; }

echo "upload of $SIZE_MIB MiB, best of $RUNS (wall s, client CPU s, server CPU s):"
results="$WORK/results"
measure curl-PUT curl -s -f -X PUT -T "$WORK/file.bin" -H "Content-Type:" "$(put_url)" | tee "$results"
measure "oss-cp-8MiBx4" "$BIN/oss" cp "$WORK/file.bin" "oss://$BUCKET/tuned.bin" --endpoint "$SERVER" \
    --part-size 8388608 --threads 4 --checkpoint-dir "$WORK/records" | tee -a "$results"
measure "oss-cp-defaults" "$BIN/oss" cp "$WORK/file.bin" "oss://$BUCKET/defaults.bin" --endpoint "$SERVER" \
    --checkpoint-dir "$WORK/records" | tee -a "$results"
measure "oss-cp-1MiBx5(SDK-default)" "$BIN/oss" cp "$WORK/file.bin" "oss://$BUCKET/sdk.bin" --endpoint "$SERVER" \
    --part-size 1048576 --threads 5 --checkpoint-dir "$WORK/records" | tee -a "$results"
cat > "$WORK/oss2_up.py" <<'PY'
import sys, oss2
endpoint, bucket_name, path, records = sys.argv[1:5]
bucket = oss2.Bucket(oss2.Auth("LTAILocalDevAccessKeyId", "LocalDevAccessKeySecret0123456789"), endpoint, bucket_name)
oss2.resumable_upload(bucket, "oss2.bin", path, store=oss2.ResumableStore(root=records), multipart_threshold=1,
                      part_size=8 * 1024 * 1024, num_threads=4)
PY
measure "oss2-resumable_upload-8MiBx4" "$PY" "$WORK/oss2_up.py" "$SERVER" "$BUCKET" "$WORK/file.bin" "$WORK/records" \
    | tee -a "$results"
awk 'NR == 1 {curl = $2} NR > 1 {printf "  %s: %.2fx the curl PUT\n", $1, $2 / curl}' "$results"

if [ "$SWEEP_MIB" != "0" ]; then
    head -c $((SWEEP_MIB * 1048576)) /dev/urandom > "$WORK/sweep.bin"
    echo "part-size sweep, $SWEEP_MIB MiB, 4 threads, best of $RUNS (wall s, client CPU s, server CPU s):"
    for mib in 1 2 4 8 16 32 64; do
        measure "${mib}MiB" "$BIN/oss" cp "$WORK/sweep.bin" "oss://$BUCKET/sweep.bin" --endpoint "$SERVER" \
            --part-size $((mib * 1048576)) --threads 4 --checkpoint-dir "$WORK/records"
    done
fi
