#!/usr/bin/env bash
# The hybrid method end to end (doc/algorithms/hybrid.md): the bouncing ball on stairs
# (examples/bball_hybrid.json, shortened to 3 s) run in one process (tempo-master --local) and
# distributed (tempo-rti with a federation log, two tempo-fmu slaves and tempo-master as
# separate processes; under tempo-run; under an RTI shuffling ties between senders, seeds 1
# and 2) gives byte-identical CSVs, the master's notes included; the federation log shows
# every federate's granted logical time never going back, and the master's instants strictly
# increasing although the algorithm rewinds its slaves at every event; the stairs' discrete
# values go to the ball slave to slave (Share1 updates that the master never receives).
# Prints "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/lib.sh hybrid_test

sed -e 's/"end": 30/"end": 3/' -e "s#\.\./build/fmus#$PWD/build/fmus#g" \
  -e "s#\.\./build/run/bball_hybrid#$dir/out#" examples/bball_hybrid.json >"$dir/f.json"

# 1. One process.
bin/tempo-master --federation "$dir/f.json" --local --output "$dir/local" >"$dir/l.out" 2>&1
rc=$?
events=$(sed -n 's/.* \([0-9]*\) events.*/\1/p' "$dir/l.out")
if [ "$rc" -eq 0 ] && [ "${events:-0}" -ge 4 ]; then ok; else
  ko "local run: status $rc, events '${events:-}': $(head -c 400 "$dir/l.out")"; fi

# 2. Distributed, the RTI writing its federation log.
mkdir -p "$dir/log"
rti_start "$dir" --log "$dir/log"
timeout 120 bin/tempo-fmu --federation "$dir/f.json" --name ball --rti "$RTI_ADDR" --output "$dir/dist" >"$dir/b.out" 2>&1 &
s1=$!
timeout 120 bin/tempo-fmu --federation "$dir/f.json" --name steps --rti "$RTI_ADDR" --output "$dir/dist" >"$dir/s.out" 2>&1 &
s2=$!
timeout 120 bin/tempo-master --federation "$dir/f.json" --rti "$RTI_ADDR" --output "$dir/dist" >"$dir/m.out" 2>&1
rm_=$?
wait $s1; r1=$?
wait $s2; r2=$?
rti_stop
same=1
for f in ball steps master; do cmp -s "$dir/local/$f.csv" "$dir/dist/$f.csv" || same=0; done
if [ "$rm_" -eq 0 ] && [ "$r1" -eq 0 ] && [ "$r2" -eq 0 ] && [ "$same" -eq 1 ]; then ok; else
  ko "distributed: $rm_ $r1 $r2, same CSVs $same: $(head -c 600 "$dir/m.out" "$dir/b.out" "$dir/s.out")"; fi
# The same number of events both ways (the summary lines agree).
if grep -q " $events events" "$dir/m.out"; then ok; else
  ko "events: local $events, distributed: $(head -c 300 "$dir/m.out")"; fi

# 2b. tempo-run (RTI, slaves and master started from the file) gives the same bits.
timeout 120 bin/tempo-run "$dir/f.json" --quiet --output "$dir/run" >"$dir/r.out" 2>"$dir/r.err"
rc=$?
same=1
for f in ball steps master; do cmp -s "$dir/local/$f.csv" "$dir/run/$f.csv" || same=0; done
if [ "$rc" -eq 0 ] && [ "$same" -eq 1 ]; then ok; else
  ko "tempo-run: status $rc, same CSVs $same: $(head -c 600 "$dir/r.err")"; fi

# 2c. Check C10 with data from two senders: under an RTI that shuffles ties between senders
# (the ball gets the master's commands and the stairs' shares at one instant), the same bits.
# The ball runs with --timeout -1 (no limit: its waits for the stairs' shares must wait, not
# fail at once; `timeout 120` bounds the test).
for seed in 1 2; do
  rti_start "$dir" --shuffle-ties "$seed"
  timeout 120 bin/tempo-fmu --federation "$dir/f.json" --name ball --rti "$RTI_ADDR" --output "$dir/s$seed" --timeout -1 >/dev/null 2>&1 &
  b=$!
  timeout 120 bin/tempo-fmu --federation "$dir/f.json" --name steps --rti "$RTI_ADDR" --output "$dir/s$seed" >/dev/null 2>&1 &
  s=$!
  timeout 120 bin/tempo-master --federation "$dir/f.json" --rti "$RTI_ADDR" --output "$dir/s$seed" >"$dir/sm$seed.out" 2>&1
  rm_=$?
  wait $b; r1=$?
  wait $s; r2=$?
  rti_stop
  same=1
  for f in ball steps master; do cmp -s "$dir/local/$f.csv" "$dir/s$seed/$f.csv" || same=0; done
  if [ "$rm_" -eq 0 ] && [ "$r1" -eq 0 ] && [ "$r2" -eq 0 ] && [ "$same" -eq 1 ]; then ok; else
    ko "shuffled ties, seed $seed: $rm_ $r1 $r2, same CSVs $same: $(head -c 400 "$dir/sm$seed.out")"; fi
done

# 3. Logical time from the federation log: per federate, every grant at or after the previous
# one; the master's TARA grants (one per instant) strictly increasing.
log=$(ls "$dir"/log/*.tlog 2>/dev/null | head -n 1)
if [ -n "$log" ]; then
  # "federate request ticks" of every grant (the ticks are the [N] of tempo-log show; its
  # --kind filter spares decoding the whole log, some 300 000 records)
  bin/tempo-log show "$log" --kind GRANT |
    awk '$4 == "DECISION" && $5 == "GRANT" { t = $8; gsub(/[^0-9-]/, "", t); print $3, $6, t }' \
      >"$dir/grants.txt"
  verdict=$(awk '
    { n[$1]++; if (($1 in last) && $3 < last[$1]) back[$1]++; last[$1] = $3
      if ($1 == "master" && $2 == "TARA") { if (mt != "" && $3 <= mt) mback++; mt = $3; mopen++ } }
    END { bad = 0; for (f in n) { if (back[f] > 0) bad++ }
          printf "%d %d %d %d\n", length(n), bad, mopen, mback + 0 }' "$dir/grants.txt")
  set -- $verdict
  if [ "$1" -eq 3 ] && [ "$2" -eq 0 ] && [ "$3" -gt 100 ] && [ "$4" -eq 0 ]; then ok; else
    ko "grants: federates $1, going back $2, master instants $3, not increasing $4"; fi
else
  ko "no federation log in $dir/log: $(cat "$dir/rti.out" "$dir/rti.err")"
fi

# 4. Slave to slave: the stairs' discrete values travel as updates of their Share1 object,
# reflected to the ball and never to the master: one round at the start and one per event.
if [ -n "$log" ]; then
  bin/tempo-log show "$log" --class Share1 >"$dir/share.txt"
  set -- $(awk '$3 == "steps" && $4 == "RECV" && $5 == "UPDATE" { u++ }
                $3 == "ball" && $4 == "SENT" && $5 == "REFLECT" { b++ }
                $3 == "master" && $4 == "SENT" && $5 == "REFLECT" { m++ }
                END { printf "%d %d %d\n", u, b, m }' "$dir/share.txt")
  if [ "$1" -eq $((${events:-0} + 1)) ] && [ "$2" -eq "$1" ] && [ "$3" -eq 0 ]; then ok; else
    ko "shares: $1 sent by the stairs (expected ${events:-0} + 1), $2 reflected to the ball, $3 to the master"; fi
fi

finish
