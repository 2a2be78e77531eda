#!/usr/bin/env bash
# tempo-run checks before it starts anything (doc/run.md "What it does"): a federate name the
# RTI would refuse (128 bytes), a missing FOM file, an output path that is a file, a parameter
# outside its min/max or subnormal, an FMU whose modelDescription gives two parameters one
# valueReference, strong coupling over an algebraic loop (by the FMUs' ModelStructure); each
# exits 2 at once naming the fault, with no process started, as does a
# name whose object name would pass 127 bytes. A 120-byte name runs, so do parameters on
# their bounds. Two runs into one
# output folder: the second is refused naming the first's pid, the first completes.
# Prints "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
pass=0
fail=0
check() { # check NAME COMMAND...
  local name=$1
  shift
  if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $name"; fi
}
has() { grep -qF -- "$2" "$1"; }
# none_started FILE: tempo-run --verbose echoes every child's lines; none may appear, and no
# tempo-fmu of FILE may be running.
none_started() { ! grep -q '^\[' "$dir/r.err" && ! pgrep -f -- "tempo-fmu --federation $1" >/dev/null; }
dir=$(mktemp -d /tmp/run_preflight.XXXXXX)
first=""
cleanup() {
  [ -n "$first" ] && kill "$first" 2>/dev/null
  wait 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
fmus=$PWD/build/fmus
# lv FILE PREY-NAME [EXTRA-KEYS]: a Lotka-Volterra federation file.
lv() {
  cat >"$1" <<EOT
{
  "federation": "pre", ${3:-}
  "algorithm": { "method": "gauss-seidel", "end": ${4:-20}, "step": 0.5 },
  "federates": [
    { "name": "$2", "fmu": "$fmus/lv_prey_me.fmu",
      "parameters": { "alpha": 0.5, "beta": 0.7, "x0": 1 },
      "outputs": { "x": "Prey.x" }, "inputs": { "y": "Predator.y" } },
    { "name": "predator", "fmu": "$fmus/lv_predator_me.fmu",
      "parameters": { "gamma": 0.27, "delta": 0.6, "y0": 1 },
      "outputs": { "y": "Predator.y" }, "inputs": { "x": "Prey.x" } }
  ],
  "output": "$dir/out"
}
EOT
}
# refused NAME FILE TEXT [ARGS...]: exit 2, the message has TEXT, nothing was started.
refused() {
  local name=$1 file=$2 text=$3 rc
  shift 3
  bin/tempo-run "$file" --verbose "$@" >"$dir/r.out" 2>"$dir/r.err"
  rc=$?
  check "$name: exit $rc, want 2" test "$rc" -eq 2
  check "$name: message has '$text' ($(head -c 200 "$dir/r.err"))" has "$dir/r.err" "$text"
  check "$name: no federate was started" none_started "$file"
}
n120=$(printf 'p%.0s' $(seq 120))
n123=$(printf 'p%.0s' $(seq 123))
n128=$(printf 'p%.0s' $(seq 128))
lv "$dir/long.json" "$n128"
refused "128-byte federate name" "$dir/long.json" "at most 127 bytes"
lv "$dir/nofom.json" prey '"fom": "missing.xml",'
refused "missing FOM" "$dir/nofom.json" "missing.xml': No such file"
lv "$dir/ok.json" prey
: >"$dir/afile"
refused "output is a file" "$dir/ok.json" "exists and is not a folder" --output "$dir/afile"

# 123 bytes + ".Prey": the object the federate registers would take 128 bytes.
lv "$dir/obj.json" "$n123"
refused "123-byte name, 128-byte object name" "$dir/obj.json" "would be named with 128 bytes"
lv "$dir/ok120.json" "$n120"
bin/tempo-run "$dir/ok120.json" --quiet --output "$dir/o120" >"$dir/o120.out" 2>&1
check "a 120-byte name (125-byte object name) runs (exit $?)" test -s "$dir/o120/$n120.csv"

# Values checked against the modelDescription before anything starts (doc/run.md): a parameter
# outside the FMU's min/max or subnormal; and a modelDescription whose two parameters share a
# valueReference (each with its start value: a clash, not an alias), refused by its reader.
# clk FILE PARAMETERS-JSON [FMU]: two clock FMUs in a loop, the first with these parameters.
clk() {
  cat >"$1" <<EOT
{
  "federation": "pre",
  "algorithm": { "method": "jacobi", "end": 1, "step": 0.1 },
  "federates": [
    { "name": "a", "fmu": "${3:-$fmus/clock_cs.fmu}", "parameters": $2,
      "outputs": { "y": "A.y" }, "inputs": { "u": "B.y" } },
    { "name": "b", "fmu": "$fmus/clock_cs.fmu", "outputs": { "y": "B.y" }, "inputs": { "u": "A.y" } }
  ],
  "output": "$dir/out"
}
EOT
}
clk "$dir/min.json" '{ "tau": 0 }'
refused "a parameter below its min" "$dir/min.json" \
  'federates[0].parameters["tau"]: 0 is below the variable'"'"'s min, 9.9999999999999995e-07'
clk "$dir/max.json" '{ "tau": 2e6 }'
refused "a parameter above its max" "$dir/max.json" 'parameters["tau"]: 2000000 is above the variable'"'"'s max, 1000000'
clk "$dir/sub.json" '{ "x0": 1e-310 }'
refused "a subnormal parameter" "$dir/sub.json" 'parameters["x0"]: 9.9999999999999694e-311 is subnormal'
clk "$dir/edge.json" '{ "tau": 1e6, "x0": 2.2250738585072014e-308 }'
bin/tempo-run "$dir/edge.json" --quiet --output "$dir/edge" >"$dir/edge.out" 2>&1
check "a parameter on its max and the smallest normal run (exit $?)" test -s "$dir/edge/a.csv"
mkdir -p "$dir/clash" && (cd "$dir/clash" && unzip -q "$fmus/clock_cs.fmu") &&
  sed -i 's/name="x0" valueReference="1"/name="x0" valueReference="0"/' "$dir/clash/modelDescription.xml" &&
  (cd "$dir/clash" && zip -qr ../clash.fmu .)
check "the clashing FMU was made" grep -q 'name="x0" valueReference="0"' "$dir/clash/modelDescription.xml"
clk "$dir/clash.json" '{ "x0": 1 }' "$dir/clash.fmu"
refused "a valueReference clash" "$dir/clash.json" 'variable "x0" (parameter) has valueReference 0, as "tau"'

# Two runs, one folder.
# Two gains in a loop (y = k u + c + s t each, their ModelStructure says y depends on u): an
# algebraic loop, refused for strong coupling, which reads the outputs before it sets the
# inputs they feed (FEDFILE_NEEDS_NO_LOOP); the same wiring under semi-implicit is checked
# and run by tests/integration/inproc_examples.sh (examples/gain_semi.json).
cat >"$dir/loop.json" <<EOT
{
  "federation": "loop", "algorithm": { "method": "strong", "end": 1, "step": 0.1 },
  "federates": [
    { "name": "g1", "fmu": "$fmus/gain_me.fmu", "outputs": { "y": "G1.y" }, "inputs": { "u": "G2.y" } },
    { "name": "g2", "fmu": "$fmus/gain_me.fmu", "outputs": { "y": "G2.y" }, "inputs": { "u": "G1.y" } }
  ],
  "output": "$dir/out"
}
EOT
refused "strong over an algebraic loop" "$dir/loop.json" \
  'ModelStructure makes one: cycle "g1.y" -> "g2.u" -> "g2.y" -> "g1.u" -> "g1.y"'
lv "$dir/slow.json" prey "" 400
bin/tempo-run "$dir/slow.json" --quiet --output "$dir/shared" >"$dir/first.out" 2>&1 &
first=$!
for _ in $(seq 1 100); do [ -s "$dir/shared/.tempo-run.lock" ] && break; sleep 0.02; done
bin/tempo-run "$dir/ok.json" --quiet --output "$dir/shared" >"$dir/second.out" 2>"$dir/second.err"
check "the second run into the same folder exits 2 ($?)" test $? -eq 2
check "naming the first's pid ($(head -c 200 "$dir/second.err"))" has "$dir/second.err" "in use by another tempo-run (pid $first)"
wait "$first"
rc=$?
first=""
check "the first run completes (exit $rc)" test "$rc" -eq 0
bin/tempo-run "$dir/ok.json" --quiet --output "$dir/shared" >/dev/null 2>&1
check "afterwards the folder is free again (exit $?)" test $? -eq 0
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
