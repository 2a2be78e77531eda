#!/usr/bin/env bash
# Issue 6, replay of a recorded Jacobi federation of FMU federates (doc/log.md
# "replay"): tempo-rti --log records a 4-federate improved-Jacobi run (tempo-run --rti, 20 steps
# of 0.5 s); each federate replayed unchanged matches the record to the end with the same CSV;
# the stair federate replayed with its jump period changed (3.5 s -> 4 s, so its output first
# differs at step 7, t = 3.5 s) diverges exactly at its UPDATE of step 7; a renamed file
# diverges at the JOIN, and the report names the field; the naive and discrete-event Jacobi
# variants replay unchanged too. Prints "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/lib.sh tlog_jacobi
need tlog_jacobi bin/tempo-rti bin/tempo-log bin/tempo-fmu bin/tempo-run build/fmus/lv_prey_me.fmu \
  build/fmus/lv_predator_cs.fmu build/fmus/stair_cs.fmu build/fmus/mass_cs.fmu

# The federation: prey (model exchange, CVODE) and predator (co-simulation) are coupled both
# ways; stair (a step of height 1 every `period` s) drives the force input of mass. Improved
# Jacobi (TAR at lookahead 0), H = 0.5 s, 20 steps. Step k sends its outputs stamped
# t = k H. With period 3.5 the stair's y is 0 up to step 6 and 1 from step 7 (t = 3.5 s, the
# jump falls on the step's end and is handled inside it); with period 4 it is still 0 at
# step 7, and the same as before at every earlier step.
# The changed copy has the same file name in another folder: the generated FOM names the
# file it came from, and the FOM text is part of the JOIN request that replay compares.
fmus=$PWD/build/fmus
jacobi='"method": "jacobi", "start": 0, "end": 10, "step": 0.5'
write_fed() { # write_fed FILE PERIOD [ALGORITHM]
  cat >"$1" <<EOF
{
  "federation": "replay-jacobi",
  "description": "tests/integration/tlog_jacobi.sh: a recorded Jacobi federation for tempo-log replay",
  "algorithm": { ${3:-$jacobi} },
  "solver": { "method": "bdf", "rtol": 1e-8, "atol": 1e-10 },
  "federates": [
    { "name": "prey", "fmu": "$fmus/lv_prey_me.fmu",
      "parameters": { "alpha": 0.5, "beta": 0.7, "x0": 1 },
      "outputs": { "x": "Prey.x" }, "inputs": { "y": "Predator.y" } },
    { "name": "predator", "fmu": "$fmus/lv_predator_cs.fmu",
      "parameters": { "gamma": 0.27, "delta": 0.6, "y0": 1 },
      "outputs": { "y": "Predator.y" }, "inputs": { "x": "Prey.x" } },
    { "name": "stair", "fmu": "$fmus/stair_cs.fmu",
      "parameters": { "period": $2, "height": 1, "y0": 0 },
      "outputs": { "y": "Stair.y" } },
    { "name": "mass", "fmu": "$fmus/mass_cs.fmu",
      "outputs": { "v": "Mass.v" }, "inputs": { "f": "Stair.y" } }
  ],
  "output": "out"
}
EOF
}
mkdir -p "$dir/rec" "$dir/changed" "$dir/logs"
write_fed "$dir/rec/fed.json" 3.5
write_fed "$dir/changed/fed.json" 4

# record DIR: run DIR/fed.json with tempo-run against a fresh tempo-rti --log DIR/logs; sets
# $log to the log file (empty if none). One RTI per recording, so one log per folder.
record() {
  local d=$1
  mkdir -p "$d/logs"
  rti_start "$d" --log "$d/logs" --log-level warn
  local addr=$RTI_ADDR
  check "$d: the RTI starts" test -n "$addr"
  timeout 60 bin/tempo-run "$d/fed.json" --rti "${addr:-127.0.0.1:1}" --quiet --timeout 30000 \
    >"$d/run.out" 2>&1
  check "$d: the recorded run ends well" test $? -eq 0
  rti_stop 2>/dev/null
  log=$(ls "$d"/logs/*.tlog 2>/dev/null | head -n 1)
  check "$d: one log file" test -n "$log"
}
# replay_all DIR: each federate of DIR/fed.json replayed unchanged against $log.
replay_all() {
  local d=$1 name out rc nreq
  for name in prey predator stair mass; do
    out=$d/replay_$name
    timeout 60 bin/tempo-log replay "$log" --federate "$name" --timeout 10 -- \
      bin/tempo-fmu --federation "$d/fed.json" --name "$name" --rti '{rti}' \
      --output "$out" --quiet >"$out.txt" 2>&1
    rc=$?
    nreq=$(bin/tempo-log show "$log" --federate "$name" | awk -v f="$name" '$3 == f && $4 == "RECV" { n++ } END { print n + 0 }')
    check "$d: replay $name unchanged: exit 0" test "$rc" -eq 0
    check "$d: replay $name unchanged: matched" has "$out.txt" "MATCHED to the end of the log: $nreq requests as recorded"
    check "$d: replay $name unchanged: the federate itself ended well" has "$out.txt" "command exited with status 0"
    check "$d: replay $name unchanged: no divergence" not_has "$out.txt" "DIVERGED"
    check "$d: replay $name unchanged: same results as recorded" cmp -s "$d/out/$name.csv" "$out/$name.csv"
  done
}

# 1. Record the federation.
record "$dir/rec"
check "the recorded run took 20 steps" has "$dir/rec/run.out" "20 instants per federate"
[ -n "$log" ] || { echo "$pass passed, $((fail + 1)) failed"; exit 1; }
check "the stair's CSV has the jump at 3.5 s" grep -qx '3.5,1' "$dir/rec/out/stair.csv"
check "... and not before it" grep -qx '3,0' "$dir/rec/out/stair.csv"

# The stair's recorded UPDATEs: step k is the (k+1)-th, stamped k * 0.5 s.
bin/tempo-log show "$log" --federate stair --kind UPDATE >"$dir/stair_updates"
check "the log holds the stair's 21 UPDATEs" \
  test "$(grep -c ' stair  *RECV  *UPDATE ' "$dir/stair_updates")" -eq 21
step7=$(grep ' stair  *RECV  *UPDATE .* t=3.5s \[3500000000\] ' "$dir/stair_updates")
check "the recorded UPDATE of step 7 carries y=1" test "${step7##* }" = "y=1"
check "the recorded UPDATE of step 6 carries y=0" \
  grep -q ' stair  *RECV  *UPDATE .* t=3s \[3000000000\] y=0$' "$dir/stair_updates"
step7_seq=$(echo "$step7" | sed -n 's/^#\([0-9]*\) .*/\1/p')
check "the UPDATE of step 7 has a record number" test -n "$step7_seq"
# Requests of the stair up to and including that UPDATE (the JOIN is request 1).
bin/tempo-log show "$log" --federate stair >"$dir/stair_all"
step7_req=$(awk -v s="#$step7_seq" '$4 == "RECV" && $3 == "stair" { n++ } $1 == s { print n; exit }' \
  "$dir/stair_all")

# 2. Each federate replayed unchanged: MATCHED, exit 0, the federate exits 0, and its results
# are byte for byte those of the recorded run (it got exactly the recorded inputs).
replay_all "$dir/rec"

# 3. The stair with period 4: the first request that differs is its UPDATE of step 7.
out=$dir/replay_changed
timeout 60 bin/tempo-log replay "$log" --federate stair --timeout 10 -- \
  bin/tempo-fmu --federation "$dir/changed/fed.json" --name stair --rti '{rti}' \
  --output "$out" --quiet >"$out.txt" 2>&1
check "replay changed stair: exit 3" test $? -eq 3
check "replay changed stair: diverged at the record of step 7" \
  has "$out.txt" "DIVERGED at record #${step7_seq:-none} (request ${step7_req:-none} of the federate):"
check "replay changed stair: expected the recorded y=1 at t = 3.5 s" grep -qE \
  '^  expected: UPDATE object=[0-9]+\(stair\.Stair\) class=Stair t=3\.5s \[3500000000\] y=1$' "$out.txt"
check "replay changed stair: got y=0 at t = 3.5 s" grep -qE \
  '^  got:      UPDATE object=[0-9]+\(stair\.Stair\) class=Stair t=3\.5s \[3500000000\] y=0$' "$out.txt"
check "replay changed stair: not matched" not_has "$out.txt" "MATCHED"
check "replay changed stair: the federate was stopped (it did not end well)" \
  grep -q "command exited with status [1-9]" "$out.txt"

# 4. The unchanged federation under another file name: the generated FOM names its file, so the
# JOIN (request 1) already differs, in its FOM text (str2) only; the report must say where,
# since the one-line descriptions of the two JOINs are equal.
cp "$dir/rec/fed.json" "$dir/rec/renamed.json"
out=$dir/replay_renamed
timeout 60 bin/tempo-log replay "$log" --federate stair --timeout 10 -- \
  bin/tempo-fmu --federation "$dir/rec/renamed.json" --name stair --rti '{rti}' \
  --output "$out" --quiet >"$out.txt" 2>&1
check "replay renamed file: exit 3" test $? -eq 3
check "replay renamed file: diverged at the JOIN" has "$out.txt" "(request 1 of the federate):"
check "replay renamed file: names the FOM text and the file names" grep -qE \
  '^  the frames differ in field str2 \([0-9]+ bytes expected, [0-9]+ got\) from byte [0-9]+: expected "fed\.json: .*", got "renamed\.json: ' \
  "$out.txt"

# 5. The other Jacobi variants of the same federation, replayed unchanged: the naive one
# (TAR, lookahead = step) and the discrete-event one (NERA/NER, variable steps per federate).
mkdir -p "$dir/naive" "$dir/de"
write_fed "$dir/naive/fed.json" 3.5 '"method": "jacobi-naive", "start": 0, "end": 10, "step": 0.5'
write_fed "$dir/de/fed.json" 3.5 \
  '"method": "jacobi-de", "start": 0, "end": 10, "quantum": 0.05, "h_min": 0.01, "h_max": 0.5'
for v in naive de; do
  record "$dir/$v"
  [ -n "$log" ] && replay_all "$dir/$v"
done

finish
