#!/usr/bin/env bash
# Strong coupling end to end (doc/algorithms/strong-coupling.md, doc/master.md): the Lorenz file
# examples/lorenz_strong.json run in one process (tempo-master --local), distributed by hand
# (tempo-rti, two tempo-fmu slaves, tempo-master) and by tempo-run gives byte-identical CSVs and
# master notes; the distributed message count equals eq. 5.19's form for the right-hand-side
# count the master reports (check C9, counted over the RTI); a slave killed in the middle of the
# solve is named by the master and the other slave stops; a co-simulation-only FMU is refused
# with the reason. Also the get-directional command over the RTI: semi-implicit Newton with
# eq. 5.12's Jacobian from directional derivatives (examples/gain_semi.json) gives the same bits
# in one process and under tempo-run. Prints "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/lib.sh strong_run
same() { cmp -s "$1/x.csv" "$2/x.csv" && cmp -s "$1/yz.csv" "$2/yz.csv" && cmp -s "$1/master.csv" "$2/master.csv"; }

# The example with its paths made absolute; $1 the copy, $2 a sed expression for the rest.
mkfile() {
  sed -e "s|\.\./build/fmus|$PWD/build/fmus|g" -e "s|\.\./build/run/lorenz_strong|$dir/out|" \
    -e "${2:-s/^//}" examples/lorenz_strong.json >"$1"
}

# 1. One process, by hand, under tempo-run: the same bits.
mkfile "$dir/l.json"
bin/tempo-master --federation "$dir/l.json" --local --output "$dir/local" >"$dir/l.out" 2>&1
rc=$?
if [ "$rc" -eq 0 ] && [ "$(wc -l <"$dir/local/x.csv")" -eq 202 ] &&
  grep -q 'strong (bdf, rtol 1e-08, atol 1e-10): 200 output instants' "$dir/l.out"; then ok; else
  ko "local run: status $rc: $(head -c 400 "$dir/l.out")"; fi
n_f=$(sed -n 's/.* output instants, \([0-9]*\) right-hand sides in \([0-9]*\) rounds.*/\1 \2/p' "$dir/l.out")
read -r n_f n_r <<<"${n_f:-0 0}"
# One round per evaluation: every wired output of the Lorenz FMUs is a state.
if [ "$n_f" -gt 200 ] && [ "$n_f" -eq "$n_r" ]; then ok; else ko "n_f '$n_f', rounds '$n_r'"; fi
rti_start "$dir"
timeout 120 bin/tempo-fmu --federation "$dir/l.json" --name x --rti "$RTI_ADDR" --output "$dir/dist" >"$dir/p.out" 2>&1 &
s1=$!
timeout 120 bin/tempo-fmu --federation "$dir/l.json" --name yz --rti "$RTI_ADDR" --output "$dir/dist" >"$dir/q.out" 2>&1 &
s2=$!
timeout 120 bin/tempo-master --federation "$dir/l.json" --rti "$RTI_ADDR" --output "$dir/dist" >"$dir/m.out" 2>&1
rm_=$?
wait $s1; r1=$?
wait $s2; r2=$?
rti_stop
if [ "$rm_" -eq 0 ] && [ "$r1" -eq 0 ] && [ "$r2" -eq 0 ] && same "$dir/local" "$dir/dist"; then ok; else
  ko "distributed by hand: $rm_ $r1 $r2: $(head -c 600 "$dir/m.out" "$dir/p.out" "$dir/q.out")"; fi
# Check C9 over the RTI. The master counts every command it sends and every reply it gets
# (doc/master.md "Counting messages"); per slave: hello; at the start get_states, then
# set_states, set_inputs, record and close; per output instant (n_s = 200) set_states,
# set_inputs, record and close; per evaluation set_states, set_inputs, get_derivatives; end.
# Commands 2 (1 + 5 + 4 n_s + 3 n_f + 1), replies 2 (1 + 4 + 3 n_s + 3 n_f).
want="$((2 * (7 + 4 * 200 + 3 * n_f))) commands, $((2 * (5 + 3 * 200 + 3 * n_f))) replies"
if grep -q "done at t = 10 s: $want" "$dir/m.out"; then ok; else
  ko "message counts: want '$want': $(cat "$dir/m.out")"; fi
timeout 120 bin/tempo-run "$dir/l.json" --quiet --output "$dir/run" >"$dir/r.out" 2>&1
rc=$?
if [ "$rc" -eq 0 ] && same "$dir/local" "$dir/run"; then ok; else
  ko "tempo-run: status $rc: $(head -c 600 "$dir/r.out")"; fi

# 2. A slave killed in the middle of the solve (end 2000 s: minutes of work): the master stops
#    naming it, the other slave stops because the master left, nothing is left running.
mkfile "$dir/long.json" 's|"end": 10,|"end": 2000,|'
rti_start "$dir"
timeout 60 bin/tempo-fmu --federation "$dir/long.json" --name x --rti "$RTI_ADDR" --output "$dir/k" >"$dir/kp.out" 2>&1 &
s1=$!
timeout 60 bin/tempo-fmu --federation "$dir/long.json" --name yz --rti "$RTI_ADDR" --output "$dir/k" >"$dir/kq.out" 2>&1 &
s2=$!
track $s1 $s2
timeout 60 bin/tempo-master --federation "$dir/long.json" --rti "$RTI_ADDR" >"$dir/km.out" 2>&1 &
sm=$!
victim=$(victim "--federation $dir/long.json --name yz" "$dir/k/yz.csv" "$s2")
[ -n "$victim" ] && kill -9 "$victim"
wait $sm; rm_=$?
wait $s1; r1=$?
if [ -n "$victim" ] && [ "$rm_" -eq 1 ] &&
  grep -qE "slave lost: strong coupling: (slave 'yz' [^(]*: lost: |.*\(slave yz lost: )" "$dir/km.out" &&
  [ "$r1" -ne 0 ] && grep -q "the master left before the end" "$dir/kp.out"; then ok; else
  ko "killed slave: victim '$victim' master $rm_ other $r1: $(head -c 800 "$dir/km.out" "$dir/kp.out")"; fi
rti_stop
sleep 0.2
if ! still_running "$dir/long.json"; then ok; else ko "processes left: $(pgrep -af -- "$dir/long.json")"; fi

# 3. A co-simulation-only FMU: strong coupling needs the model's derivatives; refused by name.
mkfile "$dir/cs.json" 's|lorenz_yz_me\.fmu|lorenz_yz_cs.fmu|'
bin/tempo-master --federation "$dir/cs.json" --local --output "$dir/cs" >"$dir/cs.out" 2>&1
rc=$?
if [ "$rc" -eq 1 ] && grep -q "federate yz: .*no ModelExchange interface (method \"strong\" evaluates the model: it needs model exchange)" "$dir/cs.out"; then ok; else
  ko "CS FMU: status $rc: $(head -c 600 "$dir/cs.out")"; fi

# 4. Directional derivatives through the protocol (semi-implicit, "jacobian": "directional").
sed -e "s|\.\./build/fmus|$PWD/build/fmus|g" -e "s|\.\./build/run/gain_semi|$dir/gain|" \
  examples/gain_semi.json >"$dir/gain.json"
bin/tempo-master --federation "$dir/gain.json" --local --output "$dir/gl" >"$dir/gl.out" 2>&1
r1=$?
timeout 60 bin/tempo-run "$dir/gain.json" --quiet --output "$dir/gd" >"$dir/gd.out" 2>&1
r2=$?
if [ "$r1" -eq 0 ] && [ "$r2" -eq 0 ] && grep -q "updates per step: 1:10" "$dir/gl.out" &&
  cmp -s "$dir/gl/g1.csv" "$dir/gd/g1.csv" && cmp -s "$dir/gl/g2.csv" "$dir/gd/g2.csv" &&
  cmp -s "$dir/gl/master.csv" "$dir/gd/master.csv"; then ok; else
  ko "gain loop: $r1 $r2: $(head -c 600 "$dir/gl.out" "$dir/gd.out")"; fi

finish
