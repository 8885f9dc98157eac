#!/usr/bin/env bash
# The public API check: dumps the public declarations of every module a user can import (scripts/api_dump.py) from
# the symbol graphs of the current build and compares them with api/*.txt in the repository. A change to the public
# API fails this check until api/ is regenerated in the same commit, so every API change shows up in review:
#   scripts/check-api.sh            compare (fails with the diff)
#   scripts/check-api.sh --update   rewrite api/ from the current sources
set -euo pipefail
cd "$(dirname "$0")/.."

swift package dump-symbol-graph --minimum-access-level public --skip-synthesized-members >/dev/null
graphs="$(swift build --show-bin-path)/../symbolgraph"
[ -d "$graphs" ] || graphs="$(dirname "$(swift build --show-bin-path)")/symbolgraph"
fresh=$(mktemp -d)
trap 'rm -rf "$fresh" "$fresh.diff"' EXIT
python3 scripts/api_dump.py "$graphs" "$fresh"

if [ "${1:-}" = "--update" ]; then
    rm -rf api
    mkdir -p api
    cp "$fresh"/*.txt api/
    echo "scripts/check-api.sh: api/ rewritten ($(cat api/*.txt | grep -vc '^#') declarations)"
    exit 0
fi

if ! diff -ru api "$fresh" >"$fresh.diff"; then
    cat "$fresh.diff"
    rm -f "$fresh.diff"
    echo "scripts/check-api.sh: the public API changed; review the diff above and commit the result of" \
        "scripts/check-api.sh --update with the change"
    exit 1
fi
rm -f "$fresh.diff"
echo "scripts/check-api.sh: the public API matches api/ ($(cat api/*.txt | grep -vc '^#') declarations)"
