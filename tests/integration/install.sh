#!/usr/bin/env bash
# make install into a temporary prefix, then what doc/guide.md ("Building against an installed
# Tempo") tells a user to do: build examples/producer.c and consumer.c with
# `pkg-config --cflags --libs tempo` (the producer against libtempo.so, the consumer statically
# against libtempo.a with `pkg-config --static`), run them against the installed tempo-rti, run
# the installed example federates from a folder without fom/ (they find the installed FOM),
# then make uninstall leaves no file behind. The man pages made from --help are checked too. Prints "N passed, N failed" last (tests/run.sh).
# Run from the repository root after make.
set -u
top=$(pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tempo-install.XXXXXX")
rti_pid=""
cleanup() {
  [ -n "$rti_pid" ] && kill "$rti_pid" 2>/dev/null && wait "$rti_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
P=$tmp/prefix

# 1. The installed files.
if make -s --no-print-directory install PREFIX="$P" >"$tmp/install.log" 2>&1; then ok
else ko "make install: $(tail -n 5 "$tmp/install.log")"; fi
missing=""
for f in bin/tempo-rti bin/tempo-fmu bin/tempo-run bin/tempo-log bin/tempo-example-producer \
         lib/libtempo.a lib/libtempo.so lib/libtempo.so.0 include/tempo/tempo.h \
         lib/pkgconfig/tempo.pc share/tempo/fom/demo.xml share/tempo/fmus/lv_prey_me.fmu \
         share/tempo/examples/lv_gs.json share/tempo/examples/producer.c \
         share/doc/tempo/guide.md share/doc/tempo/README.md share/man/man1/tempo-rti.1 \
         share/man/man1/tempo-log.1; do
  [ -e "$P/$f" ] || missing="$missing $f"
done
if [ -z "$missing" ]; then ok; else ko "not installed:$missing"; fi
if objdump -p "$P/lib/libtempo.so" 2>/dev/null | grep -q 'SONAME *libtempo\.so\.0$'; then ok
else ko "libtempo.so has no soname libtempo.so.0"; fi
# The man pages hold the --help text (every option) under a NAME line.
if grep -q -- '--listen HOST:PORT' "$P/share/man/man1/tempo-rti.1" 2>/dev/null &&
   grep -q '^tempo-log \\- read, explain' "$P/share/man/man1/tempo-log.1" 2>/dev/null; then ok
else ko "man pages: $(head -n 5 "$P/share/man/man1/tempo-log.1" 2>&1)"; fi
# The federation files point at the installed FMUs.
if grep -q '"\.\./fmus/lv_prey_me\.fmu"' "$P/share/tempo/examples/lv_gs.json" &&
   ! grep -q 'build/' "$P"/share/tempo/examples/*.json; then ok
else ko "installed lv_gs.json: $(grep fmu "$P/share/tempo/examples/lv_gs.json" | head -n 2)"; fi

# 2. Build the examples as a user would, outside the tree (the producer calls sin: -lm).
export PKG_CONFIG_PATH=$P/lib/pkgconfig
mkdir -p "$tmp/user"
cp examples/producer.c examples/consumer.c "$tmp/user/"
cd "$tmp/user" || exit 1
if cc -o producer producer.c $(pkg-config --cflags --libs tempo) -lm -Wl,-rpath,"$P/lib" \
     2>"$tmp/cc1.err"; then ok; else ko "shared build: $(head -n 5 "$tmp/cc1.err")"; fi
if cc -o consumer consumer.c $(pkg-config --cflags tempo) -L"$P/lib" -l:libtempo.a \
     $(pkg-config --static --libs tempo | sed 's/-ltempo\b//') 2>"$tmp/cc2.err"; then ok
else ko "static build: $(head -n 5 "$tmp/cc2.err")"; fi
if ldd ./producer | grep -q "$P/lib/libtempo.so.0" && ! ldd ./consumer | grep -q libtempo; then ok
else ko "producer should use the installed libtempo.so.0, consumer none: $(ldd ./producer ./consumer | grep -i tempo)"; fi

# 3. Run them against the installed RTI, naming the installed FOM.
"$P/bin/tempo-rti" --listen 127.0.0.1:0 --log-level warn >"$tmp/rti.out" 2>"$tmp/rti.err" &
rti_pid=$!
for _ in $(seq 1 100); do grep -q 'listening on' "$tmp/rti.out" && break; sleep 0.05; done
addr=$(sed -n 's/.*listening on \([^ ]*\).*/\1/p' "$tmp/rti.out" | head -n 1)
fom=$(pkg-config --variable=fomdir tempo)/demo.xml
# run_pair PRODUCER CONSUMER FEDERATION [ARGS...]: both exit 0 and the Command went through.
run_pair() {
  local prod=$1 cons=$2 fed=$3
  shift 3
  "$prod" --rti "$addr" --federation "$fed" --steps 10 "$@" >"$tmp/prod.$fed" 2>&1 &
  local pp=$!
  for _ in $(seq 1 100); do grep -q 'waiting for' "$tmp/prod.$fed" && break; sleep 0.05; done
  timeout 60 "$cons" --rti "$addr" --federation "$fed" "$@" >"$tmp/cons.$fed" 2>&1
  local crc=$?
  wait "$pp"
  local prc=$?
  if [ "$prc" -eq 0 ] && [ "$crc" -eq 0 ] && grep -q 'producer: Command from federate' "$tmp/prod.$fed"
  then ok
  else ko "$fed: producer exit $prc, consumer exit $crc: $(tail -n 3 "$tmp/prod.$fed" "$tmp/cons.$fed")"; fi
}
if [ -n "$addr" ]; then
  run_pair ./producer ./consumer user-built --fom "$fom"
  # The installed example programs, from a folder without fom/: their default FOM is found.
  run_pair "$P/bin/tempo-example-producer" "$P/bin/tempo-example-consumer" installed
else
  ko "the installed RTI did not start: $(cat "$tmp/rti.err")"
fi
kill "$rti_pid" 2>/dev/null; wait "$rti_pid" 2>/dev/null; rti_pid=""
cd "$top" || exit 1

# 4. make uninstall removes every file it installed.
make -s --no-print-directory uninstall PREFIX="$P" >"$tmp/uninstall.log" 2>&1
left=$(find "$P" -type f -o -type l | sed "s|^$P/||" | head -n 5 | tr '\n' ' ')
if [ -z "$left" ]; then ok; else ko "left after make uninstall: $left"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
