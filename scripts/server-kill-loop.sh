#!/usr/bin/env bash
# The seeded server kill -9 loop (issue 25 item 2: "the local server killed with SIGKILL during UploadPart,
# CompleteMultipartUpload, AppendObject and PutObject, and restarted on the same data directory: no object is ever
# half visible, Complete is atomic, and the client's retry or resume ends byte-identical"). Not a test; see
# docs/RELIABILITY.md ("Server kill -9 loop"). The short seeded variants run in the test suite
# (PutObjectKillLoopTests, UploadPartKillLoopTests, CompleteKillLoopTests, AppendKillLoopTests,
# ServerRestartTransferTests).
#
#   scripts/server-kill-loop.sh
#
# Builds `oss` and `oss-local-server` (release), starts one server on a port it keeps, and for each run (the kinds
# take turns: put, part, complete, append, upload, download) SIGKILLs it in the middle of that write and starts it
# again on the same port and data directory, then checks what a client sees (scripts/server_kill_loop.py).
# One `SKILL kind=... run=...` line per run and a `SKILL summary ... lost=N corrupt=N client_failures=N` line;
# exit status 1 when anything was lost or corrupt or a client never finished.
#
# Environment (all optional):
#   SKILL_SEED   the seed (default 20261125)
#   SKILL_RUNS   runs (default 60: ten of each kind)
#   SKILL_NO_CLIENT=1   only the raw kinds (no `oss cp`)
#   SKILL_TMPDIR where the server's data and the files live (default $TMPDIR or /tmp)
#   SKILL_KEEP_FAILED=1  keep the work directory when a run failed
#   SCRATCH      the release build directory (default .build-release)
set -euo pipefail
cd "$(dirname "$0")/.."
SCRATCH="${SCRATCH:-.build-release}"

echo "server-kill-loop: building oss and oss-local-server (release, $SCRATCH)..." >&2
swift build -c release --scratch-path "$SCRATCH" --product oss >&2
swift build -c release --scratch-path "$SCRATCH" --product oss-local-server >&2
BIN="$(swift build -c release --scratch-path "$SCRATCH" --show-bin-path)"

exec python3 scripts/server_kill_loop.py --oss "$BIN/oss" --server "$BIN/oss-local-server" \
    --seed "${SKILL_SEED:-20261125}" --runs "${SKILL_RUNS:-60}" \
    --tmpdir "${SKILL_TMPDIR:-${TMPDIR:-/tmp}}" ${SKILL_NO_CLIENT:+--no-client} ${SKILL_KEEP_FAILED:+--keep-failed}
