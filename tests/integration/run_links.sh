#!/usr/bin/env bash
# Output files never follow links (doc/run.md "Output files"): a symbolic link planted in the
# output folder under the name of each file a run writes (every <federate>.csv, plot.svg,
# master.csv) makes tempo-run exit 2 before it starts anything, naming the link and its target;
# the same link met by the program that writes the file (tempo-fmu, tempo-master --local, as
# when a link appears after tempo-run's check) fails that program, naming it; the link's target
# is never written, and a hard link to another file is replaced, leaving that file as it was.
# Prints "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/lib.sh run_links
need run_links bin/tempo-run bin/tempo-fmu bin/tempo-master
unset TEMPO_FILE_MODE
root=$PWD
victim=$dir/victim
printf 'precious\n' >"$victim"
intact() { [ "$(cat "$victim")" = precious ]; }
gs() { # gs OUT OUTPUT-FOLDER: examples/lv_gs.json (peers) with absolute FMU paths
  sed -e "s#\"\.\./build/fmus/#\"$root/build/fmus/#" \
    -e "s#\"output\": \"[^\"]*\"#\"output\": \"$2\"#" examples/lv_gs.json >"$1"
}
lv "$dir/m.json" lvm '{ "method": "master-jacobi", "end": 2, "step": 0.5 }' # writes $dir/out-lvm

# 1. tempo-run refuses a link at each name it would write, before starting anything.
for name in prey.csv predator.csv plot.svg master.csv; do
  out=$dir/t-$name
  mkdir -p "$out"
  chmod 700 "$out"
  ln -s "$victim" "$out/$name"
  bin/tempo-run "$dir/m.json" --quiet --output "$out" >"$dir/t.out" 2>"$dir/t.err"
  rc=$?
  check "tempo-run, link at $name: exit 2 (got $rc)" test "$rc" -eq 2
  check "tempo-run, link at $name: named with its target" \
    has "$dir/t.err" "$out/$name: is a symbolic link (to $victim): refused, not followed"
  check "tempo-run, link at $name: the target is untouched" intact
  check "tempo-run, link at $name: nothing else written" test "$(ls -A "$out")" = "$name"
done
# The peer case: the same for a federate's CSV and the plot.
gs "$dir/g.json" "$dir/g"
mkdir -p "$dir/g" && chmod 700 "$dir/g" && ln -s "$victim" "$dir/g/predator.csv"
bin/tempo-run "$dir/g.json" --quiet >"$dir/t.out" 2>"$dir/t.err"
check "tempo-run (peers), link at predator.csv: exit 2" test $? -eq 2
check "tempo-run (peers): the target is untouched" intact

# 2. The writers themselves (a link planted after tempo-run's check reaches them).
out=$dir/w
mkdir -p "$out" && chmod 700 "$out"
ln -s "$victim" "$out/prey.csv"
bin/tempo-master --federation "$dir/m.json" --local --output "$out" >"$dir/w.out" 2>"$dir/w.err"
check "tempo-master --local, link at prey.csv: fails" test $? -ne 0
check "tempo-master --local: names the link" \
  has "$dir/w.err" "$out/prey.csv: is a symbolic link (to $victim): refused, not followed"
check "tempo-master --local: the target is untouched" intact
rm -f "$out"/*
ln -s "$victim" "$out/master.csv"
bin/tempo-master --federation "$dir/m.json" --local --output "$out" >"$dir/w.out" 2>"$dir/w.err"
check "tempo-master --local, link at master.csv: fails" test $? -ne 0
check "tempo-master --local: names it" has "$dir/w.err" "$out/master.csv: is a symbolic link"
check "tempo-master --local (master.csv): the target is untouched" intact
rm -f "$out"/*
ln -s "$victim" "$out/predator.csv"
# A slave opens its CSV before it joins: no RTI is needed to see the refusal.
timeout 20 bin/tempo-fmu --federation "$dir/m.json" --name predator --rti 127.0.0.1:1 \
  --output "$out" --quiet >"$dir/w.out" 2>"$dir/w.err"
check "tempo-fmu (slave), link at predator.csv: fails" test $? -ne 0
check "tempo-fmu: names the link" has "$dir/w.err" "$out/predator.csv: is a symbolic link"
check "tempo-fmu: the target is untouched" intact
rm -f "$out"/*

# 3. A hard link to another file is replaced, not written through.
ln "$victim" "$out/prey.csv"
bin/tempo-master --federation "$dir/m.json" --local --output "$out" >"$dir/w.out" 2>"$dir/w.err"
check "a hard link at prey.csv: the run succeeds ($(head -c 300 "$dir/w.err"))" test $? -eq 0
check "a hard link at prey.csv: the other file is untouched" intact
check "a hard link at prey.csv: a new file holds the results" has "$out/prey.csv" "time,x,y"
check "a hard link at prey.csv: no longer linked" test "$(stat -c %h "$victim")" -eq 1

finish
