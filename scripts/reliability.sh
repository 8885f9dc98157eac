#!/usr/bin/env bash
# The long reliability runs, with fixed seeds (see docs/RELIABILITY.md).
#
#   scripts/reliability.sh                 # everything: >= 1M inputs per fuzz target, 50 + 50 faulted transfers,
#                                          # 10,000 keys in one prefix, 20 replacement timings, the attack
#                                          # and secret suites
#   scripts/reliability.sh Fuzz            # only suites whose name matches (a swift test --filter pattern)
#
# Environment (all optional):
#   OSS_RELIABILITY_SCALE      multiplier of the in-test fuzz counts (default here 50: >= 1M per parser target)
#   OSS_RELIABILITY_TRANSFERS  resumable uploads and downloads under seeded faults (default here 50 each)
#   OSS_RELIABILITY_KEYS       keys in the one-prefix listing test (default here 10000)
#   OSS_RELIABILITY_REPLACEMENTS  timings of the object-replaced-mid-download test (default here 20)
#   OSS_RELIABILITY_SEED       xor-ed into every suite's fixed seed (default: unset, the published seeds)
#   SCRATCH                    the build directory (default .build-reliability)
#   RELIABILITY_KILL_LOOP=1    afterwards also run the seeded kill -9 loop (scripts/kill-loop.sh, release build in
#                              .build-release; KILL_SEED / KILL_RUNS apply); its `KILL ...` lines join the summary
#   RELIABILITY_SERVER_KILL_LOOP=1  afterwards also run the seeded server kill -9 loop (scripts/server-kill-loop.sh;
#                              SKILL_SEED / SKILL_RUNS apply); its `SKILL summary` line joins the summary
#
# The kill -9 loop (20 uploads and 20 downloads of `oss cp` killed with SIGKILL at seeded points, then resumed) is a
# separate script, scripts/kill-loop.sh: it needs release builds of `oss` and `oss-local-server`, not `swift test`.
# The figures are the `RELIABILITY suite=...` lines; they are collected into $LOG.summary at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

export OSS_RELIABILITY_SCALE="${OSS_RELIABILITY_SCALE:-50}"
export OSS_RELIABILITY_TRANSFERS="${OSS_RELIABILITY_TRANSFERS:-50}"
export OSS_RELIABILITY_KEYS="${OSS_RELIABILITY_KEYS:-10000}"
export OSS_RELIABILITY_REPLACEMENTS="${OSS_RELIABILITY_REPLACEMENTS:-20}"
SCRATCH="${SCRATCH:-.build-reliability}"
FILTER="OSSReliabilityTests${1:+.*$1}"
LOG="${LOG:-$SCRATCH/reliability-$(date -u +%Y%m%dT%H%M%SZ).log}"
mkdir -p "$SCRATCH"

echo "reliability: scale=$OSS_RELIABILITY_SCALE transfers=$OSS_RELIABILITY_TRANSFERS keys=$OSS_RELIABILITY_KEYS replacements=$OSS_RELIABILITY_REPLACEMENTS seed=${OSS_RELIABILITY_SEED:-fixed}"
echo "reliability: log $LOG"
start=$(date +%s)
status=0
# Serial test execution keeps the in-process servers and the fuzzers from starving each other on small machines.
timeout "${RELIABILITY_TIMEOUT:-7200}" swift test --scratch-path "$SCRATCH" --filter "$FILTER" --no-parallel 2>&1 \
    | tee "$LOG" || status=$?
if [ "${RELIABILITY_KILL_LOOP:-0}" = "1" ]; then
    SCRATCH=.build-release ./scripts/kill-loop.sh 2>&1 | tee -a "$LOG" || status=$((status == 0 ? 1 : status))
fi
if [ "${RELIABILITY_SERVER_KILL_LOOP:-0}" = "1" ]; then
    SCRATCH=.build-release ./scripts/server-kill-loop.sh 2>&1 | tee -a "$LOG" || status=$((status == 0 ? 1 : status))
fi
end=$(date +%s)

grep -a '^RELIABILITY ' "$LOG" | sed 's/^RELIABILITY //' > "$LOG.summary" || true
grep -a '^KILL \(summary\|done\)' "$LOG" >> "$LOG.summary" || true
grep -a '^SKILL \(summary\|outcomes\)' "$LOG" >> "$LOG.summary" || true
echo
echo "=== figures ($((end - start)) s, exit $status) ==="
cat "$LOG.summary"
exit "$status"
