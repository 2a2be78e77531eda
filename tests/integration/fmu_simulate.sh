#!/usr/bin/env bash
# Command-line tests of `tempo-fmu --simulate` (federate/fmufed/tempo_fmu_main.c): every bad argument
# gets exit status 2 and a message naming it; runs of example FMUs write the CSV documented in
# doc/fmu.md. Serves doc/fmu.md. Run from the repository root with bin/ and build/fmus/ built.
set -u
bin=bin/tempo-fmu
tmp=build/fmu-fixtures/sim-cli
mkdir -p "$tmp"
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

# A good run: header, first and last row, exit 0.
if "$bin" --simulate build/fmus/dahlquist_cs.fmu --set k=-2 --stop 1 --step 0.5 \
     --out "$tmp/d.csv" 2>"$tmp/err"; then ok; else ko "dahlquist run: $(cat "$tmp/err")"; fi
if [ "$(head -n 1 "$tmp/d.csv")" = "time,x" ]; then ok; else ko "header: $(head -n 1 "$tmp/d.csv")"; fi
if [ "$(wc -l <"$tmp/d.csv")" -eq 4 ]; then ok; else ko "rows: $(cat "$tmp/d.csv")"; fi
# x(1) = exp(-2) within 1e-7.
if awk -F, 'END { d = $2 - exp(-2); exit !(d < 1e-7 && d > -1e-7) }' "$tmp/d.csv"; then ok
else ko "x(1) = $(tail -n 1 "$tmp/d.csv")"; fi
# Defaults: DefaultExperiment stop time of the ball (to stdout), --states adds states.
if "$bin" --simulate "$ball" --me --states --adams >"$tmp/b.csv" 2>"$tmp/err"; then ok
else ko "ball run: $(cat "$tmp/err")"; fi
if head -n 1 "$tmp/b.csv" | grep -q '^time,h,v,bounces$'; then ok; else ko "ball header $(head -n 1 "$tmp/b.csv")"; fi

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
  worst=$(paste -d, "$tmp/$n.me.csv" "$tmp/$n.cs.csv" | awk -F, '
    NR == 1 { n = NF / 2; for (i = 1; i <= n; i++) if ($i != $(i + n)) bad = 1; next }
    { if (NF != 2 * n) bad = 1
      for (i = 1; i <= n; i++) { a = $i; b = $(i + n); d = a - b; if (d < 0) d = -d
        s = (a < 0 ? -a : a) + (b < 0 ? -b : b) + 1; if (d / s > m) m = d / s } }
    END { if (bad || NR < 2) print "mismatch"; else printf "%.3g\n", m }')
  if [ "$worst" != mismatch ] && awk -v w="$worst" 'BEGIN { exit !(w <= 1e-4) }'; then ok
  else ko "$n: ME and CS differ (worst relative difference $worst)"; fi
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
