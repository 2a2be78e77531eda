#!/usr/bin/env bash
# tempo-run --profile (doc/run.md "Where the time goes"): a Lotka-Volterra pair under Jacobi,
# distributed and in process (tasks), prints one row per federate with its instants and the
# five parts, writes OUTPUT/profile.json (a trace-event object: the parts of each federate
# laid end to end), and the same CSVs as a run without --profile (profiling changes no bits);
# tempo-log stats of its log says for whom each federate waited.
# A master method says its phases are not profiled and runs. Prints "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/lib.sh run_profile
need run_profile bin/tempo-run bin/tempo-fmu bin/tempo-master
fmus=$PWD/build/fmus
file() { # file OUT METHOD
  cat >"$1" <<EOT
{ "federation": "prof", "algorithm": { "method": "$2", "end": 10, "step": 0.5 },
  "federates": [
    { "name": "prey", "fmu": "$fmus/lv_prey_me.fmu", "parameters": { "alpha": 0.5, "beta": 0.7 },
      "outputs": { "x": "Prey.x" }, "inputs": { "y": "Predator.y" } },
    { "name": "predator", "fmu": "$fmus/lv_predator_me.fmu", "outputs": { "y": "Predator.y" },
      "inputs": { "x": "Prey.x" } } ],
  "output": "$dir/out" }
EOT
}
file "$dir/j.json" jacobi
bin/tempo-run "$dir/j.json" --quiet --output "$dir/plain" >"$dir/plain.out" 2>&1
check "plain run" test $? -eq 0
for mode in --distributed --in-process; do
  out=$dir/p$mode
  bin/tempo-run "$dir/j.json" --quiet --profile $mode --output "$out" >"$out.out" 2>&1
  rc=$?
  check "$mode: exit 0, not $rc ($(tail -n 3 "$out.out"))" test $rc -eq 0
  check "$mode: the table's head" has "$out.out" "tempo-run: profile, ms of wall / CPU time"
  for f in prey predator; do
    check "$mode: $f's row with its 20 instants" \
      grep -qE "^tempo-run:   $f +20 +[0-9.]+ / [0-9.]+ " "$out.out"
    check "$mode: $f's CSV as without --profile" cmp -s "$dir/plain/$f.csv" "$out/$f.csv"
  done
  check "$mode: the trace named" has "$out.out" "tempo-run: profile trace $out/profile.json"
  check "$mode: the trace opens" grep -q '^{"traceEvents":\[' "$out/profile.json"
  check "$mode: the trace names the tracks" has "$out/profile.json" '"args":{"name":"predator"}'
  for part in model wait messaging recording other; do
    check "$mode: the trace has $part" has "$out/profile.json" "\"name\":\"$part\""
  done
  if command -v python3 >/dev/null; then
    check "$mode: the trace is JSON" python3 -c "import json,sys; json.load(open(sys.argv[1]))" \
      "$out/profile.json"
  fi
done
# tempo-log stats on the same pair's log: under Jacobi each waits for the other, whose bound
# holds its GALT (doc/log.md "stats").
bin/tempo-run "$dir/j.json" --quiet --output "$dir/logged" --log "$dir/log" >/dev/null 2>&1
bin/tempo-log stats "$dir"/log/*.tlog >"$dir/stats" 2>&1
check "stats: waiting for whom" has "$dir/stats" "waiting for whom"
check "stats: the prey waits for the predator" grep -qE '^  prey +[0-9.]+ s: predator ' "$dir/stats"
check "stats: the predator waits for the prey" grep -qE '^  predator +[0-9.]+ s: prey ' "$dir/stats"
file "$dir/m.json" master-jacobi
bin/tempo-run "$dir/m.json" --quiet --profile --in-process --output "$dir/m" >"$dir/m.out" 2>&1
rc=$?
check "master method: runs (exit $rc)" test $rc -eq 0
check "master method: says its phases are not profiled" has "$dir/m.out" \
  'runs under tempo-master, whose phases are not profiled yet'
finish
