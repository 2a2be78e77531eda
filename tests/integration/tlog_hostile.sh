#!/usr/bin/env bash
# tempo-log on inputs that are not federation logs (doc/log.md "Reading"): a device
# (/dev/zero, which never ends), a FIFO with no writer, a folder, a large sparse file with the
# wrong magic, a truncated magic. Each is refused within seconds, naming the path and the
# reason, with the memory of the process bounded (ulimit -v 100 MiB: reading /dev/zero or the
# 2 GiB file into memory would fail instead). Prints "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
pass=0
fail=0
tl=bin/tempo-log
[ -x "$tl" ] || { echo "tlog_hostile: $tl is missing (run make first)"; echo "0 passed, 1 failed"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# refused NAME INPUT TEXT: tempo-log show INPUT exits 1 within 10 s, its message has TEXT.
refused() {
  local name=$1 input=$2 text=$3 rc
  (ulimit -v 102400; timeout 10 "$tl" show "$input") >"$tmp/out" 2>"$tmp/err"
  rc=$?
  if [ "$rc" -eq 1 ] && grep -qF -- "$text" "$tmp/err" && grep -qF -- "$input" "$tmp/err"; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL: $name: exit $rc (want 1), stderr: $(head -c 300 "$tmp/err")"
  fi
}
refused "/dev/zero" /dev/zero "not a regular file"
mkfifo "$tmp/fifo"
refused "FIFO without a writer" "$tmp/fifo" "not a regular file"
mkdir "$tmp/dir"
refused "folder" "$tmp/dir" "not a regular file"
truncate -s 2G "$tmp/sparse"
printf 'NOTALOG!' | dd of="$tmp/sparse" conv=notrunc status=none
refused "2 GiB file with a wrong magic" "$tmp/sparse" "bad magic"
printf 'TEMPO' >"$tmp/cut"
refused "truncated magic" "$tmp/cut" "cut"
: >"$tmp/empty"
refused "empty file" "$tmp/empty" "cut"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
