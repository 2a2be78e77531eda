#!/usr/bin/env bash
# tempo-run for debugging (doc/run.md "Recording a run", "When a run fails"; doc/log.md):
# --log DIR and the file's "log" key record the run, one federation log per run; an RTI kept
# with --keep-federations writes two runs into one file, and tempo-log stats/explain/replay
# say which run they read; the failure report names the federate that failed first and quotes
# its own message (a stair FMU that terminates early; its peer only follows), five times over;
# a federate whose process calls exit() mid-run is reported as such; with a federate frozen,
# the watchdog prints who waits for whom from the RTI's status. Prints "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/lib.sh run_debug
need run_debug bin/tempo-rti bin/tempo-log bin/tempo-fmu bin/tempo-run build/fmus/lv_prey_me.fmu \
  build/fmus/lv_predator_me.fmu build/fmus/stair_cs.fmu build/fmus/mass_cs.fmu
fmus=$PWD/build/fmus
lv() { # lv FILE FEDERATION METHOD END [EXTRA-TOP-LEVEL-JSON]
  cat >"$1" <<EOF
{
  "federation": "$2",
  "algorithm": { "method": "$3", "start": 0, "end": $4, "step": 0.5 },
  "solver": { "method": "bdf", "rtol": 1e-6, "atol": 1e-8 },
  "federates": [
    { "name": "prey", "fmu": "$fmus/lv_prey_me.fmu",
      "parameters": { "alpha": 0.5, "beta": 0.7, "x0": 1 },
      "outputs": { "x": "Prey.x" }, "inputs": { "y": "Predator.y" } },
    { "name": "predator", "fmu": "$fmus/lv_predator_me.fmu",
      "parameters": { "gamma": 0.27, "delta": 0.6, "y0": 1 },
      "outputs": { "y": "Predator.y" }, "inputs": { "x": "Prey.x" } }
  ],
  ${5:-}
  "output": "$dir/out-$2"
}
EOF
}

# 1. --log DIR: one federation log per run, the path printed; two runs, two files.
lv "$dir/a.json" dbg-a jacobi 5
timeout 60 bin/tempo-run "$dir/a.json" --quiet --log "$dir/logs/a" >"$dir/a1.out" 2>&1
check "--log: the run ends well" test $? -eq 0
timeout 60 bin/tempo-run "$dir/a.json" --quiet --log "$dir/logs/a" >"$dir/a2.out" 2>&1
n=$(ls "$dir"/logs/a/*.tlog 2>/dev/null | wc -l)
check "--log: two runs, two log files (got $n)" test "$n" -eq 2
check "--log: the summary names the log" grep -q "^tempo-run: federation log $dir/logs/a/dbg-a-.*\.tlog" "$dir/a1.out"
f1=$(ls "$dir"/logs/a/*.tlog | head -n 1)
bin/tempo-log stats "$f1" >"$dir/a.stats" 2>"$dir/a.stats.err"
check "--log: a whole log of one run (no note, no abrupt end)" \
  test ! -s "$dir/a.stats.err" -a "$(grep -c 'stopped abruptly\|still runs' "$dir/a.stats")" -eq 0
check "--log: both federates in it" grep -q "^predator " "$dir/a.stats"
# the file's "log" key, relative to the file's folder
lv "$dir/b.json" dbg-b jacobi 2 '"log": "logs/b",'
timeout 60 bin/tempo-run "$dir/b.json" --quiet >"$dir/b.out" 2>&1
check "\"log\" key: the run ends well and its log is in logs/b" \
  test $? -eq 0 -a "$(ls "$dir"/logs/b/*.tlog 2>/dev/null | wc -l)" -eq 1
bin/tempo-run "$dir/b.json" --quiet --rti 127.0.0.1:1 >"$dir/b2.out" 2>&1
check "\"log\" with --rti: refused, status 2" test $? -eq 2
check "... saying why" grep -q 'start that RTI with --log DIR yourself' "$dir/b2.out"

# 2. An RTI that keeps federations: two runs in one file; tempo-log reads the last and says so.
mkdir -p "$dir/keep"
rti_start "$dir/keep" --log "$dir/keep" --keep-federations --log-level warn
for k in 1 2; do
  timeout 60 bin/tempo-run "$dir/a.json" --quiet --rti "$RTI_ADDR" >"$dir/k$k.out" 2>&1
done
rti_stop
k=$(ls "$dir"/keep/*.tlog 2>/dev/null | head -n 1)
check "keep: one file for both runs" test "$(ls "$dir"/keep/*.tlog 2>/dev/null | wc -l)" -eq 1
bin/tempo-log stats "${k:-/dev/null}" >"$dir/k.stats" 2>"$dir/k.note"
check "keep: stats says the file holds 2 runs and reads the last" \
  grep -q "the log holds 2 runs of the federation .*reading the last, run 2" "$dir/k.note"
check "keep: stats counts run 2 only" grep -q "^run 2 of 2 (records" "$dir/k.stats"
bin/tempo-log stats "${k:-/dev/null}" --run 1 >"$dir/k1.stats" 2>"$dir/k1.note"
check "keep: --run 1 reads run 1 without a note" \
  test ! -s "$dir/k1.note" -a "$(grep -c '^run 1 of 2' "$dir/k1.stats")" -eq 1
bin/tempo-log explain "${k:-/dev/null}" >"$dir/k.explain" 2>&1
check "keep: explain says which run it reads" grep -q "reading the last, run 2" "$dir/k.explain"
bin/tempo-log stats "${k:-/dev/null}" --run 3 >/dev/null 2>"$dir/k3.err"
check "keep: --run 3 refused" grep -q -- "--run 3: the log holds 2 runs" "$dir/k3.err"
timeout 60 bin/tempo-log replay "${k:-/dev/null}" --federate prey --run 1 -- \
  bin/tempo-fmu --federation "$dir/a.json" --name prey --rti '{rti}' --output "$dir/replay1" \
  --quiet >"$dir/r1.out" 2>"$dir/r1.err"
check "keep: replay --run 1 matches run 1" grep -q "^MATCHED to the end of the log" "$dir/r1.out"

# 3. The first failure named, with its own words: stair terminates at its 2nd jump (1 s);
#    mass then finds its peer gone. Five runs: stair is named each time.
cat >"$dir/st.json" <<EOF
{
  "federation": "dbg-stair",
  "algorithm": { "method": "jacobi", "start": 0, "end": 5, "step": 0.25 },
  "federates": [
    { "name": "stair", "fmu": "$fmus/stair_cs.fmu",
      "parameters": { "period": 0.5, "height": 1, "y0": 0, "n_max": 2 },
      "outputs": { "y": "Stair.y" } },
    { "name": "mass", "fmu": "$fmus/mass_cs.fmu",
      "outputs": { "v": "Mass.v" }, "inputs": { "f": "Stair.y" } }
  ],
  "output": "$dir/out-st"
}
EOF
named=0
for i in 1 2 3 4 5; do
  timeout 60 bin/tempo-run "$dir/st.json" --quiet >"$dir/st$i.out" 2>"$dir/st$i.err"
  rc=$?
  if [ $rc -eq 1 ] && grep -q "failed: child 'stair' (pid [0-9]*) exited with status 1" "$dir/st$i.err" &&
    grep -q 'stair said: ".*the FMU terminated at 1 s' "$dir/st$i.err"; then
    named=$((named + 1))
  else
    echo "    run $i (status $rc):" && sed 's/^/    | /' "$dir/st$i.err"
  fi
done
check "first failure: stair named and quoted in 5 of 5 runs (got $named)" test "$named" -eq 5
check "first failure: mass reported as following" grep -q "then 'mass' failed: .*federate stair left the federation before the end" "$dir/st1.err"

# 4. exit() in the middle of the run: a library preloaded into prey's process calls exit(0)
#    after 1 s (as an FMU calling exit() would).
cat >"$dir/exiter.c" <<'EOF'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static void *later(void *arg) { (void)arg; sleep(1); exit(0); return NULL; }
__attribute__((constructor)) static void start(void)
{
    char cmd[4096] = "";
    FILE *f = fopen("/proc/self/cmdline", "r");
    size_t n = f ? fread(cmd, 1, sizeof cmd - 1, f) : 0;
    if (f) fclose(f);
    for (size_t i = 0; i + 1 < n; i++)
        if (!cmd[i]) cmd[i] = ' ';
    if (!strstr(cmd, "tempo-fmu") || !strstr(cmd, "--name prey")) return;
    pthread_t t;
    if (pthread_create(&t, NULL, later, NULL) == 0) pthread_detach(t);
}
EOF
${CC:-cc} -shared -fPIC -o "$dir/exiter.so" "$dir/exiter.c" -lpthread 2>"$dir/cc.err"
lv "$dir/long.json" dbg-long gauss-seidel 100000
LD_PRELOAD="$dir/exiter.so" timeout 60 bin/tempo-run "$dir/long.json" --quiet >"$dir/x.out" 2>"$dir/x.err"
rc=$?
check "exit(): status 1 (got $rc)" test $rc -eq 1
check "exit(): prey named as ending in the middle of the run" \
  grep -q "failed: child 'prey' (pid [0-9]*) exited with status 1 in the middle of the run, without its summary line: its FMU (or a library it uses) called exit()" "$dir/x.err"
check "exit(): tempo-fmu's own words quoted" grep -q 'prey said: ".*exit(0) was called' "$dir/x.err"

# 5. The watchdog: predator frozen once the run is under way, prey polls (Gauss-Seidel):
#    after 2 s without progress tempo-run prints who waits for whom from the RTI's status.
bin/tempo-run "$dir/long.json" --quiet --watchdog 2 --output "$dir/out-wd" \
  >"$dir/w.out" 2>"$dir/w.err" & # stopped below (and by cleanup): no timeout wrapper, whose
run=$!                           # pid would stand between us and tempo-run's children
track "$run"
pred=""
for _ in $(seq 600); do
  for c in $(pgrep -P "$run"); do
    tr '\0' ' ' <"/proc/$c/cmdline" 2>/dev/null | grep -q -- "--name predator" && pred=$c
  done
  [ -n "$pred" ] && [ "$(wc -l <"$dir/out-wd/predator.csv" 2>/dev/null || echo 0)" -gt 3 ] && break
  sleep 0.1
done
check "watchdog: the run got under way (predator pid ${pred:-none})" test -n "$pred"
[ -n "$pred" ] && kill -STOP "$pred"
found=0
for _ in $(seq 300); do
  grep -q "tempo-run:   prey@dbg-long: prey t=.*stalled: .* waits for predator" "$dir/w.err" && found=1 && break
  sleep 0.1
done
[ -n "$pred" ] && kill -CONT "$pred"
kill -TERM "$run" 2>/dev/null
wait "$run"
check "watchdog: no progress reported" grep -q "tempo-run: no federate has progressed for 2 s: prey at t = " "$dir/w.err"
check "watchdog: who waits for whom (prey waits for predator)" test "$found" = 1
[ "$found" = 1 ] || sed 's/^/    | /' "$dir/w.err" | tail -20
finish
