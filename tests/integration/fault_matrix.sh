#!/usr/bin/env bash
# The fault matrix of doc/robustness.md ("Faults inside an FMU"): an FMU (build/fmus/
# fault_cs.fmu) that segfaults, aborts, calls exit(0) or exit(3), or fails its step at t = 5 s of
# 10, under a peer method (jacobi) and a master method (master-jacobi), distributed, in process
# as tasks and as threads (TEMPO_FAULT_FULL=1: also gauss-seidel and semi-implicit, the nine
# master methods with a stopped slave, the default watchdog; about 2 min). Every cell: tempo-run exits 1, names federate "bad" and the cause, and
# every CSV written holds whole rows ending before 5 s. Then: an FMU whose library exits while
# loading (tempo-run in every placement, tempo-fmu --simulate); tempo-fmu --all, --simulate and
# tempo-master --local given the exit(0) FMU; an FMU that fails to load as the second federate
# in process (its message, within seconds); dlopen failures naming the missing library or symbol;
# an FMU declaring canBeInstantiatedOnlyOncePerProcess refused in process with the reason; a
# stopped slave ending a master run within --reply-timeout, named; the in-process watchdog quiet
# on a healthy run. Prints "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/lib.sh fault_matrix
need fault_matrix bin/tempo-run bin/tempo-fmu bin/tempo-master bin/tempo-rti \
  build/fmus/fault_cs.fmu build/fmus/passthrough_cs.fmu build/fmus/once_cs.fmu
# fx FILE METHOD FAULT END [BAD_FMU]: "good" (passthrough) and "bad" (the fault FMU) in a loop.
fx() {
  cat >"$1" <<EOT
{ "federation": "fx-$(basename "$1" .json)",
  "algorithm": { "method": "$2", "start": 0, "end": $4, "step": 0.5 },
  "federates": [
    { "name": "good", "fmu": "$fmus/passthrough_cs.fmu", "outputs": { "y": "Good.y" },
      "inputs": { "u": "Bad.y" } },
    { "name": "bad", "fmu": "${5:-$fmus/fault_cs.fmu}", "parameters": { "fault": $3, "fault_t": 5 },
      "outputs": { "y": "Bad.y" }, "inputs": { "u": "Good.y" } } ],
  "output": "$1.out" }
EOT
}
# whole_rows CSV [crash]: every line of CSV has the header's number of fields and the last
# time is < 5 s (the fault strikes at 5 s). Results are opened at the start, so the file exists
# with its header and at least one row; after a crash (crash=1: a signal, no exit handler
# runs) the rows still in the 64 KiB buffer are lost, as doc/robustness.md says, and the file
# may hold no row, or none at all.
whole_rows() {
  if [ ! -f "$1" ]; then [ "${2:-0}" = 1 ]; return; fi
  awk -F, -v crash="${2:-0}" 'NR == 1 { n = NF; next } NF != n { bad = 1 } { last = $1 }
           END { exit (bad || (NR < 2 && !crash) || (NR > 1 && last + 0 >= 5)) }' "$1"
}
causes=([1]="SIGSEGV" [2]="SIGABRT" [3]="exit(0) was called" [4]="exit(3) was called"
  [5]="the model failed the step")
names=([1]=segfault [2]=abort [3]=exit0 [4]=exit3 [5]=error)
methods="jacobi master-jacobi" # a peer method and a master method; more with TEMPO_FAULT_FULL=1
[ "${TEMPO_FAULT_FULL:-0}" = 1 ] && methods="jacobi master-jacobi gauss-seidel semi-implicit"
for method in $methods; do
  for f in 1 2 3 4 5; do
    for place in --distributed --in-process "--in-process --threads"; do
      cell="$method ${names[$f]} $place"
      file=$dir/$method-$f-$(echo "$place" | tr -d ' -').json
      fx "$file" "$method" "$f" 10
      # shellcheck disable=SC2086 # $place is one or two options
      timeout 60 bin/tempo-run "$file" --quiet $place >"$file.stdout" 2>"$file.stderr"
      rc=$?
      check "$cell: exit status 1 (got $rc)" test "$rc" -eq 1
      check "$cell: names bad and the cause" grep -q "bad.*${causes[$f]}" "$file.stderr"
      check "$cell: no summary" not_has "$file.stdout" "tempo-run: results"
      check "$cell: bad named first (the failed child, or the one at fault)" \
        grep -qE "^tempo-run: [^ ]*: failed: child 'bad'|^tempo-run:   the federate at fault: bad" "$file.stderr"
      crash=$([ "$f" -le 2 ] && echo 1 || echo 0) # 1 segfault, 2 abort: signals
      check "$cell: whole rows before 5 s" whole_rows "$file.out/bad.csv" "$crash"
      check "$cell: whole rows (good)" whole_rows "$file.out/good.csv" "$crash"
    done
  done
done

# The library exits while it is loaded: every placement fails at once, naming it.
for method in jacobi master-jacobi; do
  for place in --distributed --in-process "--in-process --threads"; do
    file=$dir/load-$method-$(echo "$place" | tr -d ' -').json
    fx "$file" "$method" 0 10
    t0=$(date +%s)
    # shellcheck disable=SC2086
    TEMPO_FAULT_LOAD=exit0 timeout 60 bin/tempo-run "$file" --quiet $place >/dev/null 2>"$file.err"
    rc=$? secs=$(($(date +%s) - t0))
    check "load exit $method $place: status 1 (got $rc)" test "$rc" -eq 1
    check "load exit $method $place: within 15 s (took $secs s)" test "$secs" -le 15
    check "load exit $method $place: named" grep -q "exit(0) was called .*inside loading" "$file.err"
  done
done
TEMPO_FAULT_LOAD=exit0 bin/tempo-fmu --simulate "$fmus/fault_cs.fmu" --stop 10 \
  --out "$dir/sim-load.csv" 2>"$dir/sim-load.err"
rc=$?
check "--simulate, exit while loading: status 1 (got $rc)" test "$rc" -eq 1
check "--simulate, exit while loading: said" grep -q "exit(0) was called" "$dir/sim-load.err"

# The other programs, given the exit(0) FMU.
bin/tempo-fmu --simulate "$fmus/fault_cs.fmu" --stop 10 --set fault=3 --set fault_t=5 \
  --out "$dir/sim.csv" 2>"$dir/sim.err"
rc=$?
check "--simulate exit(0): status 1 (got $rc)" test "$rc" -eq 1
check "--simulate exit(0): whole rows before 5 s" whole_rows "$dir/sim.csv"
check "--simulate exit(0): rows kept" test "$(wc -l <"$dir/sim.csv")" -ge 10
fx "$dir/all.json" jacobi 3 10
bin/tempo-fmu --federation "$dir/all.json" --all --quiet 2>"$dir/all.err"
rc=$?
check "tempo-fmu --all exit(0): status 1 (got $rc)" test "$rc" -eq 1
check "tempo-fmu --all exit(0): names bad" grep -q "bad: .*exit(0) was called" "$dir/all.err"
fx "$dir/local.json" master-jacobi 3 10
bin/tempo-master --federation "$dir/local.json" --local --quiet 2>"$dir/local.err"
rc=$?
check "tempo-master --local exit(0): status 1 (got $rc)" test "$rc" -eq 1
check "tempo-master --local exit(0): names bad" grep -q "bad: .*exit(0) was called" "$dir/local.err"
check "tempo-master --local exit(0): whole rows" whole_rows "$dir/local.json.out/bad.csv"

# A second federate whose FMU cannot be loaded, in process: its own message within seconds.
mkdir -p "$dir/broken/binaries/linux64"
(cd "$dir/broken" && unzip -q "$fmus/fault_cs.fmu" && echo "not an ELF file" >binaries/linux64/fault.so &&
  zip -q -r ../broken.fmu .)
places="--in-process --threads" # one word each; distributed too with TEMPO_FAULT_FULL=1
[ "${TEMPO_FAULT_FULL:-0}" = 1 ] && places="--in-process --threads --distributed"
for method in jacobi master-jacobi; do
  for place in $places; do
    [ "$place" = --threads ] && place="--in-process --threads"
    file=$dir/broken-$method-$(echo "$place" | tr -d ' -').json
    fx "$file" "$method" 0 10 "$dir/broken.fmu"
    t0=$(date +%s)
    # shellcheck disable=SC2086
    timeout 90 bin/tempo-run "$file" --quiet $place >/dev/null 2>"$file.err"
    rc=$? secs=$(($(date +%s) - t0))
    check "broken FMU $method $place: status 1 (got $rc)" test "$rc" -eq 1
    check "broken FMU $method $place: within 10 s (took $secs s)" test "$secs" -le 10
    check "broken FMU $method $place: its own message" grep -q "federate bad: .*dlopen" "$file.err"
    check "broken FMU $method $place: the FMU named once" \
      test "$(grep -o "$dir/broken.fmu" "$file.err" | head -n 1 | wc -l)" -eq 1 -a \
      "$(grep "dlopen" "$file.err" | head -n 1 | grep -o "$dir/broken.fmu" | wc -l)" -eq 1
  done
done

# dlopen failures that name what is missing: a library, a symbol.
cat >"$dir/dep.c" <<'EOT'
int dep_value(void) { return 1; }
EOT
cat >"$dir/user.c" <<'EOT'
int dep_value(void);
int fmi2Anything(void) { return dep_value(); }
EOT
cat >"$dir/sym.c" <<'EOT'
extern int PyTempo_Missing;
int fmi2Anything(void) { return PyTempo_Missing; }
EOT
cc -shared -fPIC -o "$dir/libtempodep.so" "$dir/dep.c" &&
  cc -shared -fPIC -o "$dir/user.so" "$dir/user.c" -L"$dir" -ltempodep &&
  cc -shared -fPIC -o "$dir/sym.so" "$dir/sym.c" && rm "$dir/libtempodep.so"
for kind in user sym; do
  rm -rf "$dir/$kind" && mkdir -p "$dir/$kind"
  (cd "$dir/$kind" && unzip -q "$fmus/fault_cs.fmu" && cp "$dir/$kind.so" binaries/linux64/fault.so &&
    zip -q -r "../$kind.fmu" .)
  bin/tempo-fmu --simulate "$dir/$kind.fmu" --stop 1 --out "$dir/$kind.csv" 2>"$dir/$kind.err"
  check "dlopen $kind: status 1" test $? -eq 1
done
check "dlopen: the missing library named, what to do" \
  grep -q "needs the library libtempodep.so, which the dynamic loader cannot find: install it, or add the folder that holds it to LD_LIBRARY_PATH" "$dir/user.err"
check "dlopen: the missing symbol named, what to do" \
  grep -q "uses the symbol PyTempo_Missing, which no library of this process defines.*LD_PRELOAD" "$dir/sym.err"

# --reply-timeout on a file without a master: refused, as the file's key would be.
fx "$dir/peer.json" jacobi 0 10
bin/tempo-run "$dir/peer.json" --reply-timeout 2 >/dev/null 2>"$dir/peer.err"
check "--reply-timeout without a master: status 2 (got $?)" test $? -eq 2
check "--reply-timeout without a master: the reason" grep -q "reply-timeout goes with a method run by tempo-master" "$dir/peer.err"

# canBeInstantiatedOnlyOncePerProcess: refused in process with the reason, fine distributed.
cat >"$dir/once.json" <<EOT
{ "federation": "fx-once", "algorithm": { "method": "jacobi", "start": 0, "end": 2, "step": 0.5 },
  "federates": [
    { "name": "a", "fmu": "$fmus/once_cs.fmu", "outputs": { "x": "A.x" } },
    { "name": "b", "fmu": "$fmus/once_cs.fmu", "outputs": { "x": "B.x" } } ],
  "output": "$dir/once.out" }
EOT
for place in --in-process "--in-process --threads"; do
  # shellcheck disable=SC2086
  timeout 60 bin/tempo-run "$dir/once.json" --quiet $place >/dev/null 2>"$dir/once.err"
  rc=$?
  check "once per process $place: refused before the start, status 2 (got $rc)" test "$rc" -eq 2
  check "once per process $place: the reason" grep -q "canBeInstantiatedOnlyOncePerProcess.*distributed" "$dir/once.err"
done
timeout 60 bin/tempo-run "$dir/once.json" --quiet --distributed >/dev/null 2>"$dir/once-d.err"
check "once per process, distributed: runs" test $? -eq 0
# One FMU loaded by two federates, --threads: they run as tasks, and that is said.
sed -e "s|once_cs.fmu|fault_cs.fmu|g" -e 's|"x": "A.x"|"y": "A.y"|' -e 's|"x": "B.x"|"y": "B.y"|' \
  "$dir/once.json" >"$dir/twice.json"
timeout 60 bin/tempo-fmu --federation "$dir/twice.json" --all --threads --quiet 2>"$dir/twice.err"
check "one FMU twice, --threads: runs (got $?)" test $? -eq 0
check "one FMU twice, --threads: tasks instead, said" \
  grep -q "federates a and b both load .*fault_cs.fmu: they run as tasks on one thread" "$dir/twice.err"

# A stopped slave: every master method ends within --reply-timeout plus the grace, naming the
# slave (an example file of the method, run long). Two methods here (a reply awaited, a grant
# held back); all nine with TEMPO_FAULT_FULL=1 (about 40 s).
specs="lv_master lv_wr"
[ "${TEMPO_FAULT_FULL:-0}" = 1 ] &&
  specs="lv_master lv_wr lv_semi lv_strong osc_hybrid osc_defect_fig4 car_f3 springmass_balance springmass_energy"
for f in $specs; do
  src=examples/$f.json
  first=$(grep -o '"name": *"[^"]*"' "$src" | head -n 1 | sed 's/.*: *"//; s/"//')
  sed -e "0,/\"end\": *[0-9.e]*/s//\"end\": 100000/" -e "s|\"\\.\\./|\"$PWD/|g" \
    -e "s|\"output\": *\"[^\"]*\"|\"output\": \"$dir/$f.out\"|" "$src" >"$dir/$f.json"
  bin/tempo-run "$dir/$f.json" --quiet --reply-timeout 2 >/dev/null 2>"$dir/$f.err" &
  run=$!
  track "$run"
  pid=$(victim "--federation $dir/$f.json --name $first" "$dir/$f.out/$first.csv")
  if [ -z "$pid" ]; then
    ko "stopped slave $f: $first never got going: $(tail -n 2 "$dir/$f.err")"
    continue
  fi
  t0=$(date +%s)
  kill -STOP "$pid"
  wait "$run"
  rc=$? secs=$(($(date +%s) - t0))
  kill -CONT "$pid" 2>/dev/null
  check "stopped slave $f: status 1 (got $rc)" test "$rc" -eq 1
  check "stopped slave $f: ended within 10 s (took $secs s)" test "$secs" -le 10
  check "stopped slave $f: $first named as the one at fault" \
    grep -q "failed: federate '$first' (pid $pid) stopped answering the master" "$dir/$f.err"
done

# The watchdog is on by default (10 s): a distributed run whose federate is stopped says so
# (TEMPO_FAULT_FULL=1: it takes 20 s).
if [ "${TEMPO_FAULT_FULL:-0}" = 1 ]; then
  fx "$dir/wdd.json" gauss-seidel 0 100000
  bin/tempo-run "$dir/wdd.json" --quiet --timeout 20000 >/dev/null 2>"$dir/wdd.err" &
  run=$!
  track "$run"
  pid=$(victim "--federation $dir/wdd.json --name bad" "$dir/wdd.json.out/bad.csv")
  [ -n "$pid" ] && kill -STOP "$pid"
  wait "$run"
  [ -n "$pid" ] && kill -CONT "$pid" 2>/dev/null
  check "watchdog on by default: it spoke (victim ${pid:-none}; $(grep -v '^\[' "$dir/wdd.err" | head -n 1))" \
    grep -q "no federate has progressed for 10 s" "$dir/wdd.err"
fi

# The watchdog fed by every federate's progress, slaves of a master too: no false alarm on a
# healthy run (2.5 s of a long one, 1 s watchdog).
for cell in "gauss-seidel --in-process" "master-jacobi --in-process" "master-jacobi --distributed"; do
  fx "$dir/wd.json" "${cell%% *}" 0 100000
  timeout 60 bin/tempo-run "$dir/wd.json" --quiet "${cell#* }" --timeout 2500 --watchdog 1 \
    >/dev/null 2>"$dir/wd.err"
  check "watchdog $cell: no false alarm on a healthy run" not_has "$dir/wd.err" "no federate has progressed"
done
finish
