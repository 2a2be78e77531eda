#!/usr/bin/env bash
# Several hosts (doc/run.md "Distributed runs"): two network namespaces joined by a veth pair,
# made by this test and removed after (needs root; skipped with a line saying why otherwise).
# 1. The RTI in one namespace, bound to its address with a secret; tempo-run with both
#    federates in the other: the same CSVs, byte for byte, as the same file on loopback.
# 2. RTI and prey in one namespace, predator in the other; the veth taken down mid-run: the
#    RTI drops the silent peer (--peer-timeout-ms 3000) and prey ends within 15 s naming
#    predator; predator, cut off from the RTI, ends on its own liveness deadline
#    (TEMPO_LIVENESS_MS 3000, doc/api.md "Liveness") naming it. Prints "N passed, N failed".
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
skip() { echo "run_netns: SKIPPED: $*"; echo "0 passed, 0 failed"; exit 0; }
[ "$(id -u)" -eq 0 ] || skip "not root (network namespaces and veth pairs need CAP_NET_ADMIN)"
command -v ip >/dev/null || skip "no ip(8) (iproute2)"
id=$(($$ % 100000))
nsa=tempo-a-$id
nsb=tempo-b-$id
va=tva$id
vb=tvb$id
net=10.$((200 + id % 50)).$((id % 250)).0
ipa=${net%.0}.1
ipb=${net%.0}.2
tmp=$(mktemp -d /tmp/tempo-netns.XXXXXX)
pids=""
cleanup() {
  for p in $pids; do kill -9 "$p" 2>/dev/null; done
  wait 2>/dev/null
  ip netns del "$nsa" 2>/dev/null
  ip netns del "$nsb" 2>/dev/null # deleting a namespace removes its end of the veth pair
  rm -rf "$tmp"
}
trap cleanup EXIT
ip netns add "$nsa" 2>"$tmp/e" || skip "ip netns add failed: $(cat "$tmp/e")"
ip netns add "$nsb" 2>"$tmp/e" || skip "ip netns add failed: $(cat "$tmp/e")"
ip link add "$va" type veth peer name "$vb" 2>"$tmp/e" || skip "no veth pair: $(cat "$tmp/e")"
ip link set "$va" netns "$nsa" && ip link set "$vb" netns "$nsb" &&
  ip -n "$nsa" addr add "$ipa/24" dev "$va" && ip -n "$nsb" addr add "$ipb/24" dev "$vb" &&
  ip -n "$nsa" link set "$va" up && ip -n "$nsb" link set "$vb" up &&
  ip -n "$nsa" link set lo up && ip -n "$nsb" link set lo up || skip "cannot configure the veth pair"
sleep 0.3 # the veth's carrier
echo "run_netns: $nsa ($ipa) <-veth-> $nsb ($ipb)"
root=$PWD
printf 'netns-secret\n' >"$tmp/secret"
chmod 600 "$tmp/secret"
fed() { # fed FILE END OUT
  sed -e "s#\"\.\./build/fmus/#\"$root/build/fmus/#" -e "s#\"end\": 100#\"end\": $2#" \
    -e "s#\"output\": \"[^\"]*\"#\"output\": \"$3\"#" examples/lv_gs.json >"$1"
}
# rti_in NS ARGS...: start tempo-rti in NS on its address, port 0; sets RTI_ADDR.
rti_in() {
  local ns=$1 ip=$2
  shift 2
  ip netns exec "$ns" bin/tempo-rti --listen "$ip:0" --allow-remote --secret-file "$tmp/secret" \
    "$@" >"$tmp/rti.out" 2>"$tmp/rti.err" &
  pids="$pids $!"
  RTI_PID=$!
  for _ in $(seq 1 100); do grep -q "listening on" "$tmp/rti.out" 2>/dev/null && break; sleep 0.05; done
  RTI_ADDR=$(sed -n 's/^tempo-rti listening on \(.*\)$/\1/p' "$tmp/rti.out" | head -n 1)
  [ -n "$RTI_ADDR" ]
}

# 1. Same results across the namespaces as on loopback.
fed "$tmp/lv.json" 100 "$tmp/out"
check "RTI starts in $nsa on $ipa" rti_in "$nsa" "$ipa"
ip netns exec "$nsb" env TEMPO_SECRET_FILE="$tmp/secret" bin/tempo-run "$tmp/lv.json" \
  --rti "$RTI_ADDR" --quiet --output "$tmp/remote" >"$tmp/remote.log" 2>&1
check "tempo-run in $nsb against the RTI at $RTI_ADDR (exit $?; $(tail -c 300 "$tmp/remote.log"))" \
  test -s "$tmp/remote/prey.csv"
ip netns exec "$nsb" bin/tempo-run "$tmp/lv.json" --rti "$RTI_ADDR" --quiet --timeout 20000 \
  --output "$tmp/nosecret" >"$tmp/nosecret.log" 2>&1
check "without the secret it is refused" has "$tmp/nosecret.log" "secret"
bin/tempo-run "$tmp/lv.json" --quiet --output "$tmp/local" >"$tmp/local.log" 2>&1
check "the same file on loopback runs" test -s "$tmp/local/prey.csv"
check "prey.csv identical" cmp -s "$tmp/remote/prey.csv" "$tmp/local/prey.csv"
check "predator.csv identical" cmp -s "$tmp/remote/predator.csv" "$tmp/local/predator.csv"
kill "$RTI_PID" 2>/dev/null
wait "$RTI_PID" 2>/dev/null

# 2. A link cut mid-run.
fed "$tmp/long.json" 100000 "$tmp/cut"
check "RTI starts with --peer-timeout-ms 3000" rti_in "$nsa" "$ipa" --peer-timeout-ms 3000
export TEMPO_SECRET_FILE=$tmp/secret
ip netns exec "$nsa" bin/tempo-fmu --federation "$tmp/long.json" --name prey --rti "$RTI_ADDR" \
  --quiet >"$tmp/prey.log" 2>&1 &
prey=$!
pids="$pids $prey"
ip netns exec "$nsb" env TEMPO_LIVENESS_MS=3000 bin/tempo-fmu --federation "$tmp/long.json" \
  --name predator --rti "$RTI_ADDR" --quiet >"$tmp/predator.log" 2>&1 &
predator=$!
pids="$pids $predator"
for _ in $(seq 1 100); do [ -s "$tmp/cut/prey.csv" ] && break; sleep 0.05; done
sleep 0.5
check "the run is going before the cut" test -s "$tmp/cut/prey.csv"
t0=$(date +%s%N)
ip -n "$nsb" link set "$vb" down
for _ in $(seq 1 150); do kill -0 "$prey" 2>/dev/null || break; sleep 0.1; done
ms=$((($(date +%s%N) - t0) / 1000000))
check "prey ended after the cut ($ms ms)" bash -c "! kill -0 $prey 2>/dev/null"
wait "$prey" 2>/dev/null
check "within 15 s ($ms ms)" test "$ms" -lt 15000
check "prey names the lost federate ($(tail -c 300 "$tmp/prey.log"))" has "$tmp/prey.log" "predator"
check "the RTI logs it lost ($(grep predator "$tmp/rti.err" | tail -n 1 | head -c 300))" \
  has "$tmp/rti.err" "predator@"
for _ in $(seq 1 150); do kill -0 "$predator" 2>/dev/null || break; sleep 0.1; done
pms=$((($(date +%s%N) - t0) / 1000000))
check "predator ended after the cut ($pms ms)" bash -c "! kill -0 $predator 2>/dev/null"
wait "$predator" 2>/dev/null
check "predator within 15 s ($pms ms)" test "$pms" -lt 15000
check "predator names its liveness deadline ($(tail -c 300 "$tmp/predator.log"))" \
  has "$tmp/predator.log" "liveness deadline 3000 ms"
echo "run_netns: link cut to prey's end: $ms ms, to predator's: $pms ms"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
