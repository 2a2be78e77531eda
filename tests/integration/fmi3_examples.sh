#!/usr/bin/env bash
# FMI 3.0 beside FMI 2.0 (doc/fmu.md "FMI 3.0"): every example federation file runs with the
# example FMUs in their FMI 3.0 form (build/fmus/fmi3/, the same models and binaries behind
# fmi3* calls) to the same results, bit for bit, as with the FMI 2.0 builds; the user changes
# nothing but the FMU paths. Peer files run in process (tempo-fmu --all), master methods under
# tempo-master --in-process; one file also distributed (tempo-run on a real RTI, the FMI 3.0
# slaves in their own processes); a mixed federation (the first FMU 3.0, the others 2.0)
# under a master method gives the same bits too; an array element and whole numbers are
# wired (under a peer and a master method), a 64-bit integer
# and an input clock that cannot be driven are refused. The exception: the files whose method
# hands its slaves input derivatives (F3ORNITS, defect control: fmi2SetRealInputDerivatives),
# which FMI 3.0 no longer has; there the FMI 3.0 slaves hold their inputs over a step, the
# step-size control sees other errors and takes other steps, so those runs must end well and
# reach the same stop time, not give the same bits. Prints "N passed, N failed" last.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/lib.sh fmi3_examples
need fmi3 build/fmus/fmi3/lv_prey_me.fmu build/fmus/fmi3/feedthrough3.fmu bin/tempo-fmu \
  bin/tempo-master bin/tempo-run bin/tempo-rti

root=$PWD
# to3 FILE OUT [first]: FILE with every FMU (or only the first, "first") in FMI 3.0 form and
# every relative path made absolute, so that OUT may live anywhere.
to3() {
  if [ "${3:-}" = first ]; then
    sed -e "0,/\"\.\.\/build\/fmus\//s##\"$root/build/fmus/fmi3/#" -e "s#\"\.\./#\"$root/#g" "$1" >"$2"
  else
    sed -e "s#\"\.\./build/fmus/#\"$root/build/fmus/fmi3/#g" -e "s#\"\.\./#\"$root/#g" "$1" >"$2"
  fi
}
to2() { sed -e "s#\"\.\./#\"$root/#g" "$1" >"$2"; }

# run FILE OUTDIR: in process, by the program the method needs (its side, as tempo-master
# --list-methods gives it).
masters=" $(bin/tempo-master --list-methods | awk '$2 == "master" { print $1 }' | xargs) "
run() {
  local m
  m=$(sed -n 's/.*"method": *"\([a-z0-9-]*\)".*/\1/p' "$1" | head -n 1)
  case "$masters" in
  *" $m "*) bin/tempo-master --federation "$1" --in-process --tasks --quiet --output "$2" ;;
  *) bin/tempo-fmu --federation "$1" --all --tasks --quiet --output "$2" ;;
  esac
}

# same B DIR2 DIR3 WHAT: every CSV of DIR2 is in DIR3 with the same bytes.
same() {
  local n=0 c
  for c in "$2"/*.csv; do
    [ -e "$c" ] || continue
    n=$((n + 1))
    cmp -s "$c" "$3/$(basename "$c")" || { ko "$1: $(basename "$c") differs ($4)"; return; }
  done
  [ "$n" -gt 0 ] && ok || ko "$1: no CSV written ($4)"
}

for f in examples/*.json; do
  b=$(basename "$f" .json)
  mkdir -p "$dir/$b"
  to2 "$f" "$dir/$b/v2.json"
  to3 "$f" "$dir/$b/v3.json"
  grep -q "build/fmus/fmi3/" "$dir/$b/v3.json" || { ko "$b: no FMU path rewritten"; continue; }
  run "$dir/$b/v2.json" "$dir/$b/o2" >"$dir/$b/o2.log" 2>&1 ||
    { ko "$b: FMI 2.0 run failed: $(tail -n 2 "$dir/$b/o2.log")"; continue; }
  run "$dir/$b/v3.json" "$dir/$b/o3" >"$dir/$b/o3.log" 2>&1 ||
    { ko "$b: FMI 3.0 run failed: $(tail -n 2 "$dir/$b/o3.log")"; continue; }
  case "$b" in
  car_f3 | osc_defect_* | osc_f3_*)
    stop=$(sed -n 's/.*"\(stop\|end\)": *\([0-9.e+-]*\).*/\2/p' "$f" | head -n 1)
    for c in "$dir/$b/o2"/*.csv; do
      t3=$(tail -n 1 "$dir/$b/o3/$(basename "$c")" | cut -d, -f1)
      awk -v t="$t3" -v s="$stop" 'BEGIN { exit !(t != "" && s != "" && t + 1e-9 >= s) }' ||
        ko "$b: $(basename "$c") ends at t=$t3, before the stop time $stop"
    done
    ok ;;
  *) same "$b" "$dir/$b/o2" "$dir/$b/o3" "FMI 3.0 against FMI 2.0" ;;
  esac
done

# A mixed federation under a master method: the prey in FMI 3.0, the predator in FMI 2.0.
to3 examples/lv_master.json "$dir/mixed.json" first
if grep -q "fmi3/lv_prey" "$dir/mixed.json" && ! grep -q "fmi3/lv_predator" "$dir/mixed.json"; then
  ok
  run "$dir/mixed.json" "$dir/mixed" >"$dir/mixed.log" 2>&1 &&
    same lv_master_mixed "$dir/lv_master/o2" "$dir/mixed" "mixed 2.0/3.0" ||
    ko "mixed federation failed: $(tail -n 2 "$dir/mixed.log")"
else
  ko "mixed federation: the paths were not rewritten as meant"
fi

# An array element wired (doc/fmu.md "FMI 3.0"): a's y[2] = gain[2] * Float64_in, gain[2]
# set to 5 from the file, feeds b's Float64_in; b records Float64_out = 5 and y[3] = 3 * 5,
# under a peer method and a master method.
cat >"$dir/arr.json" <<EOF2
{ "federation": "fmi3-array-wire",
  "algorithm": { "method": "jacobi", "start": 0, "end": 1, "step": 0.25 },
  "federates": [
    { "name": "a", "fmu": "$root/build/fmus/fmi3/feedthrough3.fmu",
      "parameters": { "gain[2]": 5 }, "outputs": { "y[2]": "A.y2" }, "record": [ "y[2]" ] },
    { "name": "b", "fmu": "$root/build/fmus/fmi3/feedthrough3.fmu",
      "inputs": { "Float64_in": "A.y2" }, "record": [ "Float64_out", "y[3]" ] } ] }
EOF2
sed 's/"jacobi"/"master-jacobi"/' "$dir/arr.json" >"$dir/arr_ms.json"
for a in arr arr_ms; do
  if run "$dir/$a.json" "$dir/$a" >"$dir/$a.log" 2>&1 &&
     [ "$(head -n 1 "$dir/$a/b.csv")" = "time,Float64_out,y[3]" ] &&
     [ "$(tail -n 1 "$dir/$a/b.csv")" = "1,5,15" ]; then ok
  else ko "$a: array element y[2] wired: $(tail -n 2 "$dir/$a.log" "$dir/$a/b.csv" 2>&1)"; fi
done

# Whole numbers wired under a peer and a master method (doc/fmu.md "FMI 3.0", "Variables"):
# a's UInt32_out (its input's start 32) feeds b's Int32_in, a's Int32_out (-32) b's Float64_in
# (an Integer feeding a Real); b's outputs follow its inputs: 32 and -32, not the starts.
cat >"$dir/int.json" <<EOF2
{ "federation": "fmi3-int-wire",
  "algorithm": { "method": "jacobi", "start": 0, "end": 1, "step": 0.25 },
  "federates": [
    { "name": "a", "fmu": "$root/build/fmus/fmi3/feedthrough3.fmu",
      "outputs": { "UInt32_out": "A.n", "Int32_out": "A.i" } },
    { "name": "b", "fmu": "$root/build/fmus/fmi3/feedthrough3.fmu",
      "inputs": { "Int32_in": "A.n", "Float64_in": "A.i" },
      "record": [ "Int32_out", "Float64_out" ] } ] }
EOF2
sed 's/"jacobi"/"master-jacobi"/' "$dir/int.json" >"$dir/int_ms.json"
for a in int int_ms; do
  if run "$dir/$a.json" "$dir/$a" >"$dir/$a.log" 2>&1 &&
     [ "$(tail -n 1 "$dir/$a/b.csv")" = "1,32,-32" ]; then ok
  else ko "$a: whole numbers wired: $(tail -n 2 "$dir/$a.log" "$dir/$a/b.csv" 2>&1)"; fi
done

# Structural parameters and whole arrays from a federation file (doc/fmu.md "FMI 3.0"):
# statespace3 resized to 2 states (n = 2), A the rotation [0 1; -1 0] from a list, x0 = (1, 0),
# B = D = 0 for all elements: y[1] = cos t, y[2] = -sin t (within 1e-9 at t = 1; the
# co-simulation's Runge-Kutta), y[3] = 0, under a peer and a master method.
cat >"$dir/resize.json" <<EOF2
{ "federation": "fmi3-resize",
  "algorithm": { "method": "jacobi", "start": 0, "end": 1, "step": 0.5 },
  "federates": [
    { "name": "a", "fmu": "$root/build/fmus/fmi3/statespace3.fmu",
      "parameters": { "n": 2, "A": "0 1 -1 0", "x0": "1 0", "B": 0, "D": 0 },
      "outputs": { "y[1]": "A.y1" }, "record": [ "y[1]", "y[2]", "y[3]" ] } ] }
EOF2
sed 's/"jacobi"/"master-jacobi"/' "$dir/resize.json" >"$dir/resize_ms.json"
for a in resize resize_ms; do
  if run "$dir/$a.json" "$dir/$a" >"$dir/$a.log" 2>&1 &&
     tail -n 1 "$dir/$a/a.csv" | awk -F, '{ d1 = $2 - cos(1); d2 = $3 + sin(1)
       exit !($1 == 1 && d1 * d1 < 1e-18 && d2 * d2 < 1e-18 && $4 == 0) }'; then ok
  else ko "$a: statespace3 resized from the file: $(tail -n 2 "$dir/$a.log" "$dir/$a/a.csv" 2>&1)"; fi
done

# The hybrid method over FMI 3.0 co-simulation in event mode: the slaves stop at their
# events (feedthrough3's ticks and input-clock ticks, handled in event mode by the host) and
# end with every tick counted (2 of the period 0.75 s, 5 of the clock by t = 2).
cat >"$dir/hyb.json" <<EOF2
{ "federation": "fmi3-hybrid",
  "algorithm": { "method": "hybrid", "start": 0, "end": 2, "step": 0.25,
    "hybrid": { "h_min": 0.01, "h_max": 0.5, "delta": 0.001, "tol": 1e-8, "tol_d": 1e-3,
                "tau0": 0.25, "grow": 1.1, "shrink": 0.5, "discrete": [ ] } },
  "federates": [
    { "name": "a", "fmu": "$root/build/fmus/fmi3/feedthrough3.fmu",
      "outputs": { "y[2]": "A.y2" }, "record": [ "y[2]", "ticks", "clk_ticks" ] },
    { "name": "b", "fmu": "$root/build/fmus/fmi3/feedthrough3.fmu",
      "inputs": { "Float64_in": "A.y2" }, "record": [ "Float64_out", "ticks", "clk_ticks" ] } ] }
EOF2
if run "$dir/hyb.json" "$dir/hyb" >"$dir/hyb.log" 2>&1 &&
   [ "$(tail -n 1 "$dir/hyb/a.csv")" = "2,2,2,5" ] && [ "$(tail -n 1 "$dir/hyb/b.csv")" = "2,2,2,5" ]
then ok; else ko "hybrid in event mode: $(tail -n 2 "$dir/hyb.log" "$dir/hyb/a.csv" 2>&1)"; fi

# --info shows FMI 3.0's co-simulation capabilities, in text and JSON.
if bin/tempo-fmu --info build/fmus/fmi3/feedthrough3.fmu | grep -q "event mode yes, intermediate update yes, early return yes" &&
   bin/tempo-fmu --info build/fmus/fmi3/feedthrough3.fmu --json | grep -q '"hasEventMode":true,"providesIntermediateUpdate":true,"canReturnEarlyAfterIntermediateUpdate":true'
then ok; else ko "--info lacks the FMI 3.0 co-simulation capabilities"; fi

# A 64-bit integer is not wired: the coupling carries doubles (exact to 2^53 only).
sed 's/"y\[2\]": "A.y2"/"Int64_out": "A.y2"/' "$dir/arr.json" >"$dir/int64.json"
if ! run "$dir/int64.json" "$dir/int64" >"$dir/int64.log" 2>&1 &&
   grep -q 'variable "Int64_out" is Int64: the coupling carries doubles, exact to 2^53' "$dir/int64.log"
then ok; else ko "Int64 wire not refused as meant: $(tail -n 2 "$dir/int64.log")"; fi

# An input clock Tempo cannot drive (triggered: no time of its own) is refused with the
# reason: feedthrough3 with its clock clk made triggered.
mkdir -p "$dir/trig"
(cd "$dir/trig" && unzip -q "$root/build/fmus/fmi3/feedthrough3.fmu" &&
  sed -i 's/intervalVariability="constant" intervalDecimal="0.4" shiftDecimal="0.1"/intervalVariability="triggered"/' modelDescription.xml &&
  zip -q -r ../trig.fmu modelDescription.xml binaries)
for k in me cs; do
  if ! bin/tempo-fmu --simulate "$dir/trig.fmu" --$k >/dev/null 2>"$dir/trig.$k.err" &&
     grep -q 'input clock "clk" (intervalVariability="triggered"): a triggered clock ticks when another model says so' "$dir/trig.$k.err"
  then ok; else ko "triggered input clock ($k) not refused as meant: $(cat "$dir/trig.$k.err")"; fi
done

# Distributed: the mixed federation through tempo-run on a real RTI (slaves as processes).
mkdir -p "$dir/rti"
if rti_start "$dir/rti" --log-level error; then
  bin/tempo-run "$dir/mixed.json" --rti "$RTI_ADDR" --output "$dir/dist" --quiet \
    >"$dir/dist.log" 2>&1 &&
    same lv_master_mixed_dist "$dir/lv_master/o2" "$dir/dist" "distributed mixed" ||
    ko "distributed mixed run failed: $(tail -n 3 "$dir/dist.log")"
  rti_stop >/dev/null
else
  ko "tempo-rti did not start"
fi
finish
