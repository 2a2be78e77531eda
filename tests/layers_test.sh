#!/usr/bin/env bash
# Tests of tests/check_layers.sh (make layers): the project's own tree passes, and small trees
# in a temporary folder, each with one arrow that doc/architecture.md forbids (an include or a
# link), fail with a line naming the file at fault; allowed arrows pass.
set -u
script=$(cd "$(dirname "$0")" && pwd)/check_layers.sh
pass=0; fail=0
tmp=$(mktemp -d /tmp/layers_test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# expect WANT_RC NEEDLE NAME: run the script on $tmp/NAME; its exit status must be WANT_RC and
# its output must contain NEEDLE (when not empty).
expect() {
  local out rc
  out=$("$script" "$tmp/$3" 2>&1); rc=$?
  if [ "$rc" -eq "$1" ] && { [ -z "$2" ] || grep -qF -- "$2" <<<"$out"; }; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL $3: exit $rc (want $1), output: $out (want to contain: $2)"
  fi
}
# tree NAME FILE LINE...: a tree holding FILE with the given lines.
tree() {
  local name=$1 file=$2; shift 2
  mkdir -p "$tmp/$name/$(dirname "$file")"
  printf '%s\n' "$@" >"$tmp/$name/$file"
}

out=$("$script" . 2>&1); rc=$?
if [ "$rc" -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL the tree: $out"; fi

tree algo_net algorithms/jacobi.c '#include <math.h>' '#include "rti/proto/wire.h"'
expect 1 'algorithms/jacobi.c:2: includes "rti/proto/wire.h"' algo_net
tree algo_tempo algorithms/gs.c '#include "federate/libtempo/tempo.h"'
expect 1 'algorithms/gs.c:1' algo_tempo
tree proto_up rti/proto/wire.c '#include "rti/tm/tm.h"'
expect 1 'rti/proto/wire.c:1' proto_up
tree fom_event fom/fom.c '#include <event2/event.h>'
expect 1 'fom/fom.c:1' fom_event
tree fmu_tempo federate/fmu/fmu_cs.c '#include "federate/libtempo/tempo.h"'
expect 1 'federate/fmu/fmu_cs.c:1' fmu_tempo
tree server_fed rti/server/server.c '#include "federate/config/fedfile.h"'
expect 1 'rti/server/server.c:1' server_fed
tree bare rti/tm/tm.c '#include "tm.h"'
expect 1 'not a project header' bare
tree newdir rti/extra/x.c '#include <stdio.h>'
expect 1 'rti/extra/x.c: not in a component folder' newdir

# allowed arrows, system headers and the external libraries a component may use
tree fine federate/fmu/fmu_slave.c '#include <zip.h>' '#include "algorithms/port.h"' \
  '#include "federate/fmu/fmu_step.h"'
tree fine rti/server/conn.c '#include <event2/event.h>' '#include "rti/flog/flog.h"' \
  '#include "fom/fom.h"'
tree fine algorithms/jacobi.c '#include <math.h>' '#include <stdlib.h>' '#include "algorithms/port.h"'
tree fine federate/fmufed/fmufed.c '#include "federate/libtempo/tempo.h"' '#include "algorithms/port.h"'
tree fine tests/unit/x_test.c '#include "rti/server/server_impl.h"' '#include "federate/fmu/fmu_step.h"'
expect 0 '' fine

# links: a program may link its component's libraries and those it may use, through others too
tree link_ok mk/10-x.mk 'tempo-fmu_SRCS := federate/fmufed/main.c' \
  'tempo-fmu_LIBS := fmufed run config fmu algo client proto fom'
expect 0 '' link_ok
tree link_bad mk/10-x.mk 'tempo-log_SRCS := rti/tlog/main.c' 'tempo-log_LIBS := tlog server flog tm proto'
expect 1 'tempo-log (rti/tlog) links libserver.a' link_bad
tree link_up mk/10-x.mk 'tempo-rti_SRCS := rti/server/main.c' 'tempo-rti_LIBS := server client proto'
expect 1 'links libclient.a' link_up
tree link_unknown mk/10-x.mk 'tempo-rti_SRCS := rti/server/main.c' 'tempo-rti_LIBS := server common'
expect 1 'names "common"' link_unknown

# The script's table is doc/architecture.md's: the components named in each row's "may use"
# column ("the same as X" copies X's row) are the ones the script allows.
doc=$(cd "$(dirname "$0")/.." && pwd)/doc/architecture.md
from_doc=$(awk -F'|' '
  /^\| `[a-z\/]+\/` \|/ {
    comp = $2; gsub(/[ `]/, "", comp); sub(/\/$/, "", comp)
    use = $5; list = ""
    if (match(use, /the same as `[a-z\/]+`/)) {
      s = substr(use, RSTART + 13, RLENGTH - 14); sub(/\/$/, "", s); print comp ": =" s; next
    }
    while (match(use, /`[a-z\/]+`/)) {
      w = substr(use, RSTART + 1, RLENGTH - 2); sub(/\/$/, "", w)
      if (w ~ /^(fom|algorithms|rti\/[a-z]+|federate\/[a-z]+)$/) list = list " " w
      use = substr(use, RSTART + RLENGTH)
    }
    print comp ":" list
  }' "$doc")
# resolve "=X" (the same as X), then sort each line's list
resolved=$(while IFS= read -r line; do
  c=${line%%:*}; rest=${line#*: }
  case "$line" in
    *": ="*) rest=$(grep -E "^${line#*: =}:" <<<"$from_doc" | head -n 1); rest=${rest#*:} ;;
    *) rest=${line#*:} ;;
  esac
  echo "$c: $(tr ' ' '\n' <<<"$rest" | grep -v '^$' | sort | xargs)"
done <<<"$from_doc" | sort)
from_script=$("$script" --table | sort)
if [ -n "$resolved" ] && [ "$resolved" = "$from_script" ]; then
  pass=$((pass + 1))
else
  fail=$((fail + 1))
  echo "FAIL doc/architecture.md's table and tests/check_layers.sh differ:"
  diff <(echo "$resolved") <(echo "$from_script") | sed 's/^/    /'
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
