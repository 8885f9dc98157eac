#!/usr/bin/env bash
# Independent checks with the official clients (issues #31, #33, #35, #32): starts oss-local-server on 127.0.0.1
# with a temporary data directory, runs every check script, prints one PASS/FAIL line per check, exits non-zero
# when any check fails. Binaries: $OSS_BIN_DIR (default .build/debug). Python: $PYTHON (default .venv/bin/python,
# which needs oss2, alibabacloud-oss-v2, alibabacloud-credentials, cryptography and requests).
set -u
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
export OSS_BIN_DIR="$(cd "$root" && realpath "${OSS_BIN_DIR:-.build/debug}")"
python="${PYTHON:-$root/.venv/bin/python}"
for tool in "$OSS_BIN_DIR/oss-local-server" "$OSS_BIN_DIR/oss" "$python"; do
    [ -x "$tool" ] || { echo "missing $tool" >&2; exit 2; }
done

work="$(mktemp -d -t indep-run-XXXXXX)"
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null; fi
    rm -rf "$work"
}
trap cleanup EXIT

"$OSS_BIN_DIR/oss-local-server" --host 127.0.0.1 --port 0 --admin --data-dir "$work/data" \
    --access-key-id LTAIIndependentCheckKey --access-key-secret IndependentCheckSecret0123456789abcd \
    >"$work/server.out" 2>"$work/server.err" &
server_pid=$!
endpoint=""
for _ in $(seq 1 100); do
    endpoint="$(sed -n 's/^listening on //p' "$work/server.out")"
    [ -n "$endpoint" ] && break
    kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.err" >&2; exit 2; }
    sleep 0.1
done
[ -n "$endpoint" ] || { echo "oss-local-server did not start" >&2; exit 2; }
case "$endpoint" in http://127.0.0.1:*) ;; *) echo "refusing endpoint $endpoint" >&2; exit 2 ;; esac

export OSS_ENDPOINT="$endpoint" OSS_REGION=cn-hangzhou
export OSS_ACCESS_KEY_ID=LTAIIndependentCheckKey OSS_ACCESS_KEY_SECRET=IndependentCheckSecret0123456789abcd
unset OSS_SESSION_TOKEN
status=0
for script in check_bucket_config.py check_post_policy.py check_encryption.py check_credentials.py; do
    (cd "$here" && "$python" "$script") || status=1
done
exit "$status"
