#!/usr/bin/env bash
# make bench: the smart-grid case at scale (doc/cases/houses.md, "Scale"). For N = 7, 64 and 256
# houses, one simulated day with discrete-event Jacobi (and N = 7, 64 with the 5 s fixed step):
# the wall time, the RTI's CPU time (read from /proc before it stops), the messages per
# simulated day, and the RTI's CPU per house as a ratio to N = 7's: the RTI's work per house
# stays flat when the work per macro step grows linearly with the houses.
# usage: tests/bench/houses_bench.sh [METHOD:N ...]   (default: all the runs above)
set -u
cd "$(dirname "$0")/../.." || exit 1
dir=$(mktemp -d /tmp/houses_bench.XXXXXX)
trap 'kill "$rti" 2>/dev/null; rm -rf "$dir"' EXIT
tck=$(getconf CLK_TCK)
base=
printf "%-5s %6s %8s %10s %12s %12s %12s %14s\n" method N "wall s" "RTI CPU s" updates/day reflections requests "RTI CPU/house"
run() { # METHOD N
  examples/houses/gen.sh "$2" "$1" "$PWD" |
    sed -e 's/"end": 259200/"end": 86400/' -e "s|\"output\": \".*\"|\"output\": \"$dir/$1-$2\"|" >"$dir/f.json"
  bin/tempo-rti --listen 127.0.0.1:0 >"$dir/rti.out" 2>&1 &
  rti=$!
  addr=
  for _ in $(seq 200); do
    addr=$(grep -o '127\.0\.0\.1:[0-9]*' "$dir/rti.out" | head -n 1)
    [ -n "$addr" ] && break
    sleep 0.05
  done
  t0=$(date +%s.%N)
  if ! bin/tempo-run "$dir/f.json" --rti "$addr" --quiet >"$dir/run.out" 2>&1; then
    echo "houses_bench: $1 N=$2 failed: $(tail -3 "$dir/run.out")"
    kill "$rti"; return 1
  fi
  t1=$(date +%s.%N)
  cpu=$(awk -v t="$tck" '{ print ($14 + $15) / t }' "/proc/$rti/stat")
  kill "$rti"; wait "$rti" 2>/dev/null
  read -r upd refl req < <(sed -n 's/.*messages: \([0-9]*\) attribute updates sent, \([0-9]*\) reflections received, \([0-9]*\) time requests.*/\1 \2 \3/p' "$dir/run.out")
  per=$(awk -v c="$cpu" -v n="$2" 'BEGIN { printf "%.4f", c / n }')
  [ "$1 $2" = "de 7" ] && base=$per
  ratio=$(awk -v p="$per" -v b="$base" 'BEGIN { if (b > 0) printf "%.2fx", p / b; else print "-" }')
  printf "%-5s %6d %8.1f %10.2f %12s %12s %12s %8ss %s\n" "$1" "$2" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" "$cpu" "$upd" "$refl" "$req" "$per" "$ratio"
  rm -rf "${dir:?}/$1-$2"
}
# Arguments METHOD:N pick runs (houses_bench.sh de:256); the ratio needs de:7 first.
if [ $# -gt 0 ]; then
  for a in "$@"; do run "${a%%:*}" "${a##*:}"; done
else
  run de 7 && run de 64 && run de 256
  run fts 7 && run fts 64
fi
