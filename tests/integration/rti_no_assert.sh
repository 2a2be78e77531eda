#!/usr/bin/env bash
# No assert on a path a client's frame reaches (issue 37; doc/contributing.md §6, §7): release
# builds keep assert() on, so each one the RTI's input could reach would be a remote off
# switch. The RTI's own code (rti/tm, rti/server, rti/proto, rti/flog) and the FOM reader it
# runs on FOM text from the wire (fom/) call neither assert() nor abort(), except the in-process
# scheduler's abort() that no frame reaches (rti/server/embed_task.c: a finished task resumed).
# Their invariants are checked by the tests instead (tm_random_test, tm_scenarios_test,
# rti_hostile_test). Prints "N passed, N failed" (tests/run.sh). Run from the repository root.
set -u
cd "$(dirname "$0")/../.." || exit 1
pass=0
fail=0
for f in rti/tm/*.[ch] rti/server/*.[ch] rti/proto/*.[ch] rti/flog/*.[ch] fom/*.[ch]; do
  # assert( or abort( as code: not _Static_assert, not inside a comment line
  hits=$(grep -nE '(^|[^_[:alnum:]])(assert|abort) *\(' "$f" | grep -vE '^[0-9]+: *(/?\*|//)' |
    grep -vE '_Static_assert' || true)
  if [ "$f" = rti/server/embed_task.c ]; then
    hits=$(printf '%s\n' "$hits" | grep -v 'the scheduler never resumes a finished task' || true)
  fi
  if [ -n "$hits" ]; then
    echo "FAIL: $f calls assert or abort on a path the RTI's input may reach:"
    printf '%s\n' "$hits" | sed 's/^/    /'
    fail=$((fail + 1))
  else
    pass=$((pass + 1))
  fi
done
# the check itself must see an assert where there is one
probe=$(mktemp "${TMPDIR:-/tmp}/tempo-noassert.XXXXXX")
printf 'static void f(int x)\n{\n    assert(x > 0);\n}\n' >"$probe"
if grep -nE '(^|[^_[:alnum:]])(assert|abort) *\(' "$probe" | grep -vE '_Static_assert' |
  grep -q .; then
  pass=$((pass + 1))
else
  echo "FAIL: the pattern misses 'assert(x > 0);'"
  fail=$((fail + 1))
fi
rm -f "$probe"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
