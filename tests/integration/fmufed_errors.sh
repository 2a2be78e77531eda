#!/usr/bin/env bash
# Failure paths of the FMU federate (bin/tempo-fmu) against a real bin/tempo-rti: bad
# federation files fail at start with a message naming the file and the fault, a topology
# Gauss-Seidel cannot run is refused with the reason, and a peer that dies mid-run makes the
# others stop with its name. Serves doc/fmu.md and doc/federation.md; read federate/fmufed/fmufed.h.
# Prints "N passed, N failed" last (tests/run.sh).
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/lib.sh fmufed_errors

rti_start "$dir"
rti=$RTI_ADDR
[ -n "$rti" ] || { ko "RTI did not start"; finish; exit 1; }

# lv FILE FEDERATION ALGO PREY_OUT_VAR PREY_FMU PREY_ROLE PRED_ROLE
lv() {
  cat >"$1" <<EOF
{
  "federation": "$2",
  "algorithm": $3,
  "federates": [
    { "name": "prey", "fmu": "$5", $6
      "outputs": { "$4": "Prey.x" }, "inputs": { "y": "Predator.y" } },
    { "name": "predator", "fmu": "$fmus/lv_predator_me.fmu", $7
      "outputs": { "y": "Predator.y" }, "inputs": { "x": "Prey.x" } }
  ],
  "output": "$dir/out-$2"
}
EOF
}
# expect STATUS PATTERN -- command...: exit status and a stderr line matching PATTERN.
expect() {
  local want=$1 pat=$2
  shift 3
  timeout 30 "$@" >"$dir/out" 2>"$dir/err"
  local rc=$?
  if [ "$rc" -ne "$want" ]; then ko "$* exited $rc, expected $want: $(head -c 400 "$dir/err")"; return; fi
  [ -n "${VERBOSE:-}" ] && cat "$dir/err"
  if ! grep -q -- "$pat" "$dir/err"; then ko "$*: stderr lacks '$pat': $(head -c 400 "$dir/err")"; return; fi
  ok
}
J='{ "method": "jacobi", "end": 10, "step": 0.5 }'

# 1. a name that is not in the file: usage error (2), names the file.
lv "$dir/good.json" good "$J" x "$fmus/lv_prey_me.fmu" "" ""
expect 2 'no federate named "wolf"' -- bin/tempo-fmu --federation "$dir/good.json" --name wolf --rti "$rti"
# 2. an FMU variable the FMU does not have: refused before joining, names file, path, variable.
lv "$dir/badvar.json" badvar "$J" xx "$fmus/lv_prey_me.fmu" "" ""
expect 1 'badvar.json: federates\[0\].outputs\["xx"\].*"xx"' -- \
  bin/tempo-fmu --federation "$dir/badvar.json" --name prey --rti "$rti"
# 3. a missing FMU file: refused by the file check, names the path.
lv "$dir/nofmu.json" nofmu "$J" x "$dir/none.fmu" "" ""
expect 1 'none.fmu' -- bin/tempo-fmu --federation "$dir/nofmu.json" --name prey --rti "$rti"
# 4. Gauss-Seidel with two sources: refused with the reason before anything starts.
lv "$dir/gs2src.json" gs2src '{ "method": "gauss-seidel", "end": 10, "step": 0.5 }' x \
  "$fmus/lv_prey_me.fmu" '"role": "source",' '"role": "source",'
expect 1 'source' -- bin/tempo-fmu --federation "$dir/gs2src.json" --name predator --rti "$rti"
# 5. no RTI reachable: a clear connection error, no hang.
expect 1 'joining good at 127.0.0.1:1' -- \
  bin/tempo-fmu --federation "$dir/good.json" --name prey --rti 127.0.0.1:1 --timeout 2000
# 6. a federate whose peer never comes: times out naming the missing federate.
expect 1 'not joined after 1000 ms: predator' -- \
  bin/tempo-fmu --federation "$dir/good.json" --name prey --rti "$rti" --timeout 1000
# 7. a peer killed mid-run: the other stops with the peer's name (long run: 40000 steps of
#    Gauss-Seidel, which stays stable, so the kill is what ends it).
lv "$dir/long.json" long '{ "method": "gauss-seidel", "end": 20000, "step": 0.5 }' x \
  "$fmus/lv_prey_me.fmu" "" ""
bin/tempo-fmu --federation "$dir/long.json" --name prey --rti "$rti" >/dev/null 2>&1 &
prey=$!
timeout 60 bin/tempo-fmu --federation "$dir/long.json" --name predator --rti "$rti" \
  >"$dir/pred.out" 2>"$dir/pred.err" &
pred=$!
# once both step (their CSVs have rows; 20 s at most on a loaded machine), not while they join
for _ in $(seq 400); do
  [ "$(wc -l 2>/dev/null <"$dir/out-long/prey.csv" || echo 0)" -gt 2 ] &&
    [ "$(wc -l 2>/dev/null <"$dir/out-long/predator.csv" || echo 0)" -gt 2 ] && break
  sleep 0.05
done
kill -9 "$prey" 2>/dev/null
alive=$?
wait "$prey" 2>/dev/null
wait "$pred"
rc=$?
if [ "$alive" -eq 0 ] && [ "$rc" -eq 1 ] && grep -q 'prey left the federation' "$dir/pred.err"; then ok; else
  ko "peer killed (kill status $alive): predator exited $rc: $(head -c 400 "$dir/pred.err")"; fi
# 8. after all that the RTI still serves a good federation.
bin/tempo-fmu --federation "$dir/good.json" --name prey --rti "$rti" >"$dir/g1.out" 2>"$dir/g1.err" &
p1=$!
bin/tempo-fmu --federation "$dir/good.json" --name predator --rti "$rti" --quiet 2>"$dir/g2.err"
r2=$?
wait "$p1"
r1=$?
if [ "$r1" -eq 0 ] && [ "$r2" -eq 0 ] && [ "$(wc -l <"$dir/out-good/prey.csv")" -eq 22 ]; then ok; else
  ko "good federation after failures: $r1 $r2 $(cat "$dir/g1.err" "$dir/g2.err")"; fi
# progress lines for tempo-run: "progress T END", the first at the start, the last at the end,
# then the summary line.
if [ "$(head -n 1 "$dir/g1.out")" = "progress 0 10" ] && grep -qx 'progress 10 10' "$dir/g1.out" &&
  tail -n 1 "$dir/g1.out" | grep -q '^tempo-fmu: prey: done at t = 10 s: 20 instants'; then ok; else
  ko "progress/summary lines: $(head -c 300 "$dir/g1.out")"; fi

# 10. a given FOM whose attribute is not float64: refused at start, naming the wiring.
cat >"$dir/int.xml" <<EOF
<?xml version="1.0"?>
<fom name="intfom">
  <time resolution="1e-09"/>
  <objects>
    <class name="Prey"><attribute name="x" type="int64"/></class>
    <class name="Predator"><attribute name="y" type="float64"/></class>
  </objects>
  <interactions><interaction name="StepForward"/></interactions>
</fom>
EOF
sed 's|"algorithm"|"fom": "'"$dir"'/int.xml", "algorithm"|' "$dir/good.json" >"$dir/intfom.json"
expect 2 'Prey.x' -- bin/tempo-fmu --federation "$dir/intfom.json" --name prey --rti "$rti"
# 9. a start after 0 (TARA opens it): rows from 10 to 15 in steps of 0.5.
lv "$dir/late.json" late '{ "method": "jacobi-de", "start": 10, "end": 15, "quantum": 0.05, "h_min": 0.01, "h_max": 0.5 }' \
  x "$fmus/lv_prey_me.fmu" "" ""
bin/tempo-fmu --federation "$dir/late.json" --name prey --rti "$rti" --quiet 2>"$dir/l1.err" &
p1=$!
bin/tempo-fmu --federation "$dir/late.json" --name predator --rti "$rti" --quiet 2>"$dir/l2.err"
r2=$?
wait "$p1"
r1=$?
first=$(sed -n 2p "$dir/out-late/prey.csv" | cut -d, -f1)
last=$(tail -n 1 "$dir/out-late/prey.csv" | cut -d, -f1)
if [ "$r1" -eq 0 ] && [ "$r2" -eq 0 ] && [ "$first" = 10 ] && [ "$last" = 15 ]; then ok; else
  ko "start at 10: $r1 $r2 first=$first last=$last $(cat "$dir/l1.err" "$dir/l2.err")"; fi

finish
