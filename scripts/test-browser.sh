#!/usr/bin/env bash
# The real-browser test of the BrowserUpload sample (issue #33): headless Chromium (Debian's chromium and
# chromium-driver) driven by Selenium (PyPI, in .venv) uploads through the sample's page to `oss-local-server` on
# another port of 127.0.0.1: two small files by POST policy, a 64 MiB file by presigned multipart with a page reload
# midway, and hostile requests from the page that must be refused; the official oss2 client then checks the objects
# byte for byte and by CRC-64 (scripts/browser/browser_upload.py says how). The page's screenshot is saved to
# .build/test-logs/browser-upload.png. Chromium is kept on loopback (see the driver's flags).
set -euo pipefail
cd "$(dirname "$0")/.."

for tool in chromium chromedriver; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "scripts/test-browser.sh: FAILED: $tool is not installed (apt-get install chromium chromium-driver)" >&2
        exit 1
    fi
done
if ! .venv/bin/python -c "import selenium, oss2" >/dev/null 2>&1; then
    python3 -m venv .venv
    .venv/bin/pip install --quiet --disable-pip-version-check selenium oss2
fi

# scripts/test.sh has built both packages already (BROWSER_PREBUILT=1); run alone, this builds the two executables.
# The samples build into this package's .build, as scripts/test.sh builds them (the packages both use compile once).
samples=(--package-path Samples --scratch-path "$PWD/.build")
if [ "${BROWSER_PREBUILT:-0}" != "1" ]; then
    swift build --product oss-local-server
    swift build "${samples[@]}" --product browser-upload
fi
server="$(swift build --show-bin-path)/oss-local-server"
backend="$(swift build "${samples[@]}" --show-bin-path)/browser-upload"
mkdir -p .build/test-logs
# Selenium Manager stays offline: the driver and the browser are the installed ones.
export SE_OFFLINE=true SE_AVOID_STATS=true CHROMIUM="$(command -v chromium)" CHROMEDRIVER="$(command -v chromedriver)"
exec .venv/bin/python scripts/browser/browser_upload.py --server "$server" --backend "$backend" \
    --screenshot .build/test-logs/browser-upload.png
