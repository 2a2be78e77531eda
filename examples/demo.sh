#!/usr/bin/env bash
# make demo (doc/guide.md): start an RTI on an ephemeral port, run the example
# producer and consumer (examples/producer.c, examples/consumer.c; doc/guide.md walks
# through them), show the data flowing, and stop everything cleanly. Run from the
# repository root. Exit status 0 only when both federates and the RTI ended well.
set -u
cd "$(dirname "$0")/.." || exit 1
for p in bin/tempo-rti bin/tempo-example-producer bin/tempo-example-consumer; do
  [ -x "$p" ] || { echo "demo: $p is missing (run make first)"; exit 1; }
done
tmp=$(mktemp -d)
rti_pid=""; prod_pid=""; tail_pid=""
cleanup() {
  for p in $prod_pid $tail_pid $rti_pid; do kill "$p" 2>/dev/null; done
  wait 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

# Wait up to 5 s for a line matching $2 in file $1.
wait_for() {
  for _ in $(seq 1 100); do
    grep -q "$2" "$1" 2>/dev/null && return 0
    sleep 0.05
  done
  return 1
}

# 1. The RTI prints "tempo-rti listening on HOST:PORT" once it is ready.
bin/tempo-rti --listen 127.0.0.1:0 --log-level warn >"$tmp/rti.out" 2>"$tmp/rti.err" &
rti_pid=$!
wait_for "$tmp/rti.out" "listening on" || { echo "demo: the RTI did not start"; cat "$tmp/rti.err"; exit 1; }
addr=$(sed -n 's/.*listening on \([^ ]*\).*/\1/p' "$tmp/rti.out" | head -n 1)
echo "demo: RTI listening on $addr"

# 2. The producer creates the federation "demo" and waits for one peer; its lines are shown
#    as they come. Then the consumer joins, and both start together at sync point "start".
: >"$tmp/prod.out"   # exists before tail -f opens it
bin/tempo-example-producer --rti "$addr" --steps 10 >"$tmp/prod.out" 2>&1 &
prod_pid=$!
tail -n +1 -f --pid="$prod_pid" "$tmp/prod.out" | sed -u 's/^/  | /' &
tail_pid=$!
wait_for "$tmp/prod.out" "waiting for" || { echo "demo: the producer did not join"; exit 1; }
timeout 60 bin/tempo-example-consumer --rti "$addr" 2>&1 | sed -u 's/^/  |                                   /'
cons_rc=${PIPESTATUS[0]}
wait "$prod_pid"; prod_rc=$?; prod_pid=""
wait "$tail_pid" 2>/dev/null; tail_pid=""

# 3. Stop the RTI cleanly (SIGTERM) and report.
kill -TERM "$rti_pid"; wait "$rti_pid"; rti_rc=$?; rti_pid=""
echo "demo: producer exit $prod_rc, consumer exit $cons_rc, RTI exit $rti_rc"
[ "$prod_rc" -eq 0 ] && [ "$cons_rc" -eq 0 ] && [ "$rti_rc" -eq 0 ]
