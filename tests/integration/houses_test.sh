#!/usr/bin/env bash
# The smart-grid case end to end (doc/cases/houses.md), over one simulated day:
# 1. the market's price against its formula, fed by a scripted meter (the dahlquist FMU with
#    x(t) = exp(k t) published as House1.E): every reading exactly as computed by hand;
# 2. seven houses with discrete-event and with fixed-step Jacobi under tempo-run, each against
#    the exact reference of tempo-example-houses within stated bounds, and DE using at most a
#    fifth of the fixed-step run's communication points;
# 3. the DE run repeated gives the same bytes in every CSV.
# Prints "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/lib.sh houses_test
root=$PWD

# 1. The price formula: P_s += 0.5 (P_avg - P_s), p = 0.10 + 0.077 min(1, P_s / 3000), P_avg
#    from the meter's kWh over each 900 s.
cat >"$dir/meter.json" <<EOT
{ "federation": "meter", "algorithm": { "method": "jacobi", "end": 3600, "step": 5 },
  "federates": [
    { "name": "meter", "fmu": "$root/build/fmus/dahlquist_cs.fmu",
      "parameters": { "k": 0.0005, "x0": 1 }, "outputs": { "x": "House1.E" } },
    { "name": "market", "program": "$root/bin/tempo-example-market",
      "args": [ "--period", "900", "--p-min", "0.10", "--p-max", "0.177", "--p-cap", "3000",
                "--alpha", "0.5" ],
      "outputs": { "price": "Market.price" }, "inputs": { "E1": "House1.E" } } ],
  "output": "$dir/meter" }
EOT
if bin/tempo-run "$dir/meter.json" --quiet >"$dir/meter.out" 2>&1; then ok; else
  ko "tempo-run meter.json: $(tail -3 "$dir/meter.out")"; fi
bad=$(awk -F, 'NR > 1 {
  k = NR - 2; t = 900 * k
  if (k == 0) { want = 0.10; ps = 0 }
  else { pa = (exp(0.0005 * t) - exp(0.0005 * (t - 900))) * 3.6e6 / 900
         ps += 0.5 * (pa - ps); p = ps / 3000
         want = 0.10 + 0.077 * (p < 1 ? p : 1) }
  d = $2 - want; if (d < 0) d = -d
  if ($1 != t || d > 1e-7) print "row " NR ": t " $1 " price " $2 ", expected " want }
  END { if (NR != 6) print NR - 1 " readings, expected 5" }' "$dir/meter/market.csv" 2>&1)
[ -z "$bad" ] && ok || ko "market price against its formula: $bad"

# 2. Seven houses for one day, DE and fixed step, against the exact reference.
for m in de fts; do
  examples/houses/gen.sh 7 "$m" "$root" |
    sed -e 's/"end": 259200/"end": 86400/' -e "s|\"output\": \".*\"|\"output\": \"$dir/$m\"|" \
      >"$dir/$m.json"
  if bin/tempo-run "$dir/$m.json" --quiet >"$dir/$m.out" 2>&1; then ok; else
    ko "tempo-run $m: $(tail -3 "$dir/$m.out")"; fi
done
bin/tempo-example-houses "$dir/de.json" "$dir/de" "$dir/fts" >"$dir/cmp.out" 2>&1 || ko "compare: $(cat "$dir/cmp.out")"
# stat RUN WHAT FIELD: a number of the comparison's output ("median", "largest").
stat() {
  grep "^$dir/$1: $2" "$dir/cmp.out" | sed -n "s/.*$3 \([0-9.e+-]*\).*/\1/p"
}
# The bounds: about three times what the one-day runs reach (doc/cases/houses.md, "Figures");
# the runs are deterministic, so these do not depend on the machine's load.
bounds() { # METHOD TEMP_MEDIAN TEMP_LARGEST PRICE_MEDIAN
  tmed=$(stat "$1" "average temperature" median) tmax=$(stat "$1" "average temperature" largest)
  pmed=$(stat "$1" price median)
  awk -v a="$tmed" -v b="$tmax" -v c="$pmed" -v A="$2" -v B="$3" -v C="$4" \
    'BEGIN { exit !(a != "" && b != "" && c != "" && a < A && b < B && c < C) }' &&
    ok || ko "$1 against the reference: temperature median $tmed K, largest $tmax K, price median $pmed (bounds $2, $3, $4)"
}
bounds de 0.08 0.5 0.002
bounds fts 0.002 0.03 0.0001
de_pts=$(stat de "houses' communication points" points) fts_pts=$(stat fts "houses' communication points" points)
awk -v d="$de_pts" -v f="$fts_pts" 'BEGIN { exit !(d > 0 && f > 0 && d * 5 <= f) }' &&
  ok || ko "DE used $de_pts communication points, fixed step $fts_pts: expected at most a fifth"

# 3. The same run twice: the same bytes.
sed "s|\"output\": \".*\"|\"output\": \"$dir/de2\"|" "$dir/de.json" >"$dir/de2.json"
bin/tempo-run "$dir/de2.json" --quiet >"$dir/de2.out" 2>&1 || ko "second DE run: $(tail -3 "$dir/de2.out")"
same=1
for f in "$dir"/de2/*.csv; do cmp -s "$f" "$dir/de/$(basename "$f")" || same=0; done
[ "$(ls "$dir"/de2/*.csv | wc -l)" = 9 ] || same=0
[ $same = 1 ] && ok || ko "two DE runs differ"
grep -v ": plot \|: reference " "$dir/cmp.out" | sed "s|$dir/||"
finish
