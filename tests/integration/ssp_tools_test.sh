#!/usr/bin/env bash
# SSP systems in the shapes other tools write, and systems in other files (doc/ssp.md,
# "Tested" and "Systems in other files"): the Lotka-Volterra system of tests/ssp/lv written
# again in the shapes of pyssp_standard, OMSimulator, sspgen and SSP 2.0 (tests/ssp/tools),
# with its subsystem in an SSP package inside the archive (a variant of it, and the archive's
# own variant chosen as ARCHIVE.ssp#VARIANT.ssd), and with parameter files inside the FMUs
# (sourceBase="component"); each run bit for bit equal to examples/lv_jacobi.json, a run of the
# package cut by a checkpoint and resumed to the same rows, and the refusals inside a nested
# package naming OUTER.ssp/ENTRY.ssp/FILE and the line. About 10 s.
# Prints "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/lib.sh ssp_tools_test
need tempo-run bin/tempo-run bin/tempo-fmu build/fmus/lv_prey_me.fmu build/fmus/lv_predator_me.fmu
T=tests/ssp/tools
SOLVER='"solver": { "method": "bdf", "rtol": 1e-10, "atol": 1e-12 }, "placement": "in-process"'

# run NAME FILE [ARGS]: tempo-run FILE into $dir/out-NAME; status in $?, stderr in $dir/NAME.err
run() {
  local n=$1 f=$2
  shift 2
  bin/tempo-run "$f" --quiet --output "$dir/out-$n" --timeout 60000 "$@" >"$dir/$n.out" 2>"$dir/$n.err"
}
# same NAME PREY PRED: the prey's x (PREY.csv) and the predator's y (PRED.csv) of run NAME
# equal the example's, bit for bit
same() {
  cut -d, -f1,2 "$dir/out-ex/prey.csv" | cmp -s - "$dir/out-$1/$2.csv" &&
    cut -d, -f1,2 "$dir/out-ex/predator.csv" | cmp -s - "$dir/out-$1/$3.csv"
}
# fed NAME SYSTEM [ALGORITHM]: $dir/NAME.json naming SYSTEM with the example's solver
fed() {
  printf '{ "system": "%s", %s%s }\n' "$2" "$SOLVER" "${3:+, \"algorithm\": $3}" >"$dir/$1.json"
}
# copy NAME: tests/ssp/tools/NAME into $dir/NAME with the FMUs under resources/ (as NAMES)
copy() {
  mkdir -p "$dir/$1/resources"
  cp -r "$T/$1/." "$dir/$1/"
  cp build/fmus/lv_prey_me.fmu "$dir/$1/resources/${2:-lv_prey_me.fmu}"
  cp build/fmus/lv_predator_me.fmu "$dir/$1/resources/${3:-lv_predator_me.fmu}"
}

# The reference: examples/lv_jacobi.json in process.
sed -e "s|\"fmu\": \"\.\./|\"fmu\": \"$PWD/|" -e 's|"federates"|"placement": "in-process", "federates"|' \
  examples/lv_jacobi.json >"$dir/ex.json"
run ex "$dir/ex.json" || ko "example: $(cat "$dir/ex.err")"

# 1. pyssp_standard's shape (unit="" and "-", sink-first connections in a subsystem, the ssv
#    namespace declared on ParameterBindings, the step 0.5 from an org.openmodelica
#    annotation: the default step, 0.1, would give other bits); as an archive, and unpacked
#    distributed.
copy pyssp
(cd "$dir/pyssp" && zip -qr ../pyssp.ssp SystemStructure.ssd resources)
fed pyssp pyssp.ssp
run pyssp "$dir/pyssp.json" && same pyssp prey pred-predator && ok || ko "pyssp: $(head -c 300 "$dir/pyssp.err")"
fed pyssp-d pyssp/SystemStructure.ssd
run pyssp-d "$dir/pyssp-d.json" --distributed && same pyssp-d prey pred-predator && ok ||
  ko "pyssp distributed: $(head -c 300 "$dir/pyssp-d.err")"

# 2. OMSimulator's shape (ssd:Annotation with an undeclared oms: prefix holding the step,
#    empty ssd:Connectors, numbered FMU names, the parameters from resources/root.ssv).
copy oms 0001_prey.fmu 0002_predator.fmu
(cd "$dir/oms" && zip -qr ../oms.ssp SystemStructure.ssd resources)
fed oms oms.ssp
run oms "$dir/oms.json" && same oms prey predator && ok || ko "oms: $(head -c 300 "$dir/oms.err")"

# 3. sspgen's shape (no component type, the ssv prefix never declared, no stopTime: the
#    federation file gives the end and the step).
copy sspgen prey.fmu predator.fmu
(cd "$dir/sspgen" && zip -qr ../sspgen.ssp SystemStructure.ssd resources)
fed sspgen sspgen.ssp '{ "method": "jacobi", "end": 100, "step": 0.5 }'
run sspgen "$dir/sspgen.json" && same sspgen prey predator && ok || ko "sspgen: $(head -c 300 "$dir/sspgen.err")"

# 4. SSP 2.0 (version 2.0, Float64 connectors and values, ssc:MetaData, a connector's
#    annotation).
copy ssp2
(cd "$dir/ssp2" && zip -qr ../ssp2.ssp SystemStructure.ssd resources)
fed ssp2 ssp2.ssp '{ "method": "jacobi", "step": 0.5 }'
run ssp2 "$dir/ssp2.json" && same ssp2 prey predator && ok || ko "ssp 2.0: $(head -c 300 "$dir/ssp2.err")"

# 5. An SSP package inside the archive (resources/pred.ssp, its variant Pred.ssd): the
#    example's bits in process and distributed. The archive's own variant Alt.ssd names the
#    package's default variant (gamma 0.5): another run, chosen as pkg.ssp#Alt.ssd.
mkdir -p "$dir/pkg/resources" "$dir/pred/resources"
cp "$T/pkg/SystemStructure.ssd" "$dir/pkg/"
cp -r "$T/pkg/pred/." "$dir/pred/"
cp build/fmus/lv_predator_me.fmu "$dir/pred/resources/"
cp build/fmus/lv_prey_me.fmu "$dir/pkg/resources/"
sed -e 's|resources/pred.ssp#Pred.ssd|resources/pred.ssp|' -e 's|name="lv_pkg"|name="lv_pkg alt"|' \
  "$dir/pkg/SystemStructure.ssd" >"$dir/pkg/Alt.ssd"
(cd "$dir/pred" && zip -qr ../pkg/resources/pred.ssp .)
(cd "$dir/pkg" && zip -qr ../pkg.ssp .)
fed pkg pkg.ssp '{ "method": "jacobi", "step": 0.5 }'
run pkg "$dir/pkg.json" && same pkg prey pred-predator && ok || ko "package: $(head -c 300 "$dir/pkg.err")"
run pkg-d "$dir/pkg.json" --distributed && same pkg-d prey pred-predator && ok ||
  ko "package distributed: $(head -c 300 "$dir/pkg-d.err")"
fed alt 'pkg.ssp#Alt.ssd' '{ "method": "jacobi", "step": 0.5 }'
if run alt "$dir/alt.json"; then
  ! same alt prey pred-predator && ok || ko "the variant Alt.ssd ran the default variant"
  run alt-d "$dir/alt.json" --distributed && cmp -s "$dir/out-alt/pred-predator.csv" "$dir/out-alt-d/pred-predator.csv" && ok ||
    ko "variant distributed: $(head -c 300 "$dir/alt-d.err")"
  check "Alt.ssd: the default variant's gamma 0.5 (the predator grows slower)" \
    test "$(sed -n 3p "$dir/out-alt/pred-predator.csv")" != "$(sed -n 3p "$dir/out-pkg/pred-predator.csv")"
else
  ko "variant: $(head -c 300 "$dir/alt.err")"
fi
run noalt "$dir/pkg.ssp#Nope.ssd"
check "a variant the archive lacks: status 2" test $? -eq 2
check "a variant the archive lacks named" has "$dir/noalt.err" "pkg.ssp: no Nope.ssd at the archive's root"
# Checkpoints work as for a JSON file (doc/checkpoint.md): the package's run cut at t = 50 s and
# resumed from its checkpoint, in process and distributed, gives the uninterrupted run's rows.
if run ck "$dir/pkg.json" --checkpoint-at 50; then
  for m in in-process distributed; do
    rm -rf "$dir/out-ck-$m"
    cp -r "$dir/out-ck" "$dir/out-ck-$m"
    run "ck-$m" "$dir/pkg.json" --$m --resume "$dir/out-ck-$m/checkpoints/ckpt-50000000000" &&
      cmp -s "$dir/out-pkg/prey.csv" "$dir/out-ck-$m/prey.csv" &&
      cmp -s "$dir/out-pkg/pred-predator.csv" "$dir/out-ck-$m/pred-predator.csv" && ok ||
      ko "resumed $m: $(head -c 300 "$dir/ck-$m.err")"
  done
else
  ko "checkpoint: $(head -c 300 "$dir/ck.err")"
fi
# A refusal inside the package names OUTER/ENTRY/FILE and the line.
sed -e 's|<ssd:Elements>|<ssd:Frobnicate/>&|' "$dir/pred/Pred.ssd" >"$dir/pred/Bad.ssd"
(cd "$dir/pred" && zip -qr ../pkg/resources/pred.ssp Bad.ssd)
sed -e 's|pred.ssp#Pred.ssd|pred.ssp#Bad.ssd|' "$dir/pkg/SystemStructure.ssd" >"$dir/pkg/Bad.ssd"
(cd "$dir/pkg" && zip -qr ../pkg.ssp Bad.ssd resources/pred.ssp)
run bad "$dir/pkg.ssp#Bad.ssd"
check "refusal in a package: status 2" test $? -eq 2
check "refusal in a package: its file and line" has "$dir/bad.err" "pkg.ssp/resources/pred.ssp/Bad.ssd:15: /ssd:SystemStructureDescription/ssd:System/ssd:Frobnicate: not supported in a system"
# A package that is not an archive is refused naming the component.
sed -e 's|pred.ssp#Pred.ssd|lv_prey_me.fmu#SystemStructure.ssd|' \
  "$dir/pkg/SystemStructure.ssd" >"$dir/pkg/NoPkg.ssd"
run nopkg "$dir/pkg/NoPkg.ssd"
check "an FMU as a package: status 2" test $? -eq 2
check "an FMU as a package: no SystemStructure.ssd, the component named" \
  has "$dir/nopkg.err" "NoPkg.ssd:31: /ssd:SystemStructureDescription/ssd:System/ssd:Elements/ssd:Component[2]"

# 6. Parameter files inside the FMUs (sourceBase="component"): the example's bits, as an
#    archive in process and unpacked distributed; without the file in the FMU, a refusal
#    naming the binding.
mkdir -p "$dir/cbase/resources"
cp "$T/cbase/SystemStructure.ssd" "$dir/cbase/"
cp build/fmus/lv_prey_me.fmu "$dir/cbase/resources/prey.fmu"
cp build/fmus/lv_predator_me.fmu "$dir/cbase/resources/predator.fmu"
cp build/fmus/lv_predator_me.fmu "$dir/cbase/resources/plain.fmu"
(cd "$T/cbase/in-prey" && zip -qr "$dir/cbase/resources/prey.fmu" resources)
(cd "$T/cbase/in-predator" && zip -qr "$dir/cbase/resources/predator.fmu" resources)
(cd "$dir/cbase" && zip -qr ../cbase.ssp SystemStructure.ssd resources)
fed cbase cbase.ssp '{ "method": "jacobi", "step": 0.5 }'
run cbase "$dir/cbase.json" && same cbase prey predator && ok || ko "sourceBase component: $(head -c 300 "$dir/cbase.err")"
fed cbase-d cbase/SystemStructure.ssd '{ "method": "jacobi", "step": 0.5 }'
run cbase-d "$dir/cbase-d.json" --distributed && same cbase-d prey predator && ok ||
  ko "sourceBase component distributed: $(head -c 300 "$dir/cbase-d.err")"
sed -e 's|resources/predator.fmu|resources/plain.fmu|' "$dir/cbase/SystemStructure.ssd" >"$dir/cbase/plain.ssd"
run cbase-bad "$dir/cbase/plain.ssd"
check "no mapping in the FMU: status 2" test $? -eq 2
check "no mapping in the FMU: the mapping named" has "$dir/cbase-bad.err" "plain.ssd:36: /ssd:SystemStructureDescription/ssd:System/ssd:Elements/ssd:Component[2]/ssd:ParameterBindings/ssd:ParameterBinding/ssd:ParameterMapping: source \"resources/predator.ssm\": No such file"
finish
