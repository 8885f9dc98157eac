#!/usr/bin/env bash
# Benchmark (not a test): directory upload, download, second sync, memory budget, file count and a kill midway,
# this SDK's `oss cp -r` / `oss sync` beside oss2 with a 16-thread pool, in one run against one local server
# (release builds). See scripts/bench_directory.py for what is measured and the goals it checks (issue 24);
# figures are published in docs/BENCHMARKS.md.
#
#   scripts/bench-directory.sh [extra options of bench_directory.py, e.g. --reps 3 --many 0]
#
# SCRATCH: the release build directory (default .build-release, shared by every benchmark script).
# BENCH_TMPDIR: where the trees and the server's data live (default $TMPDIR or /tmp; /dev/shm takes the disk out).
# Needs: GNU time (/usr/bin/time), python3 with oss2 in .venv (scripts/test.sh creates it).
set -euo pipefail
cd "$(dirname "$0")/.."
SCRATCH="${SCRATCH:-.build-release}"
echo "bench-directory: building oss and oss-local-server (release, $SCRATCH)..." >&2
swift build -c release --scratch-path "$SCRATCH" --product oss >&2
swift build -c release --scratch-path "$SCRATCH" --product oss-local-server >&2
BIN="$(swift build -c release --scratch-path "$SCRATCH" --show-bin-path)"
if ! .venv/bin/python -c "import oss2" >/dev/null 2>&1; then
    python3 -m venv .venv
    .venv/bin/pip install --quiet --disable-pip-version-check oss2
fi
exec .venv/bin/python scripts/bench_directory.py --oss "$BIN/oss" --server "$BIN/oss-local-server" \
    --python .venv/bin/python ${BENCH_TMPDIR:+--tmpdir "$BENCH_TMPDIR"} "$@"
