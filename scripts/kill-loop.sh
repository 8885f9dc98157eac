#!/usr/bin/env bash
# The seeded kill -9 loop (issue 7: "20 kill -9 of the uploading and downloading process at random points, each
# followed by a resume: all identical; re-sent bytes within the bound"). Not a test; see docs/RELIABILITY.md.
#
#   scripts/kill-loop.sh
#
# Builds `oss` and `oss-local-server` (release), starts one local server (admin endpoints on), and for each run:
#   upload:   a seeded random file (64-256 MiB, never a multiple of the part size) is copied with
#             `oss cp FILE oss://killloop/KEY --part-size P --threads T --checkpoint-dir DIR` (P 1-4 MiB, T 1-4,
#             seeded); once the server's UploadPart request-body counter (/-/stats) reaches a seeded 10-90% of the
#             file, the process gets SIGKILL; the same command is run again and must resume; then the object is
#             read back with a plain signed GET and compared byte for byte with the file, ListMultipartUploads must be
#             empty and the checkpoint directory empty;
#   download: the same object is copied back with `oss cp oss://killloop/KEY OUT ... --traffic-limit 209715200`
#             (own seeded P, T and kill point, on the counter of GetObject response bytes written to the
#             connections; each part paced at 25 MB/s, a fast network), killed, resumed, compared with the file;
#             no temporary file or record may be left.
# Re-sent bytes = what the server counted over both runs - the file size; each upload run checks it is <= T x P,
# each download run that it is <= T x 128 KiB + 1.5 MiB (downloads resume at the byte).
# One `KILL kind=... run=...` line per run, a `KILL summary ...` line per kind; exit status 1 on any failure.
#
# Environment (all optional):
#   KILL_SEED      the seed (default 20261121, the published figures' seed)
#   KILL_RUNS      runs of each kind (default 20)
#   KILL_MIN_MIB / KILL_MAX_MIB   file sizes (default 64 / 256)
#   KILL_DELAY_MS  delay the server adds to each UploadPart / GetObject until the kill, so that the kill lands
#                  mid-transfer on a fast machine (default 10; removed before the resume)
#   KILL_TMPDIR    where the files, records and the server's data live (default $TMPDIR or /tmp)
#   KILL_KEEP_FAILED=1  keep the logs of failing runs
#   SCRATCH        the release build directory (default .build-release)
set -euo pipefail
cd "$(dirname "$0")/.."
SCRATCH="${SCRATCH:-.build-release}"

echo "kill-loop: building oss and oss-local-server (release, $SCRATCH)..." >&2
swift build -c release --scratch-path "$SCRATCH" --product oss >&2
swift build -c release --scratch-path "$SCRATCH" --product oss-local-server >&2
BIN="$(swift build -c release --scratch-path "$SCRATCH" --show-bin-path)"

exec python3 scripts/kill_loop.py --oss "$BIN/oss" --server "$BIN/oss-local-server" \
    --seed "${KILL_SEED:-20261121}" --runs "${KILL_RUNS:-20}" \
    --min-mib "${KILL_MIN_MIB:-64}" --max-mib "${KILL_MAX_MIB:-256}" --delay-ms "${KILL_DELAY_MS:-10}" \
    --tmpdir "${KILL_TMPDIR:-${TMPDIR:-/tmp}}" ${KILL_KEEP_FAILED:+--keep-failed}
