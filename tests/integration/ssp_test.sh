#!/usr/bin/env bash
# SSP systems (doc/ssp.md): the hand-made Lotka-Volterra SSP of tests/ssp/lv (a nested system,
# connections through system connectors, parameters inline and from a .ssv file through a
# .ssm mapping) run as an unpacked SystemStructure.ssd, as an .ssp archive (in process and
# distributed) and through a federation file naming it ("system"), each to the same bits as
# examples/lv_jacobi.json; a parameter value in another unit converted; and every refusal
# of doc/ssp.md ("Refused") naming the element's path and line; the shapes other tools write
# (tests/ssp/shapes) to the example's bits; linear transformations and unit conversions on
# connections (tests/ssp/tf) checked row by row; connections of every number type
# (tests/ssp/types); every example federation exported
# (tempo-run --export-ssp) and run from its SSP to the same bits. Takes about a minute
# (each example runs twice). Prints "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/lib.sh ssp_test
need tempo-run bin/tempo-run bin/tempo-fmu build/fmus/lv_prey_me.fmu build/fmus/lv_predator_me.fmu \
  build/fmus/passthrough_cs.fmu build/fmus/fmi3/feedthrough3.fmu

# mk NAME [SED-SCRIPT]: tests/ssp/lv unpacked into $dir/NAME with the FMUs in resources/ and
# the SSD edited by SED-SCRIPT; also $dir/NAME.ssp, the archive of that folder.
mk() {
  local d=$dir/$1
  mkdir -p "$d/resources"
  cp tests/ssp/lv/*.ss? "$d/"
  cp build/fmus/lv_prey_me.fmu build/fmus/lv_predator_me.fmu "$d/resources/"
  if [ $# -gt 1 ]; then sed -i -e "$2" "$d/SystemStructure.ssd"; fi
  (cd "$d" && zip -qr "../$1.ssp" .)
}
# run NAME FILE [ARGS]: tempo-run FILE into $dir/out-NAME; status in $?, stderr in $dir/NAME.err
run() {
  local n=$1 f=$2
  shift 2
  bin/tempo-run "$f" --quiet --output "$dir/out-$n" --timeout 60000 "$@" >"$dir/$n.out" 2>"$dir/$n.err"
}
# same NAME: the prey's x and the predator's y of run NAME equal the example's, bit for bit
same() {
  cut -d, -f1,2 "$dir/out-ex/prey.csv" | cmp -s - "$dir/out-$1/prey.csv" &&
    cut -d, -f1,2 "$dir/out-ex/predator.csv" | cmp -s - "$dir/out-$1/pred-predator.csv"
}
# refused NAME TEXT...: run NAME's unpacked SSD fails with status 2 and every TEXT in stderr
refused() {
  local n=$1 t
  shift
  run "$n" "$dir/$n/SystemStructure.ssd"
  local rc=$?
  if [ "$rc" -ne 2 ]; then ko "$n: status $rc, expected 2: $(head -c 300 "$dir/$n.err")"; return; fi
  for t in "$@"; do
    has "$dir/$n.err" "$t" || { ko "$n: no \"$t\" in: $(head -c 400 "$dir/$n.err")"; return; }
  done
  ok
}

# The reference: examples/lv_jacobi.json in process (in-process runs give the same bits as
# distributed ones, doc/inproc.md).
sed -e "s|\"fmu\": \"\.\./|\"fmu\": \"$PWD/|" -e 's|"federates"|"placement": "in-process", "federates"|' \
  examples/lv_jacobi.json >"$dir/ex.json"
run ex "$dir/ex.json" || ko "example: $(cat "$dir/ex.err")"

# 1. The unpacked SSD with a federation file naming it: the SSP's start, end and parameters,
#    the file's step 0.5 and solver: the example's bits.
mk lv
sed -e 's|"lv.ssp"|"lv/SystemStructure.ssd"|' tests/ssp/lv/lv.json >"$dir/lv-ssd.json"
run ssd "$dir/lv-ssd.json" && same ssd && ok || ko "system .ssd: $(head -c 300 "$dir/ssd.err")"
# 2. The archive, through the same file: the same bits; distributed too (every tempo-fmu
#    unpacks the archive itself).
cp tests/ssp/lv/lv.json "$dir/lv.json"
run ssp "$dir/lv.json" && same ssp && ok || ko "system .ssp: $(head -c 300 "$dir/ssp.err")"
run dist "$dir/lv.json" --distributed && same dist && ok || ko "distributed: $(head -c 300 "$dir/dist.err")"
# 3. The archive alone: the default algorithm (jacobi, step (stop - start) / 1000 = 0.1 s).
run alone "$dir/lv.ssp" --in-process
check "alone runs" test $? -eq 0
check "alone: 1001 rows at step 0.1" test "$(wc -l <"$dir/out-alone/prey.csv")" -eq 1002
check "alone: t = 0.1 in row 2" test "$(sed -n 3p "$dir/out-alone/prey.csv" | cut -d, -f1)" = 0.1
# 4. The parameters count: gamma 0.5 instead of 0.27 in predator.ssv changes the run.
mk gamma
sed -i 's|"predator.gamma_"><ssv:Real value="0.27"|"predator.gamma_"><ssv:Real value="0.5"|' "$dir/gamma/predator.ssv"
sed -e 's|"lv.ssp"|"gamma/SystemStructure.ssd"|' tests/ssp/lv/lv.json >"$dir/gamma.json"
run gamma "$dir/gamma.json" && ! same gamma && ok || ko "gamma 0.5 did not change the run"
# 5. A parameter in another unit: x0 = 0.001 ku with the connector in u (1 ku = 1000 u) is 1.
U='<ssd:Units><ssc:Unit name="u"><ssc:BaseUnit m="1"/></ssc:Unit><ssc:Unit name="ku"><ssc:BaseUnit m="1" factor="1000"/></ssc:Unit><ssc:Unit name="sec"><ssc:BaseUnit s="1"/></ssc:Unit></ssd:Units>'
mk units "s|<ssv:Real value=\"1\"/>|<ssv:Real value=\"0.001\" unit=\"ku\"/>|; s|<ssd:Connector name=\"y\" kind=\"input\"><ssc:Real/></ssd:Connector>|&<ssd:Connector name=\"x0\" kind=\"parameter\"><ssc:Real unit=\"u\"/></ssd:Connector>|; s|  <ssd:DefaultExperiment|  $U\n&|"
sed -e 's|"lv.ssp"|"units/SystemStructure.ssd"|' tests/ssp/lv/lv.json >"$dir/units.json"
run units "$dir/units.json" && same units && ok || ko "unit conversion: $(head -c 300 "$dir/units.err")"
# 6. Identity transformations and equal units are accepted (the same bits).
mk ident "s|endElement=\"pred\" endConnector=\"x_in\"/>|endElement=\"pred\" endConnector=\"x_in\"><ssc:LinearTransformation factor=\"1\" offset=\"0\"/></ssd:Connection>|; s|<ssd:Connector name=\"x\" kind=\"output\"><ssc:Real/>|<ssd:Connector name=\"x\" kind=\"output\"><ssc:Real unit=\"u\"/>|; s|<ssd:Connector name=\"x\" kind=\"input\"><ssc:Real/>|<ssd:Connector name=\"x\" kind=\"input\"><ssc:Real unit=\"u\"/>|; s|  <ssd:DefaultExperiment|  $U\n&|"
sed -e 's|"lv.ssp"|"ident/SystemStructure.ssd"|' tests/ssp/lv/lv.json >"$dir/ident.json"
run ident "$dir/ident.json" && same ident && ok || ko "identity transformation: $(head -c 300 "$dir/ident.err")"

# 7. Refusals, each naming the element and its line.
mk incompat "s|<ssd:Connector name=\"x\" kind=\"output\"><ssc:Real/>|<ssd:Connector name=\"x\" kind=\"output\"><ssc:Real unit=\"u\"/>|; s|<ssd:Connector name=\"x\" kind=\"input\"><ssc:Real/>|<ssd:Connector name=\"x\" kind=\"input\"><ssc:Real unit=\"sec\"/>|; s|  <ssd:DefaultExperiment|  $U\n&|"
refused incompat 'incompatible units "u" and "sec"' 'SystemStructure.ssd:49:' 'ssd:System/ssd:Connections/ssd:Connection[1]'
mk boolmap "s|endElement=\"pred\" endConnector=\"x_in\"/>|endElement=\"pred\" endConnector=\"x_in\"><ssc:BooleanMappingTransformation/></ssd:Connection>|"
refused boolmap 'ssd:System/ssd:Connections/ssd:Connection[1]' 'a mapping transformation applies to Integer, Boolean and Enumeration connectors'
mk string 's|<ssd:Connector name="x" kind="output"><ssc:Real/>|<ssd:Connector name="x" kind="output"><ssc:String/>|'
refused string 'connection of type String' 'Tempo exchanges numbers only'
mk dict 's|^      <ssd:System name="pred">|<ssd:SignalDictionaryReference name="r" dictionary="nowhere"/>\n&|'
refused dict 'SystemStructure.ssd:30: /ssd:SystemStructureDescription/ssd:System/ssd:Elements/ssd:SignalDictionaryReference' 'no ssd:SignalDictionary "nowhere" in this system or an enclosing one'
mk unknown 's|<ssd:Elements>|<ssd:Frobnicate/>&|'
refused unknown 'ssd:Frobnicate' 'SystemStructure.ssd:10: /ssd:SystemStructureDescription/ssd:System/ssd:Frobnicate' 'not supported in a system'
# No stopTime: the FMUs' DefaultExperiment stopTime (60 s; step 60 / 1000 s), and when no
# FMU gives one either, a refusal.
mk nostop 's|<ssd:DefaultExperiment startTime="0" stopTime="100"/>|<ssd:DefaultExperiment startTime="0"/>|'
run nostop "$dir/nostop/SystemStructure.ssd" --in-process
check "no stopTime: the FMUs' 60 s" test "$(tail -1 "$dir/out-nostop/prey.csv" | cut -d, -f1)" = 60
mk nostop2 's|<ssd:DefaultExperiment startTime="0" stopTime="100"/>|<ssd:DefaultExperiment startTime="70"/>|'
refused nostop2 'no ssd:DefaultExperiment stopTime, and no FMU' 'SystemStructure.ssd:59:'
mk noname 's|target="predator.gamma"/>|target="nobody.gamma"/>|'
sed -i 's|target="predator.gamma"/>|target="nobody.gamma"/>|' "$dir/noname/predator.ssm"
(cd "$dir/noname" && zip -qr ../noname.ssp .)
refused noname 'parameter "nobody.gamma" names no component' 'predator.ssv:5:'
# inside an archive, the message names ARCHIVE/ENTRY
run noname-ssp "$dir/noname.ssp"
check "archive refusal status" test $? -eq 2
check "archive refusal names the entry" has "$dir/noname-ssp.err" "noname.ssp/predator.ssv:5:"
run string-ssp "$dir/string.ssp"
check "archive SSD refusal names the entry" has "$dir/string-ssp.err" "string.ssp/SystemStructure.ssd:"
mk twice 's|<ssd:Connection startElement="pred" startConnector="y_out" endElement="prey" endConnector="y"/>|&<ssd:Connection startElement="pred" startConnector="y_out" endElement="prey" endConnector="y"/>|'
refused twice 'input "y" of "prey" is fed by two connections'
mk nofmu 's|resources/lv_prey_me.fmu|resources/missing.fmu|'
refused nofmu 'missing.fmu'
mk broken 's|</ssd:System>|</ssd:Sys>|'
refused broken 'not well-formed XML'
mk nsbad 's|http://ssp-standard.org/SSP1/SystemStructureDescription|urn:other|'
refused nsbad 'the root is not ssd:SystemStructureDescription'
# A federation file naming a system may not add federates.
printf '{ "system": "lv.ssp", "federates": [] }\n' >"$dir/fed.json"
run fed "$dir/fed.json"
check "system + federates refused" test $? -eq 2
check "system + federates named" has "$dir/fed.err" '"federates" comes from the SSP'
# An archive without SystemStructure.ssd.
(cd "$dir/lv" && zip -q "../empty.ssp" predator.ssv)
run empty "$dir/empty.ssp"
check "archive without SSD refused" test $? -eq 2
check "archive without SSD named" has "$dir/empty.err" 'no SystemStructure.ssd'

# 7b. A signal dictionary: x from the prey to the predator through the root's reference
#     "bus", y from the predator through the subsystem's reference "bus2" to the root's "bus"
#     and on to the prey (one dictionary, two references, entries shared): the example's bits.
B='<ssd:SignalDictionaryReference name="bus" dictionary="lvbus"><ssd:Connectors><ssd:Connector name="x" kind="inout"/><ssd:Connector name="y" kind="inout"/></ssd:Connectors></ssd:SignalDictionaryReference>'
B2='<ssd:SignalDictionaryReference name="bus2" dictionary="lvbus"><ssd:Connectors><ssd:Connector name="y" kind="output"><ssc:Real/></ssd:Connector></ssd:Connectors></ssd:SignalDictionaryReference>'
mk sdict "s|^    <ssd:Elements>|&$B|; s|^        <ssd:Elements>|&$B2|; s|<ssd:Connection startElement=\"predator\" startConnector=\"y\" endConnector=\"y_out\"/>|<ssd:Connection startElement=\"predator\" startConnector=\"y\" endElement=\"bus2\" endConnector=\"y\"/>|; s|<ssd:Connection startElement=\"prey\" startConnector=\"x\" endElement=\"pred\" endConnector=\"x_in\"/>|<ssd:Connection startElement=\"prey\" startConnector=\"x\" endElement=\"bus\" endConnector=\"x\"/><ssd:Connection startElement=\"bus\" startConnector=\"x\" endElement=\"pred\" endConnector=\"x_in\"/>|; s|<ssd:Connection startElement=\"pred\" startConnector=\"y_out\" endElement=\"prey\" endConnector=\"y\"/>|<ssd:Connection startElement=\"prey\" startConnector=\"y\" endElement=\"bus\" endConnector=\"y\"/>|; s|^  </ssd:System>|<ssd:SignalDictionaries><ssd:SignalDictionary name=\"lvbus\" source=\"lvbus.ssb\"/></ssd:SignalDictionaries>\n&|"
sed -e 's|"lv.ssp"|"sdict/SystemStructure.ssd"|' tests/ssp/lv/lv.json >"$dir/sdict.json"
run sdict "$dir/sdict.json" && same sdict && ok || ko "signal dictionary: $(head -c 300 "$dir/sdict.err")"
check "signal dictionary: the references are used" has "$dir/sdict/SystemStructure.ssd" 'endElement="bus2"'

# 7c. The predator's subsystem in a file of its own (tests/ssp/nested: a component of type
#     application/x-ssp-definition; its FMU and parameter files relative to that file): the
#     example's bits, unpacked and as an archive.
mkdir -p "$dir/nested"
cp -r tests/ssp/nested/. "$dir/nested/"
cp build/fmus/lv_prey_me.fmu build/fmus/lv_predator_me.fmu "$dir/nested/resources/"
(cd "$dir/nested" && zip -qr ../nested.ssp SystemStructure.ssd resources)
sed -e 's|"lv.ssp"|"nested/SystemStructure.ssd"|' tests/ssp/lv/lv.json >"$dir/nested-d.json"
run nested-d "$dir/nested-d.json" && same nested-d && ok || ko "nested .ssd: $(head -c 300 "$dir/nested-d.err")"
sed -e 's|"lv.ssp"|"nested.ssp"|' tests/ssp/lv/lv.json >"$dir/nested-a.json"
run nested-a "$dir/nested-a.json" && same nested-a && ok || ko "nested in an archive: $(head -c 300 "$dir/nested-a.err")"

# 8. The shapes other tools write (tests/ssp/shapes: connections written from the sink's
#    side, a root parameter connector passed on by a parameter connection over the prey's
#    own binding, a prefix, foreign annotations): the example's bits, as an archive in
#    process and unpacked distributed.
mkdir -p "$dir/shapes"
cp -r tests/ssp/shapes/. "$dir/shapes/"
cp build/fmus/lv_prey_me.fmu build/fmus/lv_predator_me.fmu "$dir/shapes/resources/"
(cd "$dir/shapes" && zip -qr ../shapes.ssp SystemStructure.ssd resources)
cp tests/ssp/shapes/shapes.json "$dir/shapes.json"
run shapes "$dir/shapes.json" && same shapes && ok || ko "shapes: $(head -c 300 "$dir/shapes.err")"
sed -e 's|"shapes.ssp"|"shapes/SystemStructure.ssd"|' tests/ssp/shapes/shapes.json >"$dir/shapes-d.json"
run shapes-d "$dir/shapes-d.json" --distributed && same shapes-d && ok ||
  ko "shapes distributed: $(head -c 300 "$dir/shapes-d.err")"

# 9. Transformations on connections (tests/ssp/tf): every row of lin is 2 x + 3 and every row
#    of kelvin x + 273.15, x the source's value at the same time, computed again here in
#    awk's doubles (tolerance 0); peers (jacobi) and a master method (master-jacobi, the
#    slaves' fmu_slave), in process and distributed.
mkdir -p "$dir/tf/resources"
cp tests/ssp/tf/SystemStructure.ssd "$dir/tf/"
cp build/fmus/lv_prey_me.fmu build/fmus/passthrough_cs.fmu "$dir/tf/resources/"
# rows NAME: how many rows of lin and kelvin do not follow from src's (0 when all do)
rows() {
  local o=$dir/out-$1
  paste -d, "$o/src.csv" "$o/lin.csv" "$o/kelvin.csv" |
    awk -F, 'NR > 1 { n++; if ($4 + 0 != 2 * $2 + 3 || $6 + 0 != $2 + 273.15) bad++ }
             END { print (n == 1001 ? bad + 0 : "rows:" n) }'
}
printf '{"system": "tf/SystemStructure.ssd", "algorithm": {"method": "master-jacobi"}}\n' >"$dir/tf-m.json"
for v in "tf-p $dir/tf/SystemStructure.ssd --in-process" "tf-pd $dir/tf/SystemStructure.ssd --distributed" \
         "tf-m $dir/tf-m.json --in-process" "tf-md $dir/tf-m.json --distributed"; do
  set -- $v
  n=$1
  shift
  if run "$n" "$@"; then
    r=$(rows "$n")
    [ "$r" = 0 ] && ok || ko "$n: $r rows differ from y = 2 x + 3 / x + 273.15"
  else
    ko "$n: $(head -c 300 "$dir/$n.err")"
  fi
done
# The transformation matters: without it the rows differ.
sed -e 's|<ssc:LinearTransformation factor="2" offset="3"/>||' -e 's|unit="degC"||' \
  tests/ssp/tf/SystemStructure.ssd >"$dir/tf/plain.ssd"
run tf-plain "$dir/tf/plain.ssd" --in-process
check "without transformations the rows differ" test "$(rows tf-plain)" != 0
# A federation file's "transform" exported as ssc:LinearTransformation and run back: the
# same bits.
cat >"$dir/tf.json" <<EOF
{ "federation": "tfj", "algorithm": { "method": "jacobi", "end": 1, "step": 0.01 },
  "federates": [
    { "name": "src", "fmu": "$PWD/build/fmus/lv_prey_me.fmu", "outputs": { "x": "Src.x" } },
    { "name": "lin", "fmu": "$PWD/build/fmus/passthrough_cs.fmu", "inputs": { "u": "Src.x" },
      "outputs": { "y": "Lin.y" }, "transform": { "u": { "factor": -0.1, "offset": 7 } } } ] }
EOF
if bin/tempo-run --export-ssp "$dir/tf.json" "$dir/tf-x.ssp" >/dev/null 2>"$dir/tf-x.exp"; then
  unzip -p "$dir/tf-x.ssp" SystemStructure.ssd >"$dir/tf-x.ssd"
  check "export writes the transformation" has "$dir/tf-x.ssd" 'LinearTransformation factor="-0.1" offset="7"'
  run tf-j "$dir/tf.json" --in-process && run tf-x "$dir/tf-x.ssp" --in-process &&
    cmp -s "$dir/out-tf-j/lin.csv" "$dir/out-tf-x/lin.csv" && ok ||
    ko "transform round trip: $(head -c 300 "$dir/tf-x.err")"
else
  ko "export with a transform: $(head -c 300 "$dir/tf-x.exp")"
fi

# 10. Connections of every number type (tests/ssp/types): b's outputs (its inputs fed
#     through) are -15, false, 2, 3, -16 and 1.5 on every row, in process and distributed,
#     under the peer methods and the master methods.
mkdir -p "$dir/types/resources"
cp tests/ssp/types/SystemStructure.ssd "$dir/types/"
cp build/fmus/fmi3/feedthrough3.fmu "$dir/types/resources/"
for v in "types-p --in-process" "types-d --distributed"; do
  set -- $v
  if run "$1" "$dir/types/SystemStructure.ssd" "$2"; then
    bad=$(awk -F, 'NR == 1 { if ($0 != "time,Int8_out,Boolean_out,Enumeration_out,Int32_out,Float64_out,Float32_out") print "header " $0 }
                   NR > 1 { n++; if ($2 != -15 || $3 != 0 || $4 != 2 || $5 != 3 || $6 != -16 || $7 != 1.5) print "row " $0 }
                   END { if (n != 1001) print "rows " n }' "$dir/out-$1/b.csv" | head -3)
    [ -z "$bad" ] && ok || ko "$1: $bad"
  else
    ko "$1: $(head -c 300 "$dir/$1.err")"
  fi
done
# A federation file wiring whole numbers, exported (connectors typed as the FMU's variables)
# and run back: the same bits.
cat >"$dir/types.json" <<EOF
{ "federation": "typesj", "algorithm": { "method": "jacobi", "end": 0.1, "step": 0.01 },
  "federates": [
    { "name": "a", "fmu": "$PWD/build/fmus/fmi3/feedthrough3.fmu",
      "outputs": { "Int8_out": "A.i", "Boolean_out": "A.b" } },
    { "name": "b", "fmu": "$PWD/build/fmus/fmi3/feedthrough3.fmu",
      "inputs": { "Int8_in": "A.i", "Boolean_in": "A.b" },
      "transform": { "Int8_in": { "factor": 3 }, "Boolean_in": { "map": [ [ 1, 0 ] ] } },
      "record": [ "Int8_out", "Boolean_out" ] } ] }
EOF
if bin/tempo-run --export-ssp "$dir/types.json" "$dir/types-x.ssp" >/dev/null 2>"$dir/types-x.exp"; then
  unzip -p "$dir/types-x.ssp" SystemStructure.ssd | tr -d ' \n' >"$dir/types-x.ssd"
  check "export types the connectors" has "$dir/types-x.ssd" 'name="Boolean_in"kind="input"><ssc:Boolean/>'
  check "export writes the map" has "$dir/types-x.ssd" '<ssc:BooleanMappingTransformation><ssc:MapEntrysource="true"target="false"/>'
  run types-j "$dir/types.json" --in-process && run types-x "$dir/types-x.ssp" --in-process &&
    cmp -s "$dir/out-types-j/b.csv" "$dir/out-types-x/b.csv" &&
    test "$(tail -1 "$dir/out-types-x/b.csv")" = "0.1,-24,0" && ok ||
    ko "typed round trip: $(head -c 300 "$dir/types-x.err")"
else
  ko "export of whole numbers: $(head -c 300 "$dir/types-x.exp")"
fi
# Connectors without a type take their FMU variable's: a String, Binary or Clock one (or one
# the FMU lacks) is refused naming the connection's line, as a typed String connector is.
for v in "String_out String_in String" "Binary_out Binary_in Binary" "UInt8_out Nope_in nov"; do
  set -- $v
  sed -e "s|<ssd:Connector name=\"Int8_out\" kind=\"output\">|<ssd:Connector name=\"$1\" kind=\"output\"/>&|" \
      -e "s|<ssd:Connector name=\"Int8_in\" kind=\"input\">|<ssd:Connector name=\"$2\" kind=\"input\"/>&|" \
      -e "s|^      <ssd:Connection startElement=\"a\" startConnector=\"Int8_out\"|      <ssd:Connection startElement=\"a\" startConnector=\"$1\" endElement=\"b\" endConnector=\"$2\"/>\n&|" \
      tests/ssp/types/SystemStructure.ssd >"$dir/types/untyped-$3.ssd"
  run "untyped-$3" "$dir/types/untyped-$3.ssd"
  check "untyped $3 connection: status 2" test $? -eq 2
  case $3 in
    nov) want="connector \"Nope_in\" of \"b\": its FMU has no variable \"Nope_in\"" ;;
    *) want="connector \"$1\" of \"a\" is a $3 variable of its FMU: Tempo exchanges numbers only" ;;
  esac
  check "untyped $3 connection: the connection's line named" has "$dir/untyped-$3.err" "untyped-$3.ssd:35: /ssd:SystemStructureDescription/ssd:System/ssd:Connections/ssd:Connection[1]: $want"
done
# The master methods wire them too (their slaves set and read them by name, doc/federation.md
# "Whole numbers on the wire"): every row after the first (which some methods record before
# the first exchange) is the peers' row; master-jacobi distributed too.
for v in "master-jacobi --in-process" "master-jacobi --distributed" "wr --in-process" \
         "semi-implicit --in-process" "hybrid --in-process" "balance --in-process"; do
  set -- $v
  n=types-m-$1${2#--}
  printf '{"system": "types/SystemStructure.ssd", "algorithm": {"method": "%s"}}\n' "$1" >"$dir/$n.json"
  if run "$n" "$dir/$n.json" "$2"; then
    bad=$(awk -F, 'NR > 2 { n++; if ($2 != -15 || $3 != 0 || $4 != 2 || $5 != 3 || $6 != -16 || $7 != 1.5) print "row " $0 }
                   END { if (n != 1000) print "rows " n }' "$dir/out-$n/b.csv" | head -3)
    [ -z "$bad" ] && ok || ko "$n: $bad"
  else
    ko "$n: $(head -c 300 "$dir/$n.err")"
  fi
done

# 11. Export: every example federation written as an SSP (tempo-run --export-ssp) and run from
#    it, in process, gives every CSV of the original byte for byte.
for f in examples/*.json; do
  n=$(basename "$f" .json)
  sed -e "s|\"\.\./|\"$PWD/|g" "$f" >"$dir/x-$n.json"
  if ! bin/tempo-run --export-ssp "$dir/x-$n.json" "$dir/x-$n.ssp" >/dev/null 2>"$dir/x-$n.exp"; then
    ko "export $n: $(head -c 300 "$dir/x-$n.exp")"
    continue
  fi
  run "x-$n" "$dir/x-$n.json" --in-process || { ko "$n: $(head -c 300 "$dir/x-$n.err")"; continue; }
  run "y-$n" "$dir/x-$n.ssp" --in-process || { ko "$n from SSP: $(head -c 300 "$dir/y-$n.err")"; continue; }
  same=1
  for c in "$dir/out-x-$n"/*.csv; do
    cmp -s "$c" "$dir/out-y-$n/$(basename "$c")" || { same=0; ko "$n: $(basename "$c") differs after the round trip"; }
  done
  [ "$same" -eq 1 ] && ok
done
# A program federate has no SSP form.
printf '{"federation":"p","algorithm":{"method":"jacobi","end":1,"step":0.1},"federates":[{"name":"a","program":"/bin/true"}]}\n' >"$dir/prog.json"
bin/tempo-run --export-ssp "$dir/prog.json" "$dir/prog.ssp" >/dev/null 2>"$dir/prog.err"
check "program federate not exported" test $? -eq 2
check "program federate named" has "$dir/prog.err" "a program federate has no SSP form"
finish
