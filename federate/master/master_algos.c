/* The table of master algorithms (federate/master/master_algos.h). Adding one: write
 * master_NAME.c with its master_algo_fn, declare it in master_algos.h and add its line here.
 */
#include "federate/master/master_algos.h"

static const master_algo TABLE[] = {
    {FEDFILE_ALG_WR, master_run_wr},
    {FEDFILE_ALG_SEMI, master_run_semi},
    {FEDFILE_ALG_MASTER_JACOBI, master_run_jacobi},
};

const master_algo *master_algo_find(fedfile_alg kind)
{
    for (size_t i = 0; i < sizeof TABLE / sizeof TABLE[0]; i++)
        if (TABLE[i].kind == kind) return &TABLE[i];
    return NULL;
}
