#!/usr/bin/env bash
# Command-line tests of `tempo-fmu --simulate` (federate/fmufed/tempo_fmu_main.c): every bad argument
# gets exit status 2 and a message naming it; runs of example FMUs write the CSV documented in
# doc/fmu.md. Serves doc/fmu.md. Run from the repository root with bin/ and build/fmus/ built.
set -u
bin=bin/tempo-fmu
mkdir -p build/fmu-fixtures
tmp=$(mktemp -d build/fmu-fixtures/sim-cli.XXXXXX) || exit 1 # this run's own (tests/run.sh runs several at once)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# expect STATUS NEEDLE ARGS...: exit status and a substring of stderr.
expect() {
  local want=$1 needle=$2
  shift 2
  "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [ "$rc" -ne "$want" ]; then ko "$* -> status $rc, want $want ($(cat "$tmp/err"))"; return; fi
  if ! grep -qF -- "$needle" "$tmp/err"; then ko "$* -> stderr lacks \"$needle\": $(cat "$tmp/err")"; return; fi
  ok
}

ball=build/fmus/bouncingball_me.fmu
expect 2 "no mode given"
expect 2 "unknown argument \"--frobnicate\"" --simulate "$ball" --frobnicate
expect 2 "--stop needs a value" --simulate "$ball" --stop
expect 2 "--step: \"abc\" is not a number" --simulate "$ball" --step abc
expect 2 "--step must be > 0" --simulate "$ball" --step 0
expect 2 "--rtol must be > 0" --simulate "$ball" --rtol -1
expect 2 "--me and --cs exclude each other" --simulate "$ball" --me --cs
expect 2 "--stop 1 is before --start 2" --simulate "$ball" --start 2 --stop 1
expect 2 "expected name=value" --simulate "$ball" --set g
expect 1 "no variable named \"nope\"" --simulate "$ball" --set nope=1
expect 1 "g=heavy: not a real number" --simulate "$ball" --set g=heavy
expect 1 "missing.fmu" --simulate "$tmp/missing.fmu"
expect 1 "has no CoSimulation interface" --simulate "$ball" --cs
expect 1 "missing.csv" --simulate build/fmus/mass_me.fmu --input "$tmp/missing.csv"
expect 1 "--out /nonexistent-dir/x.csv" --simulate "$ball" --out /nonexistent-dir/x.csv

expect 1 "e=5: above max 1 of Real variable \"e\"" --simulate "$ball" --set e=5
expect 1 "variable \"h\" (output, continuous, calculated) cannot be set" --simulate "$ball" --set h=2
expect 2 "--json goes with --info" --simulate "$ball" --json
expect 2 "--info and --simulate exclude each other" --simulate "$ball" --info "$ball"
expect 1 "missing.fmu" --info "$tmp/missing.fmu"

# --info: kinds, capabilities, default experiment, states, every variable with its bounds.
if "$bin" --info "$ball" >"$tmp/info.txt" 2>"$tmp/err"; then ok; else ko "--info: $(cat "$tmp/err")"; fi
for needle in "kinds: ModelExchange" "get/set state yes" "event indicators 1" \
              "default experiment: start 0 s, stop 3 s, tolerance 1e-10, step 0.01 s" \
              "continuous states: 2 (h, v)" "variables: 11"; do
  if grep -qF -- "$needle" "$tmp/info.txt"; then ok; else ko "--info lacks \"$needle\""; fi
done
if grep -Eq '^  e +parameter +fixed +exact +Real +0.7 +0 +1 +coefficient of restitution$' "$tmp/info.txt"
then ok; else ko "--info row of e: $(grep '^  e ' "$tmp/info.txt")"; fi
if "$bin" --info build/fmus/spring_cs.fmu --json >"$tmp/info.json" 2>"$tmp/err" &&
   python3 - "$tmp/info.json" <<'EOF2'
import json, sys
d = json.load(open(sys.argv[1]))
assert d['kinds'] == ['CoSimulation'] and d['modelExchange'] is None, d['kinds']
assert d['coSimulation']['maxOutputDerivativeOrder'] == 2 and d['coSimulation']['canInterpolateInputs']
assert d['defaultExperiment']['stopTime'] == 20 and d['continuousStates'] == ['s', 'impulse']
v = {x['name']: x for x in d['variables']}
assert v['v']['causality'] == 'input' and v['v']['start'] == 0 and v['v']['unit'] == 'm/s'
assert v['f']['initial'] == 'calculated' and 'start' not in v['f']
EOF2
then ok; else ko "--info --json: $(cat "$tmp/err" "$tmp/info.json")"; fi

# A good run: header, first and last row, exit 0.
if "$bin" --simulate build/fmus/dahlquist_cs.fmu --set k=-2 --stop 1 --step 0.5 \
     --out "$tmp/d.csv" 2>"$tmp/err"; then ok; else ko "dahlquist run: $(cat "$tmp/err")"; fi
if [ "$(head -n 1 "$tmp/d.csv")" = '"time","x"' ]; then ok; else ko "header: $(head -n 1 "$tmp/d.csv")"; fi
if [ "$(wc -l <"$tmp/d.csv")" -eq 4 ]; then ok; else ko "rows: $(cat "$tmp/d.csv")"; fi
# x(1) = exp(-2) within 1e-7.
if awk -F, 'END { d = $2 - exp(-2); exit !(d < 1e-7 && d > -1e-7) }' "$tmp/d.csv"; then ok
else ko "x(1) = $(tail -n 1 "$tmp/d.csv")"; fi
# Defaults: DefaultExperiment stop time of the ball (to stdout), --states adds states.
if "$bin" --simulate "$ball" --me --states --adams >"$tmp/b.csv" 2>"$tmp/err"; then ok
else ko "ball run: $(cat "$tmp/err")"; fi
if head -n 1 "$tmp/b.csv" | grep -q '^"time","h","v","bounces"$'; then ok; else ko "ball header $(head -n 1 "$tmp/b.csv")"; fi

# fmusim's order at a communication point (doc/fmu.md §8). The spring with c = 0, d = 1 is
# the direct feedthrough f = -v, v from a table with a jump at t = 0.3 (the time given twice:
# an input event, a row of its own). Linear, v is interpolated; held (--hold), every change of
# v (0.3, 0.7, 1) is an input event. Model exchange sets the inputs of t, then writes:
# f(t) = -v(t), and at an input event a row before it (the left value) and one after.
# Co-simulation writes what the step to t produced: linear, the spring interpolates its input,
# so f(t) is -v at the end of the step (the left value at the jump); held, f(t) = -v of the
# previous point (one step behind, as fmusim records it).
printf 'time,v\n0,0\n0.3,1\n0.3,2\n0.7,-1\n1,0.5\n' >"$tmp/v.csv"
for mode in linear hold; do
  flag=; [ $mode = hold ] && flag=--hold
  for k in me cs; do
    "$bin" --simulate build/fmus/spring_$k.fmu --set c=0 --set d=1 --input "$tmp/v.csv" $flag \
      --stop 1 --step 0.1 2>"$tmp/err" | cut -d, -f1,2 >"$tmp/ff_$k.csv" || ko "spring $k: $(cat "$tmp/err")"
    if python3 - "$tmp/ff_$k.csv" $mode $k <<'EOF2'
import sys
rows = [l.strip().split(',') for l in open(sys.argv[1])][1:]
hold, me = sys.argv[2] == 'hold', sys.argv[3] == 'me'
seg = [(0, 0.3, 0, 1), (0.3, 0.7, 2, -1), (0.7, 1, -1, 0.5)]  # t0, t1, v(t0), v(t1-)
def v(t, left):  # the table, linear or held; left: the value just before t
    if t >= 1 - 1e-12 and not left: return 0.5
    for t0, t1, a, b in seg:
        if (t0 < t <= t1 + 1e-12) if left else (t0 - 1e-12 <= t < t1 - 1e-12):
            return a if hold else a + (b - a) * (t - t0) / (t1 - t0)
    return 0
times = [float(r[0]) for r in rows]
events = [0.3, 0.7, 1] if hold else [0.3]
grid = [i / 10 for i in range(11)]
want_t = sorted(grid + events) if me else grid
assert len(times) == len(want_t) and all(abs(a - b) < 1e-12 for a, b in zip(times, want_t)), times
for i, (t, f) in enumerate(zip(times, (float(r[1]) for r in rows))):
    before = i + 1 < len(times) and times[i + 1] == t
    if me: want = -v(t, before)
    elif i == 0: want = -v(0, False)
    elif hold: want = -v(times[i - 1], False)
    else: want = -v(t, True)
    assert abs(f - want) <= 1e-12, (i, t, f, want)
EOF2
    then ok; else ko "$mode $k: f is not as fmusim records it: $(tr '\n' ' ' <"$tmp/ff_$k.csv")"; fi
  done
done
# The summary names the run, the columns and (ME) the solver restarts: one input jump.
"$bin" --simulate build/fmus/spring_me.fmu --set c=0 --set d=1 --input "$tmp/v.csv" --stop 1 \
  --step 0.1 >/dev/null 2>"$tmp/err"
if grep -q "spring (ME): t = 0 .. 1 s, 12 rows (1 before an event), .*1 start, 1 restarts (0 events, 1 input jumps" "$tmp/err"; then ok
else ko "summary: $(cat "$tmp/err")"; fi

# Every example FMU built in both kinds (doc/example-fmus.md): ME (our CVODE) and CS (its own
# solver) over the DefaultExperiment at rtol 1e-10 agree within 1e-4 relative, |a-b| /
# (|a|+|b|+1), on every output at every row (measured worst: 5e-6, the ball near rest).
for me in build/fmus/*_me.fmu; do
  n=$(basename "$me" _me.fmu)
  cs=build/fmus/${n}_cs.fmu
  [ -f "$cs" ] || continue
  if ! "$bin" --simulate "$me" --rtol 1e-10 >"$tmp/$n.me.csv" 2>"$tmp/err"; then
    ko "$n ME: $(cat "$tmp/err")"; continue
  fi
  if ! "$bin" --simulate "$cs" --rtol 1e-10 >"$tmp/$n.cs.csv" 2>"$tmp/err"; then
    ko "$n CS: $(cat "$tmp/err")"; continue
  fi
  # ME also writes rows before and after its events (fmusim's rows): compare the last row of
  # each time that CS writes too.
  awk -F, 'NR == FNR { cs[$1] = 1; next } FNR == 1 { print; next }
    ($1 in cs) { if (!($1 in row)) order[++k] = $1; row[$1] = $0 }
    END { for (i = 1; i <= k; i++) print row[order[i]] }' "$tmp/$n.cs.csv" "$tmp/$n.me.csv" \
    >"$tmp/$n.me1.csv"
  worst=$(paste -d, "$tmp/$n.me1.csv" "$tmp/$n.cs.csv" | awk -F, '
    NR == 1 { n = NF / 2; for (i = 1; i <= n; i++) if ($i != $(i + n)) bad = 1; next }
    { if (NF != 2 * n) bad = 1
      for (i = 1; i <= n; i++) { a = $i; b = $(i + n); d = a - b; if (d < 0) d = -d
        s = (a < 0 ? -a : a) + (b < 0 ? -b : b) + 1; if (d / s > m) m = d / s } }
    END { if (bad || NR < 2) print "mismatch"; else printf "%.3g\n", m }')
  if [ "$worst" != mismatch ] && awk -v w="$worst" 'BEGIN { exit !(w <= 1e-4) }'; then ok
  else ko "$n: ME and CS differ (worst relative difference $worst)"; fi
done

# Numbers: by default as fmusim writes them (%.16g: the time 3 * 0.1 is "0.3"); with --exact
# in the shortest form that reads back to the same bits ("0.30000000000000004"; the formatter
# itself is checked in tests/unit/results_test.c).
if "$bin" --simulate build/fmus/dahlquist_cs.fmu --stop 0.3 --step 0.1 2>/dev/null |
  awk -F, 'NR == 5 { exit !($1 == "0.3") } END { exit NR < 5 }'; then ok
else ko "--simulate does not write the time 3 * 0.1 as \"0.3\""; fi
if "$bin" --simulate build/fmus/dahlquist_cs.fmu --stop 0.3 --step 0.1 --exact 2>/dev/null |
  awk -F, 'NR == 3 { if ($1 != "0.1") exit 1 } NR == 5 { exit !($1 == "0.30000000000000004") }
           END { exit NR < 5 }'; then ok
else ko "--simulate --exact does not write 0.1 and 3 * 0.1 in their shortest forms"; fi

# fmusim's option names (doc/fmu.md §8): --interface-type, --start-time, --stop-time,
# --output-interval, --start-value NAME VALUE, --tolerance, --output-file and the FMU last give
# the file the native options give.
if "$bin" --simulate build/fmus/dahlquist_me.fmu --me --start 0 --stop 1 --step 0.25 \
     --set k=2 --rtol 1e-8 --out "$tmp/native.csv" 2>/dev/null &&
   "$bin" --interface-type me --start-time 0 --stop-time 1 --output-interval 0.25 \
     --start-value k 2 --tolerance 1e-8 --output-file "$tmp/fmusim.csv" \
     build/fmus/dahlquist_me.fmu 2>/dev/null &&
   cmp -s "$tmp/native.csv" "$tmp/fmusim.csv" && [ "$(wc -l <"$tmp/fmusim.csv")" -eq 6 ]; then ok
else ko "fmusim's option names do not give the native options' file"; fi
if ! "$bin" --interface-type xy build/fmus/dahlquist_me.fmu >/dev/null 2>"$tmp/it.err" &&
   grep -q 'interface-type takes cs or me' "$tmp/it.err"; then ok
else ko "--interface-type xy not refused: $(cat "$tmp/it.err")"; fi

# --early-return (fmusim's --early-return-allowed): the FMI 3.0 ball that ends a step at each
# bounce (early_return=1) gets a row at the bounce, one between 0 and 0.5 s as fmusim's test
# has it, and the regular rows of a run that bounces inside its steps.
if "$bin" --simulate build/fmus/fmi3/bouncingball_cs.fmu --early-return-allowed \
     --set early_return=1 --step 0.5 --stop 1.5 >"$tmp/er.csv" 2>/dev/null &&
   "$bin" --simulate build/fmus/fmi3/bouncingball_cs.fmu --step 0.5 --stop 1.5 \
     >"$tmp/noer.csv" 2>/dev/null &&
   [ "$(awk -F, 'NR > 1 && $1 > 0 && $1 < 0.5' "$tmp/er.csv" | wc -l)" -eq 1 ] &&
   [ "$(grep -c '' "$tmp/er.csv")" -eq 7 ] &&
   [ "$(grep '^0.5,' "$tmp/er.csv")" = "$(grep '^0.5,' "$tmp/noer.csv")" ] &&
   [ "$(tail -n 1 "$tmp/er.csv")" = "$(tail -n 1 "$tmp/noer.csv")" ]; then ok
else ko "--early-return rows: $(cat "$tmp/er.csv")"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
