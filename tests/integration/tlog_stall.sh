#!/usr/bin/env bash
# Debugging that tells the truth (doc/log.md, "explain", "trace"; doc/time.md §7): real RTIs
# with --log. (A) The example producer and consumer: the consumer's waits for grants are trace
# spans with nonzero durations (the stamps are the system clock in ns, read once per received
# frame); the producer frozen with SIGSTOP leaves the consumer's TAR pending, drawn to the end
# of the log (the RTI's "rti alive" note) and marked, and explain measures it in seconds; the
# filters of trace, csv and json; an RTI killed with SIGKILL is reported as stopped abruptly,
# one stopped with SIGTERM ends its log with the closing record. (B) A Gauss-Seidel pair of
# tempo-fmu federates (FQR polling) with predator frozen: explain and the RTI's SIGUSR1 dump say
# that prey polls without progress and waits for predator. Prints "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
pass=0
fail=0
check() { # check NAME COMMAND...: one assertion, the command's status decides
  local name=$1
  shift
  if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $name"; fi
}
has() { grep -qF -- "$2" "$1"; }      # has FILE TEXT
not_has() { ! grep -qF -- "$2" "$1"; } # not_has FILE TEXT
for p in bin/tempo-rti bin/tempo-log bin/tempo-fmu bin/tempo-run bin/tempo-example-producer \
  bin/tempo-example-consumer build/fmus/lv_prey_me.fmu build/fmus/lv_predator_me.fmu; do
  [ -e "$p" ] || { echo "tlog_stall: $p is missing (run make first)"; echo "0 passed, 1 failed"; exit 1; }
done
command -v python3 >/dev/null || { echo "tlog_stall: python3 is missing"; echo "0 passed, 1 failed"; exit 1; }
tmp=$(mktemp -d)
. "$(dirname "$0")/rti_proc.sh"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -CONT "$p" 2>/dev/null; kill -TERM "$p" 2>/dev/null; done
  rti_stop 2>/dev/null
  wait 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- (A) producer and consumer ------------------------------------------------------------
mkdir -p "$tmp/a/logs"
rti_start "$tmp/a" --log "$tmp/a/logs" --log-level warn
check "A: the RTI starts" test -n "$RTI_ADDR"
bin/tempo-example-consumer --rti "$RTI_ADDR" --federation stallA >"$tmp/a/cons.out" 2>&1 &
cons=$!
pids+=("$cons")
bin/tempo-example-producer --rti "$RTI_ADDR" --federation stallA --steps 1000000 \
  >"$tmp/a/prod.out" 2>&1 &
prod=$!
pids+=("$prod")
# freeze the producer once the run is under way (the consumer has reflected 200 updates), not
# while the two still start: a loaded machine may need far more than a second for that
for _ in $(seq 300); do
  [ "$(grep -c '^consumer: t=' "$tmp/a/cons.out" 2>/dev/null)" -ge 200 ] && break
  sleep 0.1
done
kill -STOP "$prod"
sleep 2.5 # the consumer's last TAR stays pending; the RTI writes its "rti alive" note
log=$(ls "$tmp"/a/logs/*.tlog 2>/dev/null | head -n 1)
check "A: one log" test -n "$log"
log=${log:-/dev/null}
bin/tempo-log explain "$log" >"$tmp/a/explain" 2>&1
check "A: explain says the RTI still runs" has "$tmp/a/explain" "the RTI still runs"
check "A: the consumer waits in TAR, in seconds" \
  grep -qE '^  consumer waits in TAR\([0-9.e+]+ s\) at t=[0-9.e+]+ s with GALT' "$tmp/a/explain"
# the pending time is measured to the last record, which the RTI's alive note keeps fresh
pend=$(sed -n "s/.*consumer's request is record #[0-9]*, pending for \([0-9.]*\) s.*/\1/p" "$tmp/a/explain")
check "A: pending for at least 1 s (got '${pend:-}')" \
  python3 -c "import sys; sys.exit(0 if float('${pend:-0}') >= 1.0 else 1)"
bin/tempo-log trace "$log" >"$tmp/a/trace.json" 2>"$tmp/a/trace.err"
# spans of the consumer: its TARs granted on the producer's next request; each must last > 0
cat >"$tmp/spans.py" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
names = {e["tid"]: e["args"]["name"] for e in d["traceEvents"] if e.get("name") == "thread_name"}
who = sys.argv[2]
spans = [e for e in d["traceEvents"] if e.get("ph") == "X" and names.get(e["tid"]) == who]
done = [e for e in spans if not e["args"].get("pending_at_end_of_log")]
pending = [e for e in spans if e["args"].get("pending_at_end_of_log")]
nonzero = sum(1 for e in done if e["dur"] > 0)
print(len(done), nonzero, len(pending), max([e["dur"] for e in pending] or [0]),
      int(all("STILL PENDING" in e["name"] for e in pending)), len(names))
EOF
read -r n nz np pdur marked nthreads < <(python3 "$tmp/spans.py" "$tmp/a/trace.json" consumer)
check "A: the consumer has granted wait spans (got ${n:-0})" test "${n:-0}" -ge 20
# every wait whose grant came while the RTI handled another federate's frame lasts > 0: the
# request and the grant carry the clock readings of two frames (a grant at once shares its
# request's reading: 0 is the truth there)
bin/tempo-log json "$log" >"$tmp/a/all.json" 2>&1
cat >"$tmp/later.py" <<'EOF'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
later = zero = 0
since = None
for r in recs:
    if r["kind"] == "RECV" and r["federate"] == "consumer" and r.get("msg", {}).get("type") == "TIME_REQUEST":
        since, other = r["wall_ns"], False
    elif r["kind"] == "RECV" and r["federate"] != "consumer":
        other = True
    elif r["kind"] == "SENT" and r["federate"] == "consumer" and r.get("msg", {}).get("type") == "TIME_GRANT" and since is not None:
        if other:
            later += 1
            zero += r["wall_ns"] <= since
        since = None
print(later, zero)
EOF
read -r later zero < <(python3 "$tmp/later.py" "$tmp/a/all.json")
echo "A: $later waits of the consumer granted on another federate's frame, $zero of them 0 long"
check "A: waits granted on another frame: some (${later:-0}), none of 0 duration (${zero:-?})" \
  test "${later:-0}" -ge 1 -a "${zero:-1}" = 0
check "A: one span still pending, marked (got $np, marked $marked)" test "$np" = 1 -a "$marked" = 1
check "A: the pending span runs >= 1 s to the end of the log (${pdur} us)" \
  python3 -c "import sys; sys.exit(0 if float('$pdur') >= 1e6 else 1)"
# filters: --federate keeps one thread; --from/--to keep spans asked inside the window
bin/tempo-log trace "$log" --federate consumer >"$tmp/a/trace_c.json" 2>&1
read -r n2 _ _ _ _ nthreads2 < <(python3 "$tmp/spans.py" "$tmp/a/trace_c.json" consumer)
check "A: trace --federate consumer: consumer only (threads $nthreads2, spans $n2)" \
  test "$nthreads2" = 2 -a "$n2" = "$n"
check "A: trace --federate consumer: no producer track" not_has "$tmp/a/trace_c.json" '"producer"'
bin/tempo-log trace "$log" --from 0.5 --to 1 >"$tmp/a/trace_w.json" 2>&1
cat >"$tmp/window.py" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
asked = [e["args"]["requested_s"] for e in d["traceEvents"] if e.get("ph") == "X"]
inst = [e["args"]["ltime"] for e in d["traceEvents"] if e.get("ph") == "i"]
ok = asked and all(0.5 - 1e-9 <= a <= 1 + 1e-9 for a in asked) and all(l is not None for l in inst)
print("ok" if ok else "bad %d spans" % len(asked))
EOF
check "A: trace --from 0.5 --to 1: only waits asked in the window" \
  test "$(python3 "$tmp/window.py" "$tmp/a/trace_w.json")" = ok
bin/tempo-log csv "$log" --from 0.5 --to 1 >"$tmp/a/csv" 2>&1
rows=$(tail -n +2 "$tmp/a/csv" | wc -l)
first=$(sed -n 2p "$tmp/a/csv" | cut -d, -f1)
last=$(tail -n 1 "$tmp/a/csv" | cut -d, -f1)
check "A: csv --from 0.5 --to 1: 6 rows 0.5..1 (got $rows: $first..$last)" \
  test "$rows" = 6 -a "$first" = 0.5 -a "$last" = 1
bin/tempo-log json "$log" --federate producer >"$tmp/a/json" 2>&1
check "A: json --federate producer: no consumer record" \
  python3 -c "
import json,sys
recs=[json.loads(l) for l in open('$tmp/a/json')]
body=[r for r in recs if r['kind'] not in ('HEADER','END','CUT')]
me=[r['fed'] for r in body if r['federate']=='producer'][0]
sys.exit(0 if body and all(r['federate']=='producer' or r.get('decision',{}).get('sender')==me for r in body) else 1)"
# the RTI killed: no closing record, and tempo-log says so and when
kill -KILL "$RTI_PID"
wait "$RTI_PID" 2>/dev/null
RTI_PID=""
sleep 2.1
bin/tempo-log show "$log" --kind JOIN >"$tmp/a/show" 2>&1
check "A: show: the RTI stopped abruptly" has "$tmp/a/show" "the RTI stopped abruptly (killed or crashed) at about"
bin/tempo-log explain "$log" >"$tmp/a/explain2" 2>&1
check "A: explain: the RTI stopped abruptly" has "$tmp/a/explain2" "the log ends without the RTI's closing record"
kill -KILL "$prod" "$cons" 2>/dev/null
wait "$prod" "$cons" 2>/dev/null
pids=()

# ---- (B) Gauss-Seidel: prey polls (FQR) for predator, which is frozen ----------------------
mkdir -p "$tmp/b/logs" "$tmp/b/out"
fmus=$PWD/build/fmus
cat >"$tmp/b/gs.json" <<EOF
{
  "federation": "stall-gs",
  "algorithm": { "method": "gauss-seidel", "start": 0, "end": 100000, "step": 0.5 },
  "solver": { "method": "bdf", "rtol": 1e-6, "atol": 1e-8 },
  "federates": [
    { "name": "prey", "fmu": "$fmus/lv_prey_me.fmu",
      "parameters": { "alpha": 0.5, "beta": 0.7, "x0": 1 },
      "outputs": { "x": "Prey.x" }, "inputs": { "y": "Predator.y" } },
    { "name": "predator", "fmu": "$fmus/lv_predator_me.fmu",
      "parameters": { "gamma": 0.27, "delta": 0.6, "y0": 1 },
      "outputs": { "y": "Predator.y" }, "inputs": { "x": "Prey.x" } }
  ],
  "output": "$tmp/b/out"
}
EOF
rti_start "$tmp/b" --log "$tmp/b/logs" --log-level warn
check "B: the RTI starts" test -n "$RTI_ADDR"
bin/tempo-run "$tmp/b/gs.json" --rti "$RTI_ADDR" --quiet --watchdog 0 >"$tmp/b/run.out" 2>&1 &
run=$!
pids+=("$run")
# freeze predator once the run is under way (its CSV has rows), not while it starts
pred=""
for _ in $(seq 600); do
  for c in $(pgrep -P "$run"); do
    if tr '\0' ' ' <"/proc/$c/cmdline" 2>/dev/null | grep -q -- "--name predator"; then pred=$c; fi
  done
  [ -n "$pred" ] && [ "$(wc -l <"$tmp/b/out/predator.csv" 2>/dev/null || echo 0)" -gt 3 ] && break
  sleep 0.1
done
check "B: tempo-run started predator" test -n "$pred"
[ -n "$pred" ] && kill -STOP "$pred"
sleep 1.5
log=$(ls "$tmp"/b/logs/*.tlog 2>/dev/null | head -n 1)
# the dump and the explanation, retried for a while (the machine may be slow)
ok_dump=0
ok_explain=0
for _ in $(seq 20); do
  kill -USR1 "$RTI_PID"
  sleep 0.5
  grep -qE "prey t=[0-9]+ granted .*; stalled: [0-9]+ grants at t=[0-9]+ without progress, waits for predator" "$tmp/b/rti.err" && ok_dump=1
  bin/tempo-log explain "${log:-/dev/null}" >"$tmp/b/explain" 2>&1
  grep -qE "^  prey polls \(FQR\) at t=[0-9.e+]+ s: [0-9]+ grants in a row left its time unchanged with no message delivered, so it waits for predator: it has sent nothing" "$tmp/b/explain" && ok_explain=1
  [ "$ok_dump$ok_explain" = 11 ] && break
done
check "B: SIGUSR1: prey is stalled and waits for predator" test "$ok_dump" = 1
check "B: explain: prey polls without progress and waits for predator" test "$ok_explain" = 1
check "B: explain: the root cause is predator" \
  has "$tmp/b/explain" "    root cause: predator is not waiting"
check "B: explain: not 'nobody'" not_has "$tmp/b/explain" "nobody: no federate"
[ "$ok_explain" = 1 ] || sed 's/^/    | /' "$tmp/b/explain" | head -30
[ -n "$pred" ] && kill -CONT "$pred"
kill -TERM "$run" 2>/dev/null
wait "$run" 2>/dev/null
pids=()
rti_stop
bin/tempo-log explain "${log:-/dev/null}" >"$tmp/b/explain2" 2>&1
check "B: after SIGTERM the log ends with the RTI's closing record" \
  has "$tmp/b/explain2" "the log ends with the RTI's closing record"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
