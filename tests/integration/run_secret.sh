#!/usr/bin/env bash
# The shared secret end to end (doc/rti.md "Shared secret", doc/run.md): tempo-run starts its
# RTI with a fresh random secret that a process without it cannot use to join the running
# federation; the federation file's "secret_file", --secret-file and TEMPO_SECRET reach
# tempo-rti, tempo-run, tempo-fmu and tempo-master (libtempo); a secret file that others may
# read is refused by each of them, tempo-master --local (no RTI) included. Run from the repository root; prints "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
pass=0
fail=0
check() { # check NAME COMMAND...
  local name=$1
  shift
  if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $name"; fi
}
has() { grep -qF -- "$2" "$1"; }
# No process of the run shows a secret in its arguments (ps would show it to anyone).
not_cmdline() {
  grep -q -- "tempo-rti --listen none --unix $tmp/rti.sock" "$tmp/cmdlines" &&
    ! grep -q -- "--secret" "$tmp/cmdlines"
}
for p in bin/tempo-rti bin/tempo-run bin/tempo-fmu bin/tempo-master build/fmus/lv_prey_me.fmu; do
  [ -e "$p" ] || { echo "run_secret: $p is missing (run make first)"; echo "0 passed, 1 failed"; exit 1; }
done
unset TEMPO_SECRET TEMPO_SECRET_FILE
tmp=$(mktemp -d /tmp/tempo-run-secret.XXXXXX)
. "$(dirname "$0")/rti_proc.sh"
run_pid=""
cleanup() {
  rti_stop 2>/dev/null
  [ -n "$run_pid" ] && kill "$run_pid" 2>/dev/null
  wait 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
root=$(pwd)
# A copy of the Lotka-Volterra case with absolute FMU paths and extra keys.
fedcopy() { # fedcopy OUT JQ-LIKE-SED: examples/lv_gs.json with the FMU paths made absolute
  sed -e "s#\"\.\./build/fmus/#\"$root/build/fmus/#" -e "s#\"output\": \"[^\"]*\"#\"output\": \"$tmp/out\"$2#" \
    examples/lv_gs.json >"$1"
}

# 1. A fresh secret: an intruder without it is refused while the run goes on and succeeds.
fedcopy "$tmp/fresh.json" ", \"rti\": \"unix:$tmp/rti.sock\""
bin/tempo-run "$tmp/fresh.json" --quiet --verbose >"$tmp/run1.out" 2>"$tmp/run1.err" &
run_pid=$!
for _ in $(seq 1 750); do [ -S "$tmp/rti.sock" ] && break; sleep 0.02; done # 15 s at most: a loaded machine
ps -eo args | grep -F -- "$tmp" >"$tmp/cmdlines"
bin/tempo-fmu --federation "$tmp/fresh.json" --name prey --rti "unix:$tmp/rti.sock" --quiet \
  --timeout 3000 >"$tmp/intruder.out" 2>&1
rc=$?
check "an intruder without the secret fails (exit $rc)" test "$rc" -ne 0
check "and is told why" has "$tmp/intruder.out" "secret"
TEMPO_SECRET=guess bin/tempo-fmu --federation "$tmp/fresh.json" --name prey \
  --rti "unix:$tmp/rti.sock" --quiet --timeout 3000 >"$tmp/intruder2.out" 2>&1
check "a wrong TEMPO_SECRET is refused too" has "$tmp/intruder2.out" "secret"
wait "$run_pid"
rc=$?
run_pid=""
check "the run itself succeeds (exit $rc)" test "$rc" -eq 0
check "with a fresh secret" has "$tmp/run1.err" "shared secret: fresh"
check "the RTI required it" has "$tmp/run1.err" "joins need the shared secret"
check "no secret on any command line" not_cmdline

# 2. The federation file's secret_file, against an RTI started with --secret-file.
printf 's3cret-value\n' >"$tmp/secret.txt"
chmod 600 "$tmp/secret.txt"
printf 'other-value\n' >"$tmp/other.txt"
chmod 600 "$tmp/other.txt"
fedcopy "$tmp/keyed.json" ", \"secret_file\": \"secret.txt\""
fedcopy "$tmp/wrong.json" ", \"secret_file\": \"other.txt\""
check "RTI with --secret-file starts" rti_start "$tmp" --secret-file "$tmp/secret.txt"
bin/tempo-run "$tmp/keyed.json" --rti "$RTI_ADDR" --quiet >"$tmp/run2.out" 2>&1
check "tempo-run + tempo-fmu with the file's secret_file run (exit $?)" test $? -eq 0
bin/tempo-run "$tmp/wrong.json" --rti "$RTI_ADDR" --quiet --timeout 20000 >"$tmp/run3.out" 2>&1
rc=$?
check "a different secret_file fails (exit $rc)" test "$rc" -ne 0
check "naming the secret" has "$tmp/run3.out" "secret"
# --secret-file on the command line wins over the file's key.
bin/tempo-run "$tmp/wrong.json" --rti "$RTI_ADDR" --secret-file "$tmp/secret.txt" --quiet \
  >"$tmp/run4.out" 2>&1
check "--secret-file overrides secret_file (exit $?)" test $? -eq 0
# tempo-master under tempo-run: the master method inherits the secret.
sed -e "s#\"\.\./build/fmus/#\"$root/build/fmus/#" -e "s#\"output\": \"[^\"]*\"#\"output\": \"$tmp/m\", \"secret_file\": \"$tmp/secret.txt\"#" \
  examples/lv_master.json >"$tmp/master.json"
bin/tempo-run "$tmp/master.json" --rti "$RTI_ADDR" --quiet >"$tmp/run5.out" 2>&1
check "tempo-master with secret_file runs (exit $?)" test $? -eq 0
rti_stop

# 3. TEMPO_SECRET in the environment: tempo-rti requires it, tempo-run passes it on.
check "RTI with TEMPO_SECRET starts" env TEMPO_SECRET=from-env bash -c \
  ". tests/integration/rti_proc.sh; rti_start $tmp; echo \$RTI_PID \$RTI_ADDR >$tmp/envrti"
read -r env_pid env_addr <"$tmp/envrti"
bin/tempo-run "$tmp/fresh.json" --rti "$env_addr" --quiet --timeout 20000 >"$tmp/run6.out" 2>&1
check "without it the run fails" test $? -ne 0
TEMPO_SECRET=from-env bin/tempo-run "$tmp/fresh.json" --rti "$env_addr" --quiet >"$tmp/run7.out" 2>&1
check "with TEMPO_SECRET the run succeeds (exit $?)" test $? -eq 0
kill "$env_pid" 2>/dev/null

# 4. A secret file others may read is refused by every program, naming the fix.
chmod 644 "$tmp/other.txt"
bin/tempo-rti --listen 127.0.0.1:0 --secret-file "$tmp/other.txt" >/dev/null 2>"$tmp/e1"
check "tempo-rti refuses a 644 secret file (exit 2)" test $? -eq 2
check "naming chmod 600" has "$tmp/e1" "chmod 600"
bin/tempo-fmu --federation "$tmp/fresh.json" --name prey --secret-file "$tmp/other.txt" >/dev/null 2>"$tmp/e2"
check "tempo-fmu refuses it (exit 2)" test $? -eq 2
bin/tempo-run "$tmp/fresh.json" --secret-file "$tmp/other.txt" --quiet >/dev/null 2>"$tmp/e3"
check "tempo-run refuses it (exit 2)" test $? -eq 2
check "naming the file" has "$tmp/e3" "$tmp/other.txt"
TEMPO_SECRET_FILE="$tmp/other.txt" bin/tempo-rti --listen 127.0.0.1:0 >/dev/null 2>"$tmp/e4"
check "TEMPO_SECRET_FILE is checked alike (exit 2)" test $? -eq 2

# 5. tempo-master --local (no RTI) settles and checks the secret like every other program.
bin/tempo-master --federation "$tmp/master.json" --local --quiet --output "$tmp/ml" >"$tmp/ml.out" 2>&1
check "tempo-master --local with a good secret_file runs (exit $?)" test $? -eq 0
bin/tempo-master --federation "$tmp/master.json" --local --secret-file "$tmp/other.txt" --quiet \
  --output "$tmp/ml2" >/dev/null 2>"$tmp/e5"
check "tempo-master --local refuses a 644 --secret-file (exit 2)" test $? -eq 2
check "naming chmod 600" has "$tmp/e5" "chmod 600"
TEMPO_SECRET_FILE="$tmp/other.txt" bin/tempo-master --federation "$tmp/master.json" --local \
  --quiet --output "$tmp/ml3" >/dev/null 2>"$tmp/e6"
check "tempo-master --local refuses a 644 TEMPO_SECRET_FILE (exit 2)" test $? -eq 2
sed -e "s#$tmp/secret.txt#$tmp/other.txt#" "$tmp/master.json" >"$tmp/master-bad.json"
bin/tempo-master --federation "$tmp/master-bad.json" --local --quiet --output "$tmp/ml4" \
  >/dev/null 2>"$tmp/e7"
check "tempo-master --local refuses a 644 secret_file of the file (exit 2)" test $? -eq 2
check "naming the file" has "$tmp/e7" "$tmp/other.txt"
check "and ran nothing" test ! -e "$tmp/ml4"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
