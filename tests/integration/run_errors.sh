#!/usr/bin/env bash
# bin/tempo-run end to end: the same federation run twice gives identical CSVs; the same file
# run distributed (bin/tempo-rti plus one bin/tempo-fmu per federate, separate processes)
# gives the same CSVs again; bad federation files fail at start with a clear message and
# nothing left running; a federate killed mid-run (kill -9) or one that fails makes tempo-run
# stop the others and name it; SIGINT stops everything with status 130.
# Read doc/run.md. Prints "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/lib.sh run_errors
G='{ "method": "gauss-seidel", "end": 100, "step": 0.5 }'

# 1. The same federation twice: byte-identical CSVs; the summary names CSVs and plot.
lv "$dir/twice.json" twice "$G"
bin/tempo-run "$dir/twice.json" --quiet --output "$dir/run1" >"$dir/t1.out" 2>"$dir/t1.err"
r1=$?
bin/tempo-run "$dir/twice.json" --output "$dir/run2" >"$dir/t2.out" 2>"$dir/t2.err"
r2=$?
if [ "$r1" -eq 0 ] && [ "$r2" -eq 0 ] && cmp -s "$dir/run1/prey.csv" "$dir/run2/prey.csv" &&
  cmp -s "$dir/run1/predator.csv" "$dir/run2/predator.csv" &&
  [ "$(wc -l <"$dir/run1/prey.csv")" -eq 202 ]; then ok; else
  ko "twice: $r1 $r2 $(head -c 400 "$dir/t1.err" "$dir/t2.err")"; fi
if grep -q "tempo-run: results $dir/run1/prey.csv" "$dir/t1.out" &&
  grep -q "tempo-run: plot $dir/run1/plot.svg" "$dir/t1.out" && [ -s "$dir/run1/plot.svg" ] &&
  grep -q '200 instants per federate; messages: ' "$dir/t1.out" &&
  grep -q 'wall time' "$dir/t1.out"; then ok; else ko "summary: $(cat "$dir/t1.out")"; fi
# Progress (not a terminal): one line per 10 % per federate, on stderr; none with --quiet.
if grep -q '^progress: prey 50% (t = 50 of 100 s)' "$dir/t2.err" &&
  grep -q '^progress: predator 100%' "$dir/t2.err" && ! grep -q '^progress' "$dir/t1.err"; then
  ok; else ko "progress lines: $(head -c 300 "$dir/t2.err")"; fi

# 2. Distributed: tempo-rti alone, each federate its own tempo-fmu with --rti; the CSVs are
#    those of tempo-run. Then tempo-run --rti uses that running RTI too.
rti_start "$dir"
rti=$RTI_ADDR
bin/tempo-fmu --federation "$dir/twice.json" --name prey --rti "$rti" --output "$dir/dist" \
  --quiet 2>"$dir/d1.err" &
p1=$!
bin/tempo-fmu --federation "$dir/twice.json" --name predator --rti "$rti" --output "$dir/dist" \
  --quiet 2>"$dir/d2.err"
d2=$?
wait "$p1"
d1=$?
if [ -n "$rti" ] && [ "$d1" -eq 0 ] && [ "$d2" -eq 0 ] &&
  cmp -s "$dir/run1/prey.csv" "$dir/dist/prey.csv" &&
  cmp -s "$dir/run1/predator.csv" "$dir/dist/predator.csv"; then ok; else
  ko "distributed: rti '$rti' $d1 $d2 $(cat "$dir/d1.err" "$dir/d2.err" | head -c 400)"; fi
bin/tempo-run "$dir/twice.json" --rti "$rti" --quiet --output "$dir/run3" >/dev/null 2>"$dir/t3.err"
r3=$?
if [ "$r3" -eq 0 ] && cmp -s "$dir/run1/prey.csv" "$dir/run3/prey.csv" &&
  kill -0 "$RTI_PID" 2>/dev/null; then ok; else
  ko "tempo-run --rti: $r3 $(head -c 400 "$dir/t3.err")"; fi
rti_stop 2>/dev/null

# 3. Bad files: status 2 at start, a message naming the file and the fault, nothing started.
J='{ "method": "jacobi", "end": 10, "step": 0.5 }'
bad() { # bad FILE PATTERN
  timeout 30 bin/tempo-run "$1" >"$dir/bad.out" 2>"$dir/bad.err"
  local rc=$?
  [ -n "${VERBOSE:-}" ] && cat "$dir/bad.err"
  if [ "$rc" -eq 2 ] && grep -q -- "$2" "$dir/bad.err" && ! grep -q '^\[' "$dir/bad.err" &&
    ! still_running "$1" && [ ! -e "$dir/out-$(basename "$1" .json)" ]; then ok; else
    ko "$1: status $rc, stderr: $(head -c 400 "$dir/bad.err")"; fi
}
lv "$dir/badvar.json" badvar "$J" xx
bad "$dir/badvar.json" 'badvar.json: federates\[0\].outputs\["xx"\].*"xx"'
lv "$dir/nofmu.json" nofmu "$J" x "$dir/none.fmu"
bad "$dir/nofmu.json" 'none.fmu'
lv "$dir/twicepub.json" twicepub "$J"
sed -i 's|"outputs": { "y": "Predator.y" }|"outputs": { "y": "Prey.x" }|' "$dir/twicepub.json"
bad "$dir/twicepub.json" 'Prey.x'
cat >"$dir/cycle.json" <<EOT
{
  "federation": "cycle",
  "algorithm": { "method": "gauss-seidel", "end": 1, "step": 0.1 },
  "federates": [
    { "name": "S", "fmu": "$fmus/lv_prey_me.fmu", "role": "source", "outputs": { "x": "S.y" }, "inputs": { "y": "K.y" } },
    { "name": "A", "fmu": "$fmus/lv_prey_me.fmu", "outputs": { "x": "A.y" }, "inputs": { "y": "B.y" } },
    { "name": "B", "fmu": "$fmus/lv_prey_me.fmu", "outputs": { "x": "B.y" }, "inputs": { "y": "A.y" } },
    { "name": "K", "fmu": "$fmus/lv_predator_me.fmu", "role": "sink", "outputs": { "y": "K.y" }, "inputs": { "x": "B.y" } }
  ],
  "output": "$dir/out-cycle"
}
EOT
bad "$dir/cycle.json" 'gauss-seidel\|Gauss-Seidel'
bad "$dir/missing.json" 'missing.json'

# 4. A federate killed mid-run (kill -9): tempo-run stops the other one and the RTI, names
#    the victim and how it died, exits 1; nothing of the run is left.
lv "$dir/long.json" long '{ "method": "gauss-seidel", "end": 20000, "step": 0.5 }'
timeout 60 bin/tempo-run "$dir/long.json" --quiet >"$dir/k.out" 2>"$dir/k.err" &
run=$!
track $run
victim=
for _ in $(seq 100); do
  victim=$(pgrep -f -- "--federation $dir/long.json --name predator" | head -n 1)
  [ -n "$victim" ] && grep -q . "$dir/out-long/predator.csv" 2>/dev/null && break
  sleep 0.05
done
sleep 0.3
[ -n "$victim" ] && kill -9 "$victim"
wait "$run"
rc=$?
if [ -n "$victim" ] && [ "$rc" -eq 1 ] &&
  grep -q "child 'predator' (pid $victim) was killed by SIGKILL" "$dir/k.err" &&
  ! still_running "$dir/long.json"; then ok; else
  ko "kill -9: victim '$victim' status $rc: $(head -c 600 "$dir/k.err")"; fi

# 5. A federate that fails by itself mid-run (its CSV cannot be written: a folder stands
#    where the file should be; an output path that is a file is refused before start, see
#    run_preflight.sh): tempo-run reports its name and its own error.
lv "$dir/nowrite.json" nowrite "$G"
mkdir -p "$dir/out-nowrite/prey.csv"
timeout 60 bin/tempo-run "$dir/nowrite.json" --quiet >"$dir/w.out" 2>"$dir/w.err"
rc=$?
if [ "$rc" -eq 1 ] && grep -q "failed: child '\(prey\|predator\)' (pid [0-9]*) exited with status 1" "$dir/w.err" &&
  grep -q 'out-nowrite' "$dir/w.err" && ! still_running "$dir/nowrite.json"; then ok; else
  ko "failing federate: status $rc: $(head -c 600 "$dir/w.err")"; fi

# 6. SIGINT (Ctrl-C) to tempo-run: every child stopped, status 130.
timeout 60 bin/tempo-run "$dir/long.json" --quiet --output "$dir/int" >"$dir/i.out" 2>"$dir/i.err" &
run=$!
track $run
for _ in $(seq 100); do grep -q . "$dir/int/prey.csv" 2>/dev/null && break; sleep 0.05; done
kill -INT "$run"
wait "$run"
rc=$?
if [ "$rc" -eq 130 ] && grep -q 'interrupted by SIGINT' "$dir/i.err" &&
  ! still_running "$dir/long.json"; then ok; else
  ko "SIGINT: status $rc: $(head -c 400 "$dir/i.err")"; fi

# 7. Usage errors.
bin/tempo-run >/dev/null 2>"$dir/u.err"
rc=$?
bin/tempo-run "$dir/twice.json" --bogus >/dev/null 2>>"$dir/u.err"
rc2=$?
if [ "$rc" -eq 2 ] && [ "$rc2" -eq 2 ] && grep -q 'no federation file' "$dir/u.err" &&
  grep -q 'unknown option --bogus' "$dir/u.err"; then ok; else ko "usage: $rc $rc2"; fi

# 8. --timeout: everything stopped once it passes, the message names who was still running.
bin/tempo-run "$dir/long.json" --quiet --timeout 500 --output "$dir/to" >/dev/null 2>"$dir/to.err"
rc=$?
if [ "$rc" -eq 1 ] && grep -q "timeout after 500 ms; still running: .*'prey' 'predator'" "$dir/to.err" &&
  ! still_running "$dir/long.json"; then ok; else ko "timeout: $rc $(head -c 300 "$dir/to.err")"; fi

# 9. The file's "rti" is a Unix socket: tempo-run starts the RTI there (and removes nothing of
#    ours: the RTI unlinks its socket); a federate may be called "rti".
sed -e 's|"name": "prey"|"name": "rti"|' \
    -e 's|"federation": "twice",|"federation": "unix", "rti": "unix:'"$dir"'/rti.sock",|' \
    "$dir/twice.json" >"$dir/unix.json"
bin/tempo-run "$dir/unix.json" --quiet --output "$dir/unix" >"$dir/x.out" 2>"$dir/x.err"
rc=$?
if [ "$rc" -eq 0 ] && cmp -s "$dir/run1/prey.csv" "$dir/unix/rti.csv" && [ ! -e "$dir/rti.sock" ]
then ok; else ko "unix socket: $rc $(head -c 400 "$dir/x.err")"; fi

# 10. Algebraic loops (doc/algorithms/jacobi.md "Algebraic loops"): the two gains of
#    examples/gain_semi.json declare y to depend on u, so strong coupling, which reads the
#    outputs before it sets the inputs they feed, is refused naming the loop, nothing started.
sed -e 's/"method": "semi-implicit",/"method": "strong",/' \
    -e 's/"iteration": "newton", "jacobian": "directional", "tol": 1e-12, "max_iter": 20//' \
    -e 's/"step": 0.1,/"step": 0.1/' -e "s|\.\./build|$PWD/build|g" \
    examples/gain_semi.json >"$dir/loop.json"
timeout 30 bin/tempo-run "$dir/loop.json" --output "$dir/loop" >/dev/null 2>"$dir/loop.err"
rc=$?
if [ "$rc" -eq 2 ] && grep -q 'method "strong" needs a wiring without algebraic loops' "$dir/loop.err" &&
  grep -q 'cycle "g1.y" -> "g2.u" -> "g2.y" -> "g1.u" -> "g1.y"' "$dir/loop.err" &&
  [ ! -e "$dir/loop/g1.csv" ]; then ok; else ko "algebraic loop: $rc $(head -c 400 "$dir/loop.err")"; fi

finish
