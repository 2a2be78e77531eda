#!/usr/bin/env bash
# Runs each test program given on the command line and sums their "N passed, N failed" lines
# (tests/check.h: N counts test functions, scenarios and randomized runs, not assertions; a
# shell script counts its own checks, each a command run and its outcome). A program that crashes, times out, exits non-zero without counting
# a failure, or prints no summary counts as one failure.
#
# A program under build/san/ is the sanitized (ASan+UBSan) build of the release program of
# the same name: the two run one after the other and share a row of the table, release
# figures on the left, sanitized on the right. The last lines are the totals of each pass and
# the closing line "N passed, N failed" (both passes together).
set -u
timeout_s=${TEST_TIMEOUT:-300}
log_dir=build/test-logs
mkdir -p "$log_dir"
declare -A total_pass=([release]=0 [san]=0) total_fail=([release]=0 [san]=0) n_progs=([release]=0 [san]=0)
failed_progs=()

# run_one PROGRAM PASS: runs it, adds its counts to PASS's totals, sets cell to its figures.
cell=""
run_one() {
  local t=$1 pass=$2 name log start rc secs line p=0 f=0
  name=$(echo "$t" | tr '/' '_')
  log="$log_dir/$name.log"
  start=$(date +%s.%N)
  timeout --kill-after=10 "$timeout_s" "$t" >"$log" 2>&1
  rc=$?
  secs=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN{printf "%.1f", e-s}')
  line=$(grep -E '^([A-Za-z]+: )?[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
  if [ -n "$line" ]; then
    p=$(echo "$line" | sed -E 's/^([A-Za-z]+: )?([0-9]+) passed, ([0-9]+) failed.*/\2/')
    f=$(echo "$line" | sed -E 's/^([A-Za-z]+: )?([0-9]+) passed, ([0-9]+) failed.*/\3/')
  fi
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  if [ -z "$line" ] && [ "$rc" -eq 0 ]; then f=1; fi
  total_pass[$pass]=$((total_pass[$pass] + p))
  total_fail[$pass]=$((total_fail[$pass] + f))
  n_progs[$pass]=$((n_progs[$pass] + 1))
  if [ "$f" -ne 0 ]; then
    failed_progs+=("$t")
    cell=$(printf 'FAIL %4s/%-3s %6ss' "$p" "$f" "$secs")
    {
      echo "FAIL $t: $p passed, $f failed, exit $rc (log: $log)"
      sed 's/^/    | /' "$log" | grep -E 'FAIL|ERROR|error|Sanitizer|runtime error|Assert' | head -n 40
    } >&2
  else
    cell=$(printf 'ok   %8s %6ss' "$p" "$secs")
  fi
}

# The programs, paired: a build/san/X argument goes beside build/release/X when both are given.
declare -A given=() san_of=()
for t in "$@"; do given[$t]=1; done
for t in "$@"; do
  case "$t" in build/san/*) [ -n "${given[build/release/${t#build/san/}]:-}" ] &&
                              san_of[build/release/${t#build/san/}]=$t ;; esac
done
printf '%-46s %-21s %s\n' "program" "release" "sanitized (ASan+UBSan)"
for t in "$@"; do
  rel_cell="-" san_cell="-"
  case "$t" in
    build/san/*)
      [ -n "${given[build/release/${t#build/san/}]:-}" ] && continue # ran beside its release
      run_one "$t" san
      san_cell=$cell ;;
    *)
      run_one "$t" release
      rel_cell=$cell
      if [ -n "${san_of[$t]:-}" ]; then
        run_one "${san_of[$t]}" san
        san_cell=$cell
      fi ;;
  esac
  short=${t#build/*/}
  short=${short#tests/}
  printf '%-46s %-21s %s\n' "$short" "$rel_cell" "$san_cell"
done
if [ ${#failed_progs[@]} -gt 0 ]; then
  echo "failing programs (logs in $log_dir/): ${failed_progs[*]}"
fi
printf 'release: %d programs, %d passed, %d failed; sanitized: %d programs, %d passed, %d failed\n' \
  "${n_progs[release]}" "${total_pass[release]}" "${total_fail[release]}" \
  "${n_progs[san]}" "${total_pass[san]}" "${total_fail[san]}"
pass=$((total_pass[release] + total_pass[san]))
fail=$((total_fail[release] + total_fail[san]))
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
