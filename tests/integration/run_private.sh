#!/usr/bin/env bash
# Secrets never stored, output private (doc/log.md "Secrets", doc/run.md "Output files"): runs
# with a shared secret (tempo-run with --secret-file and --log; a bare tempo-rti --log with a
# secret file and tempo-run --rti; tempo-run with its fresh secret, read from its RTI's
# environment while it runs) write no file holding the secret's bytes, the federation log
# records that each JOIN presented a matching secret, and tempo-log (show, json, csv, trace)
# prints the note, never the bytes. Every file the runs write is mode 600 in folders of mode
# 700; --file-mode 644 (tempo-run and tempo-rti) gives 644 and 755; an output or log folder
# anyone may write (no sticky bit) is refused, a sticky one accepted, a group-writable one
# warned about. Prints "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/lib.sh run_private
need run_private bin/tempo-rti bin/tempo-run bin/tempo-fmu bin/tempo-master bin/tempo-log
unset TEMPO_SECRET TEMPO_SECRET_FILE TEMPO_FILE_MODE
umask 022 # what a user typically has: the programs, not the umask, must keep files private
root=$PWD
fedcopy() { # fedcopy OUT OUTPUT-FOLDER [EXTRA-KEYS]: examples/lv_gs.json, absolute FMU paths
  sed -e "s#\"\.\./build/fmus/#\"$root/build/fmus/#" \
    -e "s#\"output\": \"[^\"]*\"#\"output\": \"$2\"${3:-}#" examples/lv_gs.json >"$1"
}
secret=hunter2-$RANDOM$RANDOM-not-for-logs
printf '%s\n' "$secret" >"$dir/secret"
chmod 600 "$dir/secret"

# no_secret NAME S PATH...: no file under the PATHs holds the bytes of S
no_secret() {
  local name=$1 s=$2 hits
  shift 2
  hits=$(grep -rlF -- "$s" "$@" 2>/dev/null)
  if [ -z "$hits" ]; then ok; else ko "$name: the secret is in $hits"; fi
}
# modes NAME FILE-MODE DIR-MODE PATH...: every file and folder under the PATHs has those modes
modes() {
  local name=$1 fm=$2 dm=$3 bad
  shift 3
  bad=$( (find "$@" -type f ! -perm "$fm"; find "$@" -type d ! -perm "$dm") 2>&1 | head -5)
  if [ -z "$bad" ]; then ok; else ko "$name: modes not $fm/$dm: $(ls -ld $bad)"; fi
}
# tlog_clean NAME LOG S: tempo-log's printers show the JOIN's note and never S
tlog_clean() {
  local sub
  for sub in show json csv trace; do
    bin/tempo-log "$sub" "$2" >"$dir/tlog.$sub" 2>&1 || ko "$1: tempo-log $sub failed"
    not_has "$dir/tlog.$sub" "$3" || ko "$1: tempo-log $sub prints the secret"
  done
  check "$1: show notes a matching secret" has "$dir/tlog.show" 'secret="(secret presented: it matched)"'
  check "$1: json notes it too" has "$dir/tlog.json" '"(secret presented: it matched)"'
}

# 1. tempo-run with a secret file and a federation log.
fedcopy "$dir/a.json" "$dir/a/out"
timeout 60 bin/tempo-run "$dir/a.json" --quiet --secret-file "$dir/secret" --log "$dir/a/logs" \
  >"$dir/a.out" 2>"$dir/a.err"
check "tempo-run with a secret: status 0 ($(head -c 300 "$dir/a.err"))" test $? -eq 0
log=$(ls "$dir"/a/logs/*.tlog 2>/dev/null | head -n 1)
check "tempo-run with a secret wrote a log" test -s "$log"
no_secret "tempo-run --secret-file" "$secret" "$dir/a"
modes "tempo-run --secret-file" 600 700 "$dir/a"
tlog_clean "tempo-run --secret-file" "$log" "$secret"
check "every JOIN is noted" test "$(grep -c 'RECV     JOIN ' "$dir/tlog.show")" -eq 2
check "every JOIN noted as matching" \
  test "$(grep -c 'RECV     JOIN .*secret="(secret presented: it matched)"' "$dir/tlog.show")" -eq 2

# 2. A bare tempo-rti with a secret file and --log (a folder it creates), tempo-run --rti.
rti_start "$dir" --secret-file "$dir/secret" --log "$dir/b/logs" ||
  ko "tempo-rti did not start: $(cat "$dir/rti.err")"
fedcopy "$dir/b.json" "$dir/b/out"
TEMPO_SECRET_FILE=$dir/secret timeout 60 bin/tempo-run "$dir/b.json" --quiet --rti "$RTI_ADDR" \
  >"$dir/b.out" 2>"$dir/b.err"
check "tempo-run --rti with a secret: status 0 ($(head -c 300 "$dir/b.err"))" test $? -eq 0
rti_stop
log=$(ls "$dir"/b/logs/*.tlog 2>/dev/null | head -n 1)
check "the bare RTI wrote a log" test -s "$log"
no_secret "bare tempo-rti" "$secret" "$dir/b"
modes "bare tempo-rti" 600 700 "$dir/b"
tlog_clean "bare tempo-rti" "$log" "$secret"

# 3. tempo-run's fresh secret: read from its RTI's environment (readable by this user only)
#    while the run goes on, then looked for in every file the run wrote.
fedcopy "$dir/c.json" "$dir/c/out"
sed -i 's/"end": 100,/"end": 1000,/' "$dir/c.json" # a few seconds: time to read its environment
timeout 60 bin/tempo-run "$dir/c.json" --quiet --log "$dir/c/logs" >"$dir/c.out" 2>"$dir/c.err" &
run_pid=$!
track $run_pid
fresh=
for _ in $(seq 500); do
  rpid=$(pgrep -f -- "tempo-rti .*--log $dir/c/logs" | head -n 1)
  [ -n "$rpid" ] && fresh=$(tr '\0' '\n' <"/proc/$rpid/environ" 2>/dev/null | sed -n 's/^TEMPO_SECRET=//p')
  [ -n "$fresh" ] && break
  sleep 0.02
done
wait $run_pid
check "tempo-run with a fresh secret: status 0 ($(head -c 300 "$dir/c.err"))" test $? -eq 0
check "the fresh secret was read from the RTI's environment" test "${#fresh}" -eq 64
[ -n "$fresh" ] && no_secret "fresh secret" "$fresh" "$dir/c" "$dir/c.out" "$dir/c.err"
modes "fresh secret" 600 700 "$dir/c"
log=$(ls "$dir"/c/logs/*.tlog 2>/dev/null | head -n 1)
[ -n "$fresh" ] && tlog_clean "fresh secret" "$log" "$fresh"

# 4. What the user asks for: --file-mode 644 (tempo-run, and tempo-rti), TEMPO_FILE_MODE.
fedcopy "$dir/d.json" "$dir/d/out"
timeout 60 bin/tempo-run "$dir/d.json" --quiet --file-mode 644 --log "$dir/d/logs" \
  >"$dir/d.out" 2>"$dir/d.err"
check "--file-mode 644: status 0 ($(head -c 300 "$dir/d.err"))" test $? -eq 0
modes "tempo-run --file-mode 644" 644 755 "$dir/d"
rti_start "$dir" --file-mode 644 --log "$dir/e/logs" || ko "tempo-rti --file-mode did not start"
fedcopy "$dir/e.json" "$dir/e/out"
TEMPO_FILE_MODE=640 timeout 60 bin/tempo-run "$dir/e.json" --quiet --rti "$RTI_ADDR" >/dev/null 2>&1
rti_stop
modes "tempo-rti --file-mode 644" 644 755 "$dir/e/logs"
modes "TEMPO_FILE_MODE=640" 640 750 "$dir/e/out"
bin/tempo-run "$dir/e.json" --file-mode 755 >"$dir/f.err" 2>&1
check "--file-mode 755 refused (exit 2)" test $? -eq 2
check "naming what is allowed" has "$dir/f.err" "600 .. 666"
bin/tempo-rti --listen 127.0.0.1:0 --file-mode 0 >"$dir/f.err" 2>&1
check "tempo-rti --file-mode 0 refused (exit 2)" test $? -eq 2

# 5. Folders others may write: refused without the sticky bit, accepted with it, warned about
#    when only the group may.
mkdir -p "$dir/w" "$dir/s" "$dir/g"
chmod 777 "$dir/w"
chmod 1777 "$dir/s"
chmod 775 "$dir/g"
fedcopy "$dir/w.json" "$dir/w"
bin/tempo-run "$dir/w.json" --quiet >"$dir/w.out" 2>"$dir/w.err"
check "a world-writable output folder: exit 2" test $? -eq 2
check "refused, naming it" has "$dir/w.err" "$dir/w: output folder writable by everyone (mode 777)"
check "nothing written there" test -z "$(ls -A "$dir/w")"
bin/tempo-rti --listen 127.0.0.1:0 --log "$dir/w" >"$dir/w.out" 2>"$dir/w.err"
check "tempo-rti --log into it: exit 2" test $? -eq 2
check "refused, naming it" has "$dir/w.err" "writable by everyone"
fedcopy "$dir/s.json" "$dir/s"
timeout 60 bin/tempo-run "$dir/s.json" --quiet >"$dir/s.out" 2>"$dir/s.err"
check "a sticky world-writable folder is accepted ($(head -c 300 "$dir/s.err"))" test $? -eq 0
fedcopy "$dir/g.json" "$dir/g"
timeout 60 bin/tempo-run "$dir/g.json" --quiet >"$dir/g.out" 2>"$dir/g.err"
check "a group-writable folder is accepted ($(head -c 300 "$dir/g.err"))" test $? -eq 0
check "with a warning" has "$dir/g.err" "warning: $dir/g: output folder writable by its group"

finish
