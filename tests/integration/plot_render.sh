#!/usr/bin/env bash
# The plot a person looks at (doc/run.md, "Plot"): the Gauss-Seidel Lotka-Volterra case of
# examples/lv_gs.json run by tempo-run with --reference (the monolithic model, tempo-fmu
# --simulate at rtol 1e-10), then checked as a reader would check it:
#   1. each variable has one colour in every panel, its reference the same colour, dashed;
#      each panel's y axis is labelled with its variables; the last panel holds the errors;
#   2. the errors drawn are those of the CSV against the reference (largest error of prey.x
#      read back from the SVG's y axis range, compared with the CSV);
#   3. rendered to PNG by rsvg-convert (librsvg, make deps installs it): the PNG has the size
#      of the SVG and is not blank (it compresses to several times the bytes of a white page
#      of the same size rendered the same way).
# Prints "N passed, N failed" last (tests/run.sh). Run from the repository root after make.
set -u
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tempo-plot.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

ref=$tmp/ref.csv
if bin/tempo-fmu --simulate build/fmus/lv_me.fmu --stop 100 --step 0.01 --rtol 1e-10 --atol 1e-12 \
     --set alpha=0.5 --set beta=0.7 --set gamma=0.27 --set delta=0.6 --set x0=1 --set y0=1 \
     --out "$ref" 2>"$tmp/ref.err" &&
   bin/tempo-run examples/lv_gs.json --quiet --output "$tmp/out" --reference "$ref" \
     >"$tmp/run.out" 2>"$tmp/run.err"; then ok
else ko "the run failed: $(tail -n 3 "$tmp/ref.err" "$tmp/run.err")"; fi
svg=$tmp/out/plot.svg

# 1. Colours: "x" and "x (reference)" share one colour wherever they are drawn, and "y" has
#    another; reference curves are dashed; y labels name the variables; an error panel.
colours=$(grep -o '<path class="series" data-label="[^"]*" fill="none" stroke="[^"]*"[^d]*' "$svg" |
  sed -E 's/.*data-label="([^" ]*)[^"]*".*stroke="([^"]*)".*/\1 \2/' | sort -u)
nx=$(echo "$colours" | awk '$1 == "x" || $1 ~ /\.x$/ {print $2}' | sort -u | wc -l)
ny=$(echo "$colours" | awk '$1 == "y" || $1 ~ /\.y$/ {print $2}' | sort -u | wc -l)
cx=$(echo "$colours" | awk '$1 == "x" {print $2}' | head -n 1)
cy=$(echo "$colours" | awk '$1 == "y" {print $2}' | head -n 1)
if [ "$nx" -eq 1 ] && [ "$ny" -eq 1 ] && [ -n "$cx" ] && [ "$cx" != "$cy" ]; then ok
else ko "colours per variable: $(echo "$colours" | tr '\n' ' ')"; fi
if grep -q 'data-label="x (reference)"[^>]*stroke-dasharray' "$svg" &&
   [ "$(grep -c 'class="ylabel"' "$svg")" -eq 3 ] && grep -q '>x, y</text>' "$svg" &&
   grep -q '>y, x</text>' "$svg" && grep -q '>error against the reference<' "$svg"; then ok
else ko "reference curves, y labels or error panel missing in $svg"; fi

# 2. The error panel's y axis covers the largest |prey.x - reference| and not ten times more
#    (the CSV and the reference share the times 0, 0.5, ...: no interpolation needed here).
emax=$(awk -F, 'FNR == 1 { next } FNR == NR { r[sprintf("%.4f", $1)] = $2; next }
  { k = sprintf("%.4f", $1); if (k in r) { d = $2 - r[k]; d = d < 0 ? -d : d; if (d > m) m = d } }
  END { printf "%.6g", m }' "$ref" "$tmp/out/prey.csv")
top=$(awk '/id="panel-2"/ { on = 1 } on && /class="ytick-label"/ { v = $0; sub(/.*">/, "", v);
  sub(/<.*/, "", v); if (v + 0 > m) m = v + 0 } END { print m + 0 }' "$svg")
if awk -v e="$emax" -v t="$top" 'BEGIN { exit !(e > 0 && t >= e && t < 10 * e) }'; then ok
else ko "error panel: axis top $top for a largest error $emax"; fi

# 3. Rendered: size as declared, and not blank.
w=$(sed -n 's/.*<svg [^>]*width="\([0-9]*\)" height="\([0-9]*\)".*/\1/p' "$svg" | head -n 1)
h=$(sed -n 's/.*<svg [^>]*width="\([0-9]*\)" height="\([0-9]*\)".*/\2/p' "$svg" | head -n 1)
printf '<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s"><rect width="%s" height="%s" fill="white"/></svg>\n' \
  "$w" "$h" "$w" "$h" >"$tmp/blank.svg"
if rsvg-convert -f png -o "$tmp/plot.png" "$svg" 2>"$tmp/rsvg.err" &&
   rsvg-convert -f png -o "$tmp/blank.png" "$tmp/blank.svg" 2>>"$tmp/rsvg.err"; then ok
else ko "rsvg-convert: $(head -n 3 "$tmp/rsvg.err")"; fi
# PNG: width and height are the big-endian words at bytes 16 and 20 (the IHDR chunk).
pw=$(od -An -tu1 -j16 -N4 "$tmp/plot.png" 2>/dev/null | awk '{print (($1 * 256 + $2) * 256 + $3) * 256 + $4}')
ph=$(od -An -tu1 -j20 -N4 "$tmp/plot.png" 2>/dev/null | awk '{print (($1 * 256 + $2) * 256 + $3) * 256 + $4}')
sp=$(stat -c %s "$tmp/plot.png" 2>/dev/null || echo 0)
sb=$(stat -c %s "$tmp/blank.png" 2>/dev/null || echo 1)
if [ -n "$w" ] && [ "$pw" = "$w" ] && [ "$ph" = "$h" ] && [ "$sp" -gt $((5 * sb)) ]; then ok
else ko "PNG ${pw}x${ph} of ${sp} bytes (SVG ${w}x${h}; a blank page: ${sb} bytes)"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
