#!/usr/bin/env bash
# The case studies of examples/ run through bin/tempo-run with every algorithm, against their
# monolithic references (the whole system as one FMU, bin/tempo-fmu --simulate with CVODE at
# rtol 1e-10), with stated tolerances and the thesis's
# qualitative claims (the Awais thesis §4.3.3: Gauss-Seidel stable where Jacobi is not on
# Lotka-Volterra at step 0.5; improved Jacobi more accurate than naive; first-order
# convergence of Jacobi on the two-mass oscillator). Serves doc/algorithms/README.md and doc/run.md;
# read doc/run.md ("Case studies"). Prints "N passed, N failed" last (tests/run.sh).
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/lib.sh run_cases
MEASURE=${MEASURE:-}

# errs REF.csv FED.csv COLUMN: "MEDIAN MAX T_OF_MAX" of |fed - ref| at the federate's
# communication points, the reference interpolated linearly between its rows (its step is
# chosen fine enough that this adds far less than the tolerances; at a shared time it is
# exact). Rows of FED outside the reference's time span are skipped.
errs() {
  awk -F, -v c="$3" '
    FNR == 1 { k = 0; for (i = 1; i <= NF; i++) if ($i == c) k = i; if (!k) exit 3; next }
    FNR == NR { n++; rt[n] = $1 + 0; rv[n] = $k + 0; next }
    { t = $1 + 0; while (j < n - 1 && rt[j + 1] <= t) j++; if (j < 1) j = 1
      if (t < rt[1] - 1e-9 || t > rt[n] + 1e-9) next
      w = (rt[j + 1] > rt[j]) ? (t - rt[j]) / (rt[j + 1] - rt[j]) : 0
      d = $k - (rv[j] + w * (rv[j + 1] - rv[j])); if (d < 0) d = -d; print d, t }' "$1" "$2" |
    sort -g | awk '{ a[NR] = $1; t[NR] = $2 }
      END { if (NR == 0) print "nan nan nan"; else print a[int((NR + 1) / 2)], a[NR], t[NR] }'
}
# lt A B: A < B as numbers (awk; "nan" is never less).
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a == a + 0 && a + 0 < b + 0) }'; }
# check NAME VALUE '<' LIMIT
check() {
  if [ -n "$MEASURE" ]; then echo "$1 = $2 (limit $4)"; fi
  if lt "$2" "$4"; then ok; else ko "$1 = $2, expected < $4"; fi
}

# variant CASE METHOD-JSON TAG: copy examples/CASE_jacobi.json with another algorithm, run it
# with tempo-run into $dir/TAG; returns tempo-run's status. VARIANT_SED, when set, is one more
# sed expression applied to the copy (other parameters).
variant() {
  local src=examples/$1_jacobi.json
  sed -e "s|\"algorithm\": {[^}]*}|\"algorithm\": $2|" \
      -e "s|\"fmu\": \"\.\./|\"fmu\": \"$PWD/|" ${VARIANT_SED:+-e "$VARIANT_SED"} "$src" >"$dir/$3.json"
  bin/tempo-run "$dir/$3.json" --quiet --output "$dir/$3" --timeout 60000 \
    >"$dir/$3.out" 2>"$dir/$3.err"
  local rc=$?
  [ "$rc" -eq 0 ] || ko "$3: tempo-run exited $rc: $(head -c 600 "$dir/$3.err")"
  return $rc
}
ref() { # ref NAME FMU STOP STEP RTOL ATOL [--set ...]
  local n=$1 f=$2 stop=$3 step=$4 rtol=$5 atol=$6
  shift 6
  bin/tempo-fmu --simulate "build/fmus/$f" --exact --stop "$stop" --step "$step" --rtol "$rtol" \
    --atol "$atol" "$@" --out "$dir/ref-$n.csv" 2>"$dir/ref-$n.err" ||
    ko "reference $n: $(cat "$dir/ref-$n.err")"
}

# --- Lotka-Volterra, step 0.5, end 100 -------------------------------------------------
ref lv lv_me.fmu 100 0.01 1e-10 1e-12 --set alpha=0.5 --set beta=0.7 --set gamma=0.27 \
  --set delta=0.6 --set x0=1 --set y0=1
J='{ "method": "jacobi", "end": 100, "step": 0.5 }'
N='{ "method": "jacobi-naive", "end": 100, "step": 0.5 }'
D='{ "method": "jacobi-de", "end": 100, "quantum": 0.01, "h_min": 0.01, "h_max": 0.5 }'
G='{ "method": "gauss-seidel", "end": 100, "step": 0.5 }'
for a in J N D G; do variant lv "${!a}" "lv-$a"; done
read -r gx_med gx_max _ < <(errs "$dir/ref-lv.csv" "$dir/lv-G/prey.csv" x)
read -r gy_med gy_max _ < <(errs "$dir/ref-lv.csv" "$dir/lv-G/predator.csv" y)
read -r jy_med jy_max jy_t < <(errs "$dir/ref-lv.csv" "$dir/lv-J/predator.csv" y)
read -r ny_med ny_max _ < <(errs "$dir/ref-lv.csv" "$dir/lv-N/predator.csv" y)
read -r dy_med dy_max _ < <(errs "$dir/ref-lv.csv" "$dir/lv-D/predator.csv" y)
# The thesis: GS medians about 0.015 (x) and 0.02 (y). Ours, measured: 0.0175 and 0.042
# (its reference was OpenModelica; ours CVODE at 1e-10); the limits allow 2x that.
check "LV gauss-seidel median |x err|" "$gx_med" '<' 0.035
check "LV gauss-seidel median |y err|" "$gy_med" '<' 0.085
check "LV gauss-seidel max |y err|" "$gy_max" '<' 0.5
# Jacobi at 0.5 is not stable: its error grows to several units (ours: max 9.2 in y), 10x the
# GS error at least, with the spike of the thesis around t = 50 (largest error in 35..65).
check "LV GS max |y err| / 10" "$(awk -v a="$gy_max" 'BEGIN { print a * 10 }')" '<' "$jy_max"
check "LV jacobi max |y err| >" 1 '<' "$jy_max"
check "LV jacobi: time of the largest y error - 35" "$(awk -v t="$jy_t" 'BEGIN{print -(t-35)}')" '<' 0
check "LV jacobi: time of the largest y error" "$jy_t" '<' 65
# Improved Jacobi more accurate than naive (one step less lag): median y errors.
check "LV improved jacobi median |y err|" "$jy_med" '<' "$ny_med"
# Discrete-event Jacobi with quantum 0.01 stays far closer than fixed-step Jacobi at 0.5.
check "LV jacobi-de median |y err|" "$dy_med" '<' "$jy_med"

# --- Van der Pol, mu 1.53, step 0.3, end 20 --------------------------------------------
ref vdp vanderpol_me.fmu 20 0.001 1e-10 1e-12 --set mu=1.53 --set x0=2 --set y0=0
J='{ "method": "jacobi", "end": 20, "step": 0.3 }'
N='{ "method": "jacobi-naive", "end": 20, "step": 0.3 }'
D='{ "method": "jacobi-de", "end": 20, "quantum": 0.01, "h_min": 0.001, "h_max": 0.3 }'
G='{ "method": "gauss-seidel", "end": 20, "step": 0.3 }'
for a in J N D G; do
  variant vdp "${!a}" "vdp-$a"
  read -r med max _ < <(errs "$dir/ref-vdp.csv" "$dir/vdp-$a/position.csv" x)
  eval "vdp_${a}_med=\$med vdp_${a}_max=\$max"
done
# At H = 0.3 the split is coarse for mu = 1.53: Gauss-Seidel keeps the limit cycle with a
# phase drift (measured max 0.65, median 0.10); Jacobi's lag makes it drift far more
# (measured max 5.0, median 1.8) and naive Jacobi's extra step more again (10.3, 6.5). The
# quantized discrete-event Jacobi (quantum 0.01, steps of 1 ms to 0.3 s) measured 0.52.
check "VdP gauss-seidel max |x err|" "$vdp_G_max" '<' 1
check "VdP gauss-seidel median |x err|" "$vdp_G_med" '<' 0.2
check "VdP jacobi-de max |x err|" "$vdp_D_max" '<' 0.75
check "VdP gauss-seidel median x 5 vs jacobi" "$(awk -v a="$vdp_G_med" 'BEGIN{print a*5}')" '<' "$vdp_J_med"
check "VdP improved vs naive jacobi median" "$vdp_J_med" '<' "$vdp_N_med"
# The thesis's form (its eq. 6.9, the Lienard form: x' = mu (x - x^3/3 - y), y' = x / mu; the
# FMUs' parameter form = 1), same mu, start and step. The thesis finds Jacobi and Gauss-Seidel
# "just the same" at 0.3 (its Figs. 6.1-6.3); neither form shows it (the generated claims).
ref vdpl vanderpol_me.fmu 20 0.001 1e-10 1e-12 --set mu=1.53 --set x0=2 --set y0=0 --set form=1
for a in J G; do
  VARIANT_SED='s|"parameters": { "x0": 2 }|"parameters": { "x0": 2, "mu": 1.53, "form": 1 }|; s|"parameters": { "mu": 1.53, "y0": 0 }|"parameters": { "mu": 1.53, "y0": 0, "form": 1 }|' \
    variant vdp "${!a}" "vdpl-$a"
  read -r med max _ < <(errs "$dir/ref-vdpl.csv" "$dir/vdpl-$a/position.csv" x)
  eval "vdpl_${a}_med=\$med vdpl_${a}_max=\$max"
done
check "VdP Lienard gauss-seidel max |x err|" "$vdpl_G_max" '<' 1

# --- Two-mass oscillator (Glumac and Kovačić (2023)), fixed steps, end 10 --------------------------------
ref osc osc_twomass_me.fmu 10 0.001 1e-10 1e-12
for h in 0.02 0.01 0.005; do
  variant osc "{ \"method\": \"jacobi\", \"end\": 10, \"step\": $h }" "osc-J$h"
  read -r _ max _ < <(errs "$dir/ref-osc.csv" "$dir/osc-J$h/s2.csv" omega2)
  eval "osc_$(echo $h | tr -d .)=\$max"
done
variant osc '{ "method": "gauss-seidel", "end": 10, "step": 0.01 }' osc-G
variant osc '{ "method": "jacobi-naive", "end": 10, "step": 0.01 }' osc-N
variant osc '{ "method": "jacobi-de", "end": 10, "quantum": 0.001, "h_min": 0.001, "h_max": 0.05 }' osc-D
read -r _ oscG _ < <(errs "$dir/ref-osc.csv" "$dir/osc-G/s2.csv" omega2)
read -r _ oscN _ < <(errs "$dir/ref-osc.csv" "$dir/osc-N/s2.csv" omega2)
read -r _ oscD _ < <(errs "$dir/ref-osc.csv" "$dir/osc-D/s2.csv" omega2)
# First order: halving H halves the error (ratio 2 within 1.6 .. 2.5).
r1=$(awk -v a="$osc_002" -v b="$osc_001" 'BEGIN { print a / b }')
r2=$(awk -v a="$osc_001" -v b="$osc_0005" 'BEGIN { print a / b }')
check "osc jacobi error ratio H 0.02/0.01" "$r1" '<' 2.5
check "osc jacobi error ratio H 0.02/0.01 (lower)" 1.6 '<' "$r1"
check "osc jacobi error ratio H 0.01/0.005" "$r2" '<' 2.5
check "osc jacobi error ratio H 0.01/0.005 (lower)" 1.6 '<' "$r2"
check "osc jacobi H 0.01 max |omega2 err|" "$osc_001" '<' 0.01
check "osc gauss-seidel H 0.01 max |omega2 err|" "$oscG" '<' 0.01
check "osc improved < naive jacobi" "$osc_001" '<' "$oscN"
check "osc jacobi-de max |omega2 err|" "$oscD" '<' 0.01

# --- Bouncing ball down stairs, step 0.01, end 30 ---------------------------------------
# The contact is stiff (1e6) and each bounce lasts milliseconds, so the reference must be both
# tight (rtol 1e-8 alone is off by 4e-3) and, for the discrete-event run whose times are off
# the 0.01 grid, fine enough to interpolate: a second one at 1 ms.
ref bb bball_stairs_me.fmu 30 0.01 1e-10 1e-12
ref bbfine bball_stairs_me.fmu 30 0.001 1e-10 1e-12
for a in jacobi gauss-seidel jacobi-naive; do
  variant bball "{ \"method\": \"$a\", \"end\": 30, \"step\": 0.01 }" "bb-$a"
done
variant bball '{ "method": "jacobi-de", "end": 30, "quantum": 0.01, "h_min": 0.001, "h_max": 0.01 }' bb-jacobi-de
for a in jacobi gauss-seidel jacobi-naive jacobi-de; do
  r=ref-bb
  [ "$a" = jacobi-de ] && r=ref-bbfine
  read -r _ max _ < <(errs "$dir/$r.csv" "$dir/bb-$a/ball.csv" y)
  # Fixed steps: about 1e-6 (the stairs drop while the ball flies, so the lag of the stair
  # input costs nothing); jacobi-de about 5e-4 (doc/cases/figures/run_cases.md); limits 1e-4
  # and 5e-3.
  lim=1e-4
  [ "$a" = jacobi-de ] && lim=5e-3
  check "bball $a max |y err|" "$max" '<' "$lim"
  eval "bb_${a//-/_}=\$max"
  # The stair events crossed federates: the ball ends on the same stair as the reference.
  want=$(tail -n 1 "$dir/ref-bb.csv" | awk -F, '{ print $4 }')
  got=$(tail -n 1 "$dir/bb-$a/ball.csv" | awk -F, '{ print $4 }')
  if [ -n "$want" ] && [ "$want" = "$got" ] && [ "$want" != 10 ]; then ok; else
    ko "bball $a: final stair $got, reference $want"; fi
done

# --- The figures doc/run.md quotes, and the thesis's claims with ours (tests/figures.sh).
. tests/figures.sh
f() { awk -v x="$1" 'BEGIN { if (x == "nan" || x == "") print "–"; else printf "%.2g\n", x }'; }
r3() { awk -v x="$1" 'BEGIN { printf "%.2f\n", x }'; }
{
  echo '<!-- Generated by tests/integration/run_cases.sh from its runs; `make cases` rewrites it. -->'
  echo
  echo 'Absolute errors against the monolithic reference, median / max over the communication points.'
  echo
  echo '| case | gauss-seidel | jacobi (improved) | jacobi-naive | jacobi-de |'
  echo '|---|---|---|---|---|'
  echo "| LV, y | $(f "$gy_med") / $(f "$gy_max") (x: $(f "$gx_med") / $(f "$gx_max")) | $(f "$jy_med") / $(f "$jy_max"), largest at t = $(f "$jy_t") | $(f "$ny_med") / $(f "$ny_max") | $(f "$dy_med") / $(f "$dy_max") (quantum 0.01, h in [0.01, 0.5]) |"
  echo "| VdP, x | $(f "$vdp_G_med") / $(f "$vdp_G_max") | $(f "$vdp_J_med") / $(f "$vdp_J_max") | $(f "$vdp_N_med") / $(f "$vdp_N_max") | $(f "$vdp_D_med") / $(f "$vdp_D_max") (quantum 0.01, h in [0.001, 0.3]) |"
  echo "| VdP, Liénard form (thesis eq. 6.9), x | $(f "$vdpl_G_med") / $(f "$vdpl_G_max") | $(f "$vdpl_J_med") / $(f "$vdpl_J_max") | – | – |"
  echo "| oscillator, ω2 | max $(f "$oscG") | max $(f "$osc_001") at H 0.01 ($(f "$osc_002") at 0.02, $(f "$osc_0005") at 0.005: ratios $(r3 "$r1"), $(r3 "$r2")) | max $(f "$oscN") | max $(f "$oscD") (quantum 0.001) |"
  echo "| ball on stairs, y | max $(f "$bb_gauss_seidel") | max $(f "$bb_jacobi") | max $(f "$bb_jacobi_naive") | max $(f "$bb_jacobi_de") (h in [0.001, 0.01]) |"
} >"$dir/run_cases.md"
figures_check run_cases.md "$dir/run_cases.md"
T=tests/integration/run_cases.sh
v() { if awk "BEGIN { exit !($1) }"; then echo reproduced; else echo "not reproduced"; fi; }
{
  echo "| Awais thesis | §4.3.3 | Lotka–Volterra, Gauss–Seidel at step 0.5: median errors about 0.015 (x) and 0.02 (y) | $(f "$gx_med") (x), $(f "$gy_med") (y), against CVODE at 1e-10 (the thesis: OpenModelica) | within a factor 2 of the thesis: x $(v "$gx_med < 0.03"), y $(v "$gy_med < 0.04") | $T |"
  echo "| Awais thesis | §4.3.3 | Lotka–Volterra, Jacobi at step 0.5 is not stable: its error grows, with a spike in y near t = 50 | max $(f "$jy_max") at t = $(f "$jy_t"), Gauss–Seidel max $(f "$gy_max") | $(v "$jy_max > 10 * $gy_max && $jy_t > 35 && $jy_t < 65") | $T |"
  echo "| Awais thesis | §6.3, eq. 6.9, Figs. 6.1–6.3 | Van der Pol at step 0.3: Jacobi and Gauss–Seidel give "just the same" results, the error does not grow | median x error Jacobi $(f "$vdp_J_med"), Gauss–Seidel $(f "$vdp_G_med") (our form x' = y); $(f "$vdpl_J_med"), $(f "$vdpl_G_med") (the thesis's Liénard form) | $(v "$vdp_J_med < 2 * $vdp_G_med && $vdpl_J_med < 2 * $vdpl_G_med"): Jacobi's lag costs far more than Gauss–Seidel's in both forms | $T |"
  echo "| Awais thesis | §4.3.3 | improved Jacobi is more accurate than naive Jacobi (one step less lag) | median y error $(f "$jy_med") against $(f "$ny_med") (LV), x $(f "$vdp_J_med") against $(f "$vdp_N_med") (VdP) | $(v "$jy_med < $ny_med && $vdp_J_med < $vdp_N_med") | $T |"
  echo "| Glumac and Kovačić 2023 | §4.1 | the non-iterative Jacobi coupling of the two-mass oscillator is first order | error ratios per halving $(r3 "$r1"), $(r3 "$r2") | $(v "$r1 > 1.6 && $r1 < 2.5 && $r2 > 1.6 && $r2 < 2.5") | $T |"
  echo "| Awais thesis | eq. 5.23, Alg. 6 | the bouncing ball crosses the stairs' events between federates and follows the monolithic run | max y error $(f "$bb_jacobi") (jacobi), $(f "$bb_jacobi_de") (jacobi-de); the same final stair | $(v "$bb_jacobi < 1e-4 && $bb_jacobi_de < 5e-3") | $T |"
} >"$dir/run_cases.claims"
figures_check run_cases.claims "$dir/run_cases.claims"

# Every example file as shipped (one "results" line per CSV, a plot) is run by
# tests/integration/inproc_examples.sh, which compares that run with its in-process runs.

finish
