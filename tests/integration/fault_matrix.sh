#!/usr/bin/env bash
# The fault matrix of doc/robustness.md ("Faults inside an FMU"): an FMU (build/fmus/fault_*.fmu)
# that segfaults, aborts, calls exit(0) or exit(3), fails its step at t = 2 s of 4, or exits
# while its library loads, under every coupling method of the algorithm table (the four peer
# and the nine master methods), each distributed, in process as tasks and as threads: 13 x 6 x
# 3 = 234 cells, plus the same 39 runs without a fault (each ends at 4 s, status 0). Every
# faulty cell: tempo-run exits 1, names federate "bad" and the cause, prints no summary, and
# every CSV written holds whole rows ending before 2 s. The cells run several at once
# (FAULT_JOBS, default 3: most of a cell is waiting for processes to start and end). Then:
# tempo-fmu --all, --simulate and tempo-master --local given the exit(0) FMU; an FMU that fails
# to load as the second federate (its message, within seconds); dlopen failures naming the
# missing library or symbol; an FMU declaring canBeInstantiatedOnlyOncePerProcess refused in
# process with the reason; a stopped slave under each of the nine master methods ending the
# run within --reply-timeout, named; the watchdog on by default (distributed), quiet on
# healthy runs, and in process naming the federate to look at (one hung in its FMU). Prints
# "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/lib.sh fault_matrix
need fault_matrix bin/tempo-run bin/tempo-fmu bin/tempo-master bin/tempo-rti \
  build/fmus/fault_cs.fmu build/fmus/fault_me.fmu build/fmus/passthrough_cs.fmu \
  build/fmus/clock_me.fmu build/fmus/spring_cs.fmu build/fmus/once_cs.fmu
jobs_max=${FAULT_JOBS:-3}

# The methods: every entry of the algorithm table (tempo-master --help lists the master ones;
# the peer ones are the rest of the table, doc/federation.md).
peer_methods="jacobi jacobi-naive jacobi-de gauss-seidel"
master_methods=$(bin/tempo-master --help | sed -n '/^Methods/,$ s/^  \([a-z0-9-]*\) .*/\1/p' | tr '\n' ' ')
all_methods="$peer_methods $master_methods"
# algo METHOD: the algorithm object, 4 s in steps of 0.5 s (the variable-step methods capped
# at 0.5 s).
algo() {
  case $1 in
  jacobi-de) echo '{ "method": "jacobi-de", "end": 4, "quantum": 0.01, "h_min": 0.5, "h_max": 0.5 }' ;;
  defect-control) echo '{ "method": "defect-control", "end": 4, "defect-control": { "h1": 0.5 } }' ;;
  f3ornits) echo '{ "method": "f3ornits", "end": 4, "f3ornits": { "dt_init": 0.5, "dt_max": 0.5 } }' ;;
  energy) echo '{ "method": "energy", "end": 4, "step": 0.5, "coupling": { "*": { "power": "P" },
    "good.v": { "power_input": "p" }, "bad.u": { "power_input": "p" } } }' ;;
  *) echo "{ \"method\": \"$1\", \"end\": 4, \"step\": 0.5 }" ;;
  esac
}
# fx FILE METHOD FAULT [BAD_FMU]: "good" and "bad" (the fault FMU) in a loop. "good" is the
# passthrough, except where the method needs states (strong: model exchange, the clock FMU)
# or a power port (energy: the spring, its force f out and its speed v in). Never another
# fault FMU: TEMPO_FAULT_LOAD makes every one of them exit while it loads.
fx() {
  local good=$fmus/passthrough_cs.fmu bad=${4:-$fmus/fault_cs.fmu} y=y u=u extra=""
  case $2 in
  strong) good=$fmus/clock_me.fmu bad=${4:-$fmus/fault_me.fmu} ;;
  energy) good=$fmus/spring_cs.fmu y=f u=v extra=', "P": "X.P"' ;;
  esac
  cat >"$1" <<EOT
{ "federation": "fx-$(basename "$1" .json)",
  "algorithm": $(algo "$2"),
  "federates": [
    { "name": "good", "fmu": "$good", "outputs": { "$y": "Good.y"${extra//X/Good} },
      "inputs": { "$u": "Bad.y" } },
    { "name": "bad", "fmu": "$bad", "parameters": { "fault": $3, "fault_t": 2 },
      "outputs": { "y": "Bad.y"${extra//X/Bad} }, "inputs": { "u": "Good.y" } } ],
  "output": "$1.out" }
EOT
}
# whole_rows CSV [crash] [BEFORE]: every line of CSV has the header's number of fields and the
# last time is < BEFORE (2 s: the fault strikes there). Results are opened at the start, so the
# file exists with its header and at least one row; after a crash (crash=1: a signal, no exit
# handler runs) the rows still in the buffer are lost, as doc/robustness.md says, and the file
# may hold no row, or none at all.
whole_rows() {
  if [ ! -f "$1" ]; then [ "${2:-0}" = 1 ]; return; fi
  awk -F, -v crash="${2:-0}" -v before="${3:-2}" 'NR == 1 { n = NF; next } NF != n { bad = 1 } { last = $1 }
           END { exit (bad || (NR < 2 && !crash) || (NR > 1 && last + 0 >= before)) }' "$1"
}
causes=([1]="SIGSEGV" [2]="SIGABRT" [3]="exit(0) was called" [4]="exit(3) was called"
  [5]="the model failed the step" [6]="exit(0) was called .*inside loading")
names=([0]=none [1]=segfault [2]=abort [3]=exit0 [4]=exit3 [5]=error [6]=load)
places=("--distributed" "--in-process" "--in-process --threads")

# cell METHOD FAULT PLACE-INDEX: one run in the background; its status, seconds and output
# land beside its file. Fault 6 is fault 0 with the library exiting while it loads.
cell() {
  local file=$dir/c-$1-$2-$3.json t0
  fx "$file" "$1" "$([ "$2" = 6 ] && echo 0 || echo "$2")"
  (
    t0=$(date +%s%N)
    # shellcheck disable=SC2086 # the placement is one or two options
    if [ "$2" = 6 ]; then
      TEMPO_FAULT_LOAD=exit0 timeout 60 bin/tempo-run "$file" --quiet ${places[$3]}
    else
      timeout 60 bin/tempo-run "$file" --quiet ${places[$3]}
    fi >"$file.stdout" 2>"$file.stderr"
    echo "$? $((($(date +%s%N) - t0) / 1000000))" >"$file.rc"
  ) &
  while [ "$(running_cells)" -ge "$jobs_max" ]; do wait -n; done
}
# The cells still running (not the side jobs started below: stopped slaves, watchdog).
running_cells() {
  jobs -rp | grep -cv -e "^${side:-x}\$" -e "^${side2:-x}\$" -e "^${side3:-x}\$" -e "^${wdd:-x}\$"
}

# The stopped slaves start first (each mostly waits: 2 s of reply timeout), in three lanes in
# the background beside the cells, then the default watchdog run (10 s of waiting).
# stopped SPEC: an example file of a master method, run long; its first slave stopped once its
# CSV has rows; the run must end within --reply-timeout plus the grace, naming the slave.
stopped() {
  local f=$1 src=examples/$1.json first pid t0 rc
  first=$(grep -o '"name": *"[^"]*"' "$src" | head -n 1 | sed 's/.*: *"//; s/"//')
  sed -e "0,/\"end\": *[0-9.e]*/s//\"end\": 100000/" -e "s|\"\\.\\./|\"$PWD/|g" \
    -e "s|\"output\": *\"[^\"]*\"|\"output\": \"$dir/$f.out\"|" "$src" >"$dir/$f.json"
  timeout 60 bin/tempo-run "$dir/$f.json" --quiet --reply-timeout 2 >/dev/null 2>"$dir/$f.err" &
  local run=$!
  pid=$(victim "--federation $dir/$f.json --name $first" "$dir/$f.out/$first.csv")
  if [ -z "$pid" ]; then
    wait "$run"
    echo "never $first" >"$dir/$f.st"
    return
  fi
  t0=$(date +%s)
  kill -STOP "$pid"
  wait "$run"
  rc=$?
  kill -CONT "$pid" 2>/dev/null
  echo "$rc $(($(date +%s) - t0)) $first $pid" >"$dir/$f.st"
}
specs="lv_master lv_wr lv_semi lv_strong osc_hybrid osc_defect_fig4 car_f3 springmass_balance springmass_energy"
# three lanes of three, one run at a time in each (each run is mostly 2 s of waiting)
(for f in lv_master lv_semi osc_hybrid; do stopped "$f"; done) &
side=$!
(for f in lv_wr lv_strong osc_defect_fig4; do stopped "$f"; done) &
side2=$!
(for f in car_f3 springmass_balance springmass_energy; do stopped "$f"; done) &
side3=$!
track "$side" "$side2" "$side3"
# The watchdog is on by default (10 s): a distributed run whose federate is stopped says so.
(
  fx "$dir/wdd.json" gauss-seidel 0
  sed -i 's/"end": 4/"end": 100000/' "$dir/wdd.json"
  bin/tempo-run "$dir/wdd.json" --quiet --timeout 20000 >/dev/null 2>"$dir/wdd.err" &
  run=$!
  pid=$(victim "--federation $dir/wdd.json --name bad" "$dir/wdd.json.out/bad.csv")
  [ -n "$pid" ] && kill -STOP "$pid"
  wait "$run"
  [ -n "$pid" ] && kill -CONT "$pid" 2>/dev/null
  echo "${pid:-none}" >"$dir/wdd.victim"
) &
wdd=$!
track "$wdd"

# A federate hung in its FMU (fault 6) in process: the watchdog (1 s) asks the federation's
# embedded RTI who waits for whom, and it names the federate to look at (tasks and threads).
for p in 1 2; do
  fx "$dir/hang-$p.json" jacobi 6
  # shellcheck disable=SC2086
  timeout 30 bin/tempo-run "$dir/hang-$p.json" --quiet ${places[$p]} --watchdog 1 --timeout 2500 \
    >/dev/null 2>"$dir/hang-$p.err" &
done

for method in $all_methods; do
  for f in 0 1 2 3 4 5 6; do
    for p in 0 1 2; do cell "$method" "$f" "$p"; done
  done
done
while [ "$(running_cells)" -gt 0 ]; do wait -n; done

for method in $all_methods; do
  [ "$method" = strong ] && causes[5]="is not finite" || causes[5]="the model failed the step"
  for f in 0 1 2 3 4 5 6; do
    for p in 0 1 2; do
      file=$dir/c-$method-$f-$p.json
      c="$method ${names[$f]} ${places[$p]}"
      read -r rc ms <"$file.rc" || rc=x
      if [ "$f" = 0 ]; then
        check "$c: status 0 (got $rc: $(grep -v '^\[' "$file.stderr" | head -n 2))" test "$rc" = 0
        check "$c: whole rows to the end" whole_rows "$file.out/bad.csv" 0 5
        check "$c: the last row is the end" test "$(tail -n 1 "$file.out/bad.csv" | cut -d, -f1)" = 4
        continue
      fi
      check "$c: exit status 1 (got $rc)" test "$rc" = 1
      check "$c: names bad and the cause ($(grep -v '^\[' "$file.stderr" | head -n 3))" \
        grep -q "bad.*${causes[$f]}" "$file.stderr"
      check "$c: no summary" not_has "$file.stdout" "tempo-run: results"
      check "$c: bad named first (the failed child, or the one at fault)" \
        grep -qE "^tempo-run: [^ ]*: failed: child 'bad'|^tempo-run:   the federate at fault: bad" "$file.stderr"
      if [ "$f" = 6 ]; then
        check "$c: within 15 s (took $ms ms)" test "$ms" -le 15000
        continue
      fi
      crash=$([ "$f" -le 2 ] && echo 1 || echo 0) # 1 segfault, 2 abort: signals
      check "$c: whole rows before 2 s" whole_rows "$file.out/bad.csv" "$crash"
      # good's step to 2 s may have been done (and recorded: balance and energy post the
      # record with the step, one round trip) when bad failed its own: a row at 2 s at most
      check "$c: whole rows, none past 2 s (good)" whole_rows "$file.out/good.csv" "$crash" 2.5
    done
  done
done
for p in 1 2; do
  check "watchdog ${places[$p]}: who waits for whom, in process ($(grep -v '^\[' "$dir/hang-$p.err" | head -n 3))" \
    grep -q "^tempo-run:   good@.* held by bad" "$dir/hang-$p.err"
  check "watchdog ${places[$p]}: the federate to look at is bad" \
    grep -q "^tempo-run:   federation .*: the federate to look at: bad " "$dir/hang-$p.err"
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
check "--simulate exit(0): whole rows before 5 s" whole_rows "$dir/sim.csv" 0 5
check "--simulate exit(0): rows kept" test "$(wc -l <"$dir/sim.csv")" -ge 10
fx "$dir/all.json" jacobi 3
bin/tempo-fmu --federation "$dir/all.json" --all --quiet 2>"$dir/all.err"
rc=$?
check "tempo-fmu --all exit(0): status 1 (got $rc)" test "$rc" -eq 1
check "tempo-fmu --all exit(0): names bad" grep -q "bad: .*exit(0) was called" "$dir/all.err"
fx "$dir/local.json" master-jacobi 3
bin/tempo-master --federation "$dir/local.json" --local --quiet 2>"$dir/local.err"
rc=$?
check "tempo-master --local exit(0): status 1 (got $rc)" test "$rc" -eq 1
check "tempo-master --local exit(0): names bad" grep -q "bad: .*exit(0) was called" "$dir/local.err"
check "tempo-master --local exit(0): whole rows" whole_rows "$dir/local.json.out/bad.csv"

# A second federate whose FMU cannot be loaded, in process: its own message within seconds.
mkdir -p "$dir/broken/binaries/linux64"
(cd "$dir/broken" && unzip -q "$fmus/fault_cs.fmu" && echo "not an ELF file" >binaries/linux64/fault.so &&
  zip -q -r ../broken.fmu .)
for method in jacobi master-jacobi; do
  for place in --in-process --threads --distributed; do
    [ "$place" = --threads ] && place="--in-process --threads"
    file=$dir/broken-$method-$(echo "$place" | tr -d ' -').json
    fx "$file" "$method" 0 "$dir/broken.fmu"
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
fx "$dir/peer.json" jacobi 0
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

# The stopped slaves (started at the top): every master method ends within --reply-timeout
# plus the grace, naming the slave.
wait "$side" "$side2" "$side3"
for f in $specs; do
  read -r rc secs first pid <"$dir/$f.st" || rc=x
  if [ "$rc" = never ]; then
    ko "stopped slave $f: $secs never got going: $(tail -n 2 "$dir/$f.err")"
    continue
  fi
  check "stopped slave $f: status 1 (got $rc)" test "$rc" = 1
  check "stopped slave $f: ended within 10 s (took $secs s)" test "$secs" -le 10
  check "stopped slave $f: $first named as the one at fault ($(grep -v '^\[' "$dir/$f.err" | head -n 1))" \
    grep -q "failed: federate '$first' (pid $pid) stopped answering the master" "$dir/$f.err"
done

# The watchdog fed by every federate's progress, slaves of a master too: no false alarm on a
# healthy run (2.5 s of a long one, 1 s watchdog).
for cell in "gauss-seidel --in-process" "master-jacobi --in-process" "master-jacobi --distributed"; do
  fx "$dir/wd.json" "${cell%% *}" 0
  sed -i 's/"end": 4/"end": 100000/' "$dir/wd.json"
  timeout 60 bin/tempo-run "$dir/wd.json" --quiet "${cell#* }" --timeout 2500 --watchdog 1 \
    >/dev/null 2>"$dir/wd.err"
  check "watchdog $cell: no false alarm on a healthy run" not_has "$dir/wd.err" "no federate has progressed"
done
wait "$wdd"
check "watchdog on by default: it spoke (victim $(cat "$dir/wdd.victim"); $(grep -v '^\[' "$dir/wdd.err" | head -n 1))" \
  grep -q "no federate has progressed for 10 s" "$dir/wdd.err"
finish
