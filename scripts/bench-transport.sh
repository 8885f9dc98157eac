#!/usr/bin/env bash
# Benchmark (not a test): `oss cp` upload and download through each transport (URLSession via FoundationNetworking,
# AsyncHTTPClient) beside curl, against the local OSS server (release build), in one run: wall, client CPU
# (user + sys), peak RSS. Then the URLSession transport's peak RSS at more sizes (memory must not grow with size).
# Usage: scripts/bench-transport.sh [size-MiB, default 1024] [more sizes, MiB, comma-separated, default 256,4096;
#        0 skips them]
# Payloads and the server's data live in $BENCH_TMPDIR (default $TMPDIR or /tmp).
# SCRATCH: the release build directory (default .build-release, shared by every benchmark script).
# PART_SIZE / THREADS: the oss cp settings (default 8 MiB / 4).
set -euo pipefail
cd "$(dirname "$0")/.."
SCRATCH="${SCRATCH:-.build-release}"
SIZE_MIB="${1:-1024}"
MORE_MIB="${2:-256,4096}"
PART_SIZE="${PART_SIZE:-8388608}"
THREADS="${THREADS:-4}"
WORK="$(mktemp -d "${BENCH_TMPDIR:-${TMPDIR:-/tmp}}/oss-bench-transport.XXXXXX")"
SERVER_PID=""
cleanup() {
    [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

if [ -z "${SKIP_BUILD:-}" ]; then
    for product in oss-local-server oss; do
        echo "building $product (release)..." >&2
        swift build -c release --scratch-path "$SCRATCH" --product "$product" >&2
    done
fi
BIN="$SCRATCH/release"

export OSS_ACCESS_KEY_ID="LTAILocalDevAccessKeyId"
export OSS_ACCESS_KEY_SECRET="LocalDevAccessKeySecret0123456789"
BUCKET="bench"
"$BIN/oss-local-server" --port 0 --data-dir "$WORK/data" --bucket "$BUCKET" \
    --access-key-id "$OSS_ACCESS_KEY_ID" --access-key-secret "$OSS_ACCESS_KEY_SECRET" > "$WORK/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 100); do grep -q "listening on" "$WORK/server.log" && break; sleep 0.1; done
SERVER="$(sed -n 's/^listening on //p' "$WORK/server.log" | head -1)"
[ -n "$SERVER" ] || { echo "the server did not start" >&2; cat "$WORK/server.log" >&2; exit 1; }

# Runs a command under /usr/bin/time; prints "wall cpu rss_mib".
measure() {
    /usr/bin/time -f '%e %U %S %M' -o "$WORK/time.txt" "$@" > "$WORK/cmd.log" 2>&1 \
        || { cat "$WORK/cmd.log" >&2; exit 1; }
    awk '{ printf "%.2f s, %.2f CPU s, %.0f MiB", $1, $2 + $3, $4 / 1024 }' "$WORK/time.txt"
}

cp_args=(--endpoint "$SERVER" --path-style --part-size "$PART_SIZE" --threads "$THREADS")

# V1 presigned URL for curl: signature over "VERB\n\n<content-type>\n<expires>\n/bucket/key".
presign() {
    local verb="$1" type="$2" key="$3" expires sig
    expires=$(( $(date +%s) + 3600 ))
    sig=$(printf '%s\n\n%s\n%s\n/%s/%s' "$verb" "$type" "$expires" "$BUCKET" "$key" \
        | openssl dgst -sha1 -hmac "$OSS_ACCESS_KEY_SECRET" -binary | base64 | sed 's/+/%2B/g; s/\//%2F/g; s/=/%3D/g')
    echo "$SERVER/$BUCKET/$key?OSSAccessKeyId=$OSS_ACCESS_KEY_ID&Expires=$expires&Signature=$sig"
}

run_size() {
    local mib="$1" transports="$2"
    head -c $((mib * 1048576)) /dev/urandom > "$WORK/payload.bin"
    for entry in $transports; do
        # "name:nostall" runs the transport with stall detection off (--stall-timeout 0), to price the watchdog.
        local transport="${entry%%:*}" extra=()
        [ "$entry" != "$transport" ] && extra=(--stall-timeout 0)
        local key="t-$transport-$mib.bin"
        up=$(measure "$BIN/oss" cp "$WORK/payload.bin" "oss://$BUCKET/$key" "${cp_args[@]}" --transport "$transport" "${extra[@]}")
        rm -f "$WORK/back.bin"
        down=$(measure "$BIN/oss" cp "oss://$BUCKET/$key" "$WORK/back.bin" "${cp_args[@]}" --transport "$transport" "${extra[@]}")
        cmp -s "$WORK/back.bin" "$WORK/payload.bin" || { echo "$transport: the download differs" >&2; exit 1; }
        printf '%-8s %-24s upload: %-36s download: %s\n' "$mib MiB" "$entry" "$up" "$down"
        rm -f "$WORK/back.bin"
    done
}

echo "== ${SIZE_MIB} MiB, oss cp (part size $PART_SIZE, $THREADS threads) through each transport, and curl =="
run_size "$SIZE_MIB" "urlsession asynchttpclient urlsession:nostall asynchttpclient:nostall"
put_url="$(presign PUT application/octet-stream curl.bin)"
up=$(measure curl -sS -f -o /dev/null -H 'Content-Type: application/octet-stream' -T "$WORK/payload.bin" "$put_url")
get_url="$(presign GET "" curl.bin)"
down=$(measure curl -sS -f -o "$WORK/back.bin" "$get_url")
cmp -s "$WORK/back.bin" "$WORK/payload.bin" || { echo "curl: the download differs" >&2; exit 1; }
printf '%-8s %-24s upload: %-36s download: %s\n' "$SIZE_MIB MiB" "curl (one PUT/GET)" "$up" "$down"
rm -f "$WORK/back.bin" "$WORK/payload.bin"

if [ "$MORE_MIB" != "0" ]; then
    echo
    echo "== URLSession transport: peak RSS versus size =="
    for mib in ${MORE_MIB//,/ }; do
        run_size "$mib" "urlsession"
        rm -rf "$WORK/data/$BUCKET"/* 2>/dev/null || true
    done
fi
