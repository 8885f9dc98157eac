#!/usr/bin/env bash
# The seeded fault campaign (issue 25 item 6: "one seeded script that runs a mix of uploads and downloads for about
# ten minutes while faults are drawn at random ... and reports transfers finished, identical, bytes re-sent and
# re-fetched, and anything lost or corrupted"). Not a test; see docs/RELIABILITY.md section 8.
#
#   scripts/fault-campaign.sh                      # seed 20261125, about 10 minutes
#   scripts/fault-campaign.sh --minutes 2 --seed 7
#
# `oss cp` uploads and downloads (8-96 MiB, part sizes 1-8 MiB, 1-4 threads, a checkpoint directory each) against
# one `oss-local-server`; each transfer draws one fault: client SIGKILL, server SIGKILL and restart (same port and
# data directory), connection resets, stalls, 503 storms, a full disk (a tmpfs as the destination; root only,
# skipped with a note otherwise), or STS credentials that expire mid-transfer. A transfer that failed is run again
# (up to 3 times); then it must be byte-identical. One `CAMPAIGN transfer=...` line per transfer, one
# `CAMPAIGN fault=...` line per kind, one `CAMPAIGN summary ...` line; exit status 1 on anything lost, corrupt or
# left behind (scripts/fault_campaign.py).
#
# Arguments are passed to scripts/fault_campaign.py (--seed, --minutes, --max-reruns, --timeout, --tmpdir,
# --keep-failed). Environment (optional):
#   OSS_BIN   a directory holding already built `oss` and `oss-local-server` (then nothing is built)
#   SCRATCH   the release build directory otherwise (default .build-release)
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -z "${OSS_BIN:-}" ]]; then
    SCRATCH="${SCRATCH:-.build-release}"
    for product in oss oss-local-server; do
        echo "fault-campaign: building $product (release, $SCRATCH)..." >&2
        swift build -c release --scratch-path "$SCRATCH" --product "$product" >&2
    done
    OSS_BIN="$(swift build -c release --scratch-path "$SCRATCH" --show-bin-path)"
fi
exec python3 scripts/fault_campaign.py --oss "$OSS_BIN/oss" --server "$OSS_BIN/oss-local-server" "$@"
