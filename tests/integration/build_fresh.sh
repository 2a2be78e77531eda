#!/usr/bin/env bash
# A fresh machine, simulated (the Makefile header, README.md "Set-up"): the tracked files are
# copied into an empty folder, and make runs there with two stand-ins first on PATH: a
# `pkg-config` that fails until an `apt-get` stand-in has "installed" the packages, then hands
# over to the real one. On a machine without the packages, a Makefile that read pkg-config
# before `make deps` ran would compile without -I/usr/include/libxml2 and fail; this test fails
# the same way. Scenarios: goals that need no package install nothing; one `make` installs,
# then builds the RTI (libxml2 headers, libevent) and libtempo; a second `make` installs
# nothing more. Prints "N passed, N failed" last (tests/run.sh). Run from the repository root.
set -u
top=$(pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tempo-fresh.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# The checkout: tracked files as they are in the working tree (an untracked file the build
# needs is missing here, as in a clean clone).
mkdir -p "$tmp/src" "$tmp/fake"
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
  (cd "$top" && git ls-files -z | xargs -0 -r sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
     tar --null -T - -cf -) | tar -xf - -C "$tmp/src"
else
  tar --exclude=./build --exclude=./bin --exclude=./lib -cf - . | tar -xf - -C "$tmp/src"
fi

real_pc=$(command -v pkg-config)
cat >"$tmp/fake/pkg-config" <<EOF
#!/bin/sh
[ -e "$tmp/installed" ] || exit 1
exec "$real_pc" "\$@"
EOF
cat >"$tmp/fake/apt-get" <<EOF
#!/bin/sh
echo "apt-get \$*" >>"$tmp/apt.log"
case " \$* " in *" install "*) touch "$tmp/installed";; esac
exit 0
EOF
chmod +x "$tmp/fake/pkg-config" "$tmp/fake/apt-get"
fresh_make() { (cd "$tmp/src" && PATH="$tmp/fake:$PATH" make "$@"); }

# 1. help and clean need no package: nothing is installed, nothing is asked.
if fresh_make help >"$tmp/help.out" 2>&1 && grep -q 'make install' "$tmp/help.out" &&
   fresh_make clean >/dev/null 2>&1 && [ ! -e "$tmp/apt.log" ]; then ok
else ko "make help / make clean: $(cat "$tmp/help.out" "$tmp/apt.log" 2>/dev/null | tail -n 5)"; fi

# 2. One make: the packages are installed first, then the flags read, then the build works.
#    (The RTI includes libxml/parser.h through the FOM reader and links -levent.)
if fresh_make -j2 bin/tempo-rti lib/libtempo.so >"$tmp/build.log" 2>&1; then ok
else ko "make on a fresh checkout failed: $(tail -n 8 "$tmp/build.log")"; fi
if grep -q ' install .*libxml2-dev' "$tmp/apt.log" 2>/dev/null; then ok
else ko "make did not call apt-get install: $(cat "$tmp/apt.log" 2>/dev/null)"; fi
if grep -q -- '-I/usr/include/libxml2' "$tmp/src/build/config.mk" 2>/dev/null &&
   grep -q -- '-I/usr/include/libxml2.*fom/fom.c' "$tmp/build.log"; then ok
else ko "fom/fom.c was compiled without the libxml2 flags"; fi
if "$tmp/src/bin/tempo-rti" --help 2>&1 | grep -q -- '--listen'; then ok
else ko "the built tempo-rti does not run"; fi

# 3. A second make asks apt-get nothing more (the flags are remembered in build/config.mk).
lines=$(wc -l <"$tmp/apt.log")
if fresh_make -j2 bin/tempo-rti >/dev/null 2>&1 && [ "$(wc -l <"$tmp/apt.log")" = "$lines" ]; then ok
else ko "a second make ran apt-get again or failed"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
