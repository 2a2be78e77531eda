#!/usr/bin/env bash
# make bench: a TAR/grant cycle and an attribute update from Python (the package tempo,
# doc/python.md) against the same calls from C (tests/bench/bench_cycle), in the same run,
# over TCP to a tempo-rti and in process ("inproc:", an RTI embedded in each program), with
# the ratio Python / C. Figures only: it never fails on timing.
# usage: tests/bench/python_bench.sh [N_CYCLES [N_UPDATES]]   (default 20000 and 200000)
set -u
cd "$(dirname "$0")/../.." || exit 1
n=${1:-20000}
m=${2:-200000}
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
