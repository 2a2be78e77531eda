#!/usr/bin/env bash
# Checkpoint and resume of the example pair (examples/producer.c, examples/consumer.c;
# doc/checkpoint.md) with real processes: a run asks for a save at step 8 and goes on to the
# end (the reference); a second run asks for the same save, and as soon as the checkpoint
# folder is complete the RTI, the producer and the consumer all get SIGKILL; a new RTI, a
# producer with --resume FOLDER (it restores the federation) and a consumer with --resume end
# the run. What both federates print after the save must be what the reference printed after
# it, line for line. Prints "N passed, N failed" (tests/run.sh). Run from the repository root.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/lib.sh ckpt_examples
. tests/integration/rti_proc.sh
need ckpt_examples bin/tempo-rti bin/tempo-example-producer bin/tempo-example-consumer
STEPS=2000 # long enough that the kill finds them running, most of the time

# One run: the RTI with --checkpoint-dir $1, the pair with extra producer arguments after.
pair() {
  local ck=$1 tag=$2
  shift 2
  rti_start "$dir" --checkpoint-dir "$ck" --log-level warn || return 1
  # no `timeout` in between: the kill below must reach the federates themselves
  bin/tempo-example-producer --rti "$RTI_ADDR" --steps "$STEPS" "$@" >"$dir/$tag.p" 2>&1 &
  prod=$!
  track "$prod"
  for _ in $(seq 1 100); do grep -q "waiting for" "$dir/$tag.p" 2>/dev/null && break; sleep 0.05; done
  bin/tempo-example-consumer --rti "$RTI_ADDR" >"$dir/$tag.c" 2>&1 &
  cons=$!
  track "$cons"
}

# 1. The reference: save at step 8, go on.
pair "$dir/ck-ref" ref --checkpoint-at 8
wait "$prod"; prc=$?
wait "$cons"; crc=$?
rti_stop
check "reference: producer and consumer end with 0 (got $prc, $crc)" test "$prc$crc" = 00
check "reference: the producer saved" grep -q "producer: save 'step8': $dir/ck-ref/step8" "$dir/ref.p"
check "reference: the consumer saved" grep -q "consumer: save 'step8': $dir/ck-ref/step8" "$dir/ref.c"

# 2. The same run, killed (all three, SIGKILL) once the checkpoint is complete.
pair "$dir/ck" crash --checkpoint-at 8
for _ in $(seq 1 400); do [ -f "$dir/ck/step8/MANIFEST" ] && break; sleep 0.01; done
kill -KILL "$RTI_PID" "$prod" "$cons" 2>/dev/null
wait "$RTI_PID" "$prod" "$cons" 2>/dev/null
alive=$(grep -c "producer: done" "$dir/crash.p")
RTI_PID=""
check "the checkpoint was written before the kill" test -f "$dir/ck/step8/MANIFEST"
[ "$alive" -eq 0 ] || echo "note: the producer had ended before the kill"
check "no temporary folder is left beside it" bash -c "! ls -d '$dir'/ck/step8.tmp.* 2>/dev/null"

# 3. Resume on a new RTI: the producer restores the federation, both rejoin and go on.
rti_start "$dir" --log-level warn --log "$dir/log"
timeout 60 bin/tempo-example-producer --rti "$RTI_ADDR" --steps "$STEPS" --resume "$dir/ck/step8" \
  >"$dir/res.p" 2>&1 &
prod=$!
track "$prod"
timeout 60 bin/tempo-example-consumer --rti "$RTI_ADDR" --resume >"$dir/res.c" 2>&1 &
cons=$!
track "$cons"
wait "$prod"; prc=$?
wait "$cons"; crc=$?
rti_stop
check "resumed: producer and consumer end with 0 (got $prc, $crc)" test "$prc$crc" = 00
check "the producer resumed after step 8" grep -q "producer: resumed at t=0.8 s after step 8" "$dir/res.p"
check "the consumer resumed at 0.8 s" grep -q "consumer: resumed at t=0.8 s" "$dir/res.c"

# What each printed after the save, against the reference. The producer's "Command from"
# line comes whenever the consumer's receive-order interaction arrives: it is compared apart.
after() { sed -n "/$2/,\$p" "$1" | tail -n +2 | grep -v "Command from"; }
after "$dir/ref.c" "consumer: save 'step8'" >"$dir/want.c"
after "$dir/res.c" "consumer: resumed at" >"$dir/got.c"
after "$dir/ref.p" "producer: save 'step8'" >"$dir/want.p"
after "$dir/res.p" "producer: resumed at" >"$dir/got.p"
n=$(wc -l <"$dir/want.c")
check "the consumer printed the samples after the save ($n lines)" test "$n" -gt $((STEPS - 10))
check "the consumer after the resume printed what it printed after the save" cmp -s "$dir/want.c" "$dir/got.c"
check "the producer after the resume printed what it printed after the save" cmp -s "$dir/want.p" "$dir/got.p"
check "the consumer reflected every sample once" grep -q "consumer: done, $STEPS updates reflected" "$dir/res.c"
cmds=$(( $(sed -n "1,/producer: save 'step8'/p" "$dir/crash.p" | grep -c "Command from") + $(grep -c "Command from" "$dir/res.p") ))
check "the producer got the consumer's Command once, before or after the crash (got $cmds)" test "$cmds" -eq 1

# 3b. The same resume with the RTI restoring the folder itself (tempo-rti --restore).
rti_start "$dir" --log-level warn --restore "$dir/ck/step8"
timeout 60 bin/tempo-example-producer --rti "$RTI_ADDR" --steps "$STEPS" --resume "$dir/ck/step8" \
  >"$dir/res2.p" 2>&1 &
prod=$!
track "$prod"
timeout 60 bin/tempo-example-consumer --rti "$RTI_ADDR" --resume >"$dir/res2.c" 2>&1 &
cons=$!
track "$cons"
wait "$prod"; prc=$?
wait "$cons"; crc=$?
rti_stop
check "tempo-rti --restore: producer and consumer end with 0 (got $prc, $crc)" test "$prc$crc" = 00
check "tempo-rti --restore: the consumer printed what the first resume printed" cmp -s "$dir/res.c" "$dir/res2.c"
bin/tempo-rti --listen 127.0.0.1:0 --restore "$dir" >"$dir/bad.out" 2>&1
rc=$?
check "tempo-rti --restore of a folder that is no checkpoint exits 2 (got $rc)" test "$rc" -eq 2
check "... naming it" grep -q "not a Tempo checkpoint" "$dir/bad.out"

# 4. The restored federation's log: tempo-log replays the consumer as it rejoined and went on.
log=$(ls "$dir"/log/demo-*.tlog 2>/dev/null | head -n 1)
check "the resumed RTI wrote a federation log" test -n "$log"
timeout 60 bin/tempo-log replay "$log" --federate consumer -- \
  bin/tempo-example-consumer --rti {rti} --resume >"$dir/replay.out" 2>&1
rc=$?
check "replay of the resumed consumer matches its record (exit $rc)" \
  grep -q "MATCHED to the end of the log" "$dir/replay.out"
timeout 60 bin/tempo-log explain "$log" --at 400 >"$dir/explain.out" 2>&1
# the consumer is constrained, as when it was saved (its ENABLE_CONSTRAINED is not in this log)
check "explain of the restored log starts from the saved state" \
  grep -q "consumer t=.* con, bound none" "$dir/explain.out"
timeout 60 bin/tempo-log json "$log" >"$dir/log.json" 2>&1
check "json: the restored note's text, and the size of the state it carries" \
  grep -q '"text": *"restored from .step8. at 800000:.*"data_bytes"' "$dir/log.json"
check "json: no byte of that state in the text" bash -c "! grep -q 'u0000' '$dir/log.json'"

if [ "$fail" -ne 0 ]; then
  tail -n 5 "$dir/replay.out" | sed 's/^/    r| /'
  diff "$dir/want.c" "$dir/got.c" | head -5 | sed 's/^/    c| /'
  diff "$dir/want.p" "$dir/got.p" | head -5 | sed 's/^/    p| /'
  tail -n 3 "$dir/res.p" "$dir/res.c" "$dir/rti.err" | sed 's/^/    | /'
fi
finish
