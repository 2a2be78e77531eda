#!/usr/bin/env bash
# The example of doc/api.md ("In thirty lines") as written there: extracted from the page,
# compiled against build/include/tempo/tempo.h and lib/libtempo.a, and run beside the example
# producer against a real tempo-rti. It must meet the producer, print its 10 samples of the
# first second in time-stamp order, resign and exit 0; the producer must end with 0 too.
# Prints "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/lib.sh api_example
need api_example bin/tempo-rti bin/tempo-example-producer lib/libtempo.a build/include/tempo/tempo.h
awk '/^## In thirty lines/{f=1} f&&/^```c/{g=1;next} g&&/^```/{exit} g{print}' doc/api.md >"$dir/reader.c"
n=$(wc -l <"$dir/reader.c")
check "the example is about thirty lines (got $n)" test "$n" -ge 20 -a "$n" -le 40
${CC:-cc} -std=c11 -Wall -Werror -Ibuild/include -o "$dir/reader" "$dir/reader.c" \
  lib/libtempo.a -lxml2 -lm 2>"$dir/cc.err"
check "it compiles cleanly ($(head -c 300 "$dir/cc.err"))" test -x "$dir/reader"
rti_start "$dir" --log-level warn
check "the RTI starts" test -n "$RTI_ADDR"
timeout 30 bin/tempo-example-producer --rti "$RTI_ADDR" >"$dir/p.out" 2>&1 &
prod=$!
for _ in $(seq 1 100); do grep -q "waiting for" "$dir/p.out" 2>/dev/null && break; sleep 0.05; done
# the example joins the default address (127.0.0.1:7470); this test's RTI has a port of its
# own, filled into a copy of the text
sed "s|{.federation = \"demo\"|{.rti = \"$RTI_ADDR\", .federation = \"demo\"|" "$dir/reader.c" >"$dir/reader2.c"
${CC:-cc} -std=c11 -Wall -Werror -Ibuild/include -o "$dir/reader2" "$dir/reader2.c" \
  lib/libtempo.a -lxml2 -lm 2>>"$dir/cc.err"
timeout 30 "$dir/reader2" >"$dir/r.out" 2>"$dir/r.err"
rrc=$?
wait "$prod"
prc=$?
check "the reader exits 0 (got $rrc: $(head -c 300 "$dir/r.err"))" test "$rrc" -eq 0
check "the producer exits 0 (got $prc)" test "$prc" -eq 0
got=$(grep -c '^t=' "$dir/r.out")
check "10 samples reflected (got $got)" test "$got" -eq 10
check "in time-stamp order, 0.1 s to 1 s" \
  test "$(grep -o '^t=[0-9.]*' "$dir/r.out" | tr '\n' ' ')" = "t=0.1 t=0.2 t=0.3 t=0.4 t=0.5 t=0.6 t=0.7 t=0.8 t=0.9 t=1 "
finish
