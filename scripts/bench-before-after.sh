#!/usr/bin/env bash
# Benchmark (not a test): two builds of `oss` side by side on Linux, in alternating runs against one local server
# (release), with one curl PUT and one curl GET of the same file in every round: upload and download wall time,
# client CPU per GiB (user + sys), and each build's figures over curl's of the same round (upload CPU / curl PUT CPU,
# download wall and CPU / curl GET's). Medians over ROUNDS, and the load average at the start and the end. Used to
# show that a change holds the Linux figures (docs/BENCHMARKS.md "Before and after").
#
#   scripts/bench-before-after.sh BEFORE_BIN AFTER_BIN [size-MiB, default 512]
#
# BEFORE_BIN / AFTER_BIN: release bin directories holding `oss` (e.g. a worktree of the older commit built with
# `swift build -c release --scratch-path .build-release --product oss`). The server is SERVER_BIN's (default AFTER_BIN's)
# `oss-local-server`. ROUNDS (default 5); PART_SIZE / THREADS (default 8 MiB / 4). Needs curl and openssl.
set -euo pipefail
cd "$(dirname "$0")/.."
BEFORE="$1"
AFTER="$2"
SIZE_MIB="${3:-512}"
ROUNDS="${ROUNDS:-5}"
PART_SIZE="${PART_SIZE:-8388608}"
THREADS="${THREADS:-4}"
WORK="$(mktemp -d "${BENCH_TMPDIR:-${TMPDIR:-/tmp}}/oss-bench-ba.XXXXXX")"
SERVER_PID=""
cleanup() {
    [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

export OSS_ACCESS_KEY_ID="LTAILocalDevAccessKeyId"
export OSS_ACCESS_KEY_SECRET="LocalDevAccessKeySecret0123456789"
BUCKET="bench"
"${SERVER_BIN:-$AFTER}/oss-local-server" --port 0 --data-dir "$WORK/data" --bucket "$BUCKET" \
    --access-key-id "$OSS_ACCESS_KEY_ID" --access-key-secret "$OSS_ACCESS_KEY_SECRET" > "$WORK/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 100); do grep -q "listening on" "$WORK/server.log" && break; sleep 0.1; done
SERVER="$(sed -n 's/^listening on //p' "$WORK/server.log" | head -1)"
[ -n "$SERVER" ] || { echo "the server did not start" >&2; cat "$WORK/server.log" >&2; exit 1; }

head -c $((SIZE_MIB * 1048576)) /dev/urandom > "$WORK/payload.bin"
cp_args=(--endpoint "$SERVER" --path-style --part-size "$PART_SIZE" --threads "$THREADS")

# "wall cpu" of a command.
measure() {
    /usr/bin/time -f '%e %U %S' -o "$WORK/time.txt" "$@" > "$WORK/cmd.log" 2>&1 || { cat "$WORK/cmd.log" >&2; exit 1; }
    awk '{ printf "%.3f %.3f", $1, $2 + $3 }' "$WORK/time.txt"
}

# V1 presigned URL: signature over "VERB\n\n<content-type>\n<expires>\n/bucket/key".
presign() {
    local verb="$1" type="$2" key="$3" expires sig
    expires=$(( $(date +%s) + 3600 ))
    sig=$(printf '%s\n\n%s\n%s\n/%s/%s' "$verb" "$type" "$expires" "$BUCKET" "$key" \
        | openssl dgst -sha1 -hmac "$OSS_ACCESS_KEY_SECRET" -binary | base64 | sed 's/+/%2B/g; s/\//%2F/g; s/=/%3D/g')
    echo "$SERVER/$BUCKET/$key?OSSAccessKeyId=$OSS_ACCESS_KEY_ID&Expires=$expires&Signature=$sig"
}

: > "$WORK/results.txt"
run() {  # label bin round
    local label="$1" bin="$2" round="$3" key="ba-$1-$3.bin"
    local up down curl_up curl_down
    up=$(measure "$bin/oss" cp "$WORK/payload.bin" "oss://$BUCKET/$key" "${cp_args[@]}")
    rm -f "$WORK/back.bin"
    down=$(measure "$bin/oss" cp "oss://$BUCKET/$key" "$WORK/back.bin" "${cp_args[@]}")
    cmp -s "$WORK/back.bin" "$WORK/payload.bin" || { echo "$label: the download differs" >&2; exit 1; }
    rm -f "$WORK/back.bin"
    curl_up=$(measure curl -sS -f -o /dev/null -H 'Content-Type: application/octet-stream' -T "$WORK/payload.bin" \
        "$(presign PUT application/octet-stream "curl-$key")")
    curl_down=$(measure curl -sS -f -o "$WORK/back.bin" "$(presign GET "" "$key")")
    rm -f "$WORK/back.bin"
    echo "$label $up $down $curl_down $curl_up" >> "$WORK/results.txt"
    echo "round $round $label: upload ${up% *} s (${up#* } CPU s), download ${down% *} s (${down#* } CPU s)," \
        "curl PUT ${curl_up% *} s (${curl_up#* } CPU s), curl GET ${curl_down% *} s (${curl_down#* } CPU s)" >&2
}

LOAD_START="$(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq 1 "$ROUNDS"); do
    if [ $((round % 2)) -eq 1 ]; then run before "$BEFORE" "$round"; run after "$AFTER" "$round"
    else run after "$AFTER" "$round"; run before "$BEFORE" "$round"; fi
done

echo "== ${SIZE_MIB} MiB, oss cp (AsyncHTTPClient, part size $PART_SIZE, $THREADS threads), medians of $ROUNDS alternating rounds, load $LOAD_START at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end =="
python3 - "$WORK/results.txt" "$SIZE_MIB" <<'EOF'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
gib = int(sys.argv[2]) / 1024
# Columns: up wall, up CPU, down wall, down CPU, curl GET wall, curl GET CPU, curl PUT wall, curl PUT CPU.
print(f"{'build':8} {'upload s':>9} {'up CPU s':>9} {'up CPU / curl PUT':>18} {'download s':>11} {'down CPU s':>11} "
      f"{'down / curl GET':>16} {'down CPU / curl':>16} {'curl PUT CPU s':>15} {'curl GET s':>11}")
for label in ("before", "after"):
    mine = [[float(v) for v in row[1:]] for row in rows if row[0] == label]
    med = lambda f: statistics.median(f(r) for r in mine)
    print(f"{label:8} {med(lambda r: r[0]):9.3f} {med(lambda r: r[1]):9.3f} {med(lambda r: r[1] / r[7]):17.2f}x "
          f"{med(lambda r: r[2]):11.3f} {med(lambda r: r[3]):11.3f} {med(lambda r: r[2] / r[4]):15.2f}x "
          f"{med(lambda r: r[3] / r[5]):15.2f}x {med(lambda r: r[7]):15.3f} {med(lambda r: r[4]):11.3f}")
print(f"(CPU per GiB: divide by {gib:g}; ratios are medians of each round's own ratio)")
EOF
