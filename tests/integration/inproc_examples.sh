#!/usr/bin/env bash
# Every example federation file that tempo-run runs, in process and distributed
# (doc/inproc.md): in process with the RTI embedded, each federate a task on one thread
# (--tasks) and each a thread (--threads), through bin/tempo-fmu --all (bin/tempo-master
# --in-process for a master method) with a federation log, and for one file of each kind
# through bin/tempo-run --in-process --log too (its log is read as well); distributed
# through bin/tempo-run --log as shipped (it starts bin/tempo-rti), where every file must give
# one "results" line per CSV and a plot that renders to PNG, not blank (this run serves
# tests/integration/run_cases.sh, which
# used to run every file a second time for that). The results must be identical bit for
# bit (cmp of every CSV, master.csv included), and the two federation logs must agree on
# every grant: for each federate, the same grants (request kind and time) in the same order
# (repeated FQR polls counted once, see grants below); tempo-log explain reads the in-process
# log. Every CSV must also hash as recorded in tests/integration/example_hashes.txt (sha256 of
# each file of the in-process run): a refactoring of the algorithms or of their registry keeps
# the results of every example file bit for bit. A change that means to alter results records
# the new hashes with `tests/integration/inproc_examples.sh --record` and says why in its
# commit. Prints "N passed, N failed" last (tests/run.sh).
# In two halves, so that the parallel runner (tests/run.sh) runs them side by side: with no
# option (or `--part 1`) the odd-numbered files, `--part 2` (tests/integration/
# inproc_examples_2.sh) the even-numbered ones, the placement checks at the end in the half
# that ran lv_jacobi; `--all` every file (and `--record` records every file's hashes).
set -u
cd "$(dirname "$0")/../.." || exit 1
record=0 part=1
case "${1:-}" in
--record) record=1 part=0 ;;
--all) part=0 ;;
--part) part=${2:-x} ;;
"") ;;
*) part=x ;;
esac
case $part in 0 | 1 | 2) ;; *) echo "usage: $0 [--all | --record | --part 1 | --part 2]" >&2; exit 2 ;; esac
hashes=$PWD/tests/integration/example_hashes.txt
. tests/integration/lib.sh inproc_examples
. tests/figures.sh # plot_png_ok: every run's plot.svg rendered to PNG, not blank

# grants LOG: one line per grant, "federate kind time", each federate's in log order. A run
# of equal FQR grants is one line: Gauss-Seidel's waiting federates poll with FQR at their
# current time (fmufed_tp.c, x_idle), and how many polls a wait takes depends on the
# machine's timing, in two distributed runs as well; every grant that moves a federate
# (and the first of each run of polls) must be the same. Every grant counts, the last ones
# too: a master's slaves get its `end` stamped at their horizon, which grants their last
# NERA (doc/master.md "The end"; sent in receive order, it raced their last requests, and the
# grants at the end differed from run to run).
grants() {
  bin/tempo-log show "$1" --kind GRANT |
    awk '$4 == "DECISION" && $5 == "GRANT" { print $3, $6, $7 }' | sort -s -k1,1 |
    awk '!($2 == "FQR" && $0 == prev) { print } { prev = $0 }'
}

# Every file tempo-run runs; the master methods (the master side of the algorithm table, which
# tempo-master --help lists, doc/master.md) run in process under tempo-master --in-process.
master_methods=" $(bin/tempo-master --help | sed -n '/^Methods/,$ s/^  \([a-z0-9-]*\) .*/\1/p' | tr '\n' ' ')"
files="" masters="" k=0
for f in examples/*.json; do
  k=$((k + 1))
  [ "$part" = 0 ] || [ $((k % 2)) = $((part % 2)) ] || continue
  m=$(sed -n 's/.*"method": *"\([a-z0-9-]*\)".*/\1/p' "$f" | head -n 1)
  files="$files $f"
  case "$master_methods" in
  *" $m "*) masters="$masters $f" ;;
  esac
done
[ -n "$files" ] && [ -n "$masters" ] && ok || ko "no example files found ('$files')"

for f in $files; do
  b=$(basename "$f" .json)
  mkdir -p "$dir/$b/dist" "$dir/$b/dlog" "$dir/$b/ilog" "$dir/$b/tlog" "$dir/$b/rlog"
  if bin/tempo-run "$f" --output "$dir/$b/dist" --log "$dir/$b/dlog" --quiet >"$dir/$b/dist.out" \
    2>"$dir/$b/dist.err" &&
    [ "$(grep -c '^tempo-run: results ' "$dir/$b/dist.out")" -eq "$(ls "$dir/$b/dist"/*.csv | wc -l)" ] &&
    [ -s "$dir/$b/dist/plot.svg" ] && plot_png_ok "$dir/$b/dist/plot.svg" "$dir/$b"; then ok; else
    ko "$b: distributed run (results listed, plot rendered to PNG, not blank): $(tail -n 3 "$dir/$b/dist.err")"
  fi
  case "$b" in
  lv_jacobi | lv_master)
    bin/tempo-run "$f" --in-process --output "$dir/$b/in" --log "$dir/$b/rlog" --quiet \
      >"$dir/$b/in.out" 2>&1 ||
      ko "$b: tempo-run --in-process failed: $(tail -n 3 "$dir/$b/in.out")" ;;
  esac
  # in2: tasks on one thread (ilog); in3: threads (tlog)
  for mode in tasks threads; do
    o=in2 lg=ilog
    [ "$mode" = threads ] && o=in3 lg=tlog
    case " $masters " in
    *" $f "*) bin/tempo-master --federation "$f" --in-process --$mode --quiet --output "$dir/$b/$o" \
      --log-dir "$dir/$b/$lg" >"$dir/$b/$o.out" 2>&1 ||
      ko "$b: tempo-master --in-process --$mode failed: $(tail -n 3 "$dir/$b/$o.out")" ;;
    *) bin/tempo-fmu --federation "$f" --all --$mode --quiet --output "$dir/$b/$o" \
      --log-dir "$dir/$b/$lg" >"$dir/$b/$o.out" 2>&1 ||
      ko "$b: tempo-fmu --all --$mode failed: $(tail -n 3 "$dir/$b/$o.out")" ;;
    esac
  done
  # 1. the same bits
  n=0 same=1
  for c in "$dir/$b/dist"/*.csv; do
    n=$((n + 1))
    [ ! -d "$dir/$b/in" ] || cmp -s "$c" "$dir/$b/in/$(basename "$c")" ||
      { same=0; ko "$b: $(basename "$c") differs (tempo-run --in-process)"; }
    cmp -s "$c" "$dir/$b/in2/$(basename "$c")" ||
      { same=0; ko "$b: $(basename "$c") differs (in process, tasks)"; }
    cmp -s "$c" "$dir/$b/in3/$(basename "$c")" ||
      { same=0; ko "$b: $(basename "$c") differs (in process, threads)"; }
  done
  [ "$n" -ge 2 ] && [ "$same" = 1 ] && ok || ko "$b: $n result files compared"
  # 1b. the bits recorded in example_hashes.txt
  (cd "$dir" && sha256sum "$b"/in2/*.csv | sed 's|/in2/|/|' | LC_ALL=C sort -k2) >"$dir/$b/hashes"
  cat "$dir/$b/hashes" >>"$dir/all_hashes"
  if [ "$record" = 0 ]; then
    grep "  $b/" "$hashes" | LC_ALL=C sort -k2 >"$dir/$b/recorded"
    [ -s "$dir/$b/recorded" ] && cmp -s "$dir/$b/recorded" "$dir/$b/hashes" && ok ||
      ko "$b: the CSV hashes differ from example_hashes.txt: $(diff "$dir/$b/recorded" "$dir/$b/hashes" | grep '^[<>]' | head -n 4 | tr '\n' ' ')"
  fi
  # 2. the same grants
  dl=$(ls "$dir/$b/dlog"/*.tlog 2>/dev/null | head -n 1)
  il=$(ls "$dir/$b/ilog"/*.tlog 2>/dev/null | head -n 1)
  if [ -z "$dl" ] || [ -z "$il" ]; then
    ko "$b: a federation log is missing (distributed '$dl', in process '$il')"
    continue
  fi
  grants "$dl" >"$dir/$b/dgrants"
  ng=$(wc -l <"$dir/$b/dgrants")
  # the tempo-run --in-process --log run of lv_jacobi and lv_master must have written its log
  others=$(ls "$dir/$b/tlog"/*.tlog 2>/dev/null | head -n 1)
  case "$b" in
  lv_jacobi | lv_master)
    rl=$(ls "$dir/$b/rlog"/*.tlog 2>/dev/null | head -n 1)
    [ -n "$rl" ] && ok || ko "$b: tempo-run --in-process --log wrote no federation log"
    others="$others $rl" ;;
  esac
  for g in "$il" $others; do
    grants "$g" >"$dir/$b/igrants"
    if [ "$ng" -gt 0 ] && cmp -s "$dir/$b/dgrants" "$dir/$b/igrants"; then
      ok
    else
      ko "$b: grants differ ($ng distributed, $(wc -l <"$dir/$b/igrants") in process, $g): $(diff "$dir/$b/dgrants" "$dir/$b/igrants" | head -n 4 | tr '\n' ' ')"
    fi
  done
  # 3. tempo-log explain reads the in-process log to its end
  bin/tempo-log explain "$il" 2>&1 | grep -q "end of log" && ok || ko "$b: tempo-log explain on the in-process log"
done

# every example file has its hashes recorded, and no recorded file is gone
if [ "$record" = 1 ]; then
  cp "$dir/all_hashes" "$hashes" && echo "recorded $(wc -l <"$hashes") hashes in $hashes"
else
  cmp -s <(sed 's|.*  ||; s|/.*||' "$hashes" | sort -u) \
    <(for f in examples/*.json; do basename "$f" .json; done | sort -u) && ok ||
    ko "example_hashes.txt names other files than examples/*.json"
fi
# The placement checks compare with lv_jacobi's distributed run: in the half that ran it.
[ -d "$dir/lv_jacobi/dist" ] || { finish; exit; }

# "placement": "in-process" in the file asks the same as --in-process; --distributed overrides
# it; a bad value is refused naming the key.
sed -e "s|\"\.\./build/|\"$PWD/build/|g" -e 's|^{|{ "placement": "in-process",|' \
  examples/lv_jacobi.json >"$dir/placed.json"
bin/tempo-run "$dir/placed.json" --output "$dir/placed" --verbose >"$dir/placed.out" 2>&1 &&
  grep -q '^\[the federation\] tempo-fmu: prey: done' "$dir/placed.out" &&
  cmp -s "$dir/placed/prey.csv" "$dir/lv_jacobi/dist/prey.csv" && ok ||
  ko "placement in-process: $(tail -n 3 "$dir/placed.out")"
bin/tempo-run "$dir/placed.json" --distributed --output "$dir/placed2" --verbose >"$dir/placed2.out" 2>&1 &&
  grep -q '^\[prey\] tempo-fmu: prey: done' "$dir/placed2.out" && ok ||
  ko "--distributed over placement: $(tail -n 3 "$dir/placed2.out")"
# --threads: the same placement with federates as threads (tempo-fmu --all --threads), the same
# bits; refused when the placement is distributed.
bin/tempo-run "$dir/placed.json" --threads --output "$dir/placed3" --verbose >"$dir/placed3.out" 2>&1 &&
  grep -q '^\[the federation\] tempo-fmu: prey: done' "$dir/placed3.out" &&
  cmp -s "$dir/placed3/prey.csv" "$dir/lv_jacobi/dist/prey.csv" &&
  cmp -s "$dir/placed3/predator.csv" "$dir/lv_jacobi/dist/predator.csv" && ok ||
  ko "placement in-process --threads: $(tail -n 3 "$dir/placed3.out")"
out=$(bin/tempo-run "$dir/placed.json" --distributed --threads --quiet 2>&1)
rc=$?
[ "$rc" = 2 ] && echo "$out" | grep -q -- "--threads goes with an in-process placement" && ok ||
  ko "--threads with --distributed: rc $rc: $out"
sed -e 's|"in-process"|"threads"|' "$dir/placed.json" >"$dir/bad.json"
out=$(bin/tempo-run "$dir/bad.json" --quiet 2>&1)
rc=$?
[ "$rc" = 2 ] && echo "$out" | grep -q 'placement: expected "processes" or "in-process"' && ok ||
  ko "bad placement: rc $rc: $out"

# tempo-fmu --all refuses a master method, naming the way to run it in process.
out=$(bin/tempo-fmu --federation examples/lv_master.json --all --quiet 2>&1)
rc=$?
[ "$rc" = 2 ] && echo "$out" | grep -q "tempo-master --in-process" && ok ||
  ko "tempo-fmu --all on a master method: rc $rc: $out"

finish
