/* The table of coupling algorithms (federate/config/fedfile_algo.h): one line per algorithm, the
 * name of the value its own file federate/config/algo_NAME.c defines. The line declares the
 * value and lists it; the order is the order of tempo-master --help and of the loader's
 * messages. Each line ends with a backslash, so adding one changes no other line.
 * doc/architecture.md ("Where a new coupling algorithm goes").
 */
#include <string.h>

#include "federate/config/fedfile_algo.h"

/* clang-format off */
#define FEDFILE_ALGOS(X) \
    X(fedfile_algo_jacobi_naive) \
    X(fedfile_algo_jacobi) \
    X(fedfile_algo_jacobi_de) \
    X(fedfile_algo_gauss_seidel) \
    X(fedfile_algo_wr) \
    X(fedfile_algo_semi) \
    X(fedfile_algo_msjacobi) \
    X(fedfile_algo_defect) \
    X(fedfile_algo_f3ornits) \
    X(fedfile_algo_strong) \
    X(fedfile_algo_hybrid) \
    X(fedfile_algo_balance) \
    X(fedfile_algo_energy) \
    /* a new algorithm: one line above this one */
/* clang-format on */

#define DECLARE(v) extern const fedfile_algo_def v;
#define ENTRY(v)   &v,
FEDFILE_ALGOS(DECLARE)
static const fedfile_algo_def *const TABLE[] = {FEDFILE_ALGOS(ENTRY)};

const fedfile_algo_def *const *fedfile_algos(size_t *n)
{
    *n = sizeof TABLE / sizeof TABLE[0];
    return TABLE;
}

const fedfile_algo_def *fedfile_algo_by_name(const char *name)
{
    for (size_t i = 0; name && i < sizeof TABLE / sizeof TABLE[0]; i++)
        if (strcmp(TABLE[i]->name, name) == 0) return TABLE[i];
    return NULL;
}

const void *fedfile_settings(const fedfile *ff, const char *method)
{
    return ff && ff->algo.def && method && strcmp(ff->algo.def->name, method) == 0
               ? ff->algo.settings
               : NULL;
}

const char *fedfile_method_name(const fedfile *ff)
{
    return ff && ff->algo.def ? ff->algo.def->name : "?";
}
