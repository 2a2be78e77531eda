#!/usr/bin/env bash
# Reruns the RTI integration tests (rti_robust, rti_fed, rti_flog, rti_limits, rti_refusals,
# rti_hostile, rti_quota) against the server built
# with ASan + UBSan + LeakSanitizer (build/rti-san/tempo-rti, mk/30-rti.mk): a memory error,
# undefined behaviour or a leak at exit makes the RTI exit non-zero or abort, which the tests
# count as failures; any sanitizer report in the RTI's logs is one more failure. Then
# rti_alloc_test counts the allocations of that build (doc/contributing.md §8).
# Prints "N passed, N failed" last.
set -u
cd "$(dirname "$0")/../.." || exit 1
san=build/rti-san/tempo-rti
pass=0
fail=0
if [ ! -x "$san" ]; then
  echo "rti_san: $san is missing (make all builds it)"
  echo "0 passed, 1 failed"
  exit 1
fi
mkdir -p build/test-logs
for t in rti_robust_test rti_fed_test rti_flog_test rti_limits_test rti_refusals_test rti_hostile_test rti_quota_test rti_alloc_test; do
  bin=build/release/tests/integration/$t
  out=$(TEMPO_RTI_BIN=$san ASAN_OPTIONS=detect_leaks=1 timeout 300 "$bin" 2>&1)
  rc=$?
  line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1)
  p=$(printf '%s' "$line" | sed -E 's/^([0-9]+) passed.*/\1/')
  f=$(printf '%s' "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
  [ -n "$line" ] || { p=0; f=1; }
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  printf '%s\n' "$out" | grep -E '^FAIL' | sed "s/^/$t (sanitized RTI): /"
  pass=$((pass + p))
  fail=$((fail + f))
done
# Sanitizer reports land in the RTI logs (stderr of each RTI the tests started).
for log in build/test-logs/rti_*.alt.rti.log; do
  [ -f "$log" ] || continue
  if grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$log"; then
    echo "rti_san: sanitizer report in $log:"
    grep -E -A12 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$log" | head -n 40
    fail=$((fail + 1))
  else
    pass=$((pass + 1))
  fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
