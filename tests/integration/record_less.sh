#!/usr/bin/env bash
# Recording less (doc/federation.md "Recording less"): "record": [] writes no CSV for that
# federate (tempo-run reads and plots the others, and names no results file for it), and
# "record_every" keeps every K-th row ({"steps": K}) or the first row at or after each multiple of
# DT ({"seconds": DT}), the last row always: the rows kept are the full run's rows, byte for
# byte, in a peer method (Jacobi: processes and in process) and a master method
# (master-jacobi: one process, and distributed). Bad values are refused with the key's path.
# Prints "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/lib.sh record_less
need record_less bin/tempo-run bin/tempo-master bin/tempo-fmu
root=$PWD
fmus=$root/build/fmus

# file OUT NAME METHOD PREY-RECORD EXTRA: the Lotka-Volterra pair over [0, 10], step 0.5; the
# prey records PREY-RECORD; EXTRA goes at the top level.
file() {
  cat >"$1" <<EOT
{ "federation": "$2", "algorithm": { "method": "$3", "end": 10, "step": 0.5 },
  "solver": { "rtol": 1e-10, "atol": 1e-12 }, $5
  "federates": [
    { "name": "prey", "fmu": "$fmus/lv_prey_me.fmu", "parameters": { "alpha": 0.5, "beta": 0.7 },
      "outputs": { "x": "Prey.x" }, "inputs": { "y": "Predator.y" }, "record": $4 },
    { "name": "predator", "fmu": "$fmus/lv_predator_me.fmu", "outputs": { "y": "Predator.y" },
      "inputs": { "x": "Prey.x" }, "record": [ "y", "x" ] } ],
  "output": "$dir/out-$2" }
EOT
}
rows() { tail -n +2 "$1"; }
# kept FULL PART K|DT: PART's rows are FULL's rows at indexes 0, K, 2K, ... or at the first time
# at or after each multiple of DT (awk on the time column), and the last, in order.
want() { # want FULL steps K | want FULL seconds DT
  rows "$1" | awk -F, -v how="$2" -v k="$3" '
    { line[NR] = $0; t[NR] = $1 }
    END {
      next_t = -1e300
      for (i = 1; i <= NR; i++) {
        keep = (i == NR)
        if (how == "steps" && (i - 1) % k == 0) keep = 1
        if (how == "seconds" && t[i] + 1e-12 >= next_t) {
          keep = 1; next_t = (int(t[i] / k + 1e-9) + 1) * k
        }
        if (keep) print line[i]
      }
    }'
}
same_rows() { # same_rows PART FULL how k
  diff <(rows "$1") <(want "$2" "$3" "$4") >"$dir/diff" 2>&1
}

# 1. Jacobi in processes: the full run, then [] for the prey and every 4th row.
file "$dir/full.json" full jacobi '[ "x", "y" ]' ''
bin/tempo-run "$dir/full.json" --quiet >"$dir/full.out" 2>&1
check "the full run" test -s "$dir/out-full/predator.csv"
n_full=$(rows "$dir/out-full/predator.csv" | wc -l)
check "21 rows over [0, 10] at step 0.5 (got $n_full)" test "$n_full" -eq 21
file "$dir/less.json" less jacobi '[]' '"record_every": { "steps": 4 },'
bin/tempo-run "$dir/less.json" >"$dir/less.out" 2>&1
rc=$?
check "record [] and every 4th row: tempo-run ends well (status $rc)" test "$rc" -eq 0
check "record []: no prey.csv" test ! -e "$dir/out-less/prey.csv"
check "record []: tempo-run names no prey results" not_has "$dir/less.out" "prey.csv"
check "record []: the others are plotted" test -s "$dir/out-less/plot.svg"
same_rows "$dir/out-less/predator.csv" "$dir/out-full/predator.csv" steps 4
check "every 4th row and the last, byte for byte: $(head -c 300 "$dir/diff")" test ! -s "$dir/diff"
check "6 rows kept (0, 2, 4, 6, 8, 10, the last among them): $(rows "$dir/out-less/predator.csv" | wc -l)" \
  test "$(rows "$dir/out-less/predator.csv" | wc -l)" -eq 6

# 2. In process, every 1.5 s: rows at 0, 1.5, 3, ..., 9 and the end.
file "$dir/dt.json" dt jacobi '[ "x" ]' '"record_every": { "seconds": 1.5 },'
bin/tempo-run "$dir/dt.json" --in-process --quiet >"$dir/dt.out" 2>&1
check "every 1.5 s in process: status $?" test -s "$dir/out-dt/predator.csv"
same_rows "$dir/out-dt/predator.csv" "$dir/out-full/predator.csv" seconds 1.5
check "the first row at or after each 1.5 s, byte for byte: $(head -c 300 "$dir/diff")" \
  test ! -s "$dir/diff"
check "8 rows (0, 1.5, ..., 9, 10): $(rows "$dir/out-dt/predator.csv" | wc -l)" \
  test "$(rows "$dir/out-dt/predator.csv" | wc -l)" -eq 8

# 3. A master method: one process and distributed keep the same rows.
file "$dir/mfull.json" mfull master-jacobi '[ "x", "y" ]' ''
bin/tempo-master --federation "$dir/mfull.json" --local --quiet >"$dir/mfull.out" 2>&1
file "$dir/mless.json" mless master-jacobi '[]' '"record_every": { "steps": 3 },'
bin/tempo-master --federation "$dir/mless.json" --local --quiet >"$dir/ml.out" 2>&1
check "master-jacobi, one process: no prey.csv" test ! -e "$dir/out-mless/prey.csv"
same_rows "$dir/out-mless/predator.csv" "$dir/out-mfull/predator.csv" steps 3
check "master-jacobi, one process: every 3rd row: $(head -c 300 "$dir/diff")" test ! -s "$dir/diff"
rm -rf "$dir/out-mless"
bin/tempo-run "$dir/mless.json" --quiet >"$dir/mr.out" 2>&1
check "master-jacobi distributed: status $?" test -s "$dir/out-mless/predator.csv"
check "master-jacobi distributed: no prey.csv" test ! -e "$dir/out-mless/prey.csv"
same_rows "$dir/out-mless/predator.csv" "$dir/out-mfull/predator.csv" steps 3
check "master-jacobi distributed: every 3rd row: $(head -c 300 "$dir/diff")" test ! -s "$dir/diff"

# 4. Refusals name the key.
bad() { # bad VALUE MESSAGE
  file "$dir/bad.json" bad jacobi '[ "x" ]' "\"record_every\": $1,"
  bin/tempo-run "$dir/bad.json" --quiet >"$dir/bad.out" 2>&1
  local rc=$?
  check "record_every $1: refused (status $rc): $(head -c 300 "$dir/bad.out")" \
    has "$dir/bad.out" "$2"
}
bad '{ "steps": 0 }' 'record_every.steps: expected a whole number 1..'
bad '{ "steps": 2.5 }' 'record_every.steps: expected a whole number 1..'
bad '{ "steps": 2, "seconds": 1 }' 'record_every: expected exactly one of "steps" and "seconds"'
bad '{ "every": 2 }' 'record_every.every: unknown key'
bad '3' 'record_every: expected {"steps": K} or {"seconds": DT}, got'
bad '{ "seconds": -1 }' 'record_every.seconds: expected a number > 0'
finish
