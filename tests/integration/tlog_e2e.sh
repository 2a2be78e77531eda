#!/usr/bin/env bash
# tempo-log on a log written by the real RTI (doc/log.md): bin/tempo-rti --log
# runs the example producer and consumer (doc/guide.md) on an ephemeral port; then every
# subcommand reads the log, and replay re-runs each federate alone against the record: the
# unchanged federates match to the end, a producer changed to stop one step early diverges at
# its fifth UPDATE. Run from the repository root; prints "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/lib.sh tlog_e2e
need tlog_e2e bin/tempo-rti bin/tempo-log bin/tempo-example-producer bin/tempo-example-consumer

# 1. A recorded federation.
mkdir -p "$dir/logs"
rti_start "$dir" --log "$dir/logs" --log-level warn
addr=$RTI_ADDR
check "the RTI starts" test -n "$addr"
bin/tempo-example-producer --rti "$addr" --steps 5 >"$dir/prod.out" 2>&1 &
prod_pid=$!
timeout 20 bin/tempo-example-consumer --rti "$addr" >"$dir/cons.out" 2>&1
check "the consumer ends well" test $? -eq 0
wait "$prod_pid"
check "the producer ends well" test $? -eq 0
rti_stop
log=$(ls "$dir"/logs/*.tlog 2>/dev/null | head -n 1)
check "one log file" test -n "$log"

# 2. json: header, one line per record, END with the count of records.
bin/tempo-log json "$log" >"$dir/json" 2>"$dir/json.err"
check "json exits 0" test $? -eq 0
lines=$(wc -l <"$dir/json")
records=$(tail -n 1 "$dir/json" | sed -n 's/^{"kind":"END","records":\([0-9]*\),.*/\1/p')
check "json ends with END" test -n "$records"
check "json: every record has its line" test "$((lines - 2))" = "${records:-x}"
check "json: no complaint" test ! -s "$dir/json.err"
check "json: the log ends with the RTI's note" has "$dir/json" '"kind":"NOTE"'

# 3. stats, csv, show, explain.
bin/tempo-log stats "$log" >"$dir/stats"
check "stats: the producer was granted 5 times" \
  grep -qE '^producer +[0-9]+ +[0-9]+ +5 +5 +5 ' "$dir/stats"
check "stats: for whom the producer waited, its 5 grants" \
  grep -qE '^  producer +[0-9.]+ s: nobody [0-9.]+ s \(([0-9]+ %, )?5 grants\)$' "$dir/stats"
check "stats: for whom the consumer waited" grep -qE '^  consumer +[0-9.]+ s: ' "$dir/stats"
bin/tempo-log csv "$log" >"$dir/csv"
check "csv: header" has "$dir/csv" "time_s,ticks,sine.value,sine.label,sine.history"
check "csv: 5 rows" test "$(wc -l <"$dir/csv")" -eq 6
check "csv: last sample" has "$dir/csv" '0.5,500000,0.47942553860420301,"sample 5",'
bin/tempo-log show "$log" --class Signal --kind REFLECT --federate consumer >"$dir/show"
check "show: 5 reflections" has "$dir/show" "5 of "
bin/tempo-log explain "$log" >"$dir/explain"
check "explain: nobody waits at the end" has "$dir/explain" "nobody: no federate has a pending request"
check "explain: the re-run agrees with the record" has "$dir/explain" "(they agree)"
bin/tempo-log trace "$log" >"$dir/trace"
check "trace exits 0" test $? -eq 0
check "trace: wait spans" has "$dir/trace" '"ph":"X"'

# 4. replay: unchanged federates match; a changed one diverges where it changed.
bin/tempo-log show "$log" --federate producer >"$dir/show_prod"
timeout 60 bin/tempo-log replay "$log" --federate consumer --timeout 10 -- \
  bin/tempo-example-consumer --rti '{rti}' >"$dir/rc" 2>&1
check "replay consumer: exit 0" test $? -eq 0
check "replay consumer: matched" has "$dir/rc" "MATCHED to the end of the log"
check "replay consumer: the federate itself ended well" has "$dir/rc" "command exited with status 0"
check "replay consumer: its resign was answered" not_has "$dir/rc" "closed the connection"
# The log holds the REPLY to each RESIGN, so the replayed federate gets its confirmation
# (not "the RTI closed the connection") and exits 0, and so does replay.
rreq=$(grep -E ' producer +RECV +RESIGN req=' "$dir/show_prod" | grep -oE 'req=[0-9]+' | tail -n 1)
check "log: the producer's RESIGN is recorded" test -n "$rreq"
check "log: the REPLY to the producer's RESIGN is recorded" \
  grep -qE " producer +SENT +REPLY ${rreq:-none}\$" "$dir/show_prod"
timeout 60 bin/tempo-log replay "$log" --federate producer --timeout 10 -- \
  bin/tempo-example-producer --rti '{rti}' --steps 5 >"$dir/rp" 2>&1
check "replay producer: exit 0" test $? -eq 0
check "replay producer: matched" has "$dir/rp" "MATCHED to the end of the log"
check "replay producer: the federate itself ended well" has "$dir/rp" "command exited with status 0"
check "replay producer: its resign was answered" not_has "$dir/rp" "closed the connection"
timeout 60 bin/tempo-log replay "$log" --federate producer --timeout 10 -- \
  bin/tempo-example-producer --rti '{rti}' --steps 4 >"$dir/rp4" 2>&1
check "replay changed producer: exit 3" test $? -eq 3
check "replay changed producer: expected the 5th sample" has "$dir/rp4" 'label=sample 5'
check "replay changed producer: got the deletion" has "$dir/rp4" "got:      DELETE_OBJECT"

# 5. A copy cut in the middle of a record reads up to the cut, and says so.
size=$(stat -c %s "$log")
head -c "$((size - 3))" "$log" >"$dir/cut.tlog"
bin/tempo-log json "$dir/cut.tlog" >"$dir/cutjson" 2>"$dir/cuterr"
check "cut: json ends with CUT" has "$dir/cutjson" '{"kind":"CUT","records":'
check "cut: stderr names the offset" has "$dir/cuterr" "log cut at byte offset"

finish
