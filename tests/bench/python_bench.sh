#!/usr/bin/env bash
# make bench: a TAR/grant cycle and an attribute update from Python (the package tempo,
# doc/python.md) against the same calls from C (tests/bench/bench_cycle), in the same run,
# over TCP to a tempo-rti and in process ("inproc:", an RTI embedded in each program), with
# the ratio Python / C; then a model in Python as a slave (doc/python.md "In one process"):
# its run's wall time per step as its own process over the RTI and in one process through its
# tempo-slave --pipe child. Figures only: it never fails on timing.
# usage: tests/bench/python_bench.sh [N_CYCLES [N_UPDATES [N_STEPS]]]
#        (default 20000, 200000 and 4000)
set -u
cd "$(dirname "$0")/../.." || exit 1
n=${1:-20000}
m=${2:-200000}
k=${3:-4000}
py=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3)}
dir=$(mktemp -d /tmp/python_bench.XXXXXX)
trap 'kill "$rti" 2>/dev/null; wait 2>/dev/null; rm -rf "$dir"' EXIT
bin/tempo-rti --listen 127.0.0.1:0 >"$dir/rti.out" 2>&1 &
rti=$!
addr=
for _ in $(seq 200); do
  addr=$(grep -o '127\.0\.0\.1:[0-9]*' "$dir/rti.out" | head -n 1)
  [ -n "$addr" ] && break
  sleep 0.05
done
[ -n "$addr" ] || { echo "python_bench: tempo-rti did not start"; exit 1; }
echo "one federate alone, regulating and constrained: $n TAR/grant cycles, $m float64 updates"
for a in "$addr" inproc:; do
  c=$(build/release/tests/bench/bench_cycle "$a" fom/demo.xml "$n" "$m") || exit 1
  p=$(PYTHONPATH=python "$py" tests/bench/python_bench.py "$a" fom/demo.xml "$n" "$m") || exit 1
  echo "$c"
  echo "$p"
  echo "$c" "$p" | awk '{ for (i = 1; i <= NF; i++) if ($i == "us,") { x[++k] = $(i - 1) } else if ($i == "us") { x[++k] = $(i - 1) } }
    END { printf "  ratio Python / C: TAR/grant cycle %.1f, update %.1f\n", x[3] / x[1], x[4] / x[2] }'
done

# A model in Python as a slave: the dahlquist FMU and examples/python/models.py's Integrator
# under master-jacobi, k steps, distributed (tempo-slave joins the RTI) and in one process
# (tempo-master drives it over a socket pair); tempo-run's wall time of the algorithm and its
# start-up, per step.
cat >"$dir/py.json" <<EOT
{ "federation": "pybench", "algorithm": { "method": "master-jacobi", "end": $((k / 4)), "step": 0.25 },
  "federates": [
    { "name": "src", "fmu": "$PWD/build/fmus/dahlquist_cs.fmu", "parameters": { "k": -0.5, "x0": 1 },
      "outputs": { "x": "Src.x" } },
    { "name": "integ", "python": "$PWD/examples/python/models.py:Integrator", "parameters": { "k": 2 },
      "inputs": { "u": "Src.x" }, "outputs": { "z": "Integ.z" } } ],
  "output": "$dir/py-out" }
EOT
echo "a model in Python as a slave (master-jacobi beside one FMU), $k steps:"
for mode in distributed in-process; do
  w=$(bin/tempo-run "$dir/py.json" --"$mode" --quiet 2>&1 | grep -o 'wall time [0-9.]* s' | grep -o '[0-9.]*')
  [ -n "$w" ] || { echo "python_bench: the $mode run failed"; exit 1; }
  echo "$mode $w $k" | awk '{ printf "  %-12s %.3f s, %.1f us a step\n", $1, $2, $2 / $3 * 1e6 }'
done
