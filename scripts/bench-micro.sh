#!/usr/bin/env bash
# Micro benchmarks, ours beside the official Python SDKs measured in the same run (not a test).
#   ./scripts/bench-micro.sh
# SCRATCH: the release build directory (default .build-release, shared by every benchmark script).
set -euo pipefail
cd "$(dirname "$0")/.."
SCRATCH="${SCRATCH:-.build-release}"
if ! .venv/bin/python -c "import oss2" >/dev/null 2>&1; then
    python3 -m venv .venv && .venv/bin/pip install --quiet oss2 alibabacloud-oss-v2
fi
swift build -c release --scratch-path "$SCRATCH" --product oss-microbench >&2
echo "== this SDK (Swift, release) =="
"$SCRATCH/release/oss-microbench"
echo
echo "== official Python SDKs, same machine, same run =="
.venv/bin/python Benchmarks/python/micro_peers.py
