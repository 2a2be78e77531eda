#!/usr/bin/env bash
# The smart-grid case's federation file for N houses (doc/cases/houses.md):
#   examples/houses/gen.sh N METHOD ROOT > FILE.json
# METHOD: "de" (discrete-event Jacobi for every FMU federate) or "fts" (fixed-step Jacobi, step
# 5 s); ROOT: the repository's root relative to the folder FILE.json will be in (paths in a
# federation file are resolved against its folder). House i has seed i, so the first 7 houses
# of every size are the same houses. The market (examples/houses/market.c) is a program
# federate and reads the price every 900 s in both methods.
set -eu
n=${1:?usage: gen.sh N de|fts ROOT}
method=${2:?usage: gen.sh N de|fts ROOT}
root=${3:?usage: gen.sh N de|fts ROOT}
case $method in
  de) algo='{ "method": "jacobi-de", "end": 259200, "quantum": 0.1, "h_min": 1, "h_max": 900 }'
      envq=', "quantum": { "T_amb": 0.05 }'
      houseq=', "quantum": { "T_in": 0.1, "E": 0.1 }' ;;
  fts) algo='{ "method": "jacobi", "end": 259200, "step": 5 }'
       envq=''
       houseq='' ;;
  *) echo "gen.sh: METHOD must be de or fts, not $method" >&2; exit 2 ;;
esac
[ "$n" -ge 1 ] 2>/dev/null || { echo "gen.sh: N must be a positive integer" >&2; exit 2; }
echo '{'
echo "  \"federation\": \"houses-$n-$method\","
echo "  \"description\": \"Smart grid (the Awais thesis §4.2.3): $n houses, environment, market; 3 days at 1 s per time unit (doc/cases/houses.md)\","
echo "  \"algorithm\": $algo,"
echo '  "solver": { "method": "bdf", "rtol": 1e-8, "atol": 1e-10 },'
echo '  "federates": ['
echo "    { \"name\": \"env\", \"fmu\": \"$root/build/fmus/environment_cs.fmu\","
echo "      \"outputs\": { \"T_amb\": \"Env.T_amb\" }$envq },"
meters=
for i in $(seq 1 "$n"); do
  echo "    { \"name\": \"house$i\", \"fmu\": \"$root/build/fmus/house_cs.fmu\", \"parameters\": { \"seed\": $i },"
  echo "      \"outputs\": { \"T_in\": \"House$i.T_in\", \"E\": \"House$i.E\" }$houseq,"
  echo "      \"inputs\": { \"T_amb\": \"Env.T_amb\", \"price\": \"Market.price\" },"
  echo "      \"record\": [ \"T_in\", \"E\", \"heater\", \"price\" ] },"
  meters="$meters${meters:+, }\"E$i\": \"House$i.E\""
done
echo "    { \"name\": \"market\", \"program\": \"$root/bin/tempo-example-market\","
echo '      "args": [ "--period", "900", "--p-min", "0.10", "--p-max", "0.177", "--p-cap", "3000", "--alpha", "0.25" ],'
echo '      "outputs": { "price": "Market.price" },'
echo "      \"inputs\": { $meters } }"
echo '  ],'
echo "  \"output\": \"$root/build/run/houses-$n-$method\""
echo '}'
