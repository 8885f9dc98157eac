#!/usr/bin/env bash
# Benchmark (not a test): upload one file (1 GiB by default) to the local OSS server (release build) with
#   1. this SDK's resumable-upload sample (release build) with the SDK's default part size and threads
#      (OSSResumableUploadRequest.defaultPartSize / defaultThreadNum),
#   2. oss2's resumable_upload with the same settings,
#   3. this SDK with the tuned part size and threads (PART_SIZE / THREADS),
#   4. oss2's resumable_upload with the same tuned settings,
#   5. a single curl PUT (presigned V1 URL),
# in one run, and print wall time, client CPU seconds (user + system) and peak RSS of each client. Every uploaded
# object is read back and compared byte for byte with the file. Then the SDK's peak RSS is measured again (tuned
# settings) for more sizes (256 MiB and 4 GiB by default) to show that memory does not grow with the file.
#
# Usage: Samples/ResumableUpload/benchmark.sh [size-in-MiB, default 1024] [more sizes in MiB, comma-separated,
#        default 256,4096; 0 = skip]
#   PART_SIZE (bytes, default 8388608) and THREADS (default 4): the tuned settings.
#   SCRATCH: the release build directory (default .build-release, shared by every benchmark script).
#   BENCH_RESULTS: if set, a file to which "upload|client|wall|cpu|rss" lines are appended (scripts/bench-all.sh).
# Needs: /usr/bin/time (GNU), curl, cmp, bc, python3 with oss2 in .venv (created here if missing).
set -euo pipefail
cd "$(dirname "$0")/../.."
SIZE_MIB="${1:-1024}"
MORE_MIB="${2:-256,4096}"
PART_SIZE="${PART_SIZE:-8388608}"
THREADS="${THREADS:-4}"
SCRATCH="${SCRATCH:-.build-release}"
# The SDK's defaults, read from its source (the sample uses them when --part-size / --threads are not given).
sdk_default() {
    local value
    value="$(sed -n "s/.*static let $1[^=]*= *\([0-9 *]*\).*/\1/p" Sources/AliyunOSS/Transfer/Upload/OSSResumableUploadRequest.swift | head -1)"
    value=$((value))
    [ "$value" -gt 0 ] || { echo "cannot read $1 from the SDK source" >&2; exit 1; }
    echo "$value"
}
DEFAULT_PART_SIZE="$(sdk_default defaultPartSize)"
DEFAULT_THREADS="$(sdk_default defaultThreadNum)"
WORK="$(mktemp -d)"
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT

echo "building resumable-upload and oss-local-server (release)..." >&2
swift build -c release --package-path Samples --scratch-path "$SCRATCH/samples" --product resumable-upload > "$WORK/build.log" 2>&1 || { cat "$WORK/build.log" >&2; exit 1; }
swift build -c release --scratch-path "$SCRATCH" --product oss-local-server > "$WORK/build.log" 2>&1 || { cat "$WORK/build.log" >&2; exit 1; }
SDK_BIN="$SCRATCH/samples/release/resumable-upload"
SERVER_BIN="$SCRATCH/release/oss-local-server"

if ! .venv/bin/python -c "import oss2" >/dev/null 2>&1; then
    python3 -m venv .venv
    .venv/bin/pip install --quiet --disable-pip-version-check oss2
fi
PY=.venv/bin/python

AK="LTAILocalDevAccessKeyId"
SK="LocalDevAccessKeySecret0123456789"
BUCKET="bench"

"$SERVER_BIN" --port 0 --data-dir "$WORK/data" --bucket "$BUCKET" --access-key-id "$AK" --access-key-secret "$SK" \
    > "$WORK/server.log" 2>&1 &
PIDS+=($!)
ENDPOINT=""
for _ in $(seq 1 100); do
    if grep -q "listening on" "$WORK/server.log"; then ENDPOINT="$(sed -n 's/^listening on //p' "$WORK/server.log" | head -1)"; break; fi
    sleep 0.1
done
[ -n "$ENDPOINT" ] || { echo "the server did not start" >&2; cat "$WORK/server.log" >&2; exit 1; }
export EP="$ENDPOINT" AK SK BUCKET WORK PART_SIZE THREADS

echo "creating ${SIZE_MIB} MiB..." >&2
head -c "$((SIZE_MIB * 1024 * 1024))" /dev/urandom > "$WORK/payload.bin"

# verify KEY: reads the object back (oss2 get_object_to_file, CRC-checked) and compares it with the payload.
verify() {
    KEY="$1" $PY -c '
import os, oss2
b = oss2.Bucket(oss2.Auth(os.environ["AK"], os.environ["SK"]), os.environ["EP"], os.environ["BUCKET"], enable_crc=True)
b.get_object_to_file(os.environ["KEY"], os.environ["WORK"] + "/readback.bin")
b.delete_object(os.environ["KEY"])
'
    cmp "$WORK/readback.bin" "$WORK/payload.bin"
    rm -f "$WORK/readback.bin"
}

# measure NAME COMMAND...: runs the command under GNU time, records "NAME wall cpu rss".
RESULTS=()
measure() {
    local name="$1"; shift
    sync
    /usr/bin/time -f "%e %U %S %M" -o "$WORK/time" "$@" > "$WORK/out" 2>&1 \
        || { echo "$name failed:" >&2; cat "$WORK/out" >&2; exit 1; }
    read -r wall user sys rss < "$WORK/time"
    local cpu mib
    cpu="$(echo "$user + $sys" | bc)"
    mib="$(echo "scale=1; $rss / 1024" | bc)"
    RESULTS+=("$(printf '%-40s %8.2f s %8.2f s %8.1f MiB' "$name" "$wall" "$cpu" "$mib")")
    if [ -n "${BENCH_RESULTS:-}" ]; then echo "upload|$name|$wall|$cpu|$mib" >> "$BENCH_RESULTS"; fi
}

# The SDK sample's command line for KEY [PART THREADS] (GNU time runs programs, not shell functions); without
# PART and THREADS the sample uses the SDK's defaults.
sdk_upload() {
    echo env OSS_ACCESS_KEY_ID="$AK" OSS_ACCESS_KEY_SECRET="$SK" "$SDK_BIN" \
        --endpoint "$ENDPOINT" --bucket "$BUCKET" --key "$1" --file "$WORK/payload.bin" --checkpoint-dir "$WORK/records" \
        ${2:+--part-size "$2"} ${3:+--threads "$3"} --signature-version v1
}

# oss2_upload KEY PART THREADS: the command line of oss2's resumable_upload with these settings.
oss2_upload() {
    echo env OSS2_KEY="$1" OSS2_PART="$2" OSS2_THREADS="$3" $PY "$WORK/oss2_upload.py"
}
cat > "$WORK/oss2_upload.py" <<'PYEOF'
import os, oss2
b = oss2.Bucket(oss2.Auth(os.environ["AK"], os.environ["SK"]), os.environ["EP"], os.environ["BUCKET"])
oss2.resumable_upload(b, os.environ["OSS2_KEY"], os.environ["WORK"] + "/payload.bin", multipart_threshold=1,
    part_size=int(os.environ["OSS2_PART"]), num_threads=int(os.environ["OSS2_THREADS"]),
    store=oss2.ResumableStore(root=os.environ["WORK"]))
PYEOF

mib_of() { awk -v b="$1" 'BEGIN { printf (b % 1048576 ? "%.2f" : "%d"), b / 1048576 }'; }
DEFAULTS="$(mib_of "$DEFAULT_PART_SIZE") MiB x $DEFAULT_THREADS"
TUNED="$(mib_of "$PART_SIZE") MiB x $THREADS"

measure "this SDK, defaults ($DEFAULTS)" $(sdk_upload swift-defaults.bin)
verify swift-defaults.bin
measure "oss2 resumable_upload ($DEFAULTS)" $(oss2_upload oss2-defaults.bin "$DEFAULT_PART_SIZE" "$DEFAULT_THREADS")
verify oss2-defaults.bin

if [ "$PART_SIZE" != "$DEFAULT_PART_SIZE" ] || [ "$THREADS" != "$DEFAULT_THREADS" ]; then
    measure "this SDK, tuned ($TUNED)" $(sdk_upload swift-tuned.bin "$PART_SIZE" "$THREADS")
    verify swift-tuned.bin
    measure "oss2 resumable_upload ($TUNED)" $(oss2_upload oss2-tuned.bin "$PART_SIZE" "$THREADS")
    verify oss2-tuned.bin
fi

URL="$($PY -c '
import os, oss2
b = oss2.Bucket(oss2.Auth(os.environ["AK"], os.environ["SK"]), os.environ["EP"], os.environ["BUCKET"])
print(b.sign_url("PUT", "curl.bin", 3600))
')"
measure "curl (one PUT)" curl -sS -f -o /dev/null -T "$WORK/payload.bin" "$URL"
verify curl.bin

echo
echo "upload ${SIZE_MIB} MiB: SDK defaults $DEFAULTS, tuned $TUNED (part size x threads; curl: one stream); every object identical"
printf '%-40s %10s %10s %12s\n' "client" "wall" "cpu" "peak RSS"
for line in "${RESULTS[@]}"; do echo "$line"; done

if [ "$MORE_MIB" != "0" ]; then
    RESULTS=()
    for mib in ${MORE_MIB//,/ }; do
        [ "$mib" -gt 0 ] || continue
        echo "creating ${mib} MiB..." >&2
        rm -f "$WORK/payload.bin"
        head -c "$((mib * 1024 * 1024))" /dev/urandom > "$WORK/payload.bin"
        measure "this SDK, tuned, ${mib} MiB" $(sdk_upload "big-$mib.bin" "$PART_SIZE" "$THREADS")
        verify "big-$mib.bin"
    done
    echo
    echo "memory versus file size (tuned: $TUNED):"
    for line in "${RESULTS[@]}"; do echo "$line"; done
fi
