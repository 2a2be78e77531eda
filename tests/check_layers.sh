#!/usr/bin/env bash
# make layers: every rule of doc/architecture.md, checked (doc/contributing.md §1).
#
#   tests/check_layers.sh [ROOT]      ROOT: the tree to check (default: the current directory)
#   tests/check_layers.sh --table     print the arrows, one "component: used components" a line
#   tests/check_layers.sh --layers    print the layers, one "component: N" a line
#
# The rules, in the order of doc/architecture.md:
# 1. Every arrow points to a lower layer of the drawing (LAYER below; the table is checked
#    before the tree).
# 2. Every #include line of a C file outside tests/ names either a header of its own component,
#    a header of a component it may use (ALLOWED below), a system header, or a header of an
#    external library its component may use (EXTERNAL below). Project headers are included by
#    their path from the root ("rti/proto/wire.h"). A C file in a folder that is no component
#    is an error too, so that a new folder is added to the table before it is used.
# 3. The narrowed arrows: some may reach only some headers of the other component
#    (ONLY_HEADERS: libtempo reaches rti/server through embed.h only, the in-process runner
#    rti/tm through tm.h, tempo-run rti/proto through outfile.h), some only from some files
#    (ONLY_FILES: inproc_tm.c is the one includer of rti/tm/tm.h outside rti/; the example
#    runners named in the table), and some external libraries only from some files
#    (EXTERNAL_FILES: libevent in the RTI's socket layer and live view; KINSOL in
#    algorithms/semi.c, CVODE in algorithms/strong.c).
# 4. A private header (NAME_impl.h, doc/contributing.md §13) is included only by its own
#    component (tests may include any).
# 5. Every program (a `NAME_SRCS :=` line in mk/*.mk) links, through its `NAME_LIBS :=` line,
#    only libraries of its own component and of the components it may use, directly or through
#    another (tests may link any library: they are not a component).
# Keep the tables in line with doc/architecture.md: tests/layers_test.sh compares the table's
# "may use" column and the drawing's layers with ALLOWED and LAYER. Prints one line per
# violation; exit 1 if any.
set -u
root=${1:-.}

# Component folders, most specific first (a file belongs to the first that prefixes its path).
components=(rti/proto rti/tm rti/flog rti/server rti/tlog
            federate/libtempo federate/fmu federate/config federate/msproto federate/fmufed federate/inproc
            federate/master
            federate/run algorithms fom examples)

# The project components each one may include and link (its own is always allowed).
declare -A ALLOWED=(
  [fom]=""
  [rti/proto]=""
  [rti/tm]="rti/proto"
  [rti/flog]="rti/proto rti/tm"
  [rti/server]="rti/proto rti/tm rti/flog fom"
  [rti/tlog]="rti/flog rti/tm rti/proto fom"
  # libtempo embeds the RTI's core for its in-process transport (rti/server/embed.h only).
  [federate/libtempo]="rti/proto fom rti/server"
  [federate/fmu]="algorithms"
  [federate/config]="algorithms fom federate/fmu"
  [federate/msproto]="algorithms federate/config"
  [algorithms]=""
  [federate/fmufed]="algorithms federate/fmu federate/config federate/msproto federate/libtempo federate/run fom"
  [federate/inproc]="algorithms federate/config federate/fmufed rti/tm"
  [federate/master]="algorithms federate/fmu federate/config federate/msproto federate/fmufed federate/libtempo federate/run fom"
  # rti/proto/outfile.h: every program writes its output files alike (doc/run.md).
  [federate/run]="federate/config federate/fmu federate/libtempo rti/proto"
  [examples]="federate/libtempo federate/fmu federate/config federate/run algorithms"
)

# External libraries each component may include (header path prefixes); any other <...>
# header must be one of the C library or POSIX.
declare -A EXTERNAL=(
  [fom]="libxml"
  [rti/server]="event2"
  [rti/tlog]="jansson"
  [federate/fmu]="zip libxml cvode nvector sunlinsol sunmatrix sundials"
  # Only algorithms/semi.c (KINSOL, its Newton-Krylov solver) and algorithms/strong.c (CVODE,
  # the master's integrator) may: EXTERNAL_FILES below narrows each library to its files.
  [algorithms]="kinsol cvode nvector sunlinsol sunmatrix sundials"
  [federate/config]="jansson libxml zip"
  [federate/fmufed]="jansson"
  [federate/master]="jansson"
  [federate/run]="jansson"
)
external_all="event2 libxml zip jansson cvode kinsol nvector sunlinsol sunmatrix sundials"

# The layers of doc/architecture.md's drawing: an arrow goes from a higher layer to a lower one.
declare -A LAYER=(
  [fom]=0 [algorithms]=0 [rti/proto]=1 [federate/fmu]=1 [rti/tm]=2 [federate/config]=2
  [rti/flog]=3 [federate/msproto]=3 [rti/server]=4 [rti/tlog]=4 [federate/libtempo]=5
  [federate/run]=6 [federate/fmufed]=7 [examples]=7 [federate/master]=8 [federate/inproc]=8
)

# Arrows "A>B" narrowed to some headers of B: the only ones A may include.
declare -A ONLY_HEADERS=(
  [federate/libtempo>rti/server]="rti/server/embed.h"
  [federate/inproc>rti/tm]="rti/tm/tm.h"
  [federate/run>rti/proto]="rti/proto/outfile.h"
)

# Arrows "A>B" narrowed to some files of A: the only ones that may include B's headers.
example_runners="examples/defect_run.c examples/f3_pareto.c examples/balance_cases.c"
declare -A ONLY_FILES=(
  [federate/inproc>rti/tm]="federate/inproc/inproc_tm.c"
  [examples>algorithms]="$example_runners"
  [examples>federate/config]="$example_runners examples/houses/market.c examples/houses/houses.c"
  [examples>federate/run]="$example_runners examples/houses/market.c examples/houses/houses.c"
)

# External libraries "component>library" narrowed to some files of the component.
sundials_both="algorithms/semi.c algorithms/strong.c"
declare -A EXTERNAL_FILES=(
  [rti/server>event2]="rti/server/conn.c rti/server/conn_guard.c rti/server/loop.c rti/server/live.c rti/server/live_json.c rti/server/live_embed.c"
  [algorithms>kinsol]="algorithms/semi.c"
  [algorithms>cvode]="algorithms/strong.c"
  [algorithms>nvector]="$sundials_both"
  [algorithms>sunlinsol]="$sundials_both"
  [algorithms>sundials]="$sundials_both"
  [algorithms>sunmatrix]="algorithms/strong.c"
)

# Internal libraries (the Makefile's INTERNAL_LIBS) and the component each one holds.
declare -A LIB_COMPONENT=(
  [fom]=fom [proto]=rti/proto [tm]=rti/tm [flog]=rti/flog [server]=rti/server [tlog]=rti/tlog
  [client]=federate/libtempo [fmu]=federate/fmu [algo]=algorithms [config]=federate/config
  [fmufed]=federate/fmufed [master]=federate/master [run]=federate/run [msproto]=federate/msproto
  [inproc]=federate/inproc
)

if [ "$root" = "--table" ]; then
  for c in "${components[@]}"; do echo "$c: $(tr ' ' '\n' <<<"${ALLOWED[$c]}" | sort | xargs)"; done
  exit 0
fi
if [ "$root" = "--layers" ]; then
  for c in "${components[@]}"; do echo "$c: ${LAYER[$c]}"; done
  exit 0
fi
cd "$root" || exit 2

bad=0
report() { echo "layer violation: $1"; bad=1; }

component_of() { # path -> $COMP: its component, or "" when the path is in no component
  local c
  COMP=""
  for c in "${components[@]}"; do
    case "$1" in "$c"/*) COMP=$c; return ;; esac
  done
}

# The components c may use, directly or through others (c itself included).
reach() {
  local todo=("$1") seen=" $1 " c d
  while [ ${#todo[@]} -gt 0 ]; do
    c=${todo[0]}; todo=("${todo[@]:1}")
    for d in ${ALLOWED[$c]:-}; do
      case "$seen" in *" $d "*) ;; *) seen="$seen$d "; todo+=("$d") ;; esac
    done
  done
  echo "$seen"
}

in_list() { case " $2 " in *" $1 "*) return 0 ;; esac; return 1; }

# ---- 1. the table: every arrow points down ------------------------------------------------------
for c in "${components[@]}"; do
  [ -n "${LAYER[$c]:-}" ] || { report "table: $c has no layer"; continue; }
  for d in ${ALLOWED[$c]}; do
    [ "${LAYER[$d]:--1}" -lt "${LAYER[$c]}" ] ||
      report "table: $c (layer ${LAYER[$c]}) may use $d (layer ${LAYER[$d]:-?}): an arrow must point to a lower layer"
  done
done

# ---- 2.-4. includes -----------------------------------------------------------------------------
while IFS= read -r f; do
  f=${f#./}
  component_of "$f"; comp=$COMP
  if [ -z "$comp" ]; then
    report "$f: not in a component folder of doc/architecture.md"
    continue
  fi
  while IFS= read -r hit; do
    n=${hit%%:*}
    line=${hit#*:}
    if [[ $line =~ \#[[:space:]]*include[[:space:]]*\"([^\"]+)\" ]]; then
      h=${BASH_REMATCH[1]}
      component_of "$h"; hc=$COMP
      if [ -z "$hc" ]; then
        report "$f:$n: \"$h\" is not a project header named by its path from the root"
      elif [ "$hc" != "$comp" ] && ! in_list "$hc" "${ALLOWED[$comp]}"; then
        report "$f:$n: includes \"$h\": $comp may use only: ${ALLOWED[$comp]:-libc}"
      elif [ "$hc" != "$comp" ]; then
        narrow=${ONLY_HEADERS[$comp>$hc]:-}
        if [ -n "$narrow" ] && ! in_list "$h" "$narrow"; then
          report "$f:$n: includes \"$h\": $comp may use only $narrow of $hc"
        fi
        narrow=${ONLY_FILES[$comp>$hc]:-}
        if [ -n "$narrow" ] && ! in_list "$f" "$narrow"; then
          report "$f:$n: includes \"$h\": in $comp only $narrow may use $hc"
        fi
        case "$h" in *_impl.h)
          report "$f:$n: includes \"$h\": a private header of $hc (only its own component may)" ;;
        esac
      fi
    elif [[ $line =~ \#[[:space:]]*include[[:space:]]*\<([^\>/.]+) ]]; then
      top=${BASH_REMATCH[1]}
      if in_list "$top" "$external_all" && ! in_list "$top" "${EXTERNAL[$comp]:-}"; then
        report "$f:$n: includes <${line#*<}: $comp may use no $top (external: ${EXTERNAL[$comp]:-none})"
      elif [ -n "${EXTERNAL_FILES[$comp>$top]:-}" ] && ! in_list "$f" "${EXTERNAL_FILES[$comp>$top]}"; then
        report "$f:$n: includes <${line#*<}: in $comp only ${EXTERNAL_FILES[$comp>$top]} may use $top"
      fi
    fi
  done < <(grep -nE '^[[:space:]]*#[[:space:]]*include' "$f")
done < <(find . -path ./tests -prune -o -path ./build -prune -o -path ./bin -prune -o \
              -path ./lib -prune -o -type f \( -name '*.c' -o -name '*.h' \) -print | sort)

# ---- 5. links -----------------------------------------------------------------------------------
# NAME_SRCS := first/source.c ...  and  NAME_LIBS := lib lib ...   (one line each, in mk/*.mk)
if compgen -G "mk/*.mk" >/dev/null; then
  while read -r prog src; do
    component_of "$src"; comp=$COMP
    [ -n "$comp" ] || { report "mk: $prog: $src is in no component"; continue; }
    libs=$(sed -nE "s/^${prog}_LIBS[[:space:]]*:=[[:space:]]*(.*)$/\1/p" mk/*.mk | tail -n 1)
    ok=$(reach "$comp")
    for l in $libs; do
      lc=${LIB_COMPONENT[$l]:-}
      if [ -z "$lc" ]; then
        report "mk: ${prog}_LIBS names \"$l\", which is no internal library"
      elif ! in_list "$lc" "$ok"; then
        report "mk: $prog ($comp) links lib$l.a ($lc): $comp may use only:$ok"
      fi
    done
  done < <(sed -nE 's/^([A-Za-z0-9_-]+)_SRCS[[:space:]]*:=[[:space:]]*([^[:space:]]+).*$/\1 \2/p' mk/*.mk)
fi
exit $bad
