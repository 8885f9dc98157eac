#!/usr/bin/env bash
# Benchmark (not a test): download one object (1 GiB by default) from the local OSS server (release build) with
#   1. this SDK's resumable-download sample (release build),
#   2. oss2's resumable_download (same part size and threads),
#   3. a single curl GET (presigned V1 URL),
# in one run, and print wall time, client CPU seconds (user + system) and peak RSS of each client.
# Every download is compared byte for byte with the uploaded file.
#
# Usage: Samples/ResumableDownload/benchmark.sh [size-in-MiB, default 1024]
#   PART_SIZE (bytes, default 8388608) and THREADS (default 4) set the part size and parallelism.
# Needs: /usr/bin/time (GNU), curl, python3 with oss2 in .venv (scripts/test.sh creates it; created here if missing).
set -euo pipefail
cd "$(dirname "$0")/../.."
SIZE_MIB="${1:-1024}"
PART_SIZE="${PART_SIZE:-8388608}"
THREADS="${THREADS:-4}"
SCRATCH=".build-download-release"
WORK="$(mktemp -d)"
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT

echo "building resumable-download and oss-local-server (release)..." >&2
swift build -c release --scratch-path "$SCRATCH" --product resumable-download >&2
swift build -c release --scratch-path "$SCRATCH" --product oss-local-server >&2
SDK_BIN="$SCRATCH/release/resumable-download"
SERVER_BIN="$SCRATCH/release/oss-local-server"

if ! .venv/bin/python -c "import oss2" >/dev/null 2>&1; then
    python3 -m venv .venv
    .venv/bin/pip install --quiet --disable-pip-version-check oss2
fi
PY=.venv/bin/python

AK="LTAILocalDevAccessKeyId"
SK="LocalDevAccessKeySecret0123456789"
BUCKET="bench"
KEY="bench-download.bin"

"$SERVER_BIN" --port 0 --data-dir "$WORK/data" --bucket "$BUCKET" --access-key-id "$AK" --access-key-secret "$SK" \
    > "$WORK/server.log" 2>&1 &
PIDS+=($!)
ENDPOINT=""
for _ in $(seq 1 100); do
    if grep -q "listening on" "$WORK/server.log"; then ENDPOINT="$(sed -n 's/^listening on //p' "$WORK/server.log" | head -1)"; break; fi
    sleep 0.1
done
[ -n "$ENDPOINT" ] || { echo "the server did not start" >&2; cat "$WORK/server.log" >&2; exit 1; }

echo "creating and uploading ${SIZE_MIB} MiB..." >&2
head -c "$((SIZE_MIB * 1024 * 1024))" /dev/urandom > "$WORK/payload.bin"
export EP="$ENDPOINT" AK SK BUCKET KEY WORK PART_SIZE THREADS
$PY - <<'PYEOF'
import os, oss2
b = oss2.Bucket(oss2.Auth(os.environ["AK"], os.environ["SK"]), os.environ["EP"], os.environ["BUCKET"])
oss2.resumable_upload(b, os.environ["KEY"], os.environ["WORK"] + "/payload.bin", part_size=64 * 1024 * 1024,
                      num_threads=4, store=oss2.ResumableStore(root=os.environ["WORK"]))
PYEOF

# measure NAME COMMAND...: runs the command under GNU time, prints "NAME wall cpu rss".
RESULTS=()
measure() {
    local name="$1"; shift
    sync
    /usr/bin/time -f "%e %U %S %M" -o "$WORK/$name.time" "$@" > "$WORK/$name.out" 2>&1 \
        || { echo "$name failed:" >&2; cat "$WORK/$name.out" >&2; exit 1; }
    read -r wall user sys rss < "$WORK/$name.time"
    RESULTS+=("$(printf '%-28s %8.2f s %8.2f s %8.1f MiB' "$name" "$wall" "$(echo "$user + $sys" | bc)" "$(echo "scale=1; $rss / 1024" | bc)")")
}

measure "aliyun-oss-swift" env OSS_ACCESS_KEY_ID="$AK" OSS_ACCESS_KEY_SECRET="$SK" "$SDK_BIN" \
    --endpoint "$ENDPOINT" --bucket "$BUCKET" --key "$KEY" --file "$WORK/swift.bin" --record-dir "$WORK/records" \
    --part-size "$PART_SIZE" --threads "$THREADS" --signature-version v1
cmp "$WORK/swift.bin" "$WORK/payload.bin"
rm -f "$WORK/swift.bin"

measure "oss2 resumable_download" $PY -c '
import os, oss2
b = oss2.Bucket(oss2.Auth(os.environ["AK"], os.environ["SK"]), os.environ["EP"], os.environ["BUCKET"])
oss2.resumable_download(b, os.environ["KEY"], os.environ["WORK"] + "/oss2.bin", multiget_threshold=1,
    part_size=int(os.environ["PART_SIZE"]), num_threads=int(os.environ["THREADS"]),
    store=oss2.ResumableDownloadStore(root=os.environ["WORK"]))
'
cmp "$WORK/oss2.bin" "$WORK/payload.bin"
rm -f "$WORK/oss2.bin"

URL="$($PY -c '
import os, oss2
b = oss2.Bucket(oss2.Auth(os.environ["AK"], os.environ["SK"]), os.environ["EP"], os.environ["BUCKET"])
print(b.sign_url("GET", os.environ["KEY"], 3600))
')"
measure "curl (one GET)" curl -sS -f -o "$WORK/curl.bin" "$URL"
cmp "$WORK/curl.bin" "$WORK/payload.bin"

echo
echo "${SIZE_MIB} MiB, part size $PART_SIZE, $THREADS threads (curl: one stream); all three files identical"
printf '%-28s %10s %10s %12s\n' "client" "wall" "cpu" "peak RSS"
for line in "${RESULTS[@]}"; do echo "$line"; done
