#!/usr/bin/env bash
# make bench: the cost of one checkpoint (doc/checkpoint.md, doc/run.md "Checkpoints"): the
# smart-grid case with 64 and 256 houses, under fixed-step Jacobi (5 s) and discrete-event
# Jacobi (half an hour simulated, the save at 902.5 s, inside a step: the houses whose next
# events lie past it are saved in their pending NERA), and a 16-federate Jacobi federation (8
# Lotka-Volterra pairs, model exchange, 20 s, the save at 10.25 s), peer Jacobi and the same
# 16 slaves under master-jacobi (tempo-master's part besides theirs); distributed and in
# process (the houses distributed only, their market being a program). Prints the wall time
# from a federate's part to the outcome (the whole federation waits that long) and the
# checkpoint's size, as tempo-run reports them, and the run's wall time with and without the
# checkpoint.
# usage: tests/bench/ckpt_run_bench.sh
set -u
cd "$(dirname "$0")/../.." || exit 1
dir=$(mktemp -d /tmp/ckpt_run_bench.XXXXXX)
trap 'rm -rf "$dir"' EXIT

# jacobi16 FILE [METHOD]: 8 independent prey/predator pairs, 16 federates, one federation
jacobi16() {
  local f=$PWD/build/fmus i sep=
  {
    echo '{ "federation": "jacobi16", "algorithm": { "method": "'"${2:-jacobi}"'", "end": 20, "step": 0.05 },'
    echo '  "solver": { "rtol": 1e-8, "atol": 1e-10 }, "federates": ['
    for i in 1 2 3 4 5 6 7 8; do
      echo "$sep"'{ "name": "prey'$i'", "fmu": "'$f'/lv_prey_me.fmu", "outputs": { "x": "Prey'$i'.x" }, "inputs": { "y": "Predator'$i'.y" } },'
      echo '{ "name": "predator'$i'", "fmu": "'$f'/lv_predator_me.fmu", "outputs": { "y": "Predator'$i'.y" }, "inputs": { "x": "Prey'$i'.x" } }'
      sep=,
    done
    echo '] }'
  } >"$1"
}

printf "%-22s %-12s %10s %12s %12s %12s\n" case placement "save s" "size bytes" "run s" "run s, none"
one() { # NAME FILE T PLACEMENT
  local w=$dir/$1-$4 t0 t1 t2 line
  t0=$(date +%s.%N)
  if ! bin/tempo-run "$2" "--$4" --output "$w" --quiet --checkpoint-at "$3" >"$w.out" 2>&1; then
    echo "ckpt_run_bench: $1 ($4) failed: $(tail -n 2 "$w.out")"
    return 1
  fi
  t1=$(date +%s.%N)
  bin/tempo-run "$2" "--$4" --output "$w-none" --quiet >/dev/null 2>&1
  t2=$(date +%s.%N)
  line=$(grep 'checkpoints: 1 written' "$w.out")
  if [ -z "$line" ]; then
    echo "ckpt_run_bench: $1 ($4): no checkpoint: $(grep 'checkpoints: ' "$w.out" | head -n 1)"
    rm -rf "$w" "$w-none"
    return 1
  fi
  printf "%-22s %-12s %10s %12s %12.2f %12.2f\n" "$1" "$4" \
    "$(echo "$line" | sed -n 's/.*written, \([0-9.]*\) s in all.*/\1/p')" \
    "$(echo "$line" | sed -n 's/.* \([0-9]*\) bytes each.*/\1/p')" \
    "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" \
    "$(awk -v a="$t1" -v b="$t2" 'BEGIN { print b - a }')"
  rm -rf "$w" "$w-none"
}
for n in 64 256; do
  for m in fts de; do
    examples/houses/gen.sh "$n" "$m" "$PWD" | sed -e 's/"end": 259200/"end": 1800/' >"$dir/houses$n$m.json"
    one "houses $m, $n houses" "$dir/houses$n$m.json" 902.5 distributed
  done
done
jacobi16 "$dir/jacobi16.json"
one "jacobi, 16 federates" "$dir/jacobi16.json" 10.25 distributed
one "jacobi, 16 federates" "$dir/jacobi16.json" 10.25 in-process
jacobi16 "$dir/msjacobi16.json" master-jacobi
one "master-jacobi, 16" "$dir/msjacobi16.json" 10.25 distributed
one "master-jacobi, 16" "$dir/msjacobi16.json" 10.25 in-process
