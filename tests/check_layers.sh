#!/usr/bin/env bash
# Enforces the layer rules of doc/contributing.md §1 by reading #include lines:
#   algorithms/ includes only the C library and libm (no project headers outside algorithms/),
#   fom/ includes only libxml2 and the C library (no rti/, federate/, algorithms/),
#   rti/ includes nothing from federate/ or algorithms/.
set -u
bad=0
report() { echo "layer violation: $1"; bad=1; }
#   (exceptions: algorithms/semi.c may use SUNDIALS KINSOL, its Newton-Krylov solver, and
#   algorithms/strong.c SUNDIALS CVODE, the master's integrator),
while IFS= read -r line; do report "$line (algorithms/ may use only libc and libm)"; done < <(
  grep -HnE '#include *[<"](rti|federate|fom|event2|libxml|zip|jansson|cvode|sundials|nvector|kinsol|sunlinsol|sunmatrix)' algorithms/*.[ch] 2>/dev/null |
    grep -vE '^algorithms/semi\.c:[0-9]+:#include <(kinsol/kinsol|nvector/nvector_serial|sunlinsol/sunlinsol_spgmr)\.h>' |
    grep -vE '^algorithms/strong\.c:[0-9]+:#include <(cvode/cvode|nvector/nvector_serial|sunlinsol/sunlinsol_dense|sunmatrix/sunmatrix_dense)\.h>')
while IFS= read -r line; do report "$line (fom/ may use only libxml2)"; done < <(
  grep -HnE '#include *[<"](rti|federate|algorithms|event2|zip|jansson|cvode)' fom/*.[ch] 2>/dev/null)
while IFS= read -r line; do report "$line (rti/ must not include federate/ or algorithms/)"; done < <(
  grep -HnE '#include *"(federate|algorithms)/' rti/*/*.[ch] 2>/dev/null)
exit $bad
