#!/usr/bin/env bash
# The formatting check of `make test` (doc/contributing.md §13): every C file of the project
# (*.c, *.h outside build/, bin/ and lib/, which hold only generated files) must be left
# unchanged by clang-format 14 with the root .clang-format. Prints the files it would change
# and ends with the "N passed, N failed" line of tests/run.sh.
#
#   tests/check_format.sh          check
#   tests/check_format.sh --fix    rewrite the files in place (what `make format` runs)
set -u
cd "$(dirname "$0")/.." || exit 2
cf=$(command -v clang-format-14 || true)
if [ -z "$cf" ] && clang-format --version 2>/dev/null | grep -q 'version 14\.'; then
  cf=$(command -v clang-format)
fi
if [ -z "$cf" ]; then
  echo "FAIL clang-format 14 not found (Debian 12: apt-get install clang-format)"
  echo "0 passed, 1 failed"
  exit 1
fi
mapfile -t files < <(find . \( -path ./build -o -path ./bin -o -path ./lib -o -path ./.git \) \
                       -prune -o -type f \( -name '*.c' -o -name '*.h' \) -print | sort)
if [ "${1:-}" = "--fix" ]; then
  "$cf" -i --style=file "${files[@]}"
  exit $?
fi
# One clang-format run over every file; each change it would make is a "FILE:LINE:COL: warning"
# line on stderr.
mapfile -t bad < <("$cf" --style=file --dry-run "${files[@]}" 2>&1 >/dev/null |
                   sed -nE 's/^(.*):[0-9]+:[0-9]+: (warning|error):.*/\1/p' | sort -u)
for f in "${bad[@]}"; do
  echo "FAIL ${f#./}: clang-format would change it (make format rewrites it)"
done
echo "$((${#files[@]} - ${#bad[@]})) passed, ${#bad[@]} failed"
[ "${#bad[@]}" -eq 0 ]
