# Generated figure tables, and rendered plots, for shell tests (doc/cases/README.md "How the figures are made"; the
# C tests use tests/figures.h). Sourced by a test that defines ok and ko.
#
# figures_check NAME FILE: FILE, written by this test from its own runs, must equal the
# committed doc/cases/figures/NAME; with TEMPO_WRITE_FIGURES set (`make cases`) it replaces it.
figures_check() {
  local want=doc/cases/figures/$1
  if [ -n "${TEMPO_WRITE_FIGURES:-}" ]; then
    if cp "$2" "$want"; then ok; else ko "cannot write $want"; fi
    return
  fi
  if cmp -s "$want" "$2"; then ok; else
    ko "$want differs from this run (make cases rewrites it): $(diff "$want" "$2" 2>&1 | head -6)"
  fi
}

# plot_png_ok SVG TMPDIR: the plot a person looks at renders (rsvg-convert, librsvg) to a PNG of
# the size the SVG declares that is not blank: several times the bytes of a white page of the
# same size rendered the same way (tests/integration/plot_render.sh does the same).
plot_png_ok() {
  local w h pw ph sp sb
  w=$(sed -n 's/.*<svg [^>]*width="\([0-9]*\)" height="\([0-9]*\)".*/\1/p' "$1" | head -n 1)
  h=$(sed -n 's/.*<svg [^>]*width="\([0-9]*\)" height="\([0-9]*\)".*/\2/p' "$1" | head -n 1)
  [ -n "$w" ] && [ -n "$h" ] || return 1
  printf '<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s"><rect width="%s" height="%s" fill="white"/></svg>\n' \
    "$w" "$h" "$w" "$h" >"$2/blank.svg"
  rsvg-convert -f png -o "$2/plot.png" "$1" 2>/dev/null &&
    rsvg-convert -f png -o "$2/blank.png" "$2/blank.svg" 2>/dev/null || return 1
  pw=$(od -An -tu1 -j16 -N4 "$2/plot.png" | awk '{print (($1 * 256 + $2) * 256 + $3) * 256 + $4}')
  ph=$(od -An -tu1 -j20 -N4 "$2/plot.png" | awk '{print (($1 * 256 + $2) * 256 + $3) * 256 + $4}')
  sp=$(command stat -c %s "$2/plot.png") # command: a test may define its own stat()
  sb=$(command stat -c %s "$2/blank.png")
  [ "$pw" = "$w" ] && [ "$ph" = "$h" ] && [ "$sp" -gt $((5 * sb)) ]
}
