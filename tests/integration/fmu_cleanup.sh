#!/usr/bin/env bash
# Unpacked FMU folders do not outlive tempo-fmu (doc/fmu.md §1): none is left after a normal
# exit, an error exit, SIGINT, SIGTERM or SIGHUP; a SIGKILLed process leaves its folder, and the
# next process that unpacks an FMU removes it, while the folder of a live process stays. Each
# case counts the tempo-fmu-* folders in a private $TMPDIR. Run from the repository root with
# bin/ and build/fmus/ built.
set -u
bin=$(pwd)/bin/tempo-fmu
fmu=$(pwd)/build/fmus/dahlquist_cs.fmu
mkdir -p build/fmu-fixtures
TMPDIR=$(cd "$(mktemp -d build/fmu-fixtures/cleanup.XXXXXX)" && pwd)
export TMPDIR
# Only the script's own shell cleans up (a subshell must never remove the folder under test).
cleanup() {
  [ "$BASHPID" = "$$" ] || return 0
  kill $(jobs -p) 2>/dev/null
  rm -rf "$TMPDIR"
}
trap cleanup EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
count() { find "$TMPDIR" -maxdepth 1 -name 'tempo-fmu-*' | wc -l; }
# want N WHAT: the number of folders now.
want() {
  local n
  n=$(count)
  if [ "$n" -eq "$1" ]; then ok; else ko "$2: $n folders left, want $1: $(ls "$TMPDIR")"; fi
}
# A run that lasts until it is stopped (a billion steps of a CS FMU). A non-interactive shell
# starts background jobs with SIGINT ignored, and tempo-fmu keeps an ignored signal ignored:
# env gives it the default disposition back, as a terminal's Ctrl-C would find it.
long_run() {
  env --default-signal=INT "$bin" --simulate "$fmu" --stop 1e9 --step 0.001 >/dev/null \
    2>"$TMPDIR/err.$1" &
}
# Wait (up to 10 s) until N folders exist.
wait_for() {
  for _ in $(seq 100); do [ "$(count)" -ge "$1" ] && return 0; sleep 0.1; done
  return 1
}

"$bin" --simulate "$fmu" --stop 1 >/dev/null 2>&1 || ko "normal run failed"
want 0 "normal exit"
"$bin" --simulate "$fmu" --set nope=1 >/dev/null 2>&1 && ko "bad --set accepted"
want 0 "error exit (unknown parameter)"
"$bin" --simulate "$fmu" --stop -1 --start 0 >/dev/null 2>&1
want 0 "error exit (bad stop time)"
"$bin" --info "$fmu" >/dev/null 2>&1 || ko "--info failed"
want 0 "--info"

for sig in INT TERM HUP; do
  long_run "$sig"
  pid=$!
  wait_for 1 || ko "SIG$sig: no folder appeared"
  kill -s "$sig" "$pid"
  # At most 20 s for the process to end, then SIGKILL (the status then says so).
  for _ in $(seq 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  st=$?
  want_st=$((128 + $(kill -l "$sig")))
  # The process ends by the signal itself (the status its parent expects).
  if [ "$st" -eq "$want_st" ]; then ok; else ko "SIG$sig: status $st, want $want_st"; fi
  want 0 "SIG$sig"
done

# SIGKILL: nothing can clean up; the folders stay until the next process unpacks an FMU.
# A live process's folder is left alone meanwhile.
long_run live
live=$!
wait_for 1 || ko "live run: no folder"
pids=""
for i in 1 2 3 4 5; do
  long_run "k$i"
  pids="$pids $!"
done
wait_for 6 || ko "killed runs: not all folders appeared ($(count))"
for p in $pids; do kill -KILL "$p"; wait "$p" 2>/dev/null; done
want 6 "after 5 SIGKILLs (5 leftovers + 1 live)"
"$bin" --simulate "$fmu" --stop 0.1 >/dev/null 2>&1 || ko "sweeping run failed"
want 1 "after the next run (the live process keeps its folder)"
if find "$TMPDIR" -maxdepth 1 -name "tempo-fmu-$live-*" | grep -q .; then ok
else ko "the live process's folder was removed"; fi
kill -TERM "$live"
wait "$live" 2>/dev/null
want 0 "live process terminated"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
