#!/usr/bin/env bash
# The sanitized pass over the master methods (doc/contributing.md "Tests by layer", doc/master.md):
# every example file of a master method runs, shortened, under the ASan+UBSan builds of the
# programs (build/san/bin/, made by `make BUILD=san test-build`), over both sides of the
# port: in process (tempo-master --local: the slaves are fmu_slave values) and remote
# (tempo-master --in-process: the master-slave protocol over libtempo, ms_remote and the slave
# role of tempo-fmu, on an embedded RTI). The two must give byte-identical CSVs. One F3ORNITS
# file also runs distributed over TCP: two sanitized tempo-fmu slaves and a sanitized
# tempo-master on bin/tempo-rti (tests/integration/rti_san.sh covers the RTI's own build). A
# model in Python runs in both modes too, and as a peer under tempo-fmu --all. A sanitizer
# report, a non-zero exit or a missing CSV is a failure.
# About 40 s of CPU. Prints "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/lib.sh san_masters
san=build/san/bin
if [ ! -x "$san/tempo-master" ] || [ ! -x "$san/tempo-fmu" ]; then
  echo "san_masters: $san/tempo-master or tempo-fmu is missing: run make BUILD=san test-build"
  echo "0 passed, 1 failed"
  exit 1
fi
need san_masters build/fmus/lv_prey_me.fmu
# A report ends the program at once, with a non-zero status, and names the fault.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=86
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# short FILE END NAME: a copy of examples/FILE ending at END, its FMUs found from here, its
# results in $dir/NAME-<mode>; prints the copy's path.
short() {
  local f=$dir/$3.json
  sed -E -e "s|\"end\": [0-9.e+-]+|\"end\": $2|" -e "s|\"\\.\\./build/|\"$PWD/build/|g" \
    -e "s|\"output\": \"[^\"]*\"|\"output\": \"$dir/$3-out\"|" "examples/$1" >"$f"
  echo "$f"
}

# clean NAME LOG: no sanitizer report in LOG.
clean() { ! grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:' "$2"; }

# both NAME FILE: --local and --in-process, each clean and exiting 0, with the same CSVs.
both() {
  local name=$1 f=$2 mode rc
  for mode in local in-process; do
    rm -rf "$dir/$name-$mode"
    timeout 120 "$san/tempo-master" --federation "$f" "--$mode" --quiet \
      --output "$dir/$name-$mode" >"$dir/$name-$mode.log" 2>&1
    rc=$?
    if [ "$rc" -ne 0 ] || ! clean "$name" "$dir/$name-$mode.log"; then
      ko "$name --$mode: exit $rc: $(grep -m 3 -E 'ERROR|SUMMARY|runtime error|tempo-master' \
        "$dir/$name-$mode.log" | head -c 800)"
      return
    fi
  done
  local c n=0
  for c in "$dir/$name-local"/*.csv; do
    [ "$(basename "$c")" = master.csv ] && continue
    n=$((n + 1))
    if ! cmp -s "$c" "$dir/$name-in-process/$(basename "$c")"; then
      ko "$name: $(basename "$c") differs between --local and --in-process"
      return
    fi
  done
  if [ "$n" -lt 2 ]; then ko "$name: $n slave CSVs written"; return; fi
  ok
}

# Every example file of a master method: the methods are the program's (tempo-master
# --list-methods), so a new method is covered without an edit here (by its example file, else
# by the file below). END gives the time a file is cut to (default 1 s).
masters=$("$san/tempo-master" --list-methods | awk '$2 == "master" { print $1 }')
[ -n "$masters" ] || ko "tempo-master --list-methods lists no master method"
declare -A END=(
  [lv_master.json]=10 [lv_wr.json]=10 [lorenz_wr.json]=1 [vdp_wr.json]=4 [lv_semi.json]=10
  [lorenz_semi.json]=1 [vdp_semi.json]=4 [gain_semi.json]=1 [lv_strong.json]=10
  [lorenz_strong.json]=1 [vdp_strong.json]=4 [bball_hybrid.json]=3 [osc_hybrid.json]=2
  [osc_defect_euler_fixed.json]=0.5 [osc_defect_euler_variable.json]=0.5
  [osc_defect_exact_fixed.json]=0.5 [osc_defect_exact_variable.json]=0.5
  [osc_defect_fig4.json]=5 [osc_f3_mixed.json]=2 [osc_f3_async.json]=2 [osc_f3_change.json]=4
  [car_f3.json]=5 [car_zoh.json]=5 [springmass_balance.json]=4 [chain_balance.json]=2
  [groundmass_balance.json]=1 [linear2d_balance.json]=2 [linear2d_uni_balance.json]=2
  [springmass_energy.json]=7
)
covered=" "
for f in examples/*.json; do
  m=$(grep -o '"method": "[a-z0-9-]*"' "$f" | head -n 1 | cut -d'"' -f4)
  case " $(echo $masters) " in *" $m "*) ;; *) continue ;; esac
  b=$(basename "$f")
  both "${b%.json}" "$(short "$b" "${END[$b]:-1}" "${b%.json}")"
  covered="$covered$m "
done
# A master method without an example file (a new one) runs lv_master.json's split Lotka-Volterra
# as { method, end, step }: a method that needs other keys fails here, naming itself.
for m in $masters; do
  case "$covered" in *" $m "*) continue ;; esac
  f=$(short lv_master.json 10 "lv-$m")
  sed -i "s|\"method\": \"master-jacobi\"|\"method\": \"$m\"|" "$f"
  both "lv-$m" "$f"
done

# A model in Python (doc/python.md "In one process"): its slave drives a tempo-slave --pipe
# child over a socket pair (federate/msproto/msproto_child.c), under wr (rollback, sub-steps,
# input polynomials) in both modes, and as a peer of jacobi with extrapolation under the
# sanitized tempo-fmu --all. The child is bin/tempo-slave, found on PATH (none in build/san).
py=$dir/py.json
cat >"$py" <<EOT
{ "federation": "san-py", "algorithm": { "method": "wr", "end": 2, "step": 0.25, "tol": 1e-10,
  "max_iter": 50, "n_sub": 4 },
  "federates": [
    { "name": "src", "fmu": "$PWD/build/fmus/dahlquist_cs.fmu", "parameters": { "k": -0.5, "x0": 1 },
      "outputs": { "x": "Src.x" } },
    { "name": "integ", "python": "$PWD/examples/python/models.py:Integrator", "parameters": { "k": 2 },
      "inputs": { "u": "Src.x" }, "outputs": { "z": "Integ.z" } } ],
  "output": "$dir/py-out" }
EOT
PATH="$PWD/bin:$PATH" both python-wr "$py"
sed -e '1s|.*|{ "federation": "san-pyj", "algorithm": { "method": "jacobi", "end": 2, "step": 0.25,|' \
  -e '2s|.*|  "extrapolation": 1 },|' "$py" >"$dir/pyj.json"
PATH="$PWD/bin:$PATH" timeout 120 "$san/tempo-fmu" --federation "$dir/pyj.json" --all \
  --output "$dir/pyj" >"$dir/pyj.log" 2>&1
rc=$?
if [ "$rc" -eq 0 ] && clean pyj "$dir/pyj.log" && [ -s "$dir/pyj/integ.csv" ]; then ok; else
  ko "python peer (tempo-fmu --all): exit $rc: $(grep -m 3 -E 'ERROR|SUMMARY|runtime error|tempo-' \
    "$dir/pyj.log" | head -c 800)"
fi

# Distributed: the remote port over TCP.
f=$(short osc_f3_mixed.json 2 f3-dist)
feds=$(grep -o '"name": "[A-Za-z0-9_-]*"' "$f" | cut -d'"' -f4)
rti_start "$dir"
pids=
for n in $feds; do
  timeout 120 "$san/tempo-fmu" --federation "$f" --name "$n" --rti "$RTI_ADDR" \
    --output "$dir/f3-dist" >"$dir/dist-$n.log" 2>&1 &
  pids="$pids $!"
done
track $pids
timeout 120 "$san/tempo-master" --federation "$f" --rti "$RTI_ADDR" --quiet >"$dir/dist-master.log" 2>&1
rc=$?
bad=
for p in $pids; do wait "$p" || bad="$bad slave($p)"; done
for l in "$dir"/dist-*.log; do clean dist "$l" || bad="$bad $(basename "$l")"; done
if [ "$rc" -eq 0 ] && [ -z "$bad" ] && cmp -s "$dir/f3-dist/s1.csv" "$dir/osc_f3_mixed-local/s1.csv"; then ok; else
  ko "f3ornits distributed: master exit $rc, failed:$bad: $(grep -h -m 3 -E 'ERROR|SUMMARY|runtime error|tempo-' \
    "$dir"/dist-*.log | head -c 800)"
fi
rti_stop

finish
