#!/bin/bash
# The live view (doc/live.md) against a real RTI and a real browser: two Gauss-Seidel
# federations, one frozen on purpose (SIGSTOP of its predator) and one running; the JSON
# endpoints and the event stream read directly; the page opened in headless Chromium, which must
# show both federations, name the frozen federate as the one waited for and update the running
# one's time; a flood of idle, oversized and never-reading HTTP clients must not stall the RTI.
# The screenshot is kept as build/test-artefacts/live_view.png.
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/lib.sh live_test
need live_test bin/tempo-rti bin/tempo-run bin/tempo-fmu build/fmus/lv_prey_me.fmu

js() { # js FILE EXPR: evaluate a Python expression over the JSON document d of FILE
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1" 2>/dev/null
}
state() { curl -s --max-time 5 "http://$HTTP/api/state" -o "$1"; }
fx() { echo "[f for f in d['federations'] if f['name']=='$1'][0]"; }

# 1. Refusals: the view is loopback-only unless --allow-remote, and then needs the secret.
bin/tempo-rti --listen 127.0.0.1:0 --http 0.0.0.0:0 >"$dir/r1.out" 2>&1
check "a non-loopback --http is refused" has "$dir/r1.out" "add --allow-remote"
env -u TEMPO_SECRET -u TEMPO_SECRET_FILE bin/tempo-rti --listen 127.0.0.1:0 --allow-remote \
  --http 0.0.0.0:0 >"$dir/r2.out" 2>&1
check "a remote view without the secret is refused" has "$dir/r2.out" "needs the federation secret"
bin/tempo-rti --listen 127.0.0.1:0 --http 127.0.0.1 >"$dir/r3.out" 2>&1
check "--http without a port is refused" has "$dir/r3.out" "expected HOST:PORT"

# 1b. A remote view needs the secret in each request: this host's own non-loopback address
#     (the peer is then not on loopback). Skipped on a host with none.
ip4=$(ip -4 -o addr show scope global 2>/dev/null | awk '{sub(/\/.*/, "", $4); print $4; exit}')
if [ -n "$ip4" ]; then
  printf 'sesame42' >"$dir/secret" && chmod 600 "$dir/secret"
  bin/tempo-rti --listen 127.0.0.1:0 --allow-remote --secret-file "$dir/secret" \
    --http "$ip4:0" >"$dir/r4.out" 2>"$dir/r4.err" &
  r4=$!
  track $r4
  for _ in $(seq 50); do grep -q "live view on" "$dir/r4.out" && break; sleep 0.1; done
  RH=$(sed -n 's#^tempo-rti live view on http://\(.*\)/$#\1#p' "$dir/r4.out")
  rc() { curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$@"; }
  check "remote: no secret, 403" test "$(rc "http://$RH/api/state")" = 403
  check "remote: a wrong secret, 403" test "$(rc "http://$RH/api/state?secret=sesame4")" = 403
  check "remote: ?secret=, 200" test "$(rc "http://$RH/api/state?secret=sesame42")" = 200
  check "remote: X-Tempo-Secret, 200" test "$(rc -H "X-Tempo-Secret: sesame42" "http://$RH/")" = 200
  kill -TERM $r4 2>/dev/null
  wait $r4 2>/dev/null
fi

# 2. An RTI with the view, and its JSON before any federation.
rti_start "$dir" --http 127.0.0.1:0 --log "$dir" || { ko "the RTI did not start"; finish; exit; }
for _ in $(seq 50); do grep -q "live view on" "$dir/rti.out" && break; sleep 0.1; done
HTTP=$(sed -n 's#^tempo-rti live view on http://\(.*\)/$#\1#p' "$dir/rti.out")
check "the RTI prints the view's address" test -n "$HTTP"
state "$dir/s0.json"
check "/api/state: version, limits, no federation yet" \
  test "$(js "$dir/s0.json" "d['version'] != '' and d['limits']['http_max_connections'] == 16 and d['federations'] == []")" = True
code() { curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$@"; }
check "GET / is the page" test "$(code "http://$HTTP/")" = 200
curl -s "http://$HTTP/" | grep -q "<title>Tempo live view</title>" && ok || ko "the page's title"
check "an unknown path is 404" test "$(code "http://$HTTP/nope")" = 404
check "POST is 405" test "$(code -X POST "http://$HTTP/api/state")" = 405
check "a 9 KB header is 431" test "$(code -H "X-Big: $(head -c 9000 /dev/zero | tr '\0' a)" "http://$HTTP/")" = 431

# 3. Two Gauss-Seidel federations (FQR polls) that would run for hours, at the lowest
#    priority but one: they run flat out, and under the parallel runner (tests/run.sh) the
#    other tests come first; a few steps of 0.5 s are all the checks below need.
for name in stuck running; do
  sed -e "s#\"../build/fmus#\"$PWD/build/fmus#" -e 's#"end": 100#"end": 1000000#' \
    -e "s#\"federation\": \"lv-gauss-seidel\"#\"federation\": \"$name\"#" \
    -e "s#\"output\": \"../build/run/lv_gs\"#\"output\": \"$dir/out-$name\"#" \
    examples/lv_gs.json >"$dir/$name.json"
  nice -n 15 bin/tempo-run "$dir/$name.json" --rti "$RTI_ADDR" --quiet >"$dir/run-$name.out" 2>&1 &
  track $!
done
frozen=
for _ in $(seq 100); do
  state "$dir/s1.json"
  [ "$(js "$dir/s1.json" "len(d['federations']) == 2 and all(f['asked_s'] and f['asked_s'] > 5 for x in d['federations'] for f in x['federates'])")" = True ] && break
  sleep 0.2
done
frozen=$(pgrep -f -- "--federation $dir/stuck.json --name predator" | head -n 1)
check "the stuck federation's predator is found" test -n "$frozen"
[ -n "$frozen" ] && kill -STOP "$frozen"
# The RTI calls a federation stalled after 3 s without progress while a federate waits.
for _ in $(seq 60); do
  state "$dir/s2.json"
  [ "$(js "$dir/s2.json" "$(fx stuck)['stalled']")" = True ] && break
  sleep 0.25
done
check "/api/state: the frozen federation is stalled" test "$(js "$dir/s2.json" "$(fx stuck)['stalled']")" = True
check "/api/state: look at the frozen predator" test "$(js "$dir/s2.json" "$(fx stuck)['look_at']")" = predator
check "/api/state: prey waits for predator" \
  test "$(js "$dir/s2.json" "[f['waits_for'] for f in $(fx stuck)['federates'] if f['name']=='prey'][0]")" = "['predator']"
check "/api/state: the running federation is not stalled" test "$(js "$dir/s2.json" "$(fx running)['stalled']")" = False
check "/api/state: the log file of each federation" test "$(js "$dir/s2.json" "all(x['log'].startswith('$dir/') for x in d['federations'])")" = True
a1=$(js "$dir/s2.json" "[f['asked_s'] for f in $(fx running)['federates'] if f['name']=='prey'][0]")
sleep 1.5
state "$dir/s3.json"
a2=$(js "$dir/s3.json" "[f['asked_s'] for f in $(fx running)['federates'] if f['name']=='prey'][0]")
check "/api/state: the running federation's time advances ($a1 -> $a2)" \
  python3 -c "import sys; sys.exit(0 if float('$a2') > float('$a1') else 1)"
check "/api/state: a plot of the last seconds" \
  test "$(js "$dir/s3.json" "len($(fx running)['federates'][0]['rate']) >= 3 and len($(fx running)['federates'][0]['msgs']) >= 3")" = True

# 4. The stream the page uses: one event at once, then one per second.
curl -s -N --max-time 2.5 "http://$HTTP/api/stream" >"$dir/stream.txt"
n=$(grep -c '^data: {' "$dir/stream.txt")
check "/api/stream: at least 2 events in 2.5 s ($n)" test "$n" -ge 2
grep '^data: ' "$dir/stream.txt" | head -n 1 | sed 's/^data: //' >"$dir/ev.json"
check "/api/stream: an event is the state" test "$(js "$dir/ev.json" "$(fx stuck)['look_at']")" = predator

# 5. The page in headless Chromium (a new empty profile each time), twice: the DOM, then a
#    screenshot; the running federation's time the page drew must be past the time /api/state
#    gave before the page was opened (s3.json).
# The page closes its stream after 3 events (?events=3: about 2 s), so that the virtual time
# budget can run out (an open stream holds it) and the DOM or the picture is taken then.
browser() { # browser OUT-ARG...: open the page until its third event
  local prof
  prof=$(mktemp -d "$dir/chromium.XXXXXX")
  timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$prof" --window-size=1400,900 --virtual-time-budget=10000 "$@" \
    "http://$HTTP/?events=3" 2>>"$dir/chromium.err"
}
if ! command -v chromium >/dev/null; then
  ko "chromium is not installed (make deps installs it)"
else
  browser --dump-dom >"$dir/dom1.html"
  check "page: both federations" grep -q 'data-name="running"' "$dir/dom1.html"
  check "page: the stuck federation highlighted" grep -q 'class="fx stalled" data-name="stuck"' "$dir/dom1.html"
  check "page: names the frozen federate as the one to look at" grep -q 'data-look-at="predator"' "$dir/dom1.html"
  check "page: updated from the stream 3 times" grep -q 'data-updates="3"' "$dir/dom1.html"
  check "page: the wait-for graph is drawn" grep -q '<line [^>]*marker-end' "$dir/dom1.html"
  mkdir -p build/test-artefacts
  browser --screenshot="$PWD/build/test-artefacts/live_view.png" >/dev/null
  check "page: a screenshot" test -s build/test-artefacts/live_view.png
  asked() { # asked DOM: the running federation's prey's "asks" cell as the page drew it
    python3 -c "import re,sys; t=open(sys.argv[1]).read(); t=t[t.index('data-name=\"running\"'):]; print(re.search(r'data-fed=\"prey\".*?data-asked=\"([^\"]*)\"', t).group(1))" "$1" 2>/dev/null
  }
  t1=$a2
  t2=$(asked "$dir/dom1.html")
  check "page: the running federation's time updates ($t1 -> $t2)" \
    python3 -c "import sys; sys.exit(0 if '$t1' and '$t2' and float('$t2') > float('$t1') else 1)"
fi

# 6. A flood: 40 idle connections (the view holds 16, each for its 5 s read deadline), 4 that
#    send an endless header, 6 streams never read. The federates must go on meanwhile.
before=$(js "$dir/s3.json" "[f['asked_s'] for f in $(fx running)['federates'] if f['name']=='prey'][0]")
python3 - "$HTTP" >"$dir/flood.out" 2>&1 <<'EOF' &
import socket, sys, time
host, port = sys.argv[1].rsplit(":", 1)
held = []
for i in range(6):  # streams that are never read, tiny receive buffers
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
    s.connect((host, int(port))); s.sendall(b"GET /api/stream HTTP/1.1\r\nHost: x\r\n\r\n"); held.append(s)
for i in range(4):  # an endless header, a byte at a time
    s = socket.socket(); s.connect((host, int(port))); s.sendall(b"GET / HTTP/1.1\r\nX: "); held.append(s)
for i in range(40):  # idle
    try:
        s = socket.socket(); s.connect((host, int(port))); held.append(s)
    except OSError:
        pass
t = time.time()
while time.time() - t < 7:
    for s in held[6:10]:
        try: s.send(b"a")
        except OSError: pass
    time.sleep(0.2)
print("flood over")
EOF
flood=$!
track $flood
sleep 7.5
wait $flood 2>/dev/null
# The streams left behind are found closed at their next event (one a second).
for _ in $(seq 40); do
  state "$dir/s4.json" && [ "$(js "$dir/s4.json" "d['http_connections']")" = 1 ] && break
  sleep 0.25
done
after=$(js "$dir/s4.json" "[f['asked_s'] for f in $(fx running)['federates'] if f['name']=='prey'][0]")
check "flood: the view answers again afterwards" test -n "$after"
check "flood: the running federation advanced meanwhile ($before -> $after)" \
  python3 -c "import sys; sys.exit(0 if '$after' and float('$after') > float('$before') + 1 else 1)"
check "flood: connections past 16 were refused" test "$(js "$dir/s4.json" "d['http_refused'] > 0")" = True
check "flood: idle and endless clients met their deadline" test "$(js "$dir/s4.json" "d['http_timeouts'] > 0")" = True
check "flood: no HTTP connection left but this one" test "$(js "$dir/s4.json" "d['http_connections']")" = 1

[ -n "$frozen" ] && kill -CONT "$frozen"
finish
