/* Private to federate/config: the per-algorithm parsers of fedfile.c that the registry
 * (fedfile_algos.c) points at. Read fedfile.h ("the algorithm registry") first.
 */
#ifndef TEMPO_FEDERATE_CONFIG_FEDFILE_IMPL_H
#define TEMPO_FEDERATE_CONFIG_FEDFILE_IMPL_H

#include "federate/config/fedfile.h"

/* Fixed-step methods (jacobi-naive, jacobi, gauss-seidel, wr, master-jacobi): "step"
 * required, "lookahead" for jacobi-naive only (default: the step), the jacobi-de keys refused
 * (but "h_min" for wr); wr's own keys ("tol", "max_iter", ...) read here too. */
int fedfile_parse_fixed(const struct fedfile_reader *rd, const void *algo, fedfile *ff);
/* strong: the fixed-step keys ("step" is the output step) and "solver": the master's CVODE
 * settings {"method": "bdf"|"adams", "rtol", "atol", "max_step"} into ff->algo.strong. */
int fedfile_parse_strong(const struct fedfile_reader *rd, const void *algo, fedfile *ff);
/* jacobi-de: "quantum", "h_min", "h_max" required; "step" and "lookahead" refused. */
int fedfile_parse_de(const struct fedfile_reader *rd, const void *algo, fedfile *ff);
/* defect-control: the object "defect-control" into ff->algo.dc; the fixed-step and jacobi-de
 * keys refused. */
int fedfile_parse_dc(const struct fedfile_reader *rd, const void *algo, fedfile *ff);
/* f3ornits: the object "f3ornits" into ff->algo.f3; the fixed-step and jacobi-de keys
 * refused. */
int fedfile_parse_f3(const struct fedfile_reader *rd, const void *algo, fedfile *ff);

/* hybrid: the object "hybrid" into ff->algo.hybrid and hy_discrete; "step" is H_0. */
int fedfile_parse_hybrid(const struct fedfile_reader *rd, const void *algo, fedfile *ff);

/* balance, energy (federate/config/fedfile_balance.c): the fixed-step keys, then
 * "coupling" and "power_extrapolation" as written; resolved against the wiring once every
 * federate is read. fedfile_fail words a refusal "FILE: JPATH: what" (FEDFILE_ESCHEMA). */
typedef struct fedfile_reader fedfile_reader;
int fedfile_parse_balance(const fedfile_reader *rd, const void *algo, fedfile *ff);
int fedfile_balance_resolve(const fedfile_reader *rd, fedfile *ff);
int fedfile_fail(const fedfile_reader *rd, const char *jpath, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
