#!/usr/bin/env bash
# Runs the test programs given on the command line, several at once, and sums their
# "N passed, N failed" lines (tests/check.h: N counts test functions, scenarios and randomized
# runs, not assertions; a shell script counts its own checks, each a command run and its
# outcome). A program that crashes, times out, exits non-zero without counting a failure, or
# prints no summary counts as one failure. doc/contributing.md §12 and §16 say how the tiers
# (`make check`, `make test`) use it.
#
#   tests/run.sh [-j N] [--tier NAME] [--build CMD] PROGRAM... [--after-build PROGRAM...]
#   -j N        programs run at once (default: $TEST_JOBS, else twice the machine's cores,
#               nproc: a test program keeps a core busy for about 60 % of its time)
#   --tier NAME the name the closing lines give the run ("make test", "make check")
#   --build CMD a shell command (`make test`: the sanitized build) run at once, beside the
#               first programs and in one of the N places, its output in build/test-logs/
#               build.log; the programs after --after-build start only once it has ended
#               well (each counts as failed, unrun, when it fails). Tests wait on sockets,
#               sleeps and child processes, a compiler does not: the build fills the cores
#               they leave idle instead of running alone before them.
#   TEST_TIMEOUT=S  seconds one program may take (300); it is then killed and counts as failed
#
# Every program owns its ports, sockets and folders (doc/contributing.md §16), so any two may
# run at once. A program under build/san/ is the sanitized (ASan+UBSan) build of the release
# program of the same name: the two share a row of the table, release figures on the left,
# sanitized on the right. Rows come in the order of the command line whatever order the
# programs end in: a row is printed as soon as it and every row above it are done. Programs
# start longest first (the durations of the last run, build/test-logs/durations), so that a
# long one does not start last. The last lines are the totals of each pass, the tier's wall
# and CPU time, and the closing line "N passed, N failed" (both passes together).
set -u
timeout_s=${TEST_TIMEOUT:-300}
jobs_n=${TEST_JOBS:-$((2 * $(nproc 2>/dev/null || echo 1)))}
tier="tests/run.sh"
build_cmd=""
while [ $# -gt 0 ]; do
  case "$1" in
    -j) jobs_n=${2:-}; shift 2 ;;
    -j*) jobs_n=${1#-j}; shift ;;
    --tier) tier=${2:-}; shift 2 ;;
    --build) build_cmd=${2:-}; shift 2 ;;
    --) shift; break ;;
    *) break ;;
  esac
done
# The programs, and those that wait for the build (after --after-build).
declare -A after_build=()
progs=()
marker=""
for t in "$@"; do
  if [ "$t" = --after-build ]; then marker=1; continue; fi
  progs+=("$t")
  [ -z "$marker" ] || after_build[$t]=1
done
set -- "${progs[@]}"
case "$jobs_n" in '' | *[!0-9]* | 0) echo "tests/run.sh: -j wants a positive number, not '$jobs_n'" >&2; exit 2 ;; esac
# `wait -n -p` (which program ended) needs bash 5.1 (Debian 12 has 5.2); an older bash runs
# the programs one at a time.
old_bash=""
if [ "${BASH_VERSINFO[0]}" -lt 5 ] || { [ "${BASH_VERSINFO[0]}" -eq 5 ] && [ "${BASH_VERSINFO[1]}" -lt 1 ]; }; then
  old_bash=1 jobs_n=1
fi
log_dir=build/test-logs
mkdir -p "$log_dir"
durations=$log_dir/durations
t0=$(date +%s.%N)

# secs_of "XmY.YYYs": seconds (the format of bash's `times`).
secs_of() { echo "$1" | awk -F'[ms]' '{ printf "%.1f", $1 * 60 + $2 }'; }

# Each program gets a temporary folder of its own as $TMPDIR (the FMUs its federates unpack
# land there), removed once it ends: under $TEST_TMPDIR when set, else under /dev/shm when that
# is a writable memory file system with 1 GiB free (unpacking and removing thousands of FMUs
# on a disk is mostly waiting), else under $TMPDIR or /tmp.
tmp_root=${TEST_TMPDIR:-}
if [ -z "$tmp_root" ]; then
  tmp_root=${TMPDIR:-/tmp}
  if [ -d /dev/shm ] && [ -w /dev/shm ] &&
    [ "$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 { print $4 }')" -ge 1048576 ] 2>/dev/null; then
    tmp_root=/dev/shm
  fi
fi

# run_job PROGRAM LOG RESULT: runs it under timeout (in the background of the main shell) and
# writes "EXIT-STATUS WALL-SECONDS CPU-SECONDS" to RESULT once it is over. The CPU time is
# user+sys of the program and of every process it waited for.
run_job() {
  local t=$1 log=$2 res=$3 start rc tp u s tdir
  start=$(date +%s.%N)
  tdir=$(mktemp -d "$tmp_root/tempo-test.XXXXXX") || tdir=${TMPDIR:-/tmp}
  TMPDIR=$tdir timeout --kill-after=10 "$timeout_s" "$t" >"$log" 2>&1 </dev/null &
  tp=$!
  trap 'kill -TERM $tp 2>/dev/null' TERM
  wait "$tp"
  rc=$?
  [ "$rc" -gt 128 ] && kill -0 "$tp" 2>/dev/null && { wait "$tp"; rc=$?; }
  case "$tdir" in "$tmp_root"/tempo-test.*) rm -rf "$tdir" ;; esac
  write_result "$rc" "$start" "$res"
}

# write_result STATUS START RESULT: writes "STATUS WALL-SECONDS CPU-SECONDS" (wall since START,
# CPU of the calling shell's children) to RESULT. Called in the job's shell, not in a
# subshell: that one's children would be none.
write_result() {
  local u s
  times >"$3.times"
  read -r u s < <(tail -n 1 "$3.times")
  rm -f "$3.times"
  awk -v rc="$1" -v s0="$2" -v s1="$(date +%s.%N)" -v u="$(secs_of "$u")" -v sy="$(secs_of "$s")" \
    'BEGIN { printf "%d %.1f %.1f\n", rc, s1 - s0, u + sy }' >"$3.tmp" && mv -f "$3.tmp" "$3"
}

# The build (--build CMD), in the background of the main shell like a program, without a
# time limit; its result goes to $build_res, its output to $build_log.
# The build: none (no --build), running, ok or failed; build_fig its times, in words.
build_state=none build_pid="" build_fig=""
[ -z "$build_cmd" ] || build_state=running
build_log=$log_dir/build.log
build_res=$log_dir/build.result
build_job() {
  local start rc bp
  start=$(date +%s.%N)
  bash -c "$build_cmd" >"$build_log" 2>&1 </dev/null &
  bp=$!
  trap 'kill -TERM $bp 2>/dev/null' TERM
  wait "$bp"
  rc=$?
  [ "$rc" -gt 128 ] && kill -0 "$bp" 2>/dev/null && { wait "$bp"; rc=$?; }
  write_result "$rc" "$start" "$build_res"
}

declare -A total_pass=([release]=0 [san]=0) total_fail=([release]=0 [san]=0) n_progs=([release]=0 [san]=0)
declare -A cell=() report=() log_of=() res_of=() pid_prog=() last=() unrun_of=()
failed_progs=()
new_durations=""

# collect PROGRAM: reads its result and log, adds its counts to its pass's totals, and sets
# cell[PROGRAM] (its figures) and report[PROGRAM] (what it printed about a failure).
collect() {
  local t=$1 pass=release rc=1 secs=0 cpu=0 line p=0 f=0 log=${log_of[$1]}
  case "$t" in build/san/*) pass=san ;; esac
  [ -s "${res_of[$t]}" ] && read -r rc secs cpu <"${res_of[$t]}"
  rm -f "${res_of[$t]}"
  # (a program not run keeps its last figures, below)
  [ -n "${unrun_of[$t]:-}" ] || new_durations="$new_durations$secs $cpu $t"$'\n'
  line=$(grep -E '^([A-Za-z]+: )?[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
  if [ -n "$line" ]; then
    p=$(echo "$line" | sed -E 's/^([A-Za-z]+: )?([0-9]+) passed, ([0-9]+) failed.*/\2/')
    f=$(echo "$line" | sed -E 's/^([A-Za-z]+: )?([0-9]+) passed, ([0-9]+) failed.*/\3/')
  fi
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  if [ -z "$line" ] && [ "$rc" -eq 0 ]; then f=1; fi
  total_pass[$pass]=$((total_pass[$pass] + p))
  total_fail[$pass]=$((total_fail[$pass] + f))
  n_progs[$pass]=$((n_progs[$pass] + 1))
  report[$t]=""
  if [ "$f" -ne 0 ]; then
    cell[$t]=$(printf 'FAIL %4s/%-3s %6ss' "$p" "$f" "$secs")
    [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && rc="$rc (timed out after $timeout_s s)"
    report[$t]=$(
      echo "FAIL $t: $p passed, $f failed, exit $rc (log: $log)"
      sed 's/^/    | /' "$log" | grep -E 'FAIL|ERROR|error|Sanitizer|runtime error|Assert' | head -n 40
    )
  else
    cell[$t]=$(printf 'ok   %8s %6ss' "$p" "$secs")
  fi
}

# The rows, paired: a build/san/X argument goes beside build/release/X when both are given.
declare -A given=() san_of=()
for t in "$@"; do given[$t]=1; done
for t in "$@"; do
  case "$t" in build/san/*) [ -n "${given[build/release/${t#build/san/}]:-}" ] &&
                              san_of[build/release/${t#build/san/}]=$t ;; esac
done
rows_rel=() rows_san=()
for t in "$@"; do
  case "$t" in
    build/san/*)
      [ -n "${given[build/release/${t#build/san/}]:-}" ] && continue # beside its release
      rows_rel+=("") rows_san+=("$t") ;;
    *) rows_rel+=("$t") rows_san+=("${san_of[$t]:-}") ;;
  esac
done

# On a terminal, a last line on stderr says how far the run is (rows wait for the slowest
# program above them); it is cleared before each row.
progress=""
[ -t 2 ] && progress=1
n_done=0
n_total=$#
show_progress() {
  [ -n "$progress" ] || return 0
  local names="" p
  for p in "${!pid_prog[@]}"; do
    case "${pid_prog[$p]}" in build/san/*) names="$names san:" ;; *) names="$names " ;; esac
    names="$names${pid_prog[$p]##*/}"
  done
  [ "$build_state" != running ] || names=" (build)$names"
  printf '\r\033[K%d of %d done; running:%s' "$n_done" "$n_total" "$names" | cut -c1-"${COLUMNS:-100}" | tr -d '\n' >&2
}
clear_progress() { [ -z "$progress" ] || printf '\r\033[K' >&2; }

# print_rows: every finished row not yet printed, in command-line order, up to the first
# row that is still running.
next_row=0
print_rows() {
  local r s c1 c2 short
  while [ "$next_row" -lt "${#rows_rel[@]}" ]; do
    r=${rows_rel[$next_row]} s=${rows_san[$next_row]}
    { [ -z "$r" ] || [ -n "${cell[$r]:-}" ]; } && { [ -z "$s" ] || [ -n "${cell[$s]:-}" ]; } || return 0
    clear_progress
    c1="-" c2="-"
    # (failing programs listed in row order)
    [ -n "$r" ] && c1=${cell[$r]} && [ -n "${report[$r]}" ] && echo "${report[$r]}" >&2 &&
      failed_progs+=("$r")
    [ -n "$s" ] && c2=${cell[$s]} && [ -n "${report[$s]}" ] && echo "${report[$s]}" >&2 &&
      failed_progs+=("$s")
    short=${r:-$s}
    short=${short#build/*/}
    short=${short#tests/}
    printf '%-46s %-21s %s\n' "$short" "$c1" "$c2"
    next_row=$((next_row + 1))
  done
}

# The start order: longest first by the last run's durations; a program never timed (a new
# test, a fresh checkout) first of all, scripts before binaries, as integration scripts are
# the long ones.
if [ -s "$durations" ]; then
  while read -r secs _ t; do last[$t]=$secs; done <"$durations"
fi
order=$(
  for t in "$@"; do
    d=${last[$t]:-}
    if [ -z "$d" ]; then
      case "$t" in *.sh) d=100000 ;; *) d=10000 ;; esac
    fi
    echo "$d $t"
  done | sort -s -k1,1gr | cut -d' ' -f2-
)

running=0
# reap: waits for one program (or the build) to end and prints the rows it completes.
reap() {
  local p=""
  if [ -n "$old_bash" ]; then
    p=${!pid_prog[*]}
    wait "$p"
  else
    wait -n -p p
  fi
  if [ -n "$p" ] && [ "$p" = "$build_pid" ]; then
    build_over
    return 0
  fi
  [ -n "$p" ] && [ -n "${pid_prog[$p]:-}" ] || return 0
  collect "${pid_prog[$p]}"
  unset "pid_prog[$p]"
  running=$((running - 1))
  n_done=$((n_done + 1))
  print_rows
  show_progress
}
stop_all() {
  local p
  for p in "${!pid_prog[@]}" $build_pid; do kill -TERM "$p" 2>/dev/null; done
  wait
  echo "tests/run.sh: interrupted" >&2
  exit 130
}
trap stop_all INT TERM

# build_over: the build has ended: its state, its figures, and a place freed.
build_over() {
  local rc=1 secs=0 cpu=0
  [ -s "$build_res" ] && read -r rc secs cpu <"$build_res"
  rm -f "$build_res"
  build_fig="$secs s of wall-clock time, $cpu s of CPU time"
  if [ "$rc" = 0 ]; then build_state=ok; else build_state=failed; fi
  build_pid=""
  running=$((running - 1))
  show_progress
}
# unrun PROGRAM: counts it failed without running it (its build failed).
unrun() {
  echo "not run: the build it waits for failed (\"$build_cmd\", output in $build_log)" >"${log_of[$1]}"
  echo "1 0.0 0.0" >"${res_of[$1]}"
  unrun_of[$1]=1
  collect "$1"
  n_done=$((n_done + 1))
  print_rows
}

printf '%-46s %-21s %s\n' "program" "release" "sanitized (ASan+UBSan)"
pending=()
while IFS= read -r t; do [ -z "$t" ] || pending+=("$t"); done <<<"$order"
if [ "$build_state" = running ]; then
  rm -f "$build_res"
  build_job &
  build_pid=$!
  running=1
  # an old bash cannot wait for whichever ends first: the build runs alone, first
  [ -z "$old_bash" ] || { wait "$build_pid"; build_over; }
  show_progress
fi
while [ ${#pending[@]} -gt 0 ]; do
  while [ "$running" -ge "$jobs_n" ]; do reap; done
  # the first program in the start order that need not wait for the build
  pick=-1
  for i in "${!pending[@]}"; do
    [ -n "${after_build[${pending[$i]}]:-}" ] && [ "$build_state" = running ] && continue
    pick=$i
    break
  done
  if [ "$pick" -lt 0 ]; then
    reap
    continue
  fi
  t=${pending[$pick]}
  unset "pending[$pick]"
  pending=("${pending[@]}")
  name=$(echo "$t" | tr '/' '_')
  log_of[$t]="$log_dir/$name.log"
  res_of[$t]="$log_dir/$name.result"
  rm -f "${res_of[$t]}"
  if [ -n "${after_build[$t]:-}" ] && [ "$build_state" = failed ]; then
    unrun "$t"
    continue
  fi
  run_job "$t" "${log_of[$t]}" "${res_of[$t]}" &
  pid_prog[$!]=$t
  running=$((running + 1))
  show_progress
done
while [ "$running" -gt 0 ]; do reap; done
print_rows
clear_progress

# The durations of this run, for the start order of the next (programs not run this time
# keep their last figures).
{
  printf '%s' "$new_durations"
  if [ -s "$durations" ]; then
    while read -r secs cpu t; do
      [ -n "${given[$t]:-}" ] && [ -z "${unrun_of[$t]:-}" ] || echo "$secs $cpu $t"
    done <"$durations"
  fi
} >"$durations.tmp" && mv -f "$durations.tmp" "$durations"

case "$build_state" in
  ok) echo "build \"$build_cmd\": done in $build_fig (output in $build_log)" ;;
  failed)
    echo "FAIL build \"$build_cmd\" ($build_fig): the programs waiting for it did not run; its last lines ($build_log):" >&2
    tail -n 20 "$build_log" | sed 's/^/    | /' >&2
    failed_progs+=("(build)") ;;
esac
if [ ${#failed_progs[@]} -gt 0 ]; then
  echo "failing programs (logs in $log_dir/): ${failed_progs[*]}"
fi
printf 'release: %d programs, %d passed, %d failed; sanitized: %d programs, %d passed, %d failed\n' \
  "${n_progs[release]}" "${total_pass[release]}" "${total_fail[release]}" \
  "${n_progs[san]}" "${total_pass[san]}" "${total_fail[san]}"
times >"$log_dir/run.times"
read -r cu cs < <(tail -n 1 "$log_dir/run.times")
rm -f "$log_dir/run.times"
awk -v tier="$tier" -v n=$# -v j="$jobs_n" -v s0="$t0" -v s1="$(date +%s.%N)" \
  -v u="$(secs_of "$cu")" -v sy="$(secs_of "$cs")" 'function mmss(x) {
    return x >= 60 ? sprintf("%d min %02d s", int(x / 60), int(x) % 60) : sprintf("%.1f s", x) }
  BEGIN { printf "%s: %d programs, %d at a time, in %s (CPU time, user+sys: %s) on %d cores\n",
          tier, n, j, mmss(s1 - s0), mmss(u + sy), '"$(nproc 2>/dev/null || echo 0)"' }'
pass=$((total_pass[release] + total_pass[san]))
fail=$((total_fail[release] + total_fail[san]))
[ "$build_state" != failed ] || fail=$((fail + 1))
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
