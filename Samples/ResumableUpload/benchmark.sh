#!/usr/bin/env bash
# Benchmark (not a test): upload one file (1 GiB by default) to the local OSS server (release build) with
#   1. this SDK's resumable-upload sample (release build),
#   2. oss2's resumable_upload (same part size and threads),
#   3. a single curl PUT (presigned V1 URL),
# in one run, and print wall time, client CPU seconds (user + system) and peak RSS of each client. Every uploaded
# object is read back and compared byte for byte with the file. Then the SDK's peak RSS is measured again for a
# second size (4 GiB by default) to show that memory does not grow with the file.
#
# Usage: Samples/ResumableUpload/benchmark.sh [size-in-MiB, default 1024] [second-size-in-MiB, default 4096, 0 = skip]
#   PART_SIZE (bytes, default 8388608) and THREADS (default 4) set the part size and parallelism.
# Needs: /usr/bin/time (GNU), curl, cmp, bc, python3 with oss2 in .venv (created here if missing).
set -euo pipefail
cd "$(dirname "$0")/../.."
SIZE_MIB="${1:-1024}"
BIG_MIB="${2:-4096}"
PART_SIZE="${PART_SIZE:-8388608}"
THREADS="${THREADS:-4}"
SCRATCH=".build-resumable-release"
WORK="$(mktemp -d)"
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT

echo "building resumable-upload and oss-local-server (release)..." >&2
swift build -c release --scratch-path "$SCRATCH" --product resumable-upload >&2
swift build -c release --scratch-path "$SCRATCH" --product oss-local-server >&2
SDK_BIN="$SCRATCH/release/resumable-upload"
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
    RESULTS+=("$(printf '%-28s %8.2f s %8.2f s %8.1f MiB' "$name" "$wall" "$(echo "$user + $sys" | bc)" "$(echo "scale=1; $rss / 1024" | bc)")")
}

# The SDK sample's command line for KEY (GNU time runs programs, not shell functions).
sdk_upload() {
    echo env OSS_ACCESS_KEY_ID="$AK" OSS_ACCESS_KEY_SECRET="$SK" "$SDK_BIN" \
        --endpoint "$ENDPOINT" --bucket "$BUCKET" --key "$1" --file "$WORK/payload.bin" --record-dir "$WORK/records" \
        --part-size "$PART_SIZE" --threads "$THREADS" --signature-version v1
}

measure "aliyun-oss-swift" $(sdk_upload swift.bin)
verify swift.bin

measure "oss2 resumable_upload" $PY -c '
import os, oss2
b = oss2.Bucket(oss2.Auth(os.environ["AK"], os.environ["SK"]), os.environ["EP"], os.environ["BUCKET"])
oss2.resumable_upload(b, "oss2.bin", os.environ["WORK"] + "/payload.bin", multipart_threshold=1,
    part_size=int(os.environ["PART_SIZE"]), num_threads=int(os.environ["THREADS"]),
    store=oss2.ResumableStore(root=os.environ["WORK"]))
'
verify oss2.bin

URL="$($PY -c '
import os, oss2
b = oss2.Bucket(oss2.Auth(os.environ["AK"], os.environ["SK"]), os.environ["EP"], os.environ["BUCKET"])
print(b.sign_url("PUT", "curl.bin", 3600))
')"
measure "curl (one PUT)" curl -sS -f -o /dev/null -T "$WORK/payload.bin" "$URL"
verify curl.bin

echo
echo "${SIZE_MIB} MiB, part size $PART_SIZE, $THREADS threads (curl: one stream); all three objects identical"
printf '%-28s %10s %10s %12s\n' "client" "wall" "cpu" "peak RSS"
for line in "${RESULTS[@]}"; do echo "$line"; done

if [ "$BIG_MIB" -gt 0 ]; then
    echo "creating ${BIG_MIB} MiB..." >&2
    rm -f "$WORK/payload.bin"
    head -c "$((BIG_MIB * 1024 * 1024))" /dev/urandom > "$WORK/payload.bin"
    RESULTS=()
    measure "aliyun-oss-swift ${BIG_MIB} MiB" $(sdk_upload big.bin)
    verify big.bin
    echo
    echo "memory versus file size (same part size and threads):"
    for line in "${RESULTS[@]}"; do echo "$line"; done
fi
