#!/usr/bin/env bash
# Benchmark (not a test): a download killed at full speed, and the bytes it has delivered again beyond what the
# kernel held (issue #29: at most 2.5 MiB). See scripts/bench_kill_redelivery.py for the method: `oss cp` through a
# counting proxy on 127.0.0.1, SIGSTOP at a seeded 30-70%, the kernel's share read with `ss`, SIGKILL, resume,
# compare.
#
#   scripts/bench-kill-redelivery.sh [size-MiB, default 256] [runs, default 7]
#
# Run as root where `ip netns` works, everything runs in a fresh network namespace (loopback only) whose TCP
# buffers are capped at 256 KiB (net.ipv4.tcp_rmem / tcp_wmem, net.core.rmem_max / wmem_max), so the kernel's
# share is small; otherwise it runs in the host's namespace and says so (the kernel's share is still measured).
# SCRATCH: the release build directory (default .build-release); SKIP_BUILD=1 uses it as it is. BIN overrides the
# directory holding `oss` and `oss-local-server`. NETNS=0 skips the namespace.
set -euo pipefail
cd "$(dirname "$0")/.."
SCRATCH="${SCRATCH:-.build-release}"
SIZE_MIB="${1:-256}"
RUNS="${2:-7}"

if [ -z "${BIN:-}" ]; then
    if [ -z "${SKIP_BUILD:-}" ]; then
        for product in oss-local-server oss; do
            echo "building $product (release)..." >&2
            swift build -c release --scratch-path "$SCRATCH" --product "$product" >&2
        done
    fi
    BIN="$SCRATCH/release"
fi
run=(python3 scripts/bench_kill_redelivery.py --oss "$(realpath "$BIN/oss")" --server "$(realpath "$BIN/oss-local-server")"
    --size-mib "$SIZE_MIB" --runs "$RUNS" --tmpdir "${BENCH_TMPDIR:-${TMPDIR:-/tmp}}")

NS="oss-redelivery-$$"
if [ "${NETNS:-1}" != "0" ] && [ "$(id -u)" = 0 ] && ip netns add "$NS" 2>/dev/null; then
    trap 'ip netns del "$NS" 2>/dev/null || true' EXIT
    ip netns exec "$NS" ip link set lo up
    ip netns exec "$NS" sysctl -q -w net.ipv4.tcp_rmem="4096 131072 262144" net.ipv4.tcp_wmem="4096 16384 262144" \
        net.core.rmem_max=262144 net.core.wmem_max=262144
    echo "network namespace $NS: loopback only, TCP buffers capped at 256 KiB" >&2
    ip netns exec "$NS" "${run[@]}"
else
    echo "no network namespace (needs root and ip netns; NETNS=0 skips it): the host's socket buffers" >&2
    "${run[@]}"
fi
