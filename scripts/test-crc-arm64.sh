#!/usr/bin/env bash
# Checks the C CRC-64 kernels in Sources/COSSCRC64 beyond what `swift test` on this machine can reach:
#   1. Tests/crc-harness natively (x86-64: the PCLMULQDQ kernel against a bitwise CRC);
#   2. the same harness cross-compiled for arm64 Linux and run under qemu-aarch64-static, where it must detect
#      and run the PMULL kernel (qemu proves correctness, not speed);
#   3. every Sources/COSSCRC64/*.c compiled for arm64-apple-macos13, arm64-apple-ios16 and x86_64-apple-macos13
#      (and both Linux targets), failing if any object references compiler-rt's CPU-model symbols
#      (__cpu_model, __cpu_indicator_init, __cpu_features2), which Apple links do not always provide.
# Needs clang + ld.lld + llvm-nm (the Swift toolchain has them), qemu-user-static and libc6-dev-arm64-cross
# (.ci/run installs both). A missing tool is an error; CRC_ARM64_SKIP=1 is an explicit local opt-out only.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${CRC_ARM64_SKIP:-}" = "1" ]; then
    if [ -n "${CI:-}" ]; then
        echo "test-crc-arm64: CRC_ARM64_SKIP=1 is a local opt-out and is ignored under CI" >&2
    else
        echo "test-crc-arm64: SKIPPED (CRC_ARM64_SKIP=1): the arm64 PMULL kernel was not checked" >&2
        exit 0
    fi
fi

missing() {
    echo "test-crc-arm64: $1 is missing ($2). Install it, or set CRC_ARM64_SKIP=1 to skip this check locally." >&2
    exit 1
}

CLANG="${CLANG:-$(command -v clang || true)}"
[ -n "$CLANG" ] || missing clang "the Swift toolchain's clang"
TOOLBIN="$(dirname "$(readlink -f "$CLANG")")"
NM="${NM:-}"
if [ -z "$NM" ]; then
    if [ -x "$TOOLBIN/llvm-nm" ]; then NM="$TOOLBIN/llvm-nm"; else NM="$(command -v llvm-nm || true)"; fi
fi
[ -n "$NM" ] || missing llvm-nm "LLVM's nm, which reads Mach-O objects"
QEMU="${QEMU:-$(command -v qemu-aarch64-static || command -v qemu-aarch64 || true)}"
[ -n "$QEMU" ] || missing qemu-aarch64-static "apt-get install qemu-user-static"
CROSS_ROOT=/usr/aarch64-linux-gnu
[ -e "$CROSS_ROOT/lib/libc.so" ] || [ -e "$CROSS_ROOT/lib/libc.a" ] ||
    missing "$CROSS_ROOT/lib/libc" "apt-get install libc6-dev-arm64-cross"

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
SOURCES=(Sources/COSSCRC64/*.c)
CFLAGS=(-O2 -Wall -Wextra -Werror -ISources/COSSCRC64/include)

# 1. Native harness.
"$CLANG" "${CFLAGS[@]}" Tests/crc-harness/harness.c "${SOURCES[@]}" -o "$WORK/harness-native"
NATIVE_FLAGS=()
if [ "$(uname -m)" = "x86_64" ] && grep -qw pclmulqdq /proc/cpuinfo && grep -qw sse4_1 /proc/cpuinfo; then
    NATIVE_FLAGS=(--require-fold)
fi
"$WORK/harness-native" "${NATIVE_FLAGS[@]}"

# 2. arm64 harness under qemu: static with lld if the cross libc allows it, else dynamic with qemu -L.
ARM_FLAGS=(--target=aarch64-linux-gnu "${CFLAGS[@]}" Tests/crc-harness/harness.c "${SOURCES[@]}")
QEMU_ARGS=()
if ! "$CLANG" "${ARM_FLAGS[@]}" -fuse-ld=lld -static -o "$WORK/harness-arm64" 2>"$WORK/static.log"; then
    "$CLANG" "${ARM_FLAGS[@]}" -fuse-ld=lld -o "$WORK/harness-arm64" ||
        { cat "$WORK/static.log" >&2; echo "test-crc-arm64: cannot link the arm64 harness" >&2; exit 1; }
    QEMU_ARGS=(-L "$CROSS_ROOT")
fi
"$QEMU" "${QEMU_ARGS[@]}" "$WORK/harness-arm64" --require-fold

# 3. No compiler-rt CPU-model symbols on any target; Apple targets compile without an SDK (resource headers only).
for target in arm64-apple-macos13 arm64-apple-ios16 x86_64-apple-macos13 aarch64-linux-gnu x86_64-linux-gnu; do
    extra=()
    case "$target" in *-apple-*) extra=(-ffreestanding -nostdlibinc) ;; esac
    objects=()
    for source in "${SOURCES[@]}"; do
        object="$WORK/$target-$(basename "$source" .c).o"
        "$CLANG" --target="$target" "${extra[@]}" "${CFLAGS[@]}" -c "$source" -o "$object"
        objects+=("$object")
    done
    if "$NM" -u "${objects[@]}" 2>/dev/null | grep -Ei 'cpu_model|cpu_indicator|cpu_features'; then
        echo "test-crc-arm64: $target objects reference compiler-rt CPU-model symbols (above)" >&2
        exit 1
    fi
    for symbol in oss_crc64_fold oss_crc64_fold_available; do
        count="$("$NM" --defined-only "${objects[@]}" 2>/dev/null | grep -Ec " T _?$symbol\$" || true)"
        if [ "$count" != "1" ]; then
            echo "test-crc-arm64: $target defines $symbol $count times, expected once" >&2
            exit 1
        fi
    done
    echo "test-crc-arm64: $target compiles, no CPU-model symbols"
done
echo "test-crc-arm64: OK"
