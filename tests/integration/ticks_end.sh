#!/usr/bin/env bash
# Times from integer ticks (doc/fmu.md "Where the FMU's time comes from", doc/time.md "Seconds
# from ticks"): long runs of small steps end exactly on the stop time under every method, and
# the FMU is handed exactly the grid points. Two `clock` FMUs (build/fmus/clock_*.fmu: a lag
# that outputs its own time as the host's calls set it) are coupled in a loop; each row of their
# CSVs must carry the FMU's time equal to the row's time, digit for digit, and the last row must
# be the end time. A time accumulated in floating point drifts: after 10^5 steps of 0.001 s it is
# 99.999000000113, and the step to 100 "goes past the stop time".
# Runs, in one process but for the last (the time arithmetic is the same in every placement:
# the peers' model and the slaves' wrapper are shared by tempo-fmu, its slave role and
# tempo-master):
#   - 10^5 steps of 0.001 s and 10^4 of 0.1 s (a time off the grid shows at its first row, which
#     every row's check finds): every fixed-step method of tempo-master --list-methods,
#     the peers by tempo-fmu --all, the masters by tempo-master --local; balance and energy on
#     the spring-mass example files (their FMUs have power ports);
#   - 10^6 steps: jacobi of 0.001 s, master-jacobi of 0.1 s (one each: 10^6 steps take about
#     10 s of CPU per run, so the other methods stay at 10^5); with TEMPO_TICKS_FULL=1 every
#     fixed-step method of both step sizes (by hand: about 4 min of CPU);
#   - variable steps: jacobi-de, f3ornits, hybrid and defect-control with step-size control:
#     the last row is the end time;
#   - distributed (tempo-run): jacobi and master-jacobi, 2000 steps of 0.001 s.
# In two halves of about 25 s of CPU each, so that the parallel runner (tests/run.sh) runs them
# side by side: `ticks_end.sh` (or --short) the 10^5-step runs of every method, the variable
# steps and the distributed runs; `ticks_end.sh --long` (tests/integration/ticks_long.sh) the
# 10^6-step runs, balance and energy; --all both. Prints "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
part=${1:---short}
case $part in --short | --long | --all) ;; *) echo "usage: $0 [--short | --long | --all]" >&2; exit 2 ;; esac
. tests/integration/lib.sh ticks_end
need ticks_end bin/tempo-fmu bin/tempo-master bin/tempo-run bin/tempo-rti build/fmus/clock_cs.fmu build/fmus/clock_me.fmu

# clk FILE KIND ALGORITHM-JSON [EXTRA-FEDERATE-KEYS]: a and b, each input the other's output.
clk() {
  cat >"$1" <<EOT
{
  "federation": "ticks",
  "algorithm": $3,
  "solver": { "rtol": 1e-6, "atol": 1e-8 },
  "federates": [
    { "name": "a", "fmu": "$PWD/build/fmus/clock_$2.fmu", "parameters": { "x0": 1 },
      "outputs": { "y": "A.y" }, "inputs": { "u": "B.y" }, "record": [ "clock", "y" ]${4:-} },
    { "name": "b", "fmu": "$PWD/build/fmus/clock_$2.fmu",
      "outputs": { "y": "B.y" }, "inputs": { "u": "A.y" }, "record": [ "clock", "y" ]${4:-} }
  ],
  "output": "$dir/out"
}
EOT
}

# ends_on NAME END [GRID [CSV...]]: the CSVs (default a and b) end on the row END exactly (as
# %.17g prints it); with GRID "grid", every row's clock column equals its time column, text for
# text.
ends_on() {
  local name=$1 end=$2 grid=${3:-} f last bad csvs=("$dir/out/a.csv" "$dir/out/b.csv")
  [ $# -gt 3 ] && csvs=("${@:4}")
  for f in "${csvs[@]}"; do
    last=$(tail -n 1 "$f" | cut -d, -f1)
    if [ "$last" != "$end" ]; then
      ko "$name: $(basename "$f"): last row at t = '$last', not $end"
      return
    fi
    if [ -n "$grid" ]; then
      [ "$grid" = grid ] || continue
      bad=$(awk -F, 'NR > 1 && $1 != $2 { print "row " NR ": time " $1 ", the FMU at " $2; exit }' "$f")
      if [ -n "$bad" ]; then
        ko "$name: $(basename "$f"): $bad"
        return
      fi
    fi
  done
  ok
}

# run NAME PROGRAM-ARGS...: one run into $dir/out, its status checked.
run() {
  local name=$1
  shift
  rm -rf "$dir/out"
  if ! timeout 300 "$@" >"$dir/run.out" 2>&1; then
    ko "$name: $* failed: $(grep -v "^progress" "$dir/run.out" | tail -c 600)"
    return 1
  fi
}

peer() { run "$1" bin/tempo-fmu --federation "$dir/f.json" --all; }
master() { run "$1" bin/tempo-master --federation "$dir/f.json" --local --quiet; }

# 1. Fixed steps: 10^5 of 0.001 s to 100 s, 10^4 of 0.1 s to 1000 s, under every method that
#    tempo-master --list-methods lists (so a new one is run without an edit here).
# fixed M H END: the FMU kind and the "algorithm" object of method M for fixed steps of H to
# END, or "" for the methods whose cases follow (variable steps: 3.; power ports: 1b.). A method
# without a case of its own, a new one included, runs as { method, end, step } over
# co-simulation FMUs: a method that needs other keys fails here, naming itself.
fixed() {
  case $1 in
    jacobi-de | f3ornits | balance | energy) echo "" ;;
    jacobi-naive | strong) echo "me { \"method\": \"$1\", \"end\": $3, \"step\": $2 }" ;;
    wr) echo "cs { \"method\": \"wr\", \"end\": $3, \"step\": $2, \"n_sub\": 1, \"tol\": 1e-6 }" ;;
    hybrid) echo "me { \"method\": \"hybrid\", \"end\": $3, \"step\": $2, \"hybrid\": { \"h_min\": $2, \"h_max\": $2 } }" ;;
    defect-control) echo "cs { \"method\": \"defect-control\", \"end\": $3, \"defect-control\": { \"h1\": $2, \"clip_end\": true } }" ;;
    *) echo "cs { \"method\": \"$1\", \"end\": $3, \"step\": $2 }" ;;
  esac
}
methods=$(bin/tempo-master --list-methods | tr ' ' ':')
[ -n "$methods" ] || ko "tempo-master --list-methods lists no method"
[ "$part" = --long ] || for spec in "0.001 100" "0.1 1000"; do
  set -- $spec
  h=$1 end=$2
  for ms in $methods; do
    m=${ms%%:*} side=${ms#*:}
    c=$(fixed "$m" "$h" "$end")
    [ -n "$c" ] || continue
    clk "$dir/f.json" "${c%% *}" "${c#* }"
    if [ "$side" = peer ]; then peer "$m $h"; else master "$m $h"; fi &&
      ends_on "$m (${c%% *}), $(awk "BEGIN { printf \"%d\", $end / $h }") steps of $h s" "$end" grid
  done
done

# 1b. Balance and energy need their power ports: the spring-mass example files, 10^5 steps of
#     0.0002 s and 0.00075 s (solver tolerances relaxed to keep them cheap); the last rows.
[ "$part" = --short ] || for spec in "springmass_balance.json 0.1 0.0002 20" "springmass_energy.json 0.2 0.00075 75"; do
  set -- $spec
  sed -e "s|\"step\": $2|\"step\": $3|" -e 's|"solver": {[^}]*}|"solver": { "rtol": 1e-6, "atol": 1e-8 }|' \
    -e "s|\"\\.\\./build/|\"$PWD/build/|g" -e "s|\"output\": \"[^\"]*\"|\"output\": \"$dir/out\"|" \
    "examples/$1" >"$dir/f.json"
  master "$1" && ends_on "${1%%_*} ${1#*_}, 10^5 steps of $3 s" "$4" "" "$dir/out/spring.csv" "$dir/out/mass.csv"
done

# 2. 10^6 steps. TEMPO_TICKS_FULL=1: under every fixed-step method, of 0.001 s and of 0.1 s
#    (26 runs, about 4 min of CPU: by hand, not in make test); else the two runs below.
if [ "$part" != --short ] && [ "${TEMPO_TICKS_FULL:-0}" = 1 ]; then
  for spec in "0.001 1000" "0.1 100000"; do
    set -- $spec
    h=$1 end=$2
    for ms in $methods; do
      m=${ms%%:*} side=${ms#*:}
      c=$(fixed "$m" "$h" "$end")
      [ -n "$c" ] || continue
      clk "$dir/f.json" "${c%% *}" "${c#* }"
      if [ "$side" = peer ]; then peer "$m $h 10^6"; else master "$m $h 10^6"; fi &&
        ends_on "$m (${c%% *}), 10^6 steps of $h s" "$end" grid
    done
  done
elif [ "$part" != --short ]; then
  clk "$dir/f.json" cs '{ "method": "jacobi", "end": 1000, "step": 0.001 }'
  peer "jacobi 10^6" && ends_on "jacobi, 10^6 steps of 0.001 s" 1000 grid
  clk "$dir/f.json" cs '{ "method": "master-jacobi", "end": 100000, "step": 0.1 }'
  master "master-jacobi 10^6" && ends_on "master-jacobi, 10^6 steps of 0.1 s" 100000 grid
fi
if [ "$part" = --long ]; then
  finish
  exit
fi

# 3. Variable steps: the end lands on the stop time (the FMU's time stays on the row's time).
clk "$dir/f.json" cs '{ "method": "jacobi-de", "end": 100, "quantum": 1e-3, "h_min": 0.001, "h_max": 0.1 }'
peer "jacobi-de" && ends_on "jacobi-de (variable)" 100 grid
clk "$dir/f.json" cs '{ "method": "f3ornits", "end": 100, "f3ornits": { "dt_init": 0.001, "dt_max": 0.1 } }'
master "f3ornits" && ends_on "f3ornits (variable)" 100 grid
clk "$dir/f.json" me '{ "method": "hybrid", "end": 100, "step": 0.1, "hybrid": { "h_min": 0.001, "h_max": 0.1, "tol_d": 1e-4 } }'
master "hybrid variable" && ends_on "hybrid (variable)" 100 grid
clk "$dir/f.json" cs '{ "method": "defect-control", "end": 100, "defect-control": { "h1": 0.001, "tol": 1e-4, "h_max": 0.1, "clip_end": true } }'
master "defect-control variable" && ends_on "defect-control (variable)" 100 grid

# 4. Distributed (tempo-rti and one process per federate, the master's too): the same grid,
#    over 2000 steps (a process per federate pays a round trip per step, and a drift shows at
#    the tenth step already: 0.009000000000000001).
for m in jacobi master-jacobi; do
  clk "$dir/f.json" cs "{ \"method\": \"$m\", \"end\": 2, \"step\": 0.001 }"
  run "$m distributed" bin/tempo-run "$dir/f.json" --distributed --quiet --timeout 120000 &&
    ends_on "$m distributed, 2000 steps of 0.001 s" 2 grid
done

finish
