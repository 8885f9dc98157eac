#!/usr/bin/env bash
# Every benchmark in one run (not a test): figures printed side by side with a peer measured in the same run.
#   scripts/bench-all.sh [size-MiB, default 1024] [more sizes for the memory-vs-size runs, MiB, comma-separated,
#                        default 256,4096; 0 skips them]
#   scripts/bench-all.sh 64 0        # a quick pass (checks the scripts, not a figure to publish)
#
# 0. builds every release product the benchmarks need, once, in $SCRATCH (default .build-release); the
#    sub-scripts use the same directory, so their own builds are no-ops
# 1. micro: signing, presigning, CRC-64, combine, MD5, XML decoding — this SDK beside oss2 (scripts/bench-micro.sh)
# 2. the CPU floor of an upload on one core: read + MD5 + CRC-64 of the same file (oss-microbench --floor)
# 3. the local server vs a trivial sink, curl PUT/GET (scripts/bench-server.sh)
# 3c. upload paths: one curl PUT vs `oss cp` tuned (8 MiB x 4), with its defaults and with 1 MiB parts vs oss2, and
#    the part-size sweep behind the CLI's default (scripts/bench-upload-paths.sh)
# 4. resumable upload: this SDK (defaults and tuned) vs oss2 resumable_upload (same settings) vs one curl PUT;
#    wall, client CPU, peak RSS; RSS at more sizes (Samples/ResumableUpload/benchmark.sh)
# 5. resumable download: the same for downloads (Samples/ResumableDownload/benchmark.sh)
# 6. resume waste: `oss cp` killed with SIGKILL at 50% (server counters), resumed; bytes sent twice vs the
#    bound: threads x partSize for uploads, threads x 128 KiB + 1.5 MiB for downloads (they resume at the byte;
#    paced at 25 MB/s a part) (scripts/kill_loop.py, one run each way, tuned settings)
# 7. transports: oss cp upload/download through URLSession and AsyncHTTPClient beside curl; URLSession RSS at
#    more sizes (scripts/bench-transport.sh)
# The SDK's client CPU per GiB is then printed as a ratio to the floor (target: 1.5x or less), and a markdown
# table of every figure (for README.md) closes the output.
# PART_SIZE / THREADS (default 8 MiB / 4): the tuned settings of 4-6.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE_MIB="${1:-1024}"
MORE_MIB="${2:-256,4096}"
export SCRATCH="${SCRATCH:-.build-release}"
export PART_SIZE="${PART_SIZE:-8388608}"
export THREADS="${THREADS:-4}"
LOG="$(mktemp -d)"
trap 'rm -rf "$LOG"' EXIT
export BENCH_RESULTS="$LOG/results.txt"
: > "$BENCH_RESULTS"

echo "== 0. build (release, $SCRATCH) =="
for product in oss-microbench oss-local-server resumable-upload resumable-download oss; do
    echo "building $product..."
    # The samples are a package of their own (Samples/Package.swift).
    case "$product" in
    resumable-*) where=(--package-path Samples --scratch-path "$SCRATCH/samples") ;;
    *) where=(--scratch-path "$SCRATCH") ;;
    esac
    swift build -c release "${where[@]}" --product "$product" > "$LOG/build-$product.log" 2>&1 \
        || { cat "$LOG/build-$product.log" >&2; exit 1; }
done
BIN="$SCRATCH/release"
echo

echo "== machine =="
MACHINE="$(nproc) cores,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2), $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(. /etc/os-release 2>/dev/null && echo "${PRETTY_NAME:-Linux}"), $(swift --version 2>&1 | grep -o 'Swift version [0-9.]*' | head -1), load at start $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$MACHINE" | tee "$LOG/machine.txt"
echo

echo "== 1. micro =="
./scripts/bench-micro.sh | tee "$LOG/micro.txt"
echo

echo "== 2. CPU floor (one core: read + MD5 + CRC-64 of ${SIZE_MIB} MiB) =="
head -c $((SIZE_MIB * 1048576)) /dev/urandom > "$LOG/floor.bin"
"$BIN/oss-microbench" --floor "$LOG/floor.bin" | tee "$LOG/floor.txt"
rm -f "$LOG/floor.bin"
echo

echo "== 3. local server vs a trivial sink (curl) =="
./scripts/bench-server.sh "$SIZE_MIB" | tee "$LOG/server.txt"
echo

echo "== 3b. multipart: Complete latency (64 parts) and GET of a multipart vs a single-PUT object =="
SCRATCH="${SCRATCH:-.build-release}" ./scripts/bench-multipart.sh "8,$SIZE_MIB" 64 | tee "$LOG/multipart.txt"
echo

echo "== 3c. upload paths: curl PUT vs oss cp (tuned, defaults, 1 MiB parts) vs oss2; part-size sweep =="
SKIP_BUILD=1 SWEEP_MIB="${SWEEP_MIB:-512}" ./scripts/bench-upload-paths.sh "$SIZE_MIB" | tee "$LOG/upload-paths.txt"
echo

echo "== 4. resumable upload =="
Samples/ResumableUpload/benchmark.sh "$SIZE_MIB" "$MORE_MIB" | tee "$LOG/upload.txt"
echo

echo "== 5. resumable download =="
Samples/ResumableDownload/benchmark.sh "$SIZE_MIB" "$MORE_MIB" | tee "$LOG/download.txt"
echo

echo "== 6. resume waste: kill -9 at 50%, then resume (tuned settings) =="
python3 scripts/kill_loop.py --oss "$BIN/oss" --server "$BIN/oss-local-server" --runs 1 --seed 50 \
    --min-mib "$SIZE_MIB" --max-mib "$SIZE_MIB" --part-size "$PART_SIZE" --threads "$THREADS" --fraction 0.5 \
    | tee "$LOG/waste.txt"
echo

echo "== 7. transports: URLSession vs AsyncHTTPClient vs curl =="
SKIP_BUILD=1 ./scripts/bench-transport.sh "$SIZE_MIB" "$MORE_MIB" | tee "$LOG/transport.txt"
echo

floor_per_gib=$(sed -n 's/.*cpu per GiB \([0-9.]*\) s.*/\1/p' "$LOG/floor.txt")
# The tuned SDK run (or the defaults run when the tuned settings are the defaults) and the oss2 run beside it.
sdk_cpu=$(awk -F'|' '$1 == "upload" && $2 ~ /^this SDK, (defaults|tuned) \(/ {c = $4} END {print c}' "$BENCH_RESULTS")
oss2_cpu=$(awk -F'|' '$1 == "upload" && $2 ~ /^oss2 resumable_upload/ {c = $4} END {print c}' "$BENCH_RESULTS")
if [ -n "$floor_per_gib" ] && [ -n "$sdk_cpu" ]; then
    echo "== upload client CPU per GiB versus the one-core floor (tuned settings) =="
    awk -v cpu="$sdk_cpu" -v o="${oss2_cpu:-0}" -v mib="$SIZE_MIB" -v floor="$floor_per_gib" 'BEGIN {
        gib = mib / 1024
        printf "floor %.2f s/GiB; this SDK %.2f s/GiB = %.2fx the floor (target <= 1.5x)", floor, cpu / gib, cpu / gib / floor
        if (o > 0) printf "; oss2 %.2f s/GiB (this SDK uses %.0f%% of it; target <= 20%%)", o / gib, 100 * cpu / o
        printf "\n"
    }' | tee "$LOG/ratio.txt"
    echo
fi

echo "== table (markdown, for README.md) =="
python3 scripts/bench_table.py "$LOG" "$SIZE_MIB"
