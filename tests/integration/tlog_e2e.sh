#!/usr/bin/env bash
# tempo-log on a log written by the real RTI (doc/log.md): bin/tempo-rti --log
# runs the example producer and consumer (doc/guide.md) on an ephemeral port; then every
# subcommand reads the log, and replay re-runs each federate alone against the record: the
# unchanged federates match to the end, a producer changed to stop one step early diverges at
# its fifth UPDATE. Run from the repository root; prints "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
pass=0
fail=0
check() { # check NAME COMMAND...: one assertion, the command's status decides
  local name=$1
  shift
  if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $name"; fi
}
has() { grep -qF -- "$2" "$1"; } # has FILE TEXT
not_has() { ! grep -qF -- "$2" "$1"; } # not_has FILE TEXT
for p in bin/tempo-rti bin/tempo-log bin/tempo-example-producer bin/tempo-example-consumer; do
  [ -x "$p" ] || { echo "tlog_e2e: $p is missing (run make first)"; echo "0 passed, 1 failed"; exit 1; }
done
tmp=$(mktemp -d)
. "$(dirname "$0")/rti_proc.sh"
cleanup() {
  rti_stop 2>/dev/null
  wait 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT

# 1. A recorded federation.
mkdir -p "$tmp/logs"
rti_start "$tmp" --log "$tmp/logs" --log-level warn
addr=$RTI_ADDR
check "the RTI starts" test -n "$addr"
bin/tempo-example-producer --rti "$addr" --steps 5 >"$tmp/prod.out" 2>&1 &
prod_pid=$!
timeout 20 bin/tempo-example-consumer --rti "$addr" >"$tmp/cons.out" 2>&1
check "the consumer ends well" test $? -eq 0
wait "$prod_pid"
check "the producer ends well" test $? -eq 0
rti_stop
log=$(ls "$tmp"/logs/*.tlog 2>/dev/null | head -n 1)
check "one log file" test -n "$log"

# 2. json: header, one line per record, END with the count of records.
bin/tempo-log json "$log" >"$tmp/json" 2>"$tmp/json.err"
check "json exits 0" test $? -eq 0
lines=$(wc -l <"$tmp/json")
records=$(tail -n 1 "$tmp/json" | sed -n 's/^{"kind":"END","records":\([0-9]*\),.*/\1/p')
check "json ends with END" test -n "$records"
check "json: every record has its line" test "$((lines - 2))" = "${records:-x}"
check "json: no complaint" test ! -s "$tmp/json.err"
check "json: the log ends with the RTI's note" has "$tmp/json" '"kind":"NOTE"'

# 3. stats, csv, show, explain.
bin/tempo-log stats "$log" >"$tmp/stats"
check "stats: the producer was granted 5 times" \
  grep -qE '^producer +[0-9]+ +[0-9]+ +5 +5 +5 ' "$tmp/stats"
bin/tempo-log csv "$log" >"$tmp/csv"
check "csv: header" has "$tmp/csv" "time_s,ticks,sine.value,sine.label,sine.history"
check "csv: 5 rows" test "$(wc -l <"$tmp/csv")" -eq 6
check "csv: last sample" has "$tmp/csv" '0.5,500000,0.47942553860420301,"sample 5",'
bin/tempo-log show "$log" --class Signal --kind REFLECT --federate consumer >"$tmp/show"
check "show: 5 reflections" has "$tmp/show" "5 of "
bin/tempo-log explain "$log" >"$tmp/explain"
check "explain: nobody waits at the end" has "$tmp/explain" "nobody: no federate has a pending request"
check "explain: the re-run agrees with the record" has "$tmp/explain" "(they agree)"
bin/tempo-log trace "$log" >"$tmp/trace"
check "trace exits 0" test $? -eq 0
check "trace: wait spans" has "$tmp/trace" '"ph":"X"'

# 4. replay: unchanged federates match; a changed one diverges where it changed.
bin/tempo-log show "$log" --federate producer >"$tmp/show_prod"
timeout 60 bin/tempo-log replay "$log" --federate consumer --timeout 10 -- \
  bin/tempo-example-consumer --rti '{rti}' >"$tmp/rc" 2>&1
check "replay consumer: exit 0" test $? -eq 0
check "replay consumer: matched" has "$tmp/rc" "MATCHED to the end of the log"
check "replay consumer: the federate itself ended well" has "$tmp/rc" "command exited with status 0"
check "replay consumer: its resign was answered" not_has "$tmp/rc" "closed the connection"
# The log holds the REPLY to each RESIGN, so the replayed federate gets its confirmation
# (not "the RTI closed the connection") and exits 0, and so does replay.
rreq=$(grep -E ' producer +RECV +RESIGN req=' "$tmp/show_prod" | grep -oE 'req=[0-9]+' | tail -n 1)
check "log: the producer's RESIGN is recorded" test -n "$rreq"
check "log: the REPLY to the producer's RESIGN is recorded" \
  grep -qE " producer +SENT +REPLY ${rreq:-none}\$" "$tmp/show_prod"
timeout 60 bin/tempo-log replay "$log" --federate producer --timeout 10 -- \
  bin/tempo-example-producer --rti '{rti}' --steps 5 >"$tmp/rp" 2>&1
check "replay producer: exit 0" test $? -eq 0
check "replay producer: matched" has "$tmp/rp" "MATCHED to the end of the log"
check "replay producer: the federate itself ended well" has "$tmp/rp" "command exited with status 0"
check "replay producer: its resign was answered" not_has "$tmp/rp" "closed the connection"
timeout 60 bin/tempo-log replay "$log" --federate producer --timeout 10 -- \
  bin/tempo-example-producer --rti '{rti}' --steps 4 >"$tmp/rp4" 2>&1
check "replay changed producer: exit 3" test $? -eq 3
check "replay changed producer: expected the 5th sample" has "$tmp/rp4" 'label=sample 5'
check "replay changed producer: got the deletion" has "$tmp/rp4" "got:      DELETE_OBJECT"

# 5. A copy cut in the middle of a record reads up to the cut, and says so.
size=$(stat -c %s "$log")
head -c "$((size - 3))" "$log" >"$tmp/cut.tlog"
bin/tempo-log json "$tmp/cut.tlog" >"$tmp/cutjson" 2>"$tmp/cuterr"
check "cut: json ends with CUT" has "$tmp/cutjson" '{"kind":"CUT","records":'
check "cut: stderr names the offset" has "$tmp/cuterr" "log cut at byte offset"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
