#!/usr/bin/env bash
# The per-federation log setting (doc/log.md): `tempo-rti --log DIR --log-only
# PATTERNS` writes a federation log only for the federations whose name matches a pattern.
# Two producer/consumer pairs (examples/) run in federations "keep-a" and "skip-b" on one RTI
# started with --log-only 'keep*,other'; exactly one log must appear, keep-a's, and it must
# read back whole. Also: a malformed --log-only is refused with status 2. Prints
# "N passed, N failed" (tests/run.sh). Run from the repository root.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/lib.sh rti_log_only

mkdir "$dir/logs"
rti_start "$dir" --log-level warn --log "$dir/logs" --log-only 'keep*,other'
addr=$RTI_ADDR
check "the RTI starts" test -n "$addr"

# run_pair FEDERATION: one producer (3 steps) and one consumer; both must end well.
run_pair() {
  local fed=$1
  timeout 30 bin/tempo-example-producer --rti "$addr" --federation "$fed" --steps 3 \
    >"$dir/$fed.p" 2>&1 &
  local prod=$!
  for _ in $(seq 1 100); do grep -q "waiting for" "$dir/$fed.p" 2>/dev/null && break; sleep 0.05; done
  timeout 30 bin/tempo-example-consumer --rti "$addr" --federation "$fed" >"$dir/$fed.c" 2>&1
  local crc=$?
  wait "$prod"
  local prc=$?
  check "$fed: consumer and producer end well ($crc, $prc)" test "$crc" -eq 0 -a "$prc" -eq 0
}
run_pair keep-a
run_pair skip-b
rti_stop; rc=$?
check "the RTI stops cleanly (status $rc)" test "$rc" -eq 0

n_keep=$(find "$dir/logs" -name 'keep-a-*.tlog' | wc -l)
n_all=$(find "$dir/logs" -name '*.tlog' | wc -l)
check "one log for keep-a (got $n_keep)" test "$n_keep" -eq 1
check "no log for skip-b (logs in all: $n_all)" test "$n_all" -eq 1
log=$(find "$dir/logs" -name 'keep-a-*.tlog' | head -n 1)
if [ -n "$log" ]; then
  stats=$(bin/tempo-log stats "$log" 2>&1)
  check "tempo-log reads the kept log (federates producer and consumer)" \
    bash -c 'grep -q producer <<<"$1" && grep -q consumer <<<"$1"' _ "$stats"
fi

bin/tempo-rti --listen 127.0.0.1:0 --log "$dir/logs" --log-only 'a,,b' >/dev/null 2>"$dir/bad.err"
rc=$?
check "an empty pattern is refused with status 2 (got $rc)" test "$rc" -eq 2
check "the refusal names the option" grep -q -- "--log-only" "$dir/bad.err"

finish
