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

# the narrowed arrows and private headers
tree lt_core federate/libtempo/client_conn.c '#include "rti/server/server_impl.h"'
expect 1 'federate/libtempo may use only rti/server/embed.h of rti/server' lt_core
tree inproc_tm federate/inproc/inproc_run.c '#include "rti/tm/tm.h"'
expect 1 'in federate/inproc only federate/inproc/inproc_tm.c may use rti/tm' inproc_tm
tree inproc_tmi federate/inproc/inproc_tm.c '#include "rti/tm/tm_impl.h"'
expect 1 'federate/inproc may use only rti/tm/tm.h of rti/tm' inproc_tmi
tree run_wire federate/run/results.c '#include "rti/proto/wire.h"'
expect 1 'federate/run may use only rti/proto/outfile.h' run_wire
tree ex_cfg examples/producer.c '#include "federate/config/fedfile.h"'
expect 1 'examples/producer.c:1: includes "federate/config/fedfile.h": in examples only' ex_cfg
tree core_event rti/server/server.c '#include <event2/event.h>'
expect 1 'in rti/server only rti/server/conn.c' core_event
tree wr_cvode algorithms/wr.c '#include <cvode/cvode.h>'
expect 1 'in algorithms only algorithms/strong.c may use cvode' wr_cvode
tree semi_cvode algorithms/semi.c '#include <cvode/cvode.h>'
expect 1 'algorithms/semi.c:1' semi_cvode
tree impl federate/master/ms.c '#include "federate/fmufed/fmufed_impl.h"'
expect 1 'a private header of federate/fmufed' impl

# allowed arrows, system headers and the external libraries a component may use
tree fine federate/fmu/fmu_slave.c '#include <zip.h>' '#include "algorithms/port.h"' \
  '#include "federate/fmu/fmu_step.h"'
tree fine rti/server/conn.c '#include <event2/event.h>' '#include "rti/flog/flog.h"' \
  '#include "fom/fom.h"'
tree fine algorithms/jacobi.c '#include <math.h>' '#include <stdlib.h>' '#include "algorithms/port.h"'
tree fine federate/fmufed/fmufed.c '#include "federate/libtempo/tempo.h"' '#include "algorithms/port.h"'
tree fine tests/unit/x_test.c '#include "rti/server/server_impl.h"' '#include "federate/fmu/fmu_step.h"'
tree fine federate/libtempo/client_conn.c '#include "rti/server/embed.h"' '#include "rti/proto/wire.h"'
tree fine federate/inproc/inproc_tm.c '#include "rti/tm/tm.h"'
tree fine algorithms/semi.c '#include <kinsol/kinsol.h>' '#include <nvector/nvector_serial.h>'
tree fine examples/defect_run.c '#include "federate/config/fedfile.h"' '#include "algorithms/port.h"'
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
  echo "$c: $(tr ' ' '\n' <<<"$rest" | grep -v '^$' | sort -u | xargs)"
done <<<"$from_doc" | sort)
from_script=$("$script" --table | sort)
if [ -n "$resolved" ] && [ "$resolved" = "$from_script" ]; then
  pass=$((pass + 1))
else
  fail=$((fail + 1))
  echo "FAIL doc/architecture.md's table and tests/check_layers.sh differ:"
  diff <(echo "$resolved") <(echo "$from_script") | sed 's/^/    /'
fi

# Paths named by pages and comments (tests/check_paths.sh): a missing one fails, with its file
# and line; one in a C string (no comment), a pattern or a build product does not.
paths=$(cd "$(dirname "$0")" && pwd)/check_paths.sh
expect_paths() { # WANT_RC NEEDLE NAME
  local out rc
  out=$("$paths" "$tmp/$3" 2>&1); rc=$?
  if [ "$rc" -eq "$1" ] && { [ -z "$2" ] || grep -qF -- "$2" <<<"$out"; }; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL paths $3: exit $rc (want $1), output: $out (want to contain: $2)"
  fi
}
tree p_doc doc/a.md 'See `rti/tm/tm.c` and [the page](b.md).'
tree p_doc rti/tm/tm.c 'int x;'
tree p_doc doc/b.md 'ok'
expect_paths 0 '' p_doc
tree p_gone doc/a.md 'line one' 'See rti/tm/gone.c for it.'
expect_paths 1 'doc/a.md:2: rti/tm/gone.c: no such file' p_gone
tree p_link doc/a.md 'See [the page](missing.md).'
expect_paths 1 'doc/a.md:1: missing.md: no such file (a link)' p_link
tree p_comment rti/tm/tm.c '/* the engine;' ' * read rti/tm/tm_old.c next */' 'int x;'
expect_paths 1 'rti/tm/tm.c:2: rti/tm/tm_old.c' p_comment
tree p_code rti/tm/tm.c 'static const char *p = "rti/tm/none.c"; /* algorithms/NAME.c */' \
  '/* build/fmus/x.fmu, rti/tlog/tlog_<name>.c, mk/*.mk */'
expect_paths 0 '' p_code
tree p_sh tests/x.sh 'echo tests/none.sh # but tests/'"gone.sh is named here"
expect_paths 1 'tests/x.sh:1: tests/gone.sh' p_sh

# The drawing's layers are the script's: a "layer N" line, and the lines under it up to the
# next one, name the components of layer N.
from_drawing=$(awk '/^```/ { n = "" } /^ layer [0-9]+/ { n = $2 } n != "" {
    for (i = 1; i <= NF; i++) {
      w = $i; sub(/\/$/, "", w)
      if (w ~ /^(fom|algorithms|examples|rti\/[a-z]+|federate\/[a-z]+)$/) print w ": " n
    }
  }' "$doc" | sort)
layers_script=$("$script" --layers | sort)
if [ -n "$from_drawing" ] && [ "$from_drawing" = "$layers_script" ]; then
  pass=$((pass + 1))
else
  fail=$((fail + 1))
  echo "FAIL doc/architecture.md's drawing and tests/check_layers.sh's LAYER differ:"
  diff <(echo "$from_drawing") <(echo "$layers_script") | sed 's/^/    /'
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
