# The shell side of tests/integration/rti_proc.h: how an integration script starts and stops
# tempo-rti. Source it from the repository root (`. tests/integration/rti_proc.sh`).
#   rti_start DIR [ARG...]  bin/tempo-rti --listen 127.0.0.1:0 ARG..., stdout in DIR/rti.out and
#                           stderr in DIR/rti.err; waits up to 5 s for its "listening on" line;
#                           sets RTI_PID and RTI_ADDR ("127.0.0.1:PORT", "" when it printed none).
#                           Status 0 when the address was read.
#   rti_stop                SIGTERM, then wait; the RTI's exit status (0 when none was running).
# A script's EXIT trap calls rti_stop as well, so no RTI outlives it.
RTI_PID=""
RTI_ADDR=""

rti_start() {
  local dir=$1
  shift
  bin/tempo-rti --listen 127.0.0.1:0 "$@" >"$dir/rti.out" 2>"$dir/rti.err" &
  RTI_PID=$!
  RTI_ADDR=""
  for _ in $(seq 1 100); do
    grep -q "listening on" "$dir/rti.out" 2>/dev/null && break
    sleep 0.05
  done
  RTI_ADDR=$(sed -n 's/^tempo-rti listening on \(127\.0\.0\.1:[0-9]*\).*/\1/p' "$dir/rti.out" | head -n 1)
  [ -n "$RTI_ADDR" ]
}

rti_stop() {
  [ -n "$RTI_PID" ] || return 0
  local rc
  kill -TERM "$RTI_PID" 2>/dev/null
  wait "$RTI_PID"
  rc=$?
  RTI_PID=""
  return $rc
}
