#!/bin/bash
# The live view's reply stays bounded however large the RTI's state (doc/live.md "Bounds and
# cost"): a federation of 200 federates (199 constrained and waiting for the last one joined,
# which never advances) and 600 federations of one federate each. /api/state must list at most
# 64 federates of a federation, name the one to look at even past them, count the rest, say
# that it was cut, stay under the stream cap of 1 MiB, and the RTI must keep answering.
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/lib.sh live_bounds
need live_bounds bin/tempo-rti lib/libtempo.so fom/demo.xml

js() { # js FILE EXPR: evaluate a Python expression over the JSON document d of FILE
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1" 2>/dev/null
}

rti_start "$dir" --http 127.0.0.1:0 --max-federations 1000 || {
  ko "tempo-rti did not start"
  finish
}
HTTP=$(sed -n 's#^tempo-rti live view on http://\(.*\)/$#\1#p' "$dir/rti.out")

PYTHONPATH=python python3 - "$RTI_ADDR" "$dir/joined" >"$dir/crowd.out" 2>&1 <<'EOF' &
import sys, time, tempo
rti, flag = sys.argv[1], sys.argv[2]
held = []
for i in range(200):  # one federation, the last federate regulating and never advancing
    f = tempo.Federate("crowd", "m%03d" % i, fom="fom/demo.xml", rti=rti)
    held.append(f)
held[-1].enable_regulation(1)
for f in held[:-1]:
    f.enable_constrained()
    f.tar(10, wait=False)
for i in range(600):  # many federations
    held.append(tempo.Federate("solo%03d" % i, "only", fom="fom/demo.xml", rti=rti))
open(flag, "w").write("joined\n")
time.sleep(60)
EOF
track $!
for _ in $(seq 600); do
  [ -s "$dir/joined" ] && break
  sleep 0.1
done
check "800 federates joined" test -s "$dir/joined"
curl -s --max-time 10 "http://$HTTP/api/state" -o "$dir/s.json"
size=$(stat -c %s "$dir/s.json" 2>/dev/null || echo 0)
crowd="[x for x in d['federations'] if x['name']=='crowd'][0]"
check "/api/state answers (${size} bytes) under the stream cap" test "$size" -gt 0 -a "$size" -lt 1048576
check "crowd: 200 federates counted" test "$(js "$dir/s.json" "$crowd['federates_total']")" = 200
check "crowd: at most 64 + 1 listed, marked cut" \
  test "$(js "$dir/s.json" "len($crowd['federates']) <= 65 and $crowd['federates_truncated']")" = True
check "crowd: the federate to look at is the last one" test "$(js "$dir/s.json" "$crowd['look_at']")" = m199
check "crowd: the one to look at is listed though past the first 64" \
  test "$(js "$dir/s.json" "any(f['name']=='m199' for f in $crowd['federates'])")" = True
check "federations: 601 counted, fewer listed, marked cut" \
  test "$(js "$dir/s.json" "d['federations_total'] == 601 and len(d['federations']) < 601 and d['truncated']")" = True
curl -s -N --max-time 2.5 "http://$HTTP/api/stream" >"$dir/stream.txt"
check "/api/stream: two bounded events" \
  python3 -c "import json,sys; e=[l[6:] for l in open(sys.argv[1]) if l.startswith('data: ')]; sys.exit(0 if len(e) >= 2 and all(len(x) < 1048576 and json.loads(x)['truncated'] for x in e) else 1)" "$dir/stream.txt"
finish
