#!/usr/bin/env bash
# The Python package (doc/python.md): its pytest suite (tests/python/) run by the system's
# python3 (PYTHON, the Makefile's: Debian's /usr/bin/python3) on the build tree
# (PYTHONPATH=python); with PYTHON_TEST_PART=installed (tests/integration/python_install.sh,
# the other half, which the runner spreads on another core: doc/contributing.md §16) on a copy
# installed by `make install PREFIX=<temporary folder>` from a folder outside the tree (the
# package must load the prefix's libtempo.so.0 and run its programs), then `pip install
# ./python` offline into a virtual environment. Counts every pytest case and every check of
# its own; prints "N passed, N failed" last (tests/run.sh).
set -u
cd "$(dirname "$0")/../.." || exit 1
part=${PYTHON_TEST_PART:-tree}
. tests/integration/lib.sh "python_$part"
root=$PWD
py=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3)}
need python_test lib/libtempo.so bin/tempo-run bin/tempo-rti bin/tempo-log

if ! "$py" -c 'import pytest' 2>/dev/null; then
  echo "python_test: $py has no pytest (make deps installs python3-pytest)"
  echo "0 passed, 1 failed"
  exit 1
fi

# pytest LABEL FILES [ENV=VALUE...]: the suite's FILES (names in tests/python, space separated)
# in $dir/LABEL, their counts added to ours.
pytest() {
  local label=$1 files=() line p f e
  for f in $2; do files+=("$root/tests/python/$f"); done
  shift 2
  mkdir -p "$dir/$label"
  (cd "$dir/$label" && env "$@" TEMPO_SOURCE="$root" "$py" -m pytest -q -p no:cacheprovider \
    --basetemp="$dir/$label/tmp" "${files[@]}") >"$dir/$label.out" 2>&1
  line=$(grep -E '(passed|failed|error)' "$dir/$label.out" | tail -n 1)
  p=$(echo "$line" | grep -oE '[0-9]+ passed' | grep -oE '[0-9]+' || echo 0)
  f=$(echo "$line" | grep -oE '[0-9]+ failed' | grep -oE '[0-9]+' || echo 0)
  e=$(echo "$line" | grep -oE '[0-9]+ errors?' | grep -oE '[0-9]+' || echo 0)
  pass=$((pass + ${p:-0}))
  fail=$((fail + ${f:-0} + ${e:-0}))
  if [ "${p:-0}" -eq 0 ] || [ "$((${f:-0} + ${e:-0}))" -ne 0 ]; then
    [ "${p:-0}" -eq 0 ] && [ "$((${f:-0} + ${e:-0}))" -eq 0 ] && fail=$((fail + 1))
    echo "FAIL: pytest ($label):"
    grep -E '^(FAILED|ERROR)|Error' "$dir/$label.out" | head -n 20 | sed 's/^/    /'
  fi
}

# 1. The build tree.
if [ "$part" = tree ]; then
  pytest tree "$(cd tests/python && echo test_*.py)" PYTHONPATH="$root/python"
  finish
  exit
fi

# 2. An installed copy, from a folder outside the tree, with nothing of the tree on the paths.
P=$dir/prefix
if make -s --no-print-directory install PREFIX="$P" PYTHON="$py" >"$dir/install.log" 2>&1; then ok
else ko "make install: $(tail -n 5 "$dir/install.log")"; fi
site=$(ls -d "$P"/lib/python3*/dist-packages 2>/dev/null | head -n 1)
check "installed package" test -f "$site/tempo/federate.py" -a -f "$site/tempo/_paths.py"
check "installed examples" test -x "$P/share/tempo/examples/python/market.py"
where=$(cd "$dir" && PYTHONPATH="$site" "$py" -c 'import tempo; print(tempo.__file__); print(tempo.library_path()); print(tempo.program("tempo-run"))' 2>&1)
check "the installed package loads the prefix's library and programs" \
  test "$where" = "$(printf '%s\n%s\n%s' "$site/tempo/__init__.py" "$P/lib/libtempo.so.0" "$P/bin/tempo-run")"
# The files whose tests find the library and the programs (tempo-run, tempo-rti, tempo-slave,
# tempo-log) through the package's paths; test_examples.py, test_inprocess.py and
# test_checkpoint.py reach them the same way and run on the build tree only (the installed
# examples are checked above).
pytest installed "test_federate.py test_run.py test_slave.py" \
  PYTHONPATH="$site" PATH="$P/bin:/usr/bin:/bin"
make -s --no-print-directory uninstall PREFIX="$P" PYTHON="$py" >/dev/null 2>&1
check "make uninstall removes the package" test ! -e "$site/tempo"

# 3. pip install ./python offline (the system's setuptools, no download), in a virtual
#    environment since Debian's python3 is externally managed (PEP 668).
cp -r python "$dir/src"
rm -rf "$dir/src/build" "$dir/src"/*.egg-info
if "$py" -m venv --system-site-packages "$dir/venv" >"$dir/venv.log" 2>&1 &&
   "$dir/venv/bin/pip" install --no-index --no-build-isolation -q "$dir/src" >>"$dir/venv.log" 2>&1; then ok
else ko "pip install ./python: $(tail -n 5 "$dir/venv.log")"; fi
# Found through the tempo-run on PATH (the tree's bin/: its lib/ beside it), it joins an RTI
# in process and exchanges an update.
cat >"$dir/smoke.py" <<EOT
import tempo
with tempo.Federate("smoke", "a", fom="$root/fom/demo.xml", rti="inproc:") as a, \
     tempo.Federate("smoke", "b", fom="$root/fom/demo.xml", rti="inproc:") as b:
    b.subscribe_object_class("Signal", ["value"]); b.time_status()
    a.publish_object_class("Signal"); o = a.register_object("Signal")
    a.update(o, {"value": 2.5}); a.flush()
    for _ in range(200):
        b.evoke(0.01)
        got = [e.values for e in b.poll_events() if e.kind == "reflect"]
        if got: break
    print(tempo.__file__, got)
EOT
out=$(cd "$dir" && PATH="$root/bin:$PATH" "$dir/venv/bin/python" "$dir/smoke.py" 2>&1)
check "pip-installed package works ($out)" has <(echo "$out") "$dir/venv/lib/"
check "pip-installed package exchanges an update" has <(echo "$out") "[{'value': 2.5}]"

finish
