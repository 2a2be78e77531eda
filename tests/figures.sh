# Generated figure tables for shell tests (doc/cases/README.md "How the figures are made"; the
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
