#!/usr/bin/env bash
# Debugging that tells the truth (doc/log.md, "explain", "trace"; doc/time.md §7): real RTIs
# with --log. (A) The example producer and consumer: the consumer's waits for grants are trace
# spans with nonzero durations (the stamps are the system clock in ns, read once per received
# frame); the producer frozen with SIGSTOP leaves the consumer's TAR pending, drawn to the end
# of the log (the RTI's "rti alive" note) and marked, and explain measures it in seconds; the
# filters of trace, csv and json; an RTI killed with SIGKILL is reported as stopped abruptly,
# one stopped with SIGTERM ends its log with the closing record. (B) A Gauss-Seidel pair of
# tempo-fmu federates (FQR polling) with predator frozen: explain and the RTI's SIGUSR1 dump say
# that prey polls without progress and waits for predator; its trace draws the last run of polls
# to the end of the log. (C) The trace of examples/lv_gs.json: a run of FQR polls without
# progress is one wait span. Prints "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/lib.sh tlog_stall
need tlog_stall bin/tempo-rti bin/tempo-log bin/tempo-fmu bin/tempo-run bin/tempo-example-producer \
  bin/tempo-example-consumer build/fmus/lv_prey_me.fmu build/fmus/lv_predator_me.fmu
command -v python3 >/dev/null || { echo "tlog_stall: python3 is missing"; echo "0 passed, 1 failed"; exit 1; }

# ---- (A) producer and consumer ------------------------------------------------------------
mkdir -p "$dir/a/logs"
rti_start "$dir/a" --log "$dir/a/logs" --log-level warn
check "A: the RTI starts" test -n "$RTI_ADDR"
bin/tempo-example-consumer --rti "$RTI_ADDR" --federation stallA >"$dir/a/cons.out" 2>&1 &
cons=$!
track "$cons"
bin/tempo-example-producer --rti "$RTI_ADDR" --federation stallA --steps 1000000 \
  >"$dir/a/prod.out" 2>&1 &
prod=$!
track "$prod"
# freeze the producer once the run is under way (the consumer has reflected 200 updates), not
# while the two still start: a loaded machine may need far more than a second for that
for _ in $(seq 300); do
  [ "$(grep -c '^consumer: t=' "$dir/a/cons.out" 2>/dev/null)" -ge 200 ] && break
  sleep 0.1
done
kill -STOP "$prod"
log=$(ls "$dir"/a/logs/*.tlog 2>/dev/null | head -n 1)
check "A: one log" test -n "$log"
log=${log:-/dev/null}
# the consumer's last TAR stays pending; the RTI's "rti alive" notes (one a second without
# records) carry the log's end on: wait until explain measures the wait at 1 s or more (10 s
# at most)
pending_s() {
  sed -n "s/.*consumer's request is record #[0-9]*, pending for \([0-9.]*\) s.*/\1/p" "$dir/a/explain"
}
for _ in $(seq 100); do
  bin/tempo-log explain "$log" >"$dir/a/explain" 2>&1
  awk -v p="$(pending_s)" 'BEGIN { exit !(p != "" && p >= 1.0) }' && break
  sleep 0.1
done
check "A: explain says the RTI still runs" has "$dir/a/explain" "the RTI still runs"
check "A: the consumer waits in TAR, in seconds" \
  grep -qE '^  consumer waits in TAR\([0-9.e+]+ s\) at t=[0-9.e+]+ s with GALT' "$dir/a/explain"
# the pending time is measured to the last record, which the RTI's alive note keeps fresh
pend=$(pending_s)
check "A: pending for at least 1 s (got '${pend:-}')" \
  python3 -c "import sys; sys.exit(0 if float('${pend:-0}') >= 1.0 else 1)"
bin/tempo-log trace "$log" >"$dir/a/trace.json" 2>"$dir/a/trace.err"
# spans of the consumer: its TARs granted on the producer's next request; each must last > 0
cat >"$dir/spans.py" <<'EOF'
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
read -r n nz np pdur marked nthreads < <(python3 "$dir/spans.py" "$dir/a/trace.json" consumer)
check "A: the consumer has granted wait spans (got ${n:-0})" test "${n:-0}" -ge 20
# every wait whose grant came while the RTI handled another federate's frame lasts > 0: the
# request and the grant carry the clock readings of two frames (a grant at once shares its
# request's reading: 0 is the truth there)
bin/tempo-log json "$log" >"$dir/a/all.json" 2>&1
cat >"$dir/later.py" <<'EOF'
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
read -r later zero < <(python3 "$dir/later.py" "$dir/a/all.json")
echo "A: $later waits of the consumer granted on another federate's frame, $zero of them 0 long"
check "A: waits granted on another frame: some (${later:-0}), none of 0 duration (${zero:-?})" \
  test "${later:-0}" -ge 1 -a "${zero:-1}" = 0
check "A: one span still pending, marked (got $np, marked $marked)" test "$np" = 1 -a "$marked" = 1
check "A: the pending span runs >= 1 s to the end of the log (${pdur} us)" \
  python3 -c "import sys; sys.exit(0 if float('$pdur') >= 1e6 else 1)"
# filters: --federate keeps one thread; --from/--to keep spans asked inside the window
bin/tempo-log trace "$log" --federate consumer >"$dir/a/trace_c.json" 2>&1
read -r n2 _ _ _ _ nthreads2 < <(python3 "$dir/spans.py" "$dir/a/trace_c.json" consumer)
check "A: trace --federate consumer: consumer only (threads $nthreads2, spans $n2)" \
  test "$nthreads2" = 2 -a "$n2" = "$n"
check "A: trace --federate consumer: no producer track" not_has "$dir/a/trace_c.json" '"producer"'
bin/tempo-log trace "$log" --from 0.5 --to 1 >"$dir/a/trace_w.json" 2>&1
cat >"$dir/window.py" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
asked = [e["args"]["requested_s"] for e in d["traceEvents"] if e.get("ph") == "X"]
inst = [e["args"]["ltime"] for e in d["traceEvents"] if e.get("ph") == "i"]
ok = asked and all(0.5 - 1e-9 <= a <= 1 + 1e-9 for a in asked) and all(l is not None for l in inst)
print("ok" if ok else "bad %d spans" % len(asked))
EOF
check "A: trace --from 0.5 --to 1: only waits asked in the window" \
  test "$(python3 "$dir/window.py" "$dir/a/trace_w.json")" = ok
bin/tempo-log csv "$log" --from 0.5 --to 1 >"$dir/a/csv" 2>&1
rows=$(tail -n +2 "$dir/a/csv" | wc -l)
first=$(sed -n 2p "$dir/a/csv" | cut -d, -f1)
last=$(tail -n 1 "$dir/a/csv" | cut -d, -f1)
check "A: csv --from 0.5 --to 1: 6 rows 0.5..1 (got $rows: $first..$last)" \
  test "$rows" = 6 -a "$first" = 0.5 -a "$last" = 1
bin/tempo-log json "$log" --federate producer >"$dir/a/json" 2>&1
check "A: json --federate producer: no consumer record" \
  python3 -c "
import json,sys
recs=[json.loads(l) for l in open('$dir/a/json')]
body=[r for r in recs if r['kind'] not in ('HEADER','END','CUT')]
me=[r['fed'] for r in body if r['federate']=='producer'][0]
sys.exit(0 if body and all(r['federate']=='producer' or r.get('decision',{}).get('sender')==me for r in body) else 1)"
# the RTI killed: no closing record, and tempo-log says so and when
kill -KILL "$RTI_PID"
wait "$RTI_PID" 2>/dev/null
RTI_PID=""
# a log whose last record is 2 s old (twice the alive period) ends abruptly: wait for that
for _ in $(seq 50); do
  bin/tempo-log show "$log" --kind JOIN >"$dir/a/show" 2>&1
  has "$dir/a/show" "the RTI stopped abruptly" && break
  sleep 0.1
done
check "A: show: the RTI stopped abruptly" has "$dir/a/show" "the RTI stopped abruptly (killed or crashed) at about"
bin/tempo-log explain "$log" >"$dir/a/explain2" 2>&1
check "A: explain: the RTI stopped abruptly" has "$dir/a/explain2" "the log ends without the RTI's closing record"
kill -KILL "$prod" "$cons" 2>/dev/null
wait "$prod" "$cons" 2>/dev/null

# ---- (B) Gauss-Seidel: prey polls (FQR) for predator, which is frozen ----------------------
mkdir -p "$dir/b/logs" "$dir/b/out"
fmus=$PWD/build/fmus
cat >"$dir/b/gs.json" <<EOF
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
  "output": "$dir/b/out"
}
EOF
rti_start "$dir/b" --log "$dir/b/logs" --log-level warn
check "B: the RTI starts" test -n "$RTI_ADDR"
bin/tempo-run "$dir/b/gs.json" --rti "$RTI_ADDR" --quiet --watchdog 0 >"$dir/b/run.out" 2>&1 &
run=$!
track "$run"
# freeze predator once the run is under way (its CSV has rows), not while it starts
pred=""
for _ in $(seq 600); do
  for c in $(pgrep -P "$run"); do
    if tr '\0' ' ' <"/proc/$c/cmdline" 2>/dev/null | grep -q -- "--name predator"; then pred=$c; fi
  done
  [ -n "$pred" ] && [ "$(wc -l <"$dir/b/out/predator.csv" 2>/dev/null || echo 0)" -gt 3 ] && break
  sleep 0.1
done
check "B: tempo-run started predator" test -n "$pred"
[ -n "$pred" ] && kill -STOP "$pred"
log=$(ls "$dir"/b/logs/*.tlog 2>/dev/null | head -n 1)
# the dump and the explanation, retried until both say so (10 s at most: prey's polls must
# first pile up without progress, and the machine may be slow)
ok_dump=0
ok_explain=0
for _ in $(seq 20); do
  kill -USR1 "$RTI_PID"
  sleep 0.5
  grep -qE "prey t=[0-9]+ granted .*; stalled: [0-9]+ grants at t=[0-9]+ without progress, waits for predator" "$dir/b/rti.err" && ok_dump=1
  bin/tempo-log explain "${log:-/dev/null}" >"$dir/b/explain" 2>&1
  grep -qE "^  prey polls \(FQR\) at t=[0-9.e+]+ s: [0-9]+ grants in a row left its time unchanged with no message delivered, so it waits for predator: it has sent nothing" "$dir/b/explain" && ok_explain=1
  [ "$ok_dump$ok_explain" = 11 ] && break
done
check "B: SIGUSR1: prey is stalled and waits for predator" test "$ok_dump" = 1
check "B: explain: prey polls without progress and waits for predator" test "$ok_explain" = 1
check "B: explain: the root cause is predator" \
  has "$dir/b/explain" "    root cause: predator is not waiting"
check "B: explain: not 'nobody'" not_has "$dir/b/explain" "nobody: no federate"
[ "$ok_explain" = 1 ] || sed 's/^/    | /' "$dir/b/explain" | head -30
[ -n "$pred" ] && kill -CONT "$pred"
kill -TERM "$run" 2>/dev/null
wait "$run" 2>/dev/null
rti_stop
bin/tempo-log explain "${log:-/dev/null}" >"$dir/b/explain2" 2>&1
check "B: after SIGTERM the log ends with the RTI's closing record" \
  has "$dir/b/explain2" "the log ends with the RTI's closing record"
bin/tempo-log trace "${log:-/dev/null}" --federate prey >"$dir/b/trace.json" 2>&1
check "B: trace: prey's last run of polls is drawn to the end of the log, marked" \
  grep -q "POLLING WITHOUT PROGRESS at end of log" "$dir/b/trace.json"

# ---- (C) the trace of a Gauss-Seidel run: a run of polls is one wait ----------------------
# examples/lv_gs.json: each federate polls with FQR until its peer's value arrives. A run of
# polls granted at one logical time without progress (no later time, nothing delivered: the
# engine's rule) is one span from its first poll to the progress; each poll is an instant
# inside it, and every request belongs to exactly one span.
mkdir -p "$dir/c/logs"
timeout 120 bin/tempo-run examples/lv_gs.json --log "$dir/c/logs" --output "$dir/c/out" --quiet \
  >"$dir/c/run.out" 2>&1
check "C: lv_gs runs" test $? = 0
bin/tempo-log trace "$(ls "$dir"/c/logs/*.tlog | head -n 1)" >"$dir/c/trace.json" 2>&1
cat >"$dir/c/runs.py" <<'EOT'
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
spans = [e for e in ev if e.get("ph") == "X"]
reqs = [e for e in ev if e.get("ph") == "i" and e["name"] == "-> TIME_REQUEST"]
multi = [e for e in spans if e["args"]["polls"] > 1]
bad = 0
for tid in {e["tid"] for e in spans}:
    mine = sorted((e for e in spans if e["tid"] == tid), key=lambda e: e["ts"])
    rq = sorted(e["ts"] for e in reqs if e["tid"] == tid)
    if sum(e["args"]["polls"] for e in mine) != len(rq):
        bad += 1  # a request outside every span, or in two
    for a, b in zip(mine, mine[1:]):
        if a["ts"] + a["dur"] > b["ts"] + 1e-3:
            bad += 1  # spans of one federate overlap
    for e in multi:
        if e["tid"] == tid:
            inside = [t for t in rq if e["ts"] - 1e-3 <= t <= e["ts"] + e["dur"] + 1e-3]
            bad += len(inside) != e["args"]["polls"]
print(len(spans), len(multi), sum(1 for e in multi if e["dur"] > 0), len(reqs), bad)
EOT
read -r nspan nmulti nmultidur nreq nbad < <(python3 "$dir/c/runs.py" "$dir/c/trace.json" || echo 0 0 0 0 1)
check "C: runs of polls are single spans ($nmulti of $nspan spans hold several polls, $nreq requests)" \
  test "${nmulti:-0}" -gt 100 -a "${nspan:-0}" -lt "${nreq:-0}"
check "C: those spans last (nonzero: $nmultidur of $nmulti)" test "${nmultidur:-0}" -gt $((nmulti / 2))
check "C: every request in one span, the polls inside it, no overlap ($nbad faults)" test "${nbad:-1}" = 0
finish
