#!/usr/bin/env bash
# tempo-run checks before it starts anything (doc/run.md "What it does"): a federate name the
# RTI would refuse (128 bytes), a missing FOM file, an output path that is a file; each exits 2
# at once naming the fault, with no process started, as does a name whose object name would
# pass 127 bytes. A 120-byte name runs. Two runs into one
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

# Two runs, one folder.
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
