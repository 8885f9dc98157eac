#!/usr/bin/env bash
# The official oss2 (2.19.1) test modules for objects, multipart, resumable transfer, iterators, ListObjectsV2,
# chunked put, CRC and bucket versioning, run against a freshly started local server. Prints the pass/fail count of every module, the
# total, and each test that did not pass with the reason and its first error line. Exits 1 when a test failed for
# no known reason (the known ones: image processing, and two tests that expect a reply slower than 1 ms).
#
#   scripts/oss2-suite.sh                       # all ten modules
#   scripts/oss2-suite.sh test_object test_multipart   # only these modules
#
# The test code is not part of this repository: it comes from oss2's source distribution on PyPI, downloaded at run
# time into $OSS2_SUITE_CACHE (default .build/oss2-suite). The tests need no real OSS: each creates its own bucket
# on the endpoint in OSS_TEST_ENDPOINT, an IP address, which oss2 addresses path-style. The Alibaba Cloud names some
# tests use are served locally too (scripts/oss2_suite_standins.py), through the standard proxy variables: OSS names
# (oss-cn-shanghai.aliyuncs.com) by the same local server, and KMS (kms.cn-hangzhou.aliyuncs.com, for oss2's KMS
# crypto bucket) by a KMS stand-in with real AES-256-GCM envelope encryption, over TLS with a CA made for the run.
#
# Environment (all optional):
#   OSS2_SUITE_CACHE     where the sdist is unpacked (default .build/oss2-suite)
#   OSS2_SUITE_SERVER    a built oss-local-server binary (default: `swift build --product oss-local-server`)
#   OSS2_SUITE_VERBOSE=1 also print oss2's own test log (it logs every request at DEBUG level)
set -euo pipefail
cd "$(dirname "$0")/.."

OSS2_VERSION=2.19.1
CACHE="${OSS2_SUITE_CACHE:-.build/oss2-suite}"

if ! .venv/bin/python -c "import oss2, alibabacloud_oss_v2" >/dev/null 2>&1; then
    echo "scripts/oss2-suite.sh: creating .venv with oss2 and alibabacloud-oss-v2 from PyPI"
    python3 -m venv .venv
    .venv/bin/pip install --quiet --disable-pip-version-check "oss2==$OSS2_VERSION" alibabacloud-oss-v2
fi
# The tests import `mock` and `crcmod` (crcmod comes with oss2) and need exactly the oss2 they were written for.
if ! .venv/bin/python -c "import mock, crcmod, oss2, sys; sys.exit(oss2.__version__ != '$OSS2_VERSION')" >/dev/null 2>&1; then
    .venv/bin/pip install --quiet --disable-pip-version-check "oss2==$OSS2_VERSION" mock crcmod
fi

TESTS="$CACHE/oss2-$OSS2_VERSION/tests"
if [ ! -f "$TESTS/common.py" ]; then
    echo "scripts/oss2-suite.sh: downloading oss2 $OSS2_VERSION's source distribution (its tests) from PyPI"
    mkdir -p "$CACHE"
    .venv/bin/pip download --quiet --disable-pip-version-check --no-binary :all: --no-deps \
        -d "$CACHE" "oss2==$OSS2_VERSION"
    tar -xzf "$CACHE/oss2-$OSS2_VERSION.tar.gz" -C "$CACHE" "oss2-$OSS2_VERSION/tests"
fi

SERVER="${OSS2_SUITE_SERVER:-}"
if [ -z "$SERVER" ]; then
    swift build --product oss-local-server >&2
    SERVER="$(swift build --show-bin-path)/oss-local-server"
fi

exec .venv/bin/python scripts/oss2_suite.py --server "$SERVER" --tests "$CACHE/oss2-$OSS2_VERSION" "$@"
