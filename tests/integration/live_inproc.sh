#!/bin/bash
# The live view served by the in-process runner (doc/live.md, "The in-process runner"): the
# RTI embedded in tempo-fmu --all (tempo-run --in-process of a peer method) and in
# tempo-master --in-process (a master method) serves the page, /api/state and /api/stream
# from a thread of its own, as tempo-rti does. Checked as the distributed view is: the JSON
# endpoints directly (the federation, its federates, times advancing, the plots), the stream,
# and the page in headless Chromium; then the refusals.
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/lib.sh live_inproc
need live_inproc bin/tempo-run bin/tempo-fmu bin/tempo-master build/fmus/lv_prey_me.fmu

js() { # js FILE EXPR: evaluate a Python expression over the JSON document d of FILE
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1" 2>/dev/null
}
fed() { # fed FILE NAME EXPR-OF-f: that federate of the only federation
  js "$1" "[$3 for f in d['federations'][0]['federates'] if f['name']=='$2'][0]"
}

# start NAME EXAMPLE: an in-process run of the example, for hours, with the view on a free port
start() {
  sed -e "s#\"\.\./build/fmus#\"$PWD/build/fmus#g" -e 's#"end": [0-9.]*#"end": 1000000#' \
    -e "s#\"output\": \"[^\"]*\"#\"output\": \"$dir/out-$1\"#" "examples/$2.json" >"$dir/$1.json"
  bin/tempo-run "$dir/$1.json" --in-process --http 0 >"$dir/$1.out" 2>&1 &
  track $!
  HTTP=
  for _ in $(seq 200); do
    HTTP=$(sed -n 's#^tempo-run: live view on http://\(.*\)/$#\1#p' "$dir/$1.out" | head -n 1)
    [ -n "$HTTP" ] && break
    sleep 0.05
  done
}

# 1. A peer method: tempo-fmu --all.
start gs lv_gs
check "tempo-run --in-process --http prints the view's address" test -n "$HTTP"
curl -s --max-time 5 "http://$HTTP/api/state" -o "$dir/s1.json"
check "/api/state: one federation, its two federates, in process" \
  test "$(js "$dir/s1.json" "d['federations_total'] == 1 and sorted(f['name'] + '@' + f['host'] for f in d['federations'][0]['federates'])")" = "['predator@inproc', 'prey@inproc']"
check "/api/state: no federate connection (the RTI is embedded)" test "$(js "$dir/s1.json" "d['connections']")" = 0
a1=$(fed "$dir/s1.json" prey "f['asked_s']")
for _ in $(seq 40); do # the sampler fills the plots once a second
  curl -s --max-time 5 "http://$HTTP/api/state" -o "$dir/s2.json"
  [ "$(fed "$dir/s2.json" prey "len(f['rate']) >= 2")" = True ] && break
  sleep 0.25
done
a2=$(fed "$dir/s2.json" prey "f['asked_s']")
check "/api/state: the federation's time advances ($a1 -> $a2)" \
  python3 -c "import sys; sys.exit(0 if float('$a2') > float('$a1') else 1)"
check "/api/state: the plots are filled" test "$(fed "$dir/s2.json" prey "len(f['rate']) >= 2 and len(f['msgs']) >= 2")" = True
check "/api/state: the running federation is not stalled" test "$(js "$dir/s2.json" "d['federations'][0]['stalled']")" = False
curl -s -N --max-time 2.5 "http://$HTTP/api/stream" >"$dir/stream.txt"
check "/api/stream: two events in 2.5 s" test "$(grep -c '^data: {' "$dir/stream.txt")" -ge 2
check "the page" has <(curl -s --max-time 5 "http://$HTTP/") "<title>Tempo live view</title>"
if ! command -v chromium >/dev/null; then
  ko "chromium is not installed (make deps installs it)"
else
  prof=$(mktemp -d "$dir/chromium.XXXXXX")
  timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$prof" --window-size=1400,900 --virtual-time-budget=10000 --dump-dom \
    "http://$HTTP/?events=3" >"$dir/dom.html" 2>>"$dir/chromium.err"
  check "page in Chromium: the federation shown" grep -q 'data-name="lv-gauss-seidel"' "$dir/dom.html"
  check "page in Chromium: its federates" grep -q 'data-fed="predator"' "$dir/dom.html"
  check "page in Chromium: updated from the stream 3 times" grep -q 'data-updates="3"' "$dir/dom.html"
fi

# 2. A master method: tempo-master --in-process.
start master lv_master
check "tempo-master --in-process: the view's address" test -n "$HTTP"
curl -s --max-time 5 "http://$HTTP/api/state" -o "$dir/m.json"
check "tempo-master --in-process: the master and its slaves" \
  test "$(js "$dir/m.json" "sorted(f['name'] for f in d['federations'][0]['federates'])")" = "['master', 'predator', 'prey']"

# 3. Refusals: --http goes with --all / --in-process, and libtempo.so alone has no view.
bin/tempo-fmu --federation "$dir/gs.json" --name prey --http 127.0.0.1:0 >/dev/null 2>"$dir/r1.err"
check "tempo-fmu --http without --all is refused" has "$dir/r1.err" "--http go with --all"
bin/tempo-master --federation "$dir/master.json" --http 127.0.0.1:0 >/dev/null 2>"$dir/r2.err"
check "tempo-master --http without --in-process is refused" has "$dir/r2.err" "--http goes with --in-process"
bin/tempo-fmu --federation "$dir/gs.json" --all --http 0.0.0.0:0 >/dev/null 2>"$dir/r3.err"
check "a non-loopback view of an embedded RTI is refused" has "$dir/r3.err" "not a loopback address"
PYTHONPATH=python python3 - >"$dir/r4.out" 2>&1 <<'PY'
import ctypes, tempo._lib as L
o = L.tp_inproc_options(http=b"127.0.0.1:0")
err = ctypes.create_string_buffer(300)
rc = L.lib().tp_inproc_start(b"viewless", ctypes.byref(o), err, 300)
print(rc, err.value.decode())
PY
check "libtempo.so alone refuses a view, saying so" has "$dir/r4.out" "-1 in-process RTI 'viewless': this library has no live view"
finish
