#!/usr/bin/env bash
# Where a new coupling algorithm goes (doc/architecture.md) and the count of doc/contributing.md
# §17 are true: a throwaway master algorithm (tests/integration/new_algo/: the code
# algorithms/subjacobi.{c,h} and federate/config/algo_subjacobi.c, its page
# doc/algorithms/subjacobi.md, its unit test tests/unit/subjacobi_test.c) is added to a copy of
# the tree with one line of the table federate/config/fedfile_algos.c, one row of the index
# doc/algorithms/README.md and the test's two lines of mk/60-algorithms.mk, and nothing else:
# eight files, five of them new. The copy builds (reusing the built objects, so only what the new
# files change is compiled and linked again) and passes make layers, the unit test passes,
# tempo-master --help and --list-methods list it, the loader reads its own key ("n_sub") and
# refuses another naming the method, and one federation file runs in process and distributed
# (tempo-run, an RTI, a tempo-fmu per slave) to the same bits.
# Prints "N passed, N failed" last (tests/run.sh).
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/lib.sh new_algo
need new_algo bin/tempo-rti build/release/libconfig.a build/fmus/lv_prey_me.fmu \
  build/fmus/lv_predator_me.fmu

# 1. A copy of the tree: every file git knows (tracked, or new and not ignored) with its time,
# and the build folder, so that make sees the built objects up to date.
tree=$dir/tree
mkdir -p "$tree/build"
git ls-files -z --cached --others --exclude-standard |
  tar --null -T - -cf - 2>/dev/null | tar -xpf - -C "$tree" 2>/dev/null
cp -a build/release build/config.mk "$tree/build/" && [ -f "$tree/Makefile" ] && ok ||
  ko "cannot copy the tree"
[ -d build/include ] && cp -a build/include "$tree/build/"
[ -d bin ] && cp -a bin "$tree/"
[ -d lib ] && cp -a lib "$tree/"

# 2. The new algorithm: its own files, one line of the table, its row in the index of pages and
# its test's two lines in the build.
cp -R tests/integration/new_algo/. "$tree/"
marker='    /\* a new algorithm: one line above this one \*/'
grep -q "^$marker" "$tree/federate/config/fedfile_algos.c" && ok || ko "the table has no end marker"
sed -i "s|^\\($marker\\)|    X(fedfile_algo_subjacobi) \\\\\n\\1|" "$tree/federate/config/fedfile_algos.c"
sed -i '/^| Negotiated energy/a | Jacobi with sub-steps (a throwaway) | none | [subjacobi.md](subjacobi.md) | `tempo-master` + slaves, or one process |' \
  "$tree/doc/algorithms/README.md"
printf 'UNIT_TESTS += tests/unit/subjacobi_test\nsubjacobi_test_LIBS := algo\n' >>"$tree/mk/60-algorithms.mk"

# 3. What changed: the three new files and one added line, nothing else.
changed=$(diff -rq -x .git -x build -x bin -x lib . "$tree" 2>/dev/null | grep -v '^Only in \./\?' |
  grep -v "^Only in \.[:/]" | sed "s|$tree/||g" | sort)
want="Files ./doc/algorithms/README.md and doc/algorithms/README.md differ
Files ./federate/config/fedfile_algos.c and federate/config/fedfile_algos.c differ
Files ./mk/60-algorithms.mk and mk/60-algorithms.mk differ
Only in algorithms: subjacobi.c
Only in algorithms: subjacobi.h
Only in doc/algorithms: subjacobi.md
Only in federate/config: algo_subjacobi.c
Only in tests/unit: subjacobi_test.c"
[ "$changed" = "$want" ] && ok || ko "the copy differs in more than the algorithm's eight files: $changed"
# added_lines FILE WANT: the copy's FILE differs from ours by WANT added lines and no other.
added_lines() {
  local d
  d=$(diff "$1" "$tree/$1" | grep '^[<>]')
  [ "$(grep -c '^>' <<<"$d")" = "$2" ] && ! grep -q '^<' <<<"$d" && ok ||
    ko "$1 changed by more than $2 added lines: $d"
}
added_lines federate/config/fedfile_algos.c 1
added_lines doc/algorithms/README.md 1
added_lines mk/60-algorithms.mk 2

# 4. It builds: only the programs a run needs.
make -C "$tree" -j2 bin/tempo-master bin/tempo-fmu bin/tempo-run >"$dir/make.out" 2>&1 && ok ||
  ko "the copy does not build: $(grep -m 3 -E 'error|Error' "$dir/make.out")"
compiled=$(grep -c -- ' -c ' "$dir/make.out")
grep -q -- '-c algorithms/subjacobi.c' "$dir/make.out" &&
  grep -q -- '-c federate/config/algo_subjacobi.c' "$dir/make.out" && [ "$compiled" -le 4 ] && ok ||
  ko "make compiled $compiled files (want the two new ones and the table)"

# 4b. Its unit test builds and passes; the copy passes make layers (includes, links, and the
# paths its page and comments name).
make -C "$tree" -j2 build/release/tests/unit/subjacobi_test >"$dir/make-test.out" 2>&1 &&
  "$tree/build/release/tests/unit/subjacobi_test" >"$dir/unit.out" 2>&1 &&
  grep -qE '^[1-9][0-9]* passed, 0 failed' "$dir/unit.out" && ok ||
  ko "tests/unit/subjacobi_test: $(tail -n 3 "$dir/make-test.out" "$dir/unit.out")"
make -C "$tree" layers >"$dir/layers.out" 2>&1 && ok || ko "make layers: $(tail -n 5 "$dir/layers.out")"

# 5. tempo-master --help lists it with its summary line, --list-methods with its side.
"$tree/bin/tempo-master" --help | grep -q '^  subjacobi  *a throwaway algorithm' && ok ||
  ko "tempo-master --help does not list subjacobi: $("$tree/bin/tempo-master" --help | tail -n 3)"
"$tree/bin/tempo-master" --list-methods | grep -qx 'subjacobi master' && ok ||
  ko "tempo-master --list-methods does not list subjacobi"

# 6. A federation file of the new method: Lotka-Volterra, two model-exchange slaves.
fmus=$PWD/build/fmus
file() { # NAME ALGORITHM-KEYS
  cat >"$dir/$1.json" <<JSON
{ "federation": "lv-sub", "algorithm": { "method": "subjacobi", "end": 10, "step": 0.5 $2 },
  "solver": { "method": "bdf", "rtol": 1e-10, "atol": 1e-12 },
  "federates": [
    { "name": "prey", "fmu": "$fmus/lv_prey_me.fmu", "parameters": { "alpha": 0.5, "beta": 0.7, "x0": 1 },
      "outputs": { "x": "Prey.x" }, "inputs": { "y": "Predator.y" } },
    { "name": "predator", "fmu": "$fmus/lv_predator_me.fmu", "parameters": { "gamma": 0.27, "delta": 0.6, "y0": 1 },
      "outputs": { "y": "Predator.y" }, "inputs": { "x": "Prey.x" } } ] }
JSON
}
file lv ', "n_sub": 3'
out=$("$tree/bin/tempo-master" --federation "$dir/lv.json" --in-process --output "$dir/in" 2>&1)
[ $? -eq 0 ] && echo "$out" | grep -q 'subjacobi: 3 sub-steps per step' && ok ||
  ko "in process: $out"
if rti_start "$dir"; then
  "$tree/bin/tempo-run" "$dir/lv.json" --rti "$RTI_ADDR" --output "$dir/dist" --quiet \
    >"$dir/dist.out" 2>&1 && ok || ko "distributed: $(tail -n 3 "$dir/dist.out")"
  rti_stop >/dev/null
else
  ko "tempo-rti did not start"
fi
n=0
for c in prey.csv predator.csv master.csv; do
  [ -s "$dir/in/$c" ] && cmp -s "$dir/in/$c" "$dir/dist/$c" && n=$((n + 1))
done
[ "$n" = 3 ] && [ "$(wc -l <"$dir/in/prey.csv")" -ge 20 ] && ok ||
  ko "in process and distributed differ ($n of 3 CSV files identical)"
# the key it reads changes the run; the default is 2 sub-steps
file lv2 ''
"$tree/bin/tempo-master" --federation "$dir/lv2.json" --local --output "$dir/l2" --quiet &&
  ! cmp -s "$dir/l2/prey.csv" "$dir/in/prey.csv" && ok || ko "n_sub does not change the run"

# 7. Its key is checked by its own parser; another key is refused naming the method.
file bad ', "n_sub": 0'
out=$("$tree/bin/tempo-master" --federation "$dir/bad.json" --local 2>&1)
[ $? -eq 2 ] && echo "$out" | grep -q 'algorithm.n_sub: expected an integer 1..64' && ok ||
  ko "n_sub 0: $out"
file bad2 ', "h_min": 0.1'
out=$("$tree/bin/tempo-master" --federation "$dir/bad2.json" --local 2>&1)
[ $? -eq 2 ] && echo "$out" | grep -q 'algorithm.h_min: unknown key for method "subjacobi" (it takes: method, start, end, reply_timeout, step, n_sub)' && ok ||
  ko "h_min: $out"
# and the tree itself does not know it
out=$(bin/tempo-master --federation "$dir/lv.json" --local 2>&1)
[ $? -eq 2 ] && echo "$out" | grep -q '"subjacobi" is not one of' && ok || ko "the tree knows subjacobi: $out"

finish
