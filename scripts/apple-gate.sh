#!/usr/bin/env bash
# The Apple gate that runs on Linux (part of the one test command; see docs/APPLE-GATE.md). There is no Apple toolchain
# here, so it checks what can be checked without one:
#   1. availability: no standard-library, Concurrency, Synchronization or Observation API newer than the package's
#      minimum platforms outside `#available` / `@available` (scripts/check-availability.py, after its self-test);
#   2. the Apple-shape build: the manifest as an Apple platform resolves it (OSS_APPLE_SHAPE=1: the AliyunOSS
#      product and its pure modules, swift-crypto and swift-log, no Linux-only condition) builds, so shared code that
#      reaches for NIO or AsyncHTTPClient fails here as it would in Xcode;
#   3. the closure: that build made no module beyond the SDK's own, swift-crypto's and swift-log's; then the opt-in
#      AliyunOSSObservability product builds in the same shape and adds exactly swift-metrics' CoreMetrics and
#      swift-distributed-tracing's modules (docs/APPLE.md, "Metrics and tracing"); the opt-in AliyunOSSEncryption
#      product adds exactly swift-crypto's CryptoExtras and swift-asn1 (docs/ENCRYPTION.md);
#   4. the privacy manifest declares every required-reason API category the app-side modules use
#      (scripts/check-privacy-manifest.py);
#   5. probes: against the Apple-shape modules, code naming AsyncHTTPClientTransport or importing NIOCore fails to
#      type-check while code using the SDK's public API passes (the gate is not vacuous).
# The macOS and iOS Simulator builds themselves run where Apple machines exist: .github/workflows/apple.yml.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "apple-gate: availability"
python3 scripts/check-availability.py --self-test
python3 scripts/check-availability.py

echo "apple-gate: privacy manifest"
python3 scripts/check-privacy-manifest.py

echo "apple-gate: the Apple-shape build (swift-crypto and swift-log only)"
scratch=.build-apple
OSS_APPLE_SHAPE=1 swift build --scratch-path "$scratch" --target AliyunOSS
if grep -q 'name: "AppleSnippets"' Package.swift; then
    OSS_APPLE_SHAPE=1 swift build --scratch-path "$scratch" --target AppleSnippets
fi

echo "apple-gate: the modules that build made"
debug="$scratch/debug"
allowed=" AliyunOSS OSSCRC64 OSSSigning OSSXML OSSResumable AppleSnippets Crypto CryptoBoringWrapper Logging "
built=$(find "$debug/Modules" -name '*.swiftmodule' -exec basename {} .swiftmodule \; | sort -u)
for module in $built; do
    case "$allowed" in
    *" $module "*) ;;
    *) echo "apple-gate: the Apple-shape build made module $module, which is not the SDK's, swift-crypto's or swift-log's" >&2; exit 1 ;;
    esac
done
echo "apple-gate: modules: $(echo $built)"

# An opt-in product builds in a scratch of its own: the SDK's closure above is read from its scratch's modules,
# which must never hold the product's (a second run of the gate would otherwise find them there). It may add
# exactly the modules named.
opt_in() {
    local target=$1 scratch=$2 added=$3 what=$4 module
    OSS_APPLE_SHAPE=1 swift build --scratch-path "$scratch" --target "$target"
    for module in $(find "$scratch/debug/Modules" -name '*.swiftmodule' -exec basename {} .swiftmodule \; | sort -u); do
        case "$allowed$added" in
        *" $module "*) ;;
        *) echo "apple-gate: the $target build made module $module, beyond the SDK's and $what" >&2; exit 1 ;;
        esac
    done
}

echo "apple-gate: the opt-in observability product (adds swift-metrics and swift-distributed-tracing only)"
opt_in AliyunOSSObservability .build-apple-observability \
    " AliyunOSSObservability CoreMetrics Tracing Instrumentation ServiceContextModule " "the two packages'"

echo "apple-gate: the opt-in client-side encryption product (adds swift-crypto's extras and swift-asn1 only)"
opt_in AliyunOSSEncryption .build-apple-encryption \
    " AliyunOSSEncryption CryptoExtras _CryptoExtras SwiftASN1 " "swift-crypto's extras and swift-asn1's"

echo "apple-gate: probes against the Apple-shape modules"
probes=$(mktemp -d)
trap 'rm -rf "$probes"' EXIT
typecheck() {
    swiftc -typecheck -swift-version 6 -I "$debug/Modules" \
        -Xcc -fmodule-map-file="$debug/COSSCRC64.build/module.modulemap" -Xcc -I -Xcc Sources/COSSCRC64/include "$1" \
        >"$1.log" 2>&1
}
printf 'import AliyunOSS\nlet kind = OSSTransportKind.automatic.resolved\n' >"$probes/public-api.swift"
printf 'import AliyunOSS\nlet length = AsyncHTTPClientTransport.fileChunkLength\n' >"$probes/linux-transport.swift"
printf 'import AliyunOSS\nimport NIOCore\nlet buffer = ByteBuffer()\n' >"$probes/nio.swift"
typecheck "$probes/public-api.swift" || { cat "$probes/public-api.swift.log"; echo "apple-gate: the control probe failed" >&2; exit 1; }
for probe in linux-transport nio; do
    if typecheck "$probes/$probe.swift"; then
        echo "apple-gate: the $probe probe type-checked against the Apple shape: a Linux-only API is visible there" >&2
        exit 1
    fi
done
echo "apple-gate: passed"
