#!/usr/bin/env bash
# A federation log with a fan-out (doc/log.md: SENT_AGAIN): one producer, two consumers, so
# every sample is reflected to two subscribers and the second copy is stored as a repeat.
# Both consumers must replay to the end against the log (each receives exactly the recorded
# frames, repeats included), and `tempo-log json` must return as many SENT records as the
# federates were sent. Prints "N passed, N failed" (tests/run.sh). Run from the repository root.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/lib.sh tlog_fanout
mkdir "$dir/logs"
rti_start "$dir" --log-level warn --log "$dir/logs"
addr=$RTI_ADDR
timeout 30 bin/tempo-example-producer --rti "$addr" --steps 4 --peers 2 >"$dir/p.out" 2>&1 &
prod=$!
for _ in $(seq 1 100); do grep -q "waiting for" "$dir/p.out" 2>/dev/null && break; sleep 0.05; done
timeout 30 bin/tempo-example-consumer --rti "$addr" --name c1 >"$dir/c1.out" 2>&1 &
c1=$!
timeout 30 bin/tempo-example-consumer --rti "$addr" --name c2 >"$dir/c2.out" 2>&1
c2rc=$?
wait "$c1"; c1rc=$?
wait "$prod"; prc=$?
rti_stop
check "producer and both consumers end well ($prc, $c1rc, $c2rc)" \
  test "$prc" -eq 0 -a "$c1rc" -eq 0 -a "$c2rc" -eq 0
log=$(find "$dir/logs" -name '*.tlog' | head -n 1)
check "a log was written" test -n "$log"
[ -n "$log" ] || { echo "$pass passed, $fail failed"; exit 1; }
sent_json=$(bin/tempo-log json "$log" | grep -c '"kind": *"SENT"')
sent_stats=$(bin/tempo-log stats "$log" | awk '$1 == "producer" || $1 == "c1" || $1 == "c2" { s += $3 } END { print s + 0 }')
check "json SENT records ($sent_json) = frames sent per stats ($sent_stats)" \
  test "$sent_json" -gt 0 -a "$sent_json" -eq "$sent_stats"
for c in c1 c2; do
  out=$(timeout 60 bin/tempo-log replay "$log" --federate "$c" -- \
        bin/tempo-example-consumer --rti {rti} --name "$c" 2>&1)
  rc=$?
  check "$c replays to the end (status $rc)" test "$rc" -eq 0
  check "$c: MATCHED" grep -q "MATCHED to the end of the log" <<<"$out"
  check "$c: the replayed consumer reflects 4 samples" grep -q "done, 4 updates reflected" <<<"$out"
done
finish
