#!/usr/bin/env bash
# The same FMU (the dahlquist CS example) zipped by every common writer loads and simulates to
# the same numbers as the build's own archive: Info-ZIP zip (plain, streamed with data
# descriptors, forced Zip64), Python's zipfile (stored, deflated, streamed with data descriptors
# and no sizes in the local headers, Zip64 entries), bsdtar --format zip and
# cmake -E tar --format=zip (data descriptors and sizes in the local headers). Each archive is
# first checked by `unzip -t`. Then broken and unsafe archives are refused with the real fault
# named. Serves doc/fmu.md §1. Run from the repository root with bin/ and build/fmus/ built.
set -u
bin=bin/tempo-fmu
stage=build/fmus/stage/dahlquist_cs
mkdir -p build/fmu-fixtures
tmp=$(mktemp -d build/fmu-fixtures/zipw.XXXXXX)
stage_abs=$(cd "$stage" && pwd)
tmp_abs=$(cd "$tmp" && pwd)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

"$bin" --simulate build/fmus/dahlquist_cs.fmu --stop 1 --step 0.25 >"$tmp/ref.csv" 2>"$tmp/err" ||
  ko "reference run: $(cat "$tmp/err")"

# Writers, run inside the staged folder; each writes $tmp_abs/NAME.fmu.
( cd "$stage_abs" &&
  zip -q -X -r "$tmp_abs/zip.fmu" modelDescription.xml binaries &&
  zip -q -X -r - modelDescription.xml binaries | cat >"$tmp_abs/zip_stream.fmu" &&
  zip -q -X -r -fz "$tmp_abs/zip_zip64.fmu" modelDescription.xml binaries &&
  cmake -E tar cf "$tmp_abs/cmake.fmu" --format=zip modelDescription.xml binaries ) ||
  ko "zip or cmake failed"
if command -v bsdtar >/dev/null; then
  (cd "$stage_abs" && bsdtar --format zip -cf "$tmp_abs/bsdtar.fmu" modelDescription.xml binaries) ||
    ko "bsdtar failed"
else
  echo "SKIP bsdtar: not installed (make deps installs libarchive-tools)"
fi
(cd "$stage_abs" && python3 - "$tmp_abs" <<'EOF'
import io, os, sys, zipfile
out = sys.argv[1]
files = sorted(os.path.join(r, f)[2:] for r, _, fs in os.walk('.') for f in fs)
for comp, name in ((zipfile.ZIP_STORED, 'py_stored'), (zipfile.ZIP_DEFLATED, 'py_deflated')):
    with zipfile.ZipFile(os.path.join(out, name + '.fmu'), 'w', comp) as z:
        for f in files:
            z.write(f)

class Stream(io.RawIOBase):  # not seekable: zipfile writes data descriptors, local sizes 0
    def __init__(self, f): self.f, self.n = f, 0
    def writable(self): return True
    def write(self, b): self.f.write(b); self.n += len(b); return len(b)
    def tell(self): return self.n

with open(os.path.join(out, 'py_stream.fmu'), 'wb') as raw:
    with zipfile.ZipFile(Stream(raw), 'w', zipfile.ZIP_DEFLATED) as z:
        for f in files:
            with z.open(f, 'w') as w, open(f, 'rb') as r:
                w.write(r.read())
with zipfile.ZipFile(os.path.join(out, 'py_zip64.fmu'), 'w', zipfile.ZIP_DEFLATED) as z:
    for f in files:
        with z.open(f, 'w', force_zip64=True) as w, open(f, 'rb') as r:
            w.write(r.read())
EOF
) || ko "python zipfile failed"

# The archives are what they claim: data descriptors (general purpose flag bit 3) where
# streamed, Zip64 extra fields where forced.
python3 - "$tmp" <<'EOF' || ko "archive properties"
import os, sys, zipfile
d = sys.argv[1]
def flags(n):
    return [i.flag_bits & 8 for i in zipfile.ZipFile(f'{d}/{n}.fmu').infolist() if not i.is_dir()]
bad = []
for n in ('zip_stream', 'py_stream', 'cmake') + (('bsdtar',) if os.path.exists(f'{d}/bsdtar.fmu') else ()):
    if not all(flags(n)): bad.append(n + ' has entries without data descriptor')
import struct
def local_zip64(n):  # every file's local header carries a Zip64 extra field (id 1)
    raw = open(f'{d}/{n}.fmu', 'rb').read()
    for i in zipfile.ZipFile(f'{d}/{n}.fmu').infolist():
        if i.is_dir(): continue
        o = i.header_offset
        nl, xl = struct.unpack('<HH', raw[o + 26:o + 30])
        x, ids = raw[o + 30 + nl:o + 30 + nl + xl], []
        while len(x) >= 4:
            t, l = struct.unpack('<HH', x[:4]); ids.append(t); x = x[4 + l:]
        if 1 not in ids: return False
    return True
for n in ('zip_zip64', 'py_zip64'):
    if not local_zip64(n): bad.append(n + ' is not Zip64')
print('\n'.join(bad)); sys.exit(1 if bad else 0)
EOF

n_writers=0
for f in "$tmp"/*.fmu; do
  n=$(basename "$f" .fmu)
  n_writers=$((n_writers + 1))
  if ! unzip -tq "$f" >/dev/null 2>&1; then ko "$n: unzip -t refuses it"; continue; fi
  if ! "$bin" --simulate "$f" --stop 1 --step 0.25 >"$tmp/$n.csv" 2>"$tmp/err"; then
    ko "$n: $(cat "$tmp/err")"; continue
  fi
  if cmp -s "$tmp/ref.csv" "$tmp/$n.csv"; then ok; else ko "$n: other numbers"; fi
done
[ "$n_writers" -ge 8 ] && ok || ko "only $n_writers archives were written"

# expect NEEDLE FILE: refused (status 1) and stderr holds NEEDLE.
expect() {
  "$bin" --simulate "$2" --stop 1 >/dev/null 2>"$tmp/err"
  local rc=$?
  if [ "$rc" -ne 1 ]; then ko "$2: status $rc, want 1"; return; fi
  if grep -qF -- "$1" "$tmp/err"; then ok; else ko "$2: stderr lacks \"$1\": $(cat "$tmp/err")"; fi
}
echo "just text" >"$tmp/text.bin"
expect "not a zip file" "$tmp/text.bin"
head -c 2000 "$tmp/zip.fmu" >"$tmp/truncated.bin"
expect "not a zip file" "$tmp/truncated.bin"
# A stored entry whose bytes were damaged: the entry and the CRC are named.
python3 - "$tmp" <<'EOF'
import sys, zipfile
d = sys.argv[1]
raw = bytearray(open(f'{d}/py_stored.fmu', 'rb').read())
info = zipfile.ZipFile(f'{d}/py_stored.fmu').getinfo('binaries/linux64/dahlquist.so')
start = info.header_offset + 30 + len(info.filename) + len(info.extra)
raw[start + 100] ^= 0xff
open(f'{d}/crc.bin', 'wb').write(raw)
with zipfile.ZipFile(f'{d}/dotdot.bin', 'w') as z:
    z.writestr('modelDescription.xml', '<x/>')
    z.writestr('../evil.txt', 'x')
with zipfile.ZipFile(f'{d}/abs.bin', 'w') as z:
    z.writestr('/etc/evil.txt', 'x')
with zipfile.ZipFile(f'{d}/link.bin', 'w') as z:
    i = zipfile.ZipInfo('binaries/link')
    i.create_system = 3
    i.external_attr = (0o120777 << 16)
    z.writestr(i, '/etc/passwd')
EOF
expect 'entry "binaries/linux64/dahlquist.so": CRC error' "$tmp/crc.bin"
expect 'entry "../evil.txt": ".." component' "$tmp/dotdot.bin"
expect 'entry "/etc/evil.txt": absolute path' "$tmp/abs.bin"
expect 'entry "binaries/link": symbolic link' "$tmp/link.bin"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
