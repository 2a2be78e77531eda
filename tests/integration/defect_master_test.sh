#!/usr/bin/env bash
# Defect control distributed (doc/algorithms/defect-control.md, doc/master.md): the example
# files of method "defect-control" run by tempo-master in one process (--local) and by
# tempo-run (an RTI, a tempo-fmu slave per federate, tempo-master as a federate) give
# byte-identical CSVs (each slave's rows and master.csv, the defect and the next step of every
# step); both equal, value for value, the run of bin/tempo-example-defect, whose master opens
# the FMUs itself (an independent driver of the same algorithm): every output at every T_k
# and every step's defect. Fig. 4b's last step passes the end (the slaves wait past it).
# Prints "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/lib.sh defect_master

# same_values A B [TOL]: the two single-column lists hold the same doubles line for line (or
# within TOL: the example prints T_k as ticks times the resolution, the slaves as the ticks).
same_values() {
  paste -d, "$1" "$2" | awk -F, -v tol="${3:-0}" '
    { d = $1 - $2; if (d < 0) d = -d }
    NF != 2 || (tol == 0 && $1 + 0 != $2 + 0) || d > tol { bad = 1 } END { exit bad || NR == 0 }'
}

for f in osc_defect_exact_variable osc_defect_euler_fixed osc_defect_fig4; do
  bin/tempo-master --federation "examples/$f.json" --local --output "$dir/l-$f" >"$dir/l-$f.out" 2>&1
  r1=$?
  timeout 120 bin/tempo-run "examples/$f.json" --output "$dir/r-$f" >"$dir/r-$f.out" 2>&1
  r2=$?
  if [ $r1 -eq 0 ] && [ $r2 -eq 0 ] && cmp -s "$dir/l-$f/s1.csv" "$dir/r-$f/s1.csv" &&
    cmp -s "$dir/l-$f/s2.csv" "$dir/r-$f/s2.csv" &&
    cmp -s "$dir/l-$f/master.csv" "$dir/r-$f/master.csv"; then ok; else
    ko "$f: one process ($r1) against tempo-run ($r2): $(head -c 600 "$dir/l-$f.out" "$dir/r-$f.out")"
  fi
  bin/tempo-example-defect --output "$dir/e-$f" "examples/$f.json" >"$dir/e-$f.out" 2>&1 ||
    ko "$f: tempo-example-defect: $(cat "$dir/e-$f.out")"
  csv=$(ls "$dir/e-$f"/*.csv | head -n 1)
  # the example's rows are T_1 ..; the slaves' CSVs also hold T_0
  tail -n +2 "$csv" | cut -d, -f1 >"$dir/et"
  tail -n +3 "$dir/r-$f/s1.csv" | cut -d, -f1 >"$dir/st"
  tail -n +2 "$csv" | cut -d, -f6 >"$dir/e1"
  tail -n +3 "$dir/r-$f/s1.csv" | cut -d, -f2 >"$dir/s1"
  tail -n +2 "$csv" | cut -d, -f7 >"$dir/e2"
  tail -n +3 "$dir/r-$f/s2.csv" | cut -d, -f2 >"$dir/s2"
  tail -n +2 "$csv" | cut -d, -f3 >"$dir/ee"
  grep ',defect,' "$dir/r-$f/master.csv" | cut -d, -f3 >"$dir/me"
  if same_values "$dir/et" "$dir/st" 1e-12 && same_values "$dir/e1" "$dir/s1" &&
    same_values "$dir/e2" "$dir/s2" && same_values "$dir/ee" "$dir/me"; then ok; else
    ko "$f: tempo-run differs from tempo-example-defect: $(paste -d' ' "$dir/e1" "$dir/s1" | head -3)"
  fi
  n=$(grep -o 'N = [0-9]* steps' "$dir/e-$f.out")
  grep -q "defect-control, .*: $n to" "$dir/r-$f.out" && ok || ko "$f: summary: want $n: $(cat "$dir/r-$f.out")"
done
# Fig. 4b over the Euler FMUs ends past 50 s: its last row is after the end
last=$(tail -n 1 "$dir/r-osc_defect_fig4/s2.csv" | cut -d, -f1)
awk -v t="$last" 'BEGIN { exit !(t > 50) }' && ok || ko "fig4: last instant $last, want > 50"
# ... and every program says so: the master's "done at" (one process and under tempo-run) and
# each slave's (their lines as tempo-master --in-process prints them) are that instant, and
# the slaves' instants, tempo-run's too, are the master's N (doc/master.md "Instants and steps")
o=$dir/r-osc_defect_fig4.out
bin/tempo-master --federation examples/osc_defect_fig4.json --in-process --output "$dir/i-fig4" \
  >"$dir/i-fig4.out" 2>&1 || ko "fig4 in process: $(cat "$dir/i-fig4.out")"
n=$(grep -o 'N = [0-9]* steps' "$o" | grep -o '[0-9]*')
at=$(sed -n 's/.*tempo-master: osc-defect-fig4: done at t = \([0-9.]*\) s.*/\1/p' "$o")
at1=$(sed -n 's/.*tempo-master: osc-defect-fig4: done at t = \([0-9.]*\) s (one process)/\1/p' \
  "$dir/l-osc_defect_fig4.out")
if [ -n "$n" ] && [ -n "$at" ] && [ "$at" = "$at1" ] &&
  awk -v a="$at" -v t="$last" 'BEGIN { d = a - t; exit !(d < 1e-9 && d > -1e-9) }' &&
  grep -q "tempo-fmu: s1: done at t = $at s: $n instants" "$dir/i-fig4.out" &&
  grep -q "tempo-fmu: s2: done at t = $at s: $n instants" "$dir/i-fig4.out" &&
  grep -q "tempo-run: $n instants per federate" "$o"; then ok; else
  ko "fig4: done at '$at' / '$at1' (last row $last), N '$n': $(grep -hE 'done at|per federate' "$o" "$dir/l-osc_defect_fig4.out" "$dir/i-fig4.out")"
fi

finish
