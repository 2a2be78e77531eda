#!/usr/bin/env bash
# Runs each test program given on the command line and sums their "N passed, N failed" lines
# (tests/check.h). A program that crashes, times out, exits non-zero without counting a
# failure, or prints no summary counts as one failure. The last line printed is the total.
set -u
timeout_s=${TEST_TIMEOUT:-300}
total_pass=0
total_fail=0
failed_progs=()
log_dir=build/test-logs
mkdir -p "$log_dir"
for t in "$@"; do
  name=$(echo "$t" | tr '/' '_')
  log="$log_dir/$name.log"
  start=$(date +%s.%N)
  timeout --kill-after=10 "$timeout_s" "$t" >"$log" 2>&1
  rc=$?
  secs=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN{printf "%.1f", e-s}')
  line=$(grep -E '^([A-Za-z]+: )?[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
  p=0; f=0
  if [ -n "$line" ]; then
    p=$(echo "$line" | sed -E 's/^([A-Za-z]+: )?([0-9]+) passed, ([0-9]+) failed.*/\2/')
    f=$(echo "$line" | sed -E 's/^([A-Za-z]+: )?([0-9]+) passed, ([0-9]+) failed.*/\3/')
  fi
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  if [ -z "$line" ] && [ "$rc" -eq 0 ]; then f=1; fi
  total_pass=$((total_pass + p))
  total_fail=$((total_fail + f))
  if [ "$f" -ne 0 ]; then
    failed_progs+=("$t")
    printf 'FAIL %-60s %5s passed %3s failed  exit %s  %ss\n' "$t" "$p" "$f" "$rc" "$secs"
    sed 's/^/    | /' "$log" | grep -E 'FAIL|ERROR|error|Sanitizer|runtime error|Assert' | head -n 40
  else
    printf 'ok   %-60s %5s passed  %ss\n' "$t" "$p" "$secs"
  fi
done
if [ ${#failed_progs[@]} -gt 0 ]; then
  echo "failing programs (logs in $log_dir/): ${failed_progs[*]}"
fi
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
