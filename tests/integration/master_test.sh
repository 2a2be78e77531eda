#!/usr/bin/env bash
# tempo-master and the slave role of tempo-fmu end to end (doc/master.md): the same
# master-jacobi file run in one process (tempo-master --local), distributed by hand (tempo-rti,
# two tempo-fmu slaves, tempo-master as separate processes) and by tempo-run gives
# byte-identical CSVs, equal to the peer Jacobi of tempo-fmu (the same scheme implemented
# without a master: an independent reference); a start time after 0 works; a slave killed
# mid-run (kill -9) makes the master stop with a report naming it, the other slave stop, and
# nothing of the run is left. Prints "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/lib.sh master_test

same_csvs() { cmp -s "$1/prey.csv" "$2/prey.csv" && cmp -s "$1/predator.csv" "$2/predator.csv"; }

# 1. One process, distributed by hand, and by tempo-run: byte-identical results.
lv "$dir/m.json" lvm '{ "method": "master-jacobi", "end": 20, "step": 0.5 }'
bin/tempo-master --federation "$dir/m.json" --local --output "$dir/local" >"$dir/l.out" 2>&1
rc=$?
if [ "$rc" -eq 0 ] && [ "$(wc -l <"$dir/local/prey.csv")" -eq 42 ]; then ok; else
  ko "local run: status $rc: $(head -c 400 "$dir/l.out")"; fi
rti_start "$dir"
timeout 60 bin/tempo-fmu --federation "$dir/m.json" --name prey --rti "$RTI_ADDR" --output "$dir/dist" >"$dir/p.out" 2>&1 &
s1=$!
timeout 60 bin/tempo-fmu --federation "$dir/m.json" --name predator --rti "$RTI_ADDR" --output "$dir/dist" >"$dir/q.out" 2>&1 &
s2=$!
timeout 60 bin/tempo-master --federation "$dir/m.json" --rti "$RTI_ADDR" >"$dir/m.out" 2>&1
rm_=$?
wait $s1; r1=$?
wait $s2; r2=$?
if [ "$rm_" -eq 0 ] && [ "$r1" -eq 0 ] && [ "$r2" -eq 0 ] && same_csvs "$dir/local" "$dir/dist"; then ok; else
  ko "distributed by hand: $rm_ $r1 $r2: $(head -c 600 "$dir/m.out" "$dir/p.out" "$dir/q.out")"; fi
# The master counts its messages: per slave 1 hello, per instant (41) 3 commands (outputs or
# step, inputs, record) + 1 close, 1 end -> 2 * (1 + 41 * 4 + 1) = 332 commands; a reply to
# each but closes and ends -> 2 * (1 + 41 * 3) = 248.
if grep -q 'done at t = 20 s: 332 commands, 248 replies' "$dir/m.out"; then ok; else
  ko "message counts: $(cat "$dir/m.out")"; fi
rti_stop
timeout 60 bin/tempo-run "$dir/m.json" --quiet --output "$dir/run" >"$dir/r.out" 2>"$dir/r.err"
rc=$?
if [ "$rc" -eq 0 ] && same_csvs "$dir/local" "$dir/run"; then ok; else
  ko "tempo-run: status $rc: $(head -c 600 "$dir/r.err")"; fi

# 2. The peer Jacobi of tempo-fmu (no master) computes the same scheme: the same bits.
lv "$dir/j.json" lvj '{ "method": "jacobi", "end": 20, "step": 0.5 }'
timeout 60 bin/tempo-run "$dir/j.json" --quiet --output "$dir/peer" >"$dir/j.out" 2>"$dir/j.err"
if same_csvs "$dir/local" "$dir/peer"; then ok; else
  ko "peer jacobi differs: $(diff "$dir/local/prey.csv" "$dir/peer/prey.csv" | head -5)"; fi

# 2b. Waveform relaxation (rollback through saved states, sub-step waveforms, iterations): the
#     Lorenz split, model exchange and co-simulation, in one process and under tempo-run give
#     the same CSVs and the same algorithm notes (master.csv: every iteration and residual).
for kind in me cs; do
  # The co-simulation FMUs take input derivatives up to order 3: a cubic waveform.
  nsub=8; [ "$kind" = cs ] && nsub=3
  cat >"$dir/wr-$kind.json" <<EOT
{
  "federation": "lorenz-wr-$kind",
  "algorithm": { "method": "wr", "end": 1, "step": 0.05, "tol": 1e-8, "max_iter": 50, "n_sub": $nsub },
  "solver": { "rtol": 1e-10, "atol": 1e-12 },
  "federates": [
    { "name": "x", "fmu": "$fmus/lorenz_x_$kind.fmu", "parameters": { "sigma": 10, "x0": 1 },
      "outputs": { "x": "X.x" }, "inputs": { "y": "YZ.y" }, "record": [ "x" ] },
    { "name": "yz", "fmu": "$fmus/lorenz_yz_$kind.fmu",
      "parameters": { "rho": 28, "beta": 2.6666666666666665, "y0": 1, "z0": 1 },
      "outputs": { "y": "YZ.y", "z": "YZ.z" }, "inputs": { "x": "X.x" }, "record": [ "y", "z" ] }
  ],
  "output": "$dir/out-wr-$kind"
}
EOT
  bin/tempo-master --federation "$dir/wr-$kind.json" --local --output "$dir/wr-$kind-local" \
    >"$dir/wl-$kind.out" 2>&1
  r1=$?
  timeout 60 bin/tempo-run "$dir/wr-$kind.json" --output "$dir/wr-$kind-run" \
    >"$dir/wd-$kind.out" 2>"$dir/wd-$kind.err"
  r2=$?
  if [ "$r1" -eq 0 ] && [ "$r2" -eq 0 ] &&
    cmp -s "$dir/wr-$kind-local/x.csv" "$dir/wr-$kind-run/x.csv" &&
    cmp -s "$dir/wr-$kind-local/yz.csv" "$dir/wr-$kind-run/yz.csv" &&
    cmp -s "$dir/wr-$kind-local/master.csv" "$dir/wr-$kind-run/master.csv" &&
    [ "$(grep -c ',wr.accept,' "$dir/wr-$kind-run/master.csv")" -eq 20 ] &&
    grep -q 'tempo-master: lorenz-wr-'$kind': wr: 20 instants, 20 steps accepted' "$dir/wd-$kind.err"; then ok; else
    ko "wr $kind: $r1 $r2: $(head -c 600 "$dir/wl-$kind.out" "$dir/wd-$kind.err" "$dir/wd-$kind.out")"; fi
done

# 2b'. Semi-implicit coupling (the last step redone, coupling equations solved by Newton,
#      Broyden or Newton-Krylov): the Lorenz split (model exchange) in one process and under
#      tempo-run gives the same CSVs and the same master.csv (every residual and update).
for it in newton broyden newton-krylov; do
  sed -e "s|\.\./build/fmus|$fmus|g" -e 's|"end": 10|"end": 1|' \
    -e "s|\"iteration\": \"newton\"|\"iteration\": \"$it\"|" \
    -e "s|\.\./build/run/lorenz_semi|$dir/out-semi-$it|" examples/lorenz_semi.json >"$dir/semi-$it.json"
  bin/tempo-master --federation "$dir/semi-$it.json" --local --output "$dir/semi-$it-local" \
    >"$dir/sl-$it.out" 2>&1
  r1=$?
  timeout 60 bin/tempo-run "$dir/semi-$it.json" --output "$dir/semi-$it-run" \
    >"$dir/sd-$it.out" 2>"$dir/sd-$it.err"
  r2=$?
  if [ "$r1" -eq 0 ] && [ "$r2" -eq 0 ] &&
    cmp -s "$dir/semi-$it-local/x.csv" "$dir/semi-$it-run/x.csv" &&
    cmp -s "$dir/semi-$it-local/yz.csv" "$dir/semi-$it-run/yz.csv" &&
    cmp -s "$dir/semi-$it-local/master.csv" "$dir/semi-$it-run/master.csv" &&
    [ "$(grep -c ',semi.accept,' "$dir/semi-$it-run/master.csv")" -eq 20 ] &&
    grep -q "tempo-master: lorenz-semi: semi-implicit ($it): 20 steps" "$dir/sd-$it.err"; then ok; else
    ko "semi-implicit $it: $r1 $r2: $(head -c 600 "$dir/sl-$it.out" "$dir/sd-$it.err" "$dir/sd-$it.out")"; fi
done

# 2c. Check C10: under an RTI that shuffles ties between senders (tempo-rti --shuffle-ties
#     SEED), master-jacobi and wr give the one-process results again, for three seeds.
for seed in 1 2 3; do
  rti_start "$dir" --shuffle-ties "$seed"
  timeout 60 bin/tempo-run "$dir/m.json" --rti "$RTI_ADDR" --quiet --output "$dir/sh$seed" \
    >/dev/null 2>"$dir/sh$seed.err"
  r1=$?
  timeout 60 bin/tempo-run "$dir/wr-me.json" --rti "$RTI_ADDR" --quiet --output "$dir/shw$seed" \
    >/dev/null 2>"$dir/shw$seed.err"
  r2=$?
  rti_stop
  if [ "$r1" -eq 0 ] && [ "$r2" -eq 0 ] && same_csvs "$dir/local" "$dir/sh$seed" &&
    cmp -s "$dir/wr-me-local/yz.csv" "$dir/shw$seed/yz.csv" &&
    cmp -s "$dir/wr-me-local/master.csv" "$dir/shw$seed/master.csv"; then ok; else
    ko "shuffled ties, seed $seed: $r1 $r2: $(head -c 600 "$dir/sh$seed.err" "$dir/shw$seed.err")"; fi
done

# 2d. The notes in the federation log: wr (Lorenz, model exchange) under a logging RTI; every
#     row of master.csv is one Note interaction the RTI logged, stamped with its instant
#     (tempo-log show --class Note), and master.csv is the one-process one again.
mkdir -p "$dir/flog"
rti_start "$dir" --log "$dir/flog"
timeout 60 bin/tempo-run "$dir/wr-me.json" --rti "$RTI_ADDR" --output "$dir/wlog" \
  >/dev/null 2>"$dir/wlog.err"
rc=$?
rti_stop
log=$(ls "$dir"/flog/lorenz-wr-me-*.tlog 2>/dev/null | head -n 1)
bin/tempo-log show "$log" --class Note >"$dir/notes.txt" 2>"$dir/notes.err"
nrow=$(($(wc -l <"$dir/wlog/master.csv") - 1))
nnote=$(grep -c 'RECV *SEND_INTERACTION interaction=Note' "$dir/notes.txt")
# The first step's first iteration: instant 0.05 s, what=wr.iter, value=1; its residual next.
first=$(grep -m 1 'what=wr.iter' "$dir/notes.txt")
if [ "$rc" -eq 0 ] && [ -n "$log" ] && [ "$nrow" -gt 40 ] && [ "$nnote" -eq "$nrow" ] &&
  cmp -s "$dir/wr-me-local/master.csv" "$dir/wlog/master.csv" &&
  echo "$first" | grep -qF 't=0.05s [50000000] what=wr.iter value=1 at=0.050000000000000003' &&
  grep -q "notes logged" "$dir/wlog.err" &&
  [ "$(grep -c 'what=wr.accept' "$dir/notes.txt")" -eq 20 ]; then ok; else
  ko "notes in the log: status $rc, log '$log', $nrow rows, $nnote notes: $first $(head -c 300 "$dir/notes.err" "$dir/wlog.err")"; fi

# 2e. A slave that hangs without dying (SIGSTOP; master-jacobi, Lotka-Volterra): the reply
#     timeout (the file's algorithm.reply_timeout, 1 s) stops the master with a report naming
#     the slave; the other slave stops because the master left; the stopped one, continued,
#     stops the same way.
lv "$dir/hang.json" hang '{ "method": "master-jacobi", "end": 20000, "step": 0.5, "reply_timeout": 1 }'

rti_start "$dir"
timeout 60 bin/tempo-fmu --federation "$dir/hang.json" --name predator --rti "$RTI_ADDR" >"$dir/hx.out" 2>&1 &
s1=$!
timeout 60 bin/tempo-fmu --federation "$dir/hang.json" --name prey --rti "$RTI_ADDR" >"$dir/hyz.out" 2>&1 &
s2=$!
timeout 60 bin/tempo-master --federation "$dir/hang.json" --rti "$RTI_ADDR" >"$dir/hm.out" 2>&1 &
mpid=$!
track $s1 $s2 $mpid
victim=$(victim "--federation $dir/hang.json --name prey" "$dir/out-hang/prey.csv" "$s2")
[ -n "$victim" ] && kill -STOP "$victim"
stopped=$(date +%s%N)
wait "$mpid"; rm_=$?
waited=$((($(date +%s%N) - stopped) / 1000000))
[ -n "$victim" ] && kill -CONT "$victim"
wait "$s1"; r1=$?
wait "$s2"; r2=$?
if [ -n "$victim" ] && [ "$rm_" -eq 1 ] &&
  grep -qE "slave prey(: | )lost: no (reply for [0-9]* ms \(reply timeout 1000 ms\) to |grant of TARA?\([0-9.e+-]* s\) for 1000 ms)" "$dir/hm.out" &&
  [ "$waited" -ge 900 ] && [ "$waited" -lt 20000 ] &&
  [ "$r1" -eq 1 ] && grep -q 'the master left before the end' "$dir/hx.out" &&
  [ "$r2" -eq 1 ] && grep -q 'the master left before the end' "$dir/hyz.out"; then ok; else
  ko "hung slave: victim '$victim' master $rm_ after ${waited} ms, predator $r1, prey $r2: $(head -c 900 "$dir/hm.out" "$dir/hx.out" "$dir/hyz.out")"; fi
rti_stop
if ! still_running "$dir/hang.json"; then ok; else ko "processes left: $(pgrep -af -- "$dir/hang.json")"; fi
# The command line's --reply-timeout is checked like --timeout.
bin/tempo-master --federation "$dir/hang.json" --reply-timeout 0 >/dev/null 2>"$dir/rt0.err"
if [ $? -eq 2 ] && grep -q -- '--reply-timeout 0: expected milliseconds' "$dir/rt0.err"; then ok; else
  ko "--reply-timeout 0: $(cat "$dir/rt0.err")"; fi

# 3. A start after 0 (the slaves wait with NERA for the first instant).
lv "$dir/late.json" late '{ "method": "master-jacobi", "start": 3, "end": 5, "step": 0.25 }'
bin/tempo-master --federation "$dir/late.json" --local --output "$dir/late-local" >/dev/null 2>&1
timeout 60 bin/tempo-run "$dir/late.json" --quiet --output "$dir/late-run" >"$dir/late.out" 2>"$dir/late.err"
rc=$?
if [ "$rc" -eq 0 ] && same_csvs "$dir/late-local" "$dir/late-run" &&
  [ "$(sed -n 2p "$dir/late-run/prey.csv" | cut -d, -f1)" = 3 ]; then ok; else
  ko "start 3: status $rc: $(head -c 600 "$dir/late.err")"; fi

# 4. A slave killed mid-run: the master's report names it, the other slave stops because the
#    master left, every process of the run exits by itself.
lv "$dir/long.json" long '{ "method": "master-jacobi", "end": 20000, "step": 0.5 }'
rti_start "$dir"
timeout 60 bin/tempo-fmu --federation "$dir/long.json" --name prey --rti "$RTI_ADDR" >"$dir/kp.out" 2>&1 &
s1=$!
timeout 60 bin/tempo-fmu --federation "$dir/long.json" --name predator --rti "$RTI_ADDR" >"$dir/kq.out" 2>&1 &
s2=$!
timeout 60 bin/tempo-master --federation "$dir/long.json" --rti "$RTI_ADDR" >"$dir/km.out" 2>&1 &
mpid=$!
track $s1 $s2 $mpid
victim=$(victim "--federation $dir/long.json --name prey" "$dir/out-long/prey.csv" "$s1")
[ -n "$victim" ] && kill -9 "$victim"
wait "$mpid"; rm_=$?
wait "$s2"; r2=$?
if [ -n "$victim" ] && [ "$rm_" -eq 1 ] && grep -qE "slave lost: .*slave prey(: | )lost: " "$dir/km.out" &&
  [ "$r2" -eq 1 ] && grep -q 'the master left before the end' "$dir/kq.out"; then ok; else
  ko "killed slave: victim '$victim' master $rm_ other $r2: $(head -c 600 "$dir/km.out" "$dir/kq.out")"; fi
rti_stop
if ! still_running "$dir/long.json"; then ok; else ko "processes left: $(pgrep -af -- "$dir/long.json")"; fi

# 5. The same under tempo-run: status 1, the victim named, nothing left.
timeout 60 bin/tempo-run "$dir/long.json" --quiet --output "$dir/kr" >"$dir/kr.out" 2>"$dir/kr.err" &
run=$!
track $run
victim=$(victim "--federation $dir/long.json --name predator" "$dir/kr/predator.csv")
[ -n "$victim" ] && kill -9 "$victim"
wait "$run"
rc=$?
if [ -n "$victim" ] && [ "$rc" -eq 1 ] && grep -q 'predator' "$dir/kr.err" &&
  ! still_running "$dir/long.json"; then ok; else
  ko "tempo-run, killed slave: victim '$victim' status $rc: $(head -c 600 "$dir/kr.err")"; fi

# 6. Semi-implicit: a slave killed in the middle of the coupling iterations. tempo-run exits
#    with status 1 naming the slave (the master's report, also when the kill lands while an
#    instant closes, or the killed child when tempo-run sees its death first), nothing is left.
sed -e "s|\.\./build/fmus|$fmus|g" -e 's|"end": 10|"end": 100000|' \
  -e "s|\.\./build/run/lorenz_semi|$dir/out-semi-long|" examples/lorenz_semi.json >"$dir/semi-long.json"
timeout 60 bin/tempo-run "$dir/semi-long.json" --output "$dir/ks" >"$dir/ks.out" 2>"$dir/ks.err" &
run=$!
track $run
victim=$(victim "--federation $dir/semi-long.json --name yz" "$dir/ks/yz.csv")
[ -n "$victim" ] && kill -9 "$victim"
wait "$run"
rc=$?
if [ -n "$victim" ] && [ "$rc" -eq 1 ] &&
  grep -qE "semi-implicit: slave 'yz'|child 'yz' .*killed|slave yz lost: " "$dir/ks.err" &&
  ! still_running "$dir/semi-long.json"; then ok; else
  ko "semi-implicit, killed slave: victim '$victim' status $rc: $(head -c 800 "$dir/ks.err")"; fi

finish
