#!/usr/bin/env bash
# Checkpoint and resume (doc/checkpoint.md, doc/run.md "Checkpoints"): for example federation
# files whose FMUs can serialize their state, "run to the end" and "run, checkpoint at T, kill
# -9 every process (tempo-run, the RTI, every tempo-fmu), resume from the checkpoint to the
# end" give byte-identical CSV files and, from the checkpoint on, the same grants (federation
# logs, tempo-log show --kind GRANT); tempo-log explain reads the resumed run's log. T lies inside a macro step (not on a communication
# point), so each federate saves at its own first grant past T. Both runs are asked for the
# same checkpoint instant: a model-exchange FMU's integrator restarts there in both
# (doc/checkpoint.md "Model exchange"). Placements: distributed, in process, and a checkpoint
# made one way resumed the other way.
#
# Cost: the runs are cut to a fifth of each file's end time. By default a representative
# subset (about 30 s): lv_jacobi distributed, vdp_gs (Gauss-Seidel) distributed resumed in
# process, bball_jacobi (events) in process resumed distributed, lv_de, lv_jacobi recording
# every third row, and one file of each master method family: lv_wr, chain_balance, lv_strong,
# lv_semi, bball_hybrid, osc_f3_mixed (tempo-master killed with the others);
# TEMPO_CKPT_FULL=1 runs every example file of every method in all four placements
# (distributed, in process, both crossings; several minutes). Also: a branch (--set) of a
# resumed run changes its results; a damaged or foreign checkpoint is refused naming the file;
# an instant outside the run and an FMU that cannot serialize are refused before the start.
# Prints "N passed, N failed" last (tests/run.sh).
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/lib.sh ckpt_resume
need ckpt_resume bin/tempo-run bin/tempo-rti bin/tempo-fmu bin/tempo-log

# short FILE OUT [K]: a copy of example FILE ending at a fifth of its end time (whole macro
# steps kept), its paths absolute, with "record_every": {"steps": K} when K is given; prints
# the end time.
short() {
  python3 - "$1" "$2" "$PWD" "${3:-}" <<'PY'
import json, sys, os
src, out, root, every = sys.argv[1:5]
d = json.load(open(src))
if every:
    d["record_every"] = {"steps": int(every)}
base = os.path.dirname(os.path.abspath(src))
a = d["algorithm"]
a["end"] = a["start"] + (a["end"] - a["start"]) / 5 if "start" in a else a["end"] / 5
if "step" in a:
    n = max(4, round((a["end"] - a.get("start", 0)) / a["step"]))
    a["end"] = a.get("start", 0) + n * a["step"]
# a program federate reading every --period P (the houses market) ends on a reading
for f in d["federates"]:
    g = f.get("args", [])
    if "--period" in g:
        p = float(g[g.index("--period") + 1])
        a["end"] = a.get("start", 0) + max(1, round((a["end"] - a.get("start", 0)) / p)) * p
for f in d["federates"]:
    for k in ("fmu", "program"):
        if k in f and "/" in f[k]:
            f[k] = os.path.normpath(os.path.join(base, f[k]))
d.pop("output", None)
d.pop("log", None)
if "fom" in d:
    d["fom"] = os.path.normpath(os.path.join(base, d["fom"]))
json.dump(d, open(out, "w"), indent=1)
print(a["end"])
PY
}

# grants LOG: "federate kind time" per grant in each federate's order, repeated FQR polls of
# one wait counted once (their number depends on timing), as tests/integration/inproc_examples.sh.
grants() {
  bin/tempo-log show "$1" --kind GRANT |
    awk '$4 == "DECISION" && $5 == "GRANT" && $7 !~ /^t=inf/ { print $3, $6, $7 }' |
    sort -s -k1,1 | awk '!($2 == "FQR" && $0 == prev) { print } { prev = $0 }'
}

# killall_of PATTERN: kill -9 every process whose command line holds PATTERN (a path under
# $dir, so only this test's processes), the RTI and the supervisor included.
killall_of() {
  local p
  for p in $(pgrep -f -- "$1"); do kill -9 "$p" 2>/dev/null; done
}

# placement WORD: the tempo-run option of a placement (dist, inproc)
place() { [ "$1" = inproc ] && echo --in-process || echo --distributed; }

# case FILE FROM TO [K [SKIP [AT]]]: reference run, crashed run, resume; compare. With K,
# every federate records every K-th row only (record_every): the resumed run must keep the
# same rows. With SKIP, a master method that cannot save yet is skipped (it is refused by
# name). AT: where T lies, as a fraction of the run (default 0.4; T is a quarter of a macro
# step past that macro step's start).
case_one() {
  local f=$1 from=$2 to=$3 b w end T ck
  b=$(basename "$f" .json)${4:+-every$4}${6:+-at$6}
  w=$dir/$b-$from-$to
  mkdir -p "$w/rlog" "$w/clog" "$w/slog"
  end=$(short "$f" "$w/f.json" "${4:-}") || { ko "$b: cannot shorten the file"; return; }
  # T: 0.4 of the run plus a quarter of a macro step (of 1 ms without one): inside a step,
  # on the microsecond grid (whole ticks)
  T=$(python3 -c "import json;a=json.load(open('$w/f.json'))['algorithm'];s=a.get('start',0);h=a.get('step',0.004);print(round(s+round((a['end']-s)*${6:-0.4}/h)*h+h/4, 6))")
  ck=$(python3 -c "import json;d=json.load(open('$w/f.json'));r=d.get('resolution',1e-9);print('ckpt-%d'%round($T/r))")
  # 1. the reference: to the end, checkpointing at T
  if ! bin/tempo-run "$w/f.json" $(place "$from") --output "$w/ref" --log "$w/rlog" --quiet \
    --checkpoint-at "$T" >"$w/ref.out" 2>&1; then
    # a master method whose state is not saved yet is refused naming it (checked below)
    if [ -n "${5:-}" ] && has "$w/ref.out" "cannot save its state between steps yet"; then
      echo "skipped $b: $(tail -n 1 "$w/ref.out")"
      return
    fi
    ko "$b ($from): the reference run failed: $(tail -n 3 "$w/ref.out")"
    return
  fi
  has "$w/ref.out" "checkpoints: 1 written" && ok || ko "$b ($from): no checkpoint reported: $(tail -n 2 "$w/ref.out")"
  # 2. the same run, every process killed once its checkpoint is complete
  bin/tempo-run "$w/f.json" $(place "$from") --output "$w/run" --log "$w/clog" --quiet \
    --checkpoint-at "$T" >"$w/run.out" 2>&1 &
  local sup=$! i
  track "$sup"
  for i in $(seq 600); do
    [ -e "$w/run/checkpoints/$ck/MANIFEST" ] && break
    kill -0 "$sup" 2>/dev/null || break
    sleep 0.05
  done
  killall_of "$w/"
  wait "$sup" 2>/dev/null
  if [ ! -e "$w/run/checkpoints/$ck/MANIFEST" ]; then
    ko "$b ($from): checkpoint $ck was not written: $(tail -n 3 "$w/run.out")"
    return
  fi
  # 3. resume it to the end (the other placement when to differs)
  if ! bin/tempo-run "$w/f.json" $(place "$to") --output "$w/run" --log "$w/slog" --quiet \
    --checkpoint-at "$T" --resume "$w/run/checkpoints/$ck" >"$w/res.out" 2>&1; then
    ko "$b ($from -> $to): the resumed run failed: $(tail -n 3 "$w/res.out")"
    return
  fi
  local n=0 same=1 c
  for c in "$w/ref"/*.csv; do
    n=$((n + 1))
    cmp -s "$c" "$w/run/$(basename "$c")" || { same=0; ko "$b ($from -> $to): $(basename "$c") differs from the uninterrupted run's"; }
  done
  [ "$n" -ge 2 ] && [ "$same" = 1 ] && ok || ko "$b ($from -> $to): $n CSV files compared"
  # 4. the grants of the resumed run are the reference's last ones, federate by federate
  local rl sl
  rl=$(ls "$w/rlog"/*.tlog 2>/dev/null | head -n 1)
  sl=$(ls "$w/slog"/*.tlog 2>/dev/null | head -n 1)
  if [ -z "$rl" ] || [ -z "$sl" ]; then
    ko "$b ($from -> $to): a federation log is missing ('$rl', '$sl')"
    return
  fi
  grants "$rl" >"$w/rgrants"
  grants "$sl" >"$w/sgrants"
  local fed bad=0 ns
  for fed in $(awk '{ print $1 }' "$w/rgrants" | sort -u); do
    grep "^$fed " "$w/sgrants" >"$w/s.$fed"
    grep "^$fed " "$w/rgrants" >"$w/r.$fed"
    ns=$(wc -l <"$w/s.$fed")
    # (a checkpoint in the close of the last instant leaves no grant to make: AT cases)
    { [ "$ns" -gt 0 ] || [ -n "${6:-}" ]; } && tail -n "$ns" "$w/r.$fed" | cmp -s - "$w/s.$fed" || {
      bad=1
      ko "$b ($from -> $to): $fed's grants after the resume differ: $(tail -n "$ns" "$w/r.$fed" | diff - "$w/s.$fed" | head -n 4 | tr '\n' ' ')"
    }
  done
  [ "$bad" = 0 ] && ok
  # 5. tempo-log reads the resumed run's log, which starts from the restored state
  bin/tempo-log explain "$sl" 2>&1 | grep -q "end of log" && ok ||
    ko "$b ($from -> $to): tempo-log explain on the resumed run's log"
}

# jacobi-de's parts are made at closing grants (doc/checkpoint.md "The cut").
# Master methods (doc/checkpoint.md "Master methods"): the parts are made in the grant that
# closes the macro step holding T, tempo-master's among them; kill -9 reaches tempo-master too.
masters=$(bin/tempo-master --list-methods | awk '$2 == "master" { print $1 }')
if [ -n "${TEMPO_CKPT_FULL:-}" ]; then
  for f in examples/*.json examples/houses/*.json; do
    m=$(sed -n 's/.*"method": *"\([a-z0-9-]*\)".*/\1/p' "$f" | head -n 1)
    places="dist-dist inproc-inproc dist-inproc inproc-dist"
    # a program federate (the houses market) runs as a process of its own: distributed only
    grep -q '"program"' "$f" && places=dist-dist
    case "$m" in
    jacobi | jacobi-de | gauss-seidel)
      for p in $places; do
        case_one "$f" ${p%-*} ${p#*-}
      done ;;
    *)
      if echo "$masters" | grep -qx -- "$m"; then
        for p in $places; do
          case_one "$f" ${p%-*} ${p#*-} "" skip
        done
      fi ;;
    esac
  done
else
  case_one examples/lv_jacobi.json dist dist
  case_one examples/vdp_gs.json dist inproc
  case_one examples/bball_jacobi.json inproc dist
  case_one examples/lv_de.json inproc dist
  # the output interval's place crosses the checkpoint (doc/checkpoint.md, the model's state)
  case_one examples/lv_jacobi.json inproc inproc 3
  # master methods: waveform relaxation (iterates inside each macro step, model exchange,
  # saved slots) and balance correction (corrections pending across the cut)
  case_one examples/lv_wr.json dist inproc
  case_one examples/chain_balance.json inproc dist
  # strong coupling: the master's CVODE restarts at the checkpoint instant in both runs
  case_one examples/lv_strong.json dist dist
  # semi-implicit (Newton), hybrid (events, step-size control), F3ORNITS (slaves on their own
  # step sizes: the controllers' memory)
  case_one examples/lv_semi.json inproc dist
  case_one examples/bball_hybrid.json dist inproc
  case_one examples/osc_f3_mixed.json dist dist
  # houses with discrete-event Jacobi: the environment's and houses' next events lie past T
  # while the market is held there; they are saved in their pending NERA, the request recorded
  # (doc/checkpoint.md "When the save time is not reached"); the market is a program federate
  case_one examples/houses/houses-de.json dist dist
  # T in the last macro step: the parts are made in the close of the run's last instant, and
  # the resumed run only ends (tempo-master runs no algorithm; the slaves get their end)
  case_one examples/lv_wr.json inproc dist "" "" 0.97
  case_one examples/lv_jacobi.json dist inproc "" "" 0.97
fi

# Model exchange: the integrators restart at every checkpoint instant whether or not the save
# is written, so a run whose saves are refused (tempo-fmu --all without a checkpoint folder)
# gives the bytes of a run whose saves are written (doc/checkpoint.md "Model exchange").
w=$dir/marks
mkdir -p "$w"
short examples/lv_jacobi.json "$w/f.json" >/dev/null
bin/tempo-run "$w/f.json" --in-process --output "$w/saved" --quiet --checkpoint-at 8.125 >"$w/saved.out" 2>&1
bin/tempo-fmu --federation "$w/f.json" --all --output "$w/refused" --checkpoint-at 8.125 >"$w/refused.out" 2>&1
if has "$w/saved.out" "checkpoints: 1 written" && has "$w/refused.out" "checkpoint ckpt-8125000000 8.125 failed" &&
  cmp -s "$w/saved/prey.csv" "$w/refused/prey.csv" && cmp -s "$w/saved/predator.csv" "$w/refused/predator.csv"; then
  ok
else
  ko "a refused save changed the results: $(tail -n 2 "$w/saved.out" "$w/refused.out")"
fi

# A branch (--set): a run saved at T and resumed with another value of an unwired input
# keeps the rows up to T and changes the later ones. (FMI forbids setting a fixed parameter
# after initialization, and the example FMUs' parameters are fixed: refused, naming it.)
w=$dir/branch
mkdir -p "$w"
cat >"$w/f.json" <<EOT
{ "federation": "branch", "algorithm": { "method": "jacobi", "end": 2, "step": 0.1 },
  "federates": [
    { "name": "plant", "fmu": "$fmus/lin_half_cs.fmu", "outputs": { "x": "Plant.x" }, "record": [ "x", "u" ] },
    { "name": "probe", "fmu": "$fmus/passthrough_cs.fmu", "inputs": { "u": "Plant.x" }, "outputs": { "y": "Probe.y" } } ] }
EOT
if bin/tempo-run "$w/f.json" --in-process --output "$w/a" --quiet --checkpoint-at 1.05 >"$w/a.out" 2>&1 &&
  cp -r "$w/a" "$w/b" &&
  bin/tempo-run "$w/f.json" --output "$w/b" --quiet --resume "$w/b/checkpoints/ckpt-1050000000" \
    --set plant.u=3 >"$w/b.out" 2>&1; then
  rows=$(awk -F, 'NR > 1 && $1 + 0 <= 1.05' "$w/a/plant.csv" | wc -l)
  [ "$rows" -gt 5 ] && cmp -s <(head -n "$((rows + 1))" "$w/a/plant.csv") <(head -n "$((rows + 1))" "$w/b/plant.csv") &&
    ! cmp -s "$w/a/plant.csv" "$w/b/plant.csv" && tail -n 1 "$w/b/plant.csv" | grep -q ',3$' && ok ||
    ko "branch: $rows rows up to the checkpoint kept, later ones with u = 3?"
else
  ko "branch: $(tail -n 3 "$w/a.out" "$w/b.out" 2>/dev/null)"
fi
bin/tempo-run "$w/f.json" --output "$w/c" --quiet --resume "$w/a/checkpoints/ckpt-1050000000" \
  --set plant.a=2 >"$w/c.out" 2>&1
[ $? -ne 0 ] && has "$w/c.out" "federate plant: --set plant.a=2:" && has "$w/c.out" "fixed" && ok ||
  ko "setting a fixed parameter: $(tail -n 2 "$w/c.out")"

# Refusals before anything starts: a damaged checkpoint, a foreign folder, an instant outside
# the run, an FMU that cannot serialize its state.
c=$(ls -d "$dir"/lv_jacobi-dist-dist/run/checkpoints/ckpt-* 2>/dev/null | head -n 1)
if [ -n "$c" ]; then
  cp -r "$c" "$dir/damaged"
  part=$(ls "$dir/damaged" | grep -v MANIFEST | head -n 1)
  printf 'x' >>"$dir/damaged/$part"
  bin/tempo-run "$dir/lv_jacobi-dist-dist/f.json" --output "$dir/dmg" --quiet --resume "$dir/damaged" \
    >"$dir/dmg.out" 2>&1
  [ $? -ne 0 ] && has "$dir/dmg.out" "$part" && ok || ko "a damaged checkpoint was not refused naming $part: $(tail -n 2 "$dir/dmg.out")"
fi
mkdir -p "$dir/foreign"
bin/tempo-run examples/lv_jacobi.json --output "$dir/frg" --quiet --resume "$dir/foreign" >"$dir/frg.out" 2>&1
[ $? -eq 2 ] && has "$dir/frg.out" "not a Tempo checkpoint" && ok || ko "a foreign folder: $(tail -n 2 "$dir/frg.out")"
bin/tempo-run examples/lv_jacobi.json --output "$dir/late" --quiet --checkpoint-at 100 >"$dir/late.out" 2>&1
[ $? -eq 2 ] && has "$dir/late.out" "--checkpoint-at 100: not inside the run" && ok ||
  ko "an instant at the end: $(tail -n 2 "$dir/late.out")"
# lv_prey_me.fmu saying canSerializeFMUstate="false": named before the start
mkdir -p "$dir/noser"
(cd "$dir/noser" && unzip -q "$fmus/lv_prey_me.fmu" &&
  sed -i 's/canSerializeFMUstate="true"/canSerializeFMUstate="false"/' modelDescription.xml &&
  zip -qr ../noser.fmu .)
short examples/lv_jacobi.json "$dir/lv.json" >/dev/null
sed "s|$fmus/lv_prey_me.fmu|$dir/noser.fmu|" "$dir/lv.json" >"$dir/noser.json"
bin/tempo-run "$dir/noser.json" --output "$dir/ns" --quiet --checkpoint-every 1 >"$dir/ns.out" 2>&1
[ $? -eq 2 ] && has "$dir/ns.out" "federate prey: checkpoints are asked for, but its FMU $dir/noser.fmu cannot save" &&
  ok || ko "an FMU that cannot serialize: $(tail -n 2 "$dir/ns.out")"
finish
