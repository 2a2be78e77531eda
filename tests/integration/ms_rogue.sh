#!/usr/bin/env bash
# Commands only from the master (doc/master.md): a rogue federate (tests/integration/ms_rogue.c)
# joins a master-jacobi federation before it starts, then sends every command kind and a
# malformed command to both slaves, first in receive order, then time-stamped as a regulating
# federate, and forges a reply on slave 0's class. Each slave must refuse every command, naming
# the rogue and the kind, and report the count; the master must refuse the forged reply the
# same way; the run must end normally with the CSVs of the one-process run, byte for byte. The
# same with the hybrid method, where the rogue also forges the slaves' shares.
# Prints "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/lib.sh ms_rogue
rogue=build/release/tests/integration/ms_rogue
need ms_rogue bin/tempo-rti bin/tempo-fmu bin/tempo-master "$rogue"

lv "$dir/m.json" lvm '{ "method": "master-jacobi", "end": 20, "step": 0.5 }'
bin/tempo-master --federation "$dir/m.json" --local --output "$dir/local" >"$dir/l.out" 2>&1 ||
  ko "local run: $(head -c 400 "$dir/l.out")"

rti_start "$dir" || ko "the RTI did not start: $(cat "$dir/rti.err")"
# The rogue first, so that it is a member of the start point the master registers.
timeout 60 "$rogue" "$dir/m.json" "$RTI_ADDR" mallory >"$dir/rogue.out" 2>"$dir/rogue.err" &
rp=$!
track $rp
for _ in $(seq 100); do has "$dir/rogue.out" "rogue: joined" && break; sleep 0.05; done
timeout 60 bin/tempo-fmu --federation "$dir/m.json" --name prey --rti "$RTI_ADDR" \
  --output "$dir/dist" >"$dir/p.out" 2>"$dir/p.err" &
s1=$!
timeout 60 bin/tempo-fmu --federation "$dir/m.json" --name predator --rti "$RTI_ADDR" \
  --output "$dir/dist" >"$dir/q.out" 2>"$dir/q.err" &
s2=$!
track $s1 $s2
timeout 60 bin/tempo-master --federation "$dir/m.json" --rti "$RTI_ADDR" --output "$dir/dist" \
  >"$dir/m.out" 2>"$dir/m.err"
rm_=$?
wait $s1; r1=$?
wait $s2; r2=$?
wait $rp; rr=$?
rti_stop
show() { head -c 1500 "$dir/rogue.out" "$dir/rogue.err" "$dir/m.err" "$dir/p.err" "$dir/q.err"; }

# The rogue did its part: 2 slaves x (17 kinds + 1 malformed) x (receive order + time-stamped).
check "the rogue sent its 72 commands" has "$dir/rogue.out" "rogue: sent 72 commands, 36 time-stamped"
[ "$rr" -eq 0 ] || ko "the rogue failed ($rr): $(show)"

# 1. The run goes on and ends well, with the one-process results.
if [ "$rm_" -eq 0 ] && [ "$r1" -eq 0 ] && [ "$r2" -eq 0 ]; then ok; else
  ko "exit statuses master $rm_, prey $r1, predator $r2: $(show)"; fi
for f in prey predator; do
  check "$f.csv equals the one-process run" cmp -s "$dir/local/$f.csv" "$dir/dist/$f.csv"
done
check "the master's message counts are those of a run without rogue" \
  has "$dir/m.out" "done at t = 20 s: 332 commands, 248 replies"

# 2. Each slave refused every kind from the rogue, by name, and reported the count.
kinds="set-inputs step get-outputs get-output-derivs get-discrete set-discrete get-states
       set-states get-derivatives get-directional save restore record close end hello share"
for s in p q; do
  missing=
  for k in $kinds; do
    [ "$(grep -cF "refused a command ($k) from mallory (federate " "$dir/$s.err")" -eq 2 ] ||
      missing="$missing $k"
  done
  [ -z "$missing" ] || ko "$s: kinds not refused twice by name:$missing: $(head -c 800 "$dir/$s.err")"
  [ -z "$missing" ] && ok
  check "$s: the malformed command refused" \
    test "$(grep -cF 'refused a malformed command (3 bytes) from mallory' "$dir/$s.err")" -eq 2
  check "$s: the refusals name the master as the only sender" has "$dir/$s.err" "only master (federate "
  check "$s: the count reported" has "$dir/$s.err" "36 message(s) refused in this run"
  # The time-stamped ones reached it alone while it waited for the next instant: it went on
  # waiting for the master's (the run's results above show it executed nothing of them).
  check "$s: granted for the rogue's commands alone, waited again" \
    has "$dir/$s.err" "granted at 0.25 s for refused commands only"
done

# 3. The master refused the forged reply, naming the rogue.
check "the master refused the forged reply" \
  has "$dir/m.err" "refused a reply on prey's class from mallory (federate "
check "the master reported it" has "$dir/m.err" "1 reply refused in this run"

# 4. The hybrid method's slave-to-slave shares (doc/master.md "Slave to slave"): the rogue also
#    forges a share on every Share<i> class; the ball, which takes the stairs' shares, refuses
#    the forged one by name, and the results are those of the one-process run.
sed -e 's/"end": 30/"end": 1/' -e "s#\.\./build/fmus#$PWD/build/fmus#g" \
  -e "s#\.\./build/run/bball_hybrid#$dir/hout#" examples/bball_hybrid.json >"$dir/h.json"
bin/tempo-master --federation "$dir/h.json" --local --output "$dir/hlocal" >"$dir/hl.out" 2>&1 ||
  ko "hybrid local run: $(head -c 400 "$dir/hl.out")"
rti_start "$dir" || ko "the RTI did not start: $(cat "$dir/rti.err")"
timeout 60 "$rogue" "$dir/h.json" "$RTI_ADDR" mallory >"$dir/hrogue.out" 2>"$dir/hrogue.err" &
rp=$!
track $rp
for _ in $(seq 100); do has "$dir/hrogue.out" "rogue: joined" && break; sleep 0.05; done
timeout 60 bin/tempo-fmu --federation "$dir/h.json" --name ball --rti "$RTI_ADDR" \
  --output "$dir/hdist" >"$dir/hb.out" 2>"$dir/hb.err" &
s1=$!
timeout 60 bin/tempo-fmu --federation "$dir/h.json" --name steps --rti "$RTI_ADDR" \
  --output "$dir/hdist" >"$dir/hs.out" 2>"$dir/hs.err" &
s2=$!
track $s1 $s2
timeout 60 bin/tempo-master --federation "$dir/h.json" --rti "$RTI_ADDR" --output "$dir/hdist" \
  >"$dir/hm.out" 2>"$dir/hm.err"
rm_=$?
wait $s1; r1=$?
wait $s2; r2=$?
wait $rp
rti_stop
check "hybrid: the rogue forged 2 shares" has "$dir/hrogue.out" "2 shares forged"
if [ "$rm_" -eq 0 ] && [ "$r1" -eq 0 ] && [ "$r2" -eq 0 ]; then ok; else
  ko "hybrid: exit statuses master $rm_, ball $r1, steps $r2: $(head -c 1200 "$dir/hm.err" "$dir/hb.err" "$dir/hs.err")"; fi
for f in ball steps master; do
  check "hybrid: $f.csv equals the one-process run" cmp -s "$dir/hlocal/$f.csv" "$dir/hdist/$f.csv"
done
check "hybrid: the ball refused the forged share, naming the rogue" \
  has "$dir/hb.err" "refused a share of discrete values from mallory (federate "
check "hybrid: only the stairs may send it" has "$dir/hb.err" "only steps (federate "

finish
