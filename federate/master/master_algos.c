/* The table of master algorithms (federate/master/master_algos.h). Adding one: write
 * master_NAME.c with its master_algo_fn, declare it in master_algos.h and add its line here.
 */
#include "federate/master/master_algos.h"

static const master_algo TABLE[] = {
    {FEDFILE_ALG_WR, master_run_wr},
    {FEDFILE_ALG_SEMI, master_run_semi},
    {FEDFILE_ALG_MASTER_JACOBI, master_run_jacobi},
    {FEDFILE_ALG_DEFECT_CONTROL, master_run_defect},
    {FEDFILE_ALG_F3ORNITS, master_run_f3ornits},
    {FEDFILE_ALG_STRONG, master_run_strong},
    {FEDFILE_ALG_HYBRID, master_run_hybrid},
    {FEDFILE_ALG_BALANCE, master_run_balance},
    {FEDFILE_ALG_ENERGY, master_run_energy},
};

const master_algo *master_algo_find(fedfile_alg kind)
{
    for (size_t i = 0; i < sizeof TABLE / sizeof TABLE[0]; i++)
        if (TABLE[i].kind == kind) return &TABLE[i];
    return NULL;
}
