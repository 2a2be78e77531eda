#!/usr/bin/env bash
# The plots of doc/algorithms/hybrid.md ("Figures"), drawn by tests/unit/hybrid_fmu_test with
# HYBRID_FIG_DIR: the bouncing ball's states against the reference, the step-size trace and
# its zoom, the errors and steps against tol_d for the ball and for the two-mass oscillator.
# Each is rendered to PNG (plot_png_ok of tests/figures.sh): the size the SVG declares, not
# blank. The test's own checks pass too (its figure tables included). Prints "N passed, N
# failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/lib.sh hybrid_plots
. tests/figures.sh
if HYBRID_FIG_DIR="$dir" build/release/tests/unit/hybrid_fmu_test >"$dir/out" 2>&1; then ok; else
  ko "hybrid_fmu_test: $(grep FAIL "$dir/out" | head -n 3)"; fi
for p in bball_hybrid_states bball_hybrid_steps bball_hybrid_steps_zoom bball_hybrid_tol \
  osc_hybrid_tol; do
  if [ -s "$dir/$p.svg" ] && grep -q 'class="series"' "$dir/$p.svg" &&
    plot_png_ok "$dir/$p.svg" "$dir"; then ok; else ko "plot $p.svg: missing, empty or blank"; fi
done
finish
