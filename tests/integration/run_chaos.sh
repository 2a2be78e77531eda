#!/usr/bin/env bash
# Chaos under tempo-run (doc/run.md "Failures"): rounds of a two-federate federation in which a
# federate chosen at random is, at a random moment, killed (SIGKILL), terminated (SIGTERM),
# stopped (SIGSTOP) or slowed (stopped and continued in short pulses) once the federation
# steps. Every round must end within its deadline (10 s after a kill or a SIGTERM; the 6 s
# --timeout plus the grace for a stop): a killed or terminated federate named by tempo-run's report, a stopped
# one named "(stopped)" when --timeout ends the run, a slowed one finishing normally; and no
# process of the round (RTI, federates) nor unpacked FMU folder may be left. Bounded: 5 rounds
# of a few seconds each. TEMPO_CHAOS_SEED=n replays a sequence. Prints "N passed, N failed".
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
for p in bin/tempo-run bin/tempo-fmu bin/tempo-rti build/fmus/lv_prey_me.fmu; do
  [ -e "$p" ] || { echo "run_chaos: $p is missing (run make first)"; echo "0 passed, 1 failed"; exit 1; }
done
seed=${TEMPO_CHAOS_SEED:-$(( $(date +%s) % 100000 ))}
RANDOM=$seed
echo "run_chaos: seed $seed (TEMPO_CHAOS_SEED=$seed replays it)"
tmp=$(mktemp -d /tmp/tempo-chaos.XXXXXX)
export TMPDIR=$tmp/tmp # the federates unpack their FMUs here: leftovers are counted
mkdir -p "$TMPDIR"
run_pid=""
cleanup() {
  [ -n "$run_pid" ] && kill -9 "$run_pid" 2>/dev/null
  pkill -9 -f -- "$tmp/" 2>/dev/null
  wait 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
fmus=$PWD/build/fmus
# chaos_file FILE END: Lotka-Volterra, gauss-seidel, RTI on a Unix socket under $tmp (so that
# every process of the round has $tmp on its command line).
chaos_file() {
  cat >"$1" <<EOT
{ "federation": "chaos", "rti": "unix:$1.sock",
  "algorithm": { "method": "gauss-seidel", "end": $2, "step": 0.5 },
  "federates": [
    { "name": "prey", "fmu": "$fmus/lv_prey_me.fmu",
      "parameters": { "alpha": 0.5, "beta": 0.7, "x0": 1 },
      "outputs": { "x": "Prey.x" }, "inputs": { "y": "Predator.y" } },
    { "name": "predator", "fmu": "$fmus/lv_predator_me.fmu",
      "parameters": { "gamma": 0.27, "delta": 0.6, "y0": 1 },
      "outputs": { "y": "Predator.y" }, "inputs": { "x": "Prey.x" } } ],
  "output": "$1.out" }
EOT
}
nothing_left() { ! pgrep -f -- "$tmp/" >/dev/null; }
no_tmp_folders() { [ -z "$(ls -A "$TMPDIR")" ]; }
kinds=(kill term stop slow kill stop)
for round in 1 2 3 4 5; do
  kind=${kinds[$((RANDOM % ${#kinds[@]}))]}
  [ "$round" -le 4 ] && kind=${kinds[$((round - 1))]} # each kind at least once
  victim=$([ $((RANDOM % 2)) -eq 0 ] && echo prey || echo predator)
  delay_ms=$((200 + RANDOM % 600))
  f=$tmp/r$round.json
  end=100000 timeout=30000
  [ "$kind" = slow ] && end=10
  [ "$kind" = stop ] && timeout=6000 # what ends a run whose federate is stopped
  chaos_file "$f" "$end"
  t0=$(date +%s%N)
  bin/tempo-run "$f" --quiet --timeout "$timeout" >"$f.stdout" 2>"$f.stderr" &
  run_pid=$!
  # The fault strikes a federation that steps: once both CSVs have rows (on a loaded machine
  # start-up alone may take seconds), then after a random delay.
  for _ in $(seq 1 400); do
    [ "$(wc -l 2>/dev/null <"$f.out/prey.csv" || echo 0)" -gt 2 ] &&
      [ "$(wc -l 2>/dev/null <"$f.out/predator.csv" || echo 0)" -gt 2 ] && break
    sleep 0.02
  done
  vpid=$(pgrep -f -- "tempo-fmu --federation $f --name $victim" | head -n 1)
  started_ms=$((($(date +%s%N) - t0) / 1000000))
  if [ "$kind" = stop ] && [ "$started_ms" -gt $((timeout / 2)) ]; then
    kind=kill # too slow a start to leave the stop to the timeout: a kill instead
  fi
  sleep "$(printf '0.%03d' "$delay_ms")"
  t1=$(date +%s%N)
  case $kind in
    kill) kill -KILL "$vpid" 2>/dev/null ;;
    term) kill -TERM "$vpid" 2>/dev/null ;;
    stop) kill -STOP "$vpid" 2>/dev/null ;;
    slow) for _ in 1 2 3 4 5; do
        kill -STOP "$vpid" 2>/dev/null; sleep 0.05; kill -CONT "$vpid" 2>/dev/null; sleep 0.05
      done ;;
  esac
  # tempo-run's --timeout is the safety net (30 s; 6 s when a federate is stopped).
  for _ in $(seq 1 600); do kill -0 "$run_pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$run_pid" 2>/dev/null; then kill -9 "$run_pid"; fi
  wait "$run_pid"
  rc=$?
  run_pid=""
  ms=$((($(date +%s%N) - t0) / 1000000))
  after_ms=$((($(date +%s%N) - t1) / 1000000)) # since the fault
  what="round $round: $kind $victim ${delay_ms} ms after it stepped"
  case $kind in
    kill)
      check "$what: exit 1 (got $rc)" test "$rc" -eq 1
      check "$what: names it ($(tail -c 300 "$f.stderr"))" has "$f.stderr" "child '$victim' (pid $vpid) was killed by SIGKILL" ;;
    term)
      check "$what: exit 1 (got $rc)" test "$rc" -eq 1
      check "$what: names it ($(tail -c 300 "$f.stderr"))" has "$f.stderr" "child '$victim' (pid $vpid)" ;;
    stop)
      check "$what: exit 1 (got $rc)" test "$rc" -eq 1
      check "$what: names it stopped ($(tail -c 300 "$f.stderr"))" has "$f.stderr" "'$victim' (stopped)" ;;
    slow)
      check "$what: finishes (exit $rc; $(tail -c 300 "$f.stderr"))" test "$rc" -eq 0 ;;
  esac
  # Deadlines: a killed or terminated federate ends the run within 10 s of the fault; a
  # stopped one within the --timeout plus the 2 s grace (and 5 s of slack).
  if [ "$kind" = stop ]; then
    check "$what: ended within $((timeout / 1000 + 7)) s of the start ($ms ms)" test "$ms" -lt $((timeout + 7000))
  elif [ "$kind" != slow ]; then
    check "$what: ended within 10 s of the fault ($after_ms ms)" test "$after_ms" -lt 10000
  fi
  sleep 0.2
  check "$what: no process left ($(pgrep -af -- "$tmp/" | head -c 300))" nothing_left
  check "$what: no unpacked FMU left ($(ls "$TMPDIR" | head -c 200))" no_tmp_folders
  echo "run_chaos: $what: exit $rc in $ms ms ($after_ms ms after the fault)"
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
