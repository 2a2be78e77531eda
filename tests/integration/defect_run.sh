#!/usr/bin/env bash
# bin/tempo-example-defect end to end (doc/algorithms/defect-control.md): the example
# federation files of method "defect-control" run in one process over the oscillator FMUs;
# the variable-step run takes the steps the paper's conventions give (N = 20, mean step
# 5.403e-2 s for orders 1 at tol 1e-3, as tests/unit/defect_test.c's table); the convergence
# sweep finds the slopes 1, 2, 3 (exact slaves) and 1, 2 (Euler slaves, error and connection
# defect of order 1); its CSV and SVG files are written; it refuses a file of another method. Prints "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/lib.sh defect_run

out=$(bin/tempo-example-defect --output "$dir/v" examples/osc_defect_exact_variable.json 2>&1)
rc=$?
[ $rc -eq 0 ] && ok || ko "exact variable: status $rc: $out"
echo "$out" | grep -q "N = 20 steps" && ok || ko "exact variable: want N = 20: $out"
echo "$out" | grep -q "H mean 0.05403 s" && ok || ko "exact variable: want H mean 0.05403: $out"
csv="$dir/v/osc-defect-exact-variable.csv"
[ -f "$csv" ] && [ "$(wc -l <"$csv")" -eq 21 ] && ok || ko "$csv: want a header and 20 rows"
head -1 "$csv" | grep -q "^time,H,eps,eps_output,eps_connection,s1.tau1,s2.omega2$" && ok ||
  ko "$csv header: $(head -1 "$csv")"
for f in steps outputs; do
  grep -q "<svg" "$dir/v/osc-defect-exact-variable_$f.svg" 2>/dev/null && ok || ko "no $f.svg"
done

# slopes "order K: E O C" within 0.1 of the expected values
slopes() { # FILE OUT-NAME ORDER WANT-E WANT-C
  awk -v o="order $3:" -v e="$4" -v c="$5" '
    index($0, o) { f = 1; d1 = $3 - e; d2 = $5 - c; if (d1 < 0) d1 = -d1; if (d2 < 0) d2 = -d2;
                   exit !(d1 <= 0.1 && d2 <= 0.1) } END { if (!f) exit 1 }' "$1"
}
bin/tempo-example-defect --convergence --output "$dir/c" examples/osc_defect_exact_fixed.json \
  >"$dir/exact.txt" 2>&1 && ok || ko "convergence exact: $(cat "$dir/exact.txt")"
for k in 0 1 2; do
  slopes "$dir/exact.txt" exact $k $((k + 1)) $((k + 1)) && ok ||
    ko "exact order $k slopes: $(grep "order $k:" "$dir/exact.txt")"
done
bin/tempo-example-defect --convergence --output "$dir/c" examples/osc_defect_euler_fixed.json \
  >"$dir/euler.txt" 2>&1 && ok || ko "convergence Euler: $(cat "$dir/euler.txt")"
slopes "$dir/euler.txt" euler 0 1 1 && ok || ko "Euler order 0: $(grep "order 0:" "$dir/euler.txt")"
slopes "$dir/euler.txt" euler 1 1 2 && ok || ko "Euler order 1: $(grep "order 1:" "$dir/euler.txt")"
[ "$(wc -l <"$dir/c/osc-defect-exact-fixed_convergence.csv")" -eq 49 ] && ok ||
  ko "convergence CSV: want a header and 48 rows"
grep -q "<svg" "$dir/c/osc-defect-exact-fixed_convergence.svg" && ok || ko "no convergence.svg"

# this program refuses the files of other methods (tempo-run runs defect-control files too:
# tests/integration/defect_master_test.sh)
out=$(bin/tempo-example-defect examples/osc_jacobi.json 2>&1)
[ $? -eq 2 ] && echo "$out" | grep -q 'method "jacobi"' && ok || ko "jacobi file: $out"
out=$(bin/tempo-example-defect 2>&1)
[ $? -eq 2 ] && echo "$out" | grep -q "no FILE.json given" && ok || ko "no argument: $out"

finish
