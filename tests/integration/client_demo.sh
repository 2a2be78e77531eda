#!/usr/bin/env bash
# Integration test of the example federates through examples/demo.sh (doc/guide.md walks
# through them): the demo ends well, the consumer reflects the producer's 10 samples in
# time-stamp order, each before it is granted the sample's time, and the producer receives the
# consumer's Command; and a 3-step run (no Command then) ends too. Prints "N passed, N failed"
# (tests/run.sh). Run from the repository root.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/lib.sh client_demo
out=$(timeout 120 examples/demo.sh 2>&1)
rc=$?
check "demo exits 0 (got $rc)" test "$rc" -eq 0
check "RTI, producer and consumer end with status 0" \
  grep -q "demo: producer exit 0, consumer exit 0, RTI exit 0" <<<"$out"
n=$(grep -c "consumer: t=.* (TSO, my time" <<<"$out")
check "10 TSO reflections (got $n)" test "$n" -eq 10
# Sample k is stamped k/10 s and reflected while the consumer is still at (k-1)/10 s.
ok=1
for k in $(seq 1 10); do
  t=$(awk -v k="$k" 'BEGIN { printf "%.1f", k / 10 }')
  p=$(awk -v k="$k" 'BEGIN { printf "%.1f", (k - 1) / 10 }')
  grep -q "consumer: t=$t s (TSO, my time $p s) sample $k:" <<<"$out" || ok=0
done
check "every sample reflected at its time, before the grant" test "$ok" -eq 1
order=$(grep -o "sample [0-9]*:" <<<"$out" | tr -dc '0-9\n' | tr '\n' ' ')
check "samples in order (got: $order)" test "$order" = "1 2 3 4 5 6 7 8 9 10 "
check "the removal comes after the last sample" \
  bash -c 'awk "/sample 10:/{s=NR} /removed by federate/{r=NR} END{exit !(s && r > s)}" <<<"$1"' _ "$out"
check "the producer receives the Command" grep -q "producer: Command from federate" <<<"$out"
check "the consumer reports 10 updates" grep -q "consumer: done, 10 updates reflected" <<<"$out"
[ "$fail" -eq 0 ] || printf '%s\n' "$out" | sed 's/^/    | /'

# A short run (3 steps: no sample above 0.5, so no Command) must end too, and quickly: the
# producer must not wait for a Command that never comes.
rti_start "$dir" --log-level warn
addr=$RTI_ADDR
timeout 30 bin/tempo-example-producer --rti "$addr" --steps 3 >"$dir/p.out" 2>&1 &
prod=$!
for _ in $(seq 1 100); do grep -q "waiting for" "$dir/p.out" 2>/dev/null && break; sleep 0.05; done
timeout 30 bin/tempo-example-consumer --rti "$addr" >"$dir/c.out" 2>&1
crc=$?
wait "$prod"
prc=$?
rti_stop 2>/dev/null
check "3 steps: the consumer ends well (status $crc)" test "$crc" -eq 0
check "3 steps: the producer ends well (status $prc)" test "$prc" -eq 0
check "3 steps: 3 updates reflected" grep -q "consumer: done, 3 updates reflected" "$dir/c.out"
finish
