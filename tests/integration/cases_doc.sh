#!/usr/bin/env bash
# doc/cases/README.md is the table tests/cases_readme.sh writes from the rows the tests
# generate (doc/cases/figures/*.claims), and every generated table a doc page names exists.
# Runs nothing else: the tests that write the figures compare them with a fresh run
# themselves. The plots committed under doc/ render to PNG, not blank (tests/figures.sh).
# Prints "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
pass=0
fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }
if out=$(tests/cases_readme.sh --check 2>&1); then ok; else ko "$out"; fi
# Every doc/cases/figures/ file a page links to is there, and every one is named by a page.
for f in $(grep -rhoE 'figures/[A-Za-z0-9_.-]+\.(md|claims)' doc --include='*.md' | sort -u); do
  if [ -f "doc/cases/$f" ]; then ok; else ko "a page names doc/cases/$f, which no test writes"; fi
done
for f in doc/cases/figures/*.md; do
  [ -e "$f" ] || continue
  if grep -rqF "figures/$(basename "$f")" doc --include='*.md' --exclude-dir=figures; then ok; else
    ko "$f is named by no page"; fi
done
. tests/figures.sh
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cases_doc.XXXXXX")
for svg in $(find doc -name '*.svg' | sort); do
  if plot_png_ok "$svg" "$tmp"; then ok; else ko "$svg: not rendered, or blank"; fi
done
rm -rf "$tmp"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
