# What the integration scripts share: their counts and closing line, a private temporary
# folder, and the processes (the RTI among them) stopped when the script exits. Source it from
# the repository root, right after `cd`:   . tests/integration/lib.sh NAME
#   pass, fail            the counts; ok: one more passed; ko MSG...: one more failed, "FAIL: MSG"
#   check NAME COMMAND... one check decided by COMMAND's status ("FAIL: NAME" when it fails)
#   has FILE TEXT, not_has FILE TEXT   FILE holds TEXT (a fixed string), or does not
#   need NAME PATH...     ends the script as one failure when a build product is missing
#   finish                prints "N passed, N failed" (the line tests/run.sh reads) and fails
#                         when a check failed: a script's last command
#   dir                   a new folder /tmp/NAME.XXXXXX: the script's files, so that scripts run
#                         at once never share one; removed at exit (kept, and named, with KEEP=1)
#   track PID...          processes started with & to continue (if stopped) and terminate at
#                         exit when they are still this shell's jobs; then every child is
#                         waited for; INT and TERM end the script through the same cleanup
#   still_running PATTERN some process's command line holds PATTERN (a path under $dir, so
#                         only this script's processes match)
#   victim PATTERN CSV [NOT_PID]
#                         prints the PID of a process whose command line holds PATTERN (not
#                         NOT_PID: the timeout wrapper that started it) once CSV has more than
#                         20 lines, the federate being well into its run; waits 10 s at most
#                         (then the PID found, or nothing)
#   fmus                  the example FMUs (build/fmus, absolute)
#   lv FILE FEDERATION ALGORITHM-JSON [PREY_OUTPUT] [PREY_FMU]
#                         a Lotka-Volterra federation file (model-exchange FMUs) writing into
#                         $dir/out-FEDERATION; the prey's output variable may be renamed (x)
#                         and its FMU replaced (to test the errors they cause)
#   rti_start DIR [ARG...], rti_stop, RTI_ADDR: an RTI on an ephemeral port
#                         (tests/integration/rti_proc.sh); the one running is stopped at exit.
. tests/integration/rti_proc.sh

pass=0
fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }
check() {
  local name=$1
  shift
  if "$@"; then ok; else ko "$name"; fi
}
has() { grep -qF -- "$2" "$1"; }
not_has() { ! grep -qF -- "$2" "$1"; }
need() {
  local name=$1 p
  shift
  for p in "$@"; do
    [ -e "$p" ] || { echo "$name: $p is missing (run make first)"; echo "0 passed, 1 failed"; exit 1; }
  done
}
finish() {
  echo "$pass passed, $fail failed"
  [ "$fail" -eq 0 ]
}

lib_pids=
track() { lib_pids="$lib_pids $*"; }
still_running() { pgrep -f -- "$1" >/dev/null; }
victim() {
  local v= _
  for _ in $(seq 200); do
    v=$(pgrep -f -- "$1" | grep -v "^${3:-}\$" | head -n 1)
    [ -n "$v" ] && [ "$(wc -l <"$2" 2>/dev/null || echo 0)" -gt 20 ] && break
    sleep 0.05
  done
  echo "$v"
}

dir=$(mktemp -d "/tmp/${1:-tempo_test}.XXXXXX") || exit 1
lib_cleanup() {
  local live p
  live=" $(jobs -p | tr '\n' ' ') " # a PID no longer our job may be someone else's by now
  for p in $lib_pids; do
    case $live in *" $p "*) kill -CONT "$p" 2>/dev/null; kill -TERM "$p" 2>/dev/null ;; esac
  done
  rti_stop >/dev/null 2>&1
  wait 2>/dev/null
  if [ -n "${KEEP:-}" ]; then echo "kept $dir"; else rm -rf "$dir"; fi
}
trap lib_cleanup EXIT
trap 'exit 130' INT TERM

fmus=$PWD/build/fmus
lv() {
  cat >"$1" <<EOT
{
  "federation": "$2",
  "algorithm": $3,
  "solver": { "rtol": 1e-10, "atol": 1e-12 },
  "federates": [
    { "name": "prey", "fmu": "${5:-$fmus/lv_prey_me.fmu}",
      "parameters": { "alpha": 0.5, "beta": 0.7, "x0": 1 },
      "outputs": { "${4:-x}": "Prey.x" }, "inputs": { "y": "Predator.y" }, "record": [ "x", "y" ] },
    { "name": "predator", "fmu": "$fmus/lv_predator_me.fmu",
      "parameters": { "gamma": 0.27, "delta": 0.6, "y0": 1 },
      "outputs": { "y": "Predator.y" }, "inputs": { "x": "Prey.x" }, "record": [ "y", "x" ] }
  ],
  "output": "$dir/out-$2"
}
EOT
}
