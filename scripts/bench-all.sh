#!/usr/bin/env bash
# Every benchmark in one run (not a test): figures printed side by side with a peer measured in the same run.
#   scripts/bench-all.sh [size-MiB, default 1024] [big-size-MiB, default 4096; 0 skips the memory-vs-size run]
#
# 1. micro: signing, presigning, CRC-64, combine, MD5, XML decoding — this SDK beside oss2 (scripts/bench-micro.sh)
# 2. the CPU floor of an upload on one core: read + MD5 + CRC-64 of the same file (oss-microbench --floor)
# 3. the local server vs a trivial sink, curl PUT/GET (scripts/bench-server.sh)
# 4. resumable upload: this SDK vs oss2 resumable_upload vs one curl PUT; wall, client CPU, peak RSS; RSS at two sizes
# 5. resumable download: this SDK vs oss2 resumable_download vs one curl GET
# The SDK's client CPU per GiB is then printed as a ratio to the floor (target: 1.5x or less).
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE_MIB="${1:-1024}"
BIG_MIB="${2:-4096}"
LOG="$(mktemp -d)"
trap 'rm -rf "$LOG"' EXIT

echo "== machine =="
echo "$(nproc) cores,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2), $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), load $(cut -d' ' -f1-3 /proc/loadavg), $(swift --version 2>&1 | head -1)"
echo

echo "== 1. micro =="
./scripts/bench-micro.sh
echo

echo "== 2. CPU floor (one core: read + MD5 + CRC-64 of ${SIZE_MIB} MiB) =="
head -c $((SIZE_MIB * 1048576)) /dev/urandom > "$LOG/floor.bin"
"$(swift build -c release --show-bin-path)/oss-microbench" --floor "$LOG/floor.bin" | tee "$LOG/floor.txt"
rm -f "$LOG/floor.bin"
echo

echo "== 3. local server vs a trivial sink (curl) =="
./scripts/bench-server.sh "$SIZE_MIB"
echo

echo "== 4. resumable upload =="
Samples/ResumableUpload/benchmark.sh "$SIZE_MIB" "$BIG_MIB" | tee "$LOG/upload.txt"
echo

echo "== 5. resumable download =="
Samples/ResumableDownload/benchmark.sh "$SIZE_MIB"
echo

floor_per_gib=$(sed -n 's/.*cpu per GiB \([0-9.]*\) s.*/\1/p' "$LOG/floor.txt")
sdk_cpu=$(awk '/^aliyun-oss-swift  / {print $4; exit}' "$LOG/upload.txt")
oss2_cpu=$(awk '/^oss2 resumable_upload/ {print $5; exit}' "$LOG/upload.txt")
if [ -n "$floor_per_gib" ] && [ -n "$sdk_cpu" ]; then
    echo "== upload client CPU per GiB versus the one-core floor =="
    awk -v cpu="$sdk_cpu" -v o="${oss2_cpu:-0}" -v mib="$SIZE_MIB" -v floor="$floor_per_gib" 'BEGIN {
        gib = mib / 1024
        printf "floor %.2f s/GiB; this SDK %.2f s/GiB = %.2fx the floor (target <= 1.5x)", floor, cpu / gib, cpu / gib / floor
        if (o > 0) printf "; oss2 %.2f s/GiB (this SDK uses %.0f%% of it; target <= 20%%)", o / gib, 100 * cpu / o
        printf "\n"
    }'
fi
