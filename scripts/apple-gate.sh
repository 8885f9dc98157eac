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
observability_modules=" AliyunOSSObservability CoreMetrics Tracing Instrumentation ServiceContextModule "
encryption_modules=" AliyunOSSEncryption CryptoExtras _CryptoExtras SwiftASN1 "
# The opt-in products build in this scratch too (below): a scratch kept from an earlier run holds their modules, so
# they are taken out first and the SDK's closure is read alone (they are built again, a minute or so).
for module in $observability_modules $encryption_modules; do
    rm -rf "$scratch/debug/Modules/$module.swiftmodule" "$scratch/debug/Modules/$module.swiftinterface"
done
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

# An opt-in product builds in the same scratch (swift-crypto, the largest part of the build, is compiled once; CI's
# fresh clone took three times as long with a scratch per product). What its build adds beyond the modules already
# there must be the product's own; and since an earlier product's modules are already there, the product's declared
# dependencies (`swift package describe`) must also name nothing but the SDK's targets and its own products, so an
# opt-in product cannot reach another opt-in product's modules unseen.
modules() { find "$scratch/debug/Modules" -name '*.swiftmodule' -exec basename {} .swiftmodule \; | sort -u; }
describe=$(mktemp)
OSS_APPLE_SHAPE=1 swift package --scratch-path "$scratch" describe --type json >"$describe"
opt_in() {
    local target=$1 added=$2 products=$3 what=$4 module before
    before=" $(modules | tr '\n' ' ') "
    OSS_APPLE_SHAPE=1 swift build --scratch-path "$scratch" --target "$target"
    for module in $(modules); do
        case "$before$added" in
        *" $module "*) ;;
        *) echo "apple-gate: the $target build made module $module, beyond the SDK's and $what" >&2; exit 1 ;;
        esac
    done
    python3 - "$describe" "$target" "$allowed" "$products" <<'PY' || exit 1
import json, sys
package, target, allowed, products = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3].split(), sys.argv[4].split()
declared = next(t for t in package["targets"] if t["name"] == target)
stray = [d for d in declared.get("target_dependencies", []) if d not in allowed] + \
    [d for d in declared.get("product_dependencies", []) if d not in allowed + products]
if stray:
    sys.exit(f"apple-gate: {target} declares dependencies beyond the SDK's and its own: {stray}")
PY
}

echo "apple-gate: the opt-in observability product (adds swift-metrics and swift-distributed-tracing only)"
opt_in AliyunOSSObservability "$observability_modules" \
    "CoreMetrics Tracing" "the two packages'"

echo "apple-gate: the opt-in client-side encryption product (adds swift-crypto's extras and swift-asn1 only)"
opt_in AliyunOSSEncryption "$encryption_modules" \
    "_CryptoExtras" "swift-crypto's extras and swift-asn1's"
rm -f "$describe"

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
