#!/usr/bin/env bash
# Every program's command line (README.md, doc/rti.md, doc/fmu.md, doc/run.md, doc/log.md,
# doc/guide.md): for each program, mode and subcommand, --help prints on stdout, nothing on
# stderr, exits 0 and describes every option its source compares arguments against (the
# "--name" literals of the parsing file, read here independently of the help text);
# --version prints "PROGRAM VERSION" and exits 0; an unknown option exits 2 with a message
# naming it. One scenario per program, mode or subcommand. Prints "N passed, N failed" last
# (tests/run.sh). Run from the repository root after make.
set -u
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tempo-cli.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
version=$(sed -n 's/^#define TP_VERSION "\(.*\)"$/\1/p' federate/libtempo/tempo.h)

# options_of FILE [FUNCTION | {TABLE-LINE]: the "--option" literals a parser compares against
# (in FUNCTION only, or in the lines holding TABLE-LINE, when given), without --help and
# --version.
options_of() {
  local file=$1 fn=${2:-}
  if [ "${fn:0:1}" = "{" ]; then
    grep -F -- "$fn" "$file" # the table line that starts so
  elif [ -n "$fn" ]; then
    awk -v fn="$fn" '$0 ~ "^[a-z].*[ *]" fn "\\(" {on = 1} on {print} on && /^}/ {exit}' "$file"
  else
    cat "$file"
  fi | grep -o 'str[n]*cmp([a-z]*[^,]*, *"--[a-z-]*"\|"--[a-z-]*"' | grep -o -- '--[a-z-]*' |
    grep -v -x -e '--help' -e '--version' -e '--' | sort -u
}

# check "PROGRAM [SUBCOMMAND]" "MODE ARGS" SOURCE [FUNCTION]: one scenario. MODE ARGS come
# before the option under test (--federation F.json for that mode of tempo-fmu, a log file
# for tempo-log's subcommands: options are checked before the file is opened).
check() {
  local what=$1 mode=$2 src=$3 fn=${4:-} why="" rc
  local prog=${what%% *} sub=""
  [ "$prog" != "$what" ] && sub=${what#* }
  run() { "bin/$prog" $sub $mode "$@"; } # word splitting of sub and mode is wanted
  run --help >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [ "$rc" -eq 0 ] || why="$why; --help exit $rc"
  [ -s "$tmp/out" ] || why="$why; --help printed nothing on stdout"
  [ -s "$tmp/err" ] && why="$why; --help wrote to stderr: $(head -c 200 "$tmp/err")"
  for o in $(options_of "$src" "$fn"); do
    grep -q -- "$o\b" "$tmp/out" || why="$why; --help does not describe $o"
  done
  if ! grep -q -- '--help' "$tmp/out" || ! grep -q -- '--version' "$tmp/out"; then
    why="$why; --help does not list --help and --version"
  fi
  local v
  v=$(run --version 2>&1)
  rc=$?
  if [ "$rc" -ne 0 ] || [ "$v" != "$prog $version" ]; then why="$why; --version: exit $rc, \"$v\""; fi
  run --bogus >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [ "$rc" -eq 2 ] || why="$why; unknown option: exit $rc, want 2"
  grep -q -- "--bogus" "$tmp/err" ||
    why="$why; the usage error does not name --bogus: $(head -c 200 "$tmp/err")"
  if [ -z "$why" ]; then ok; else ko "$what $mode:${why}"; fi
}

log=$tmp/none.tlog # never opened: the option errors come first
check tempo-rti "" rti/server/main.c
check tempo-fmu "" federate/fmufed/tempo_fmu_main.c parse
check tempo-fmu "--federation x.json" federate/fmufed/fmufed_cli.c fmufed_main
check tempo-run "" federate/run/tempo_run_main.c parse_args
check tempo-master "" federate/master/tempo_master_main.c parse
check tempo-example-defect "" examples/defect_run.c main
check tempo-example-f3ornits "" examples/f3_pareto.c main
check tempo-example-balance "" examples/balance_cases.c main
check tempo-example-producer "" examples/producer.c parse_args
check tempo-example-consumer "" examples/consumer.c parse_args
check tempo-log "" rti/tlog/tlog_main.c main
check "tempo-log show" "$log" rti/tlog/tlog_main.c '{"show",'
check "tempo-log explain" "$log" rti/tlog/tlog_main.c '{"explain",'
check "tempo-log replay" "$log" rti/tlog/tlog_replay.c tlog_replay
for sub in stats json trace csv; do
  check "tempo-log $sub" "$log" /dev/null
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
