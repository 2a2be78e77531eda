/* The master-driven Jacobi scheme (algorithms/msjacobi.h, doc/master.md) as a value of the
 * algorithm table (federate/config/fedfile_algo.h). Its one key is "step": the inputs are held
 * over each step, so "extrapolation" is refused like any key it does not read.
 */
#include <stdlib.h>

#include "algorithms/msjacobi.h"
#include "federate/config/fedfile_algo.h"

static int parse(fedfile_keys *k, fedfile *ff, void **settings)
{
    (void)settings;
    return fedfile_key_step(k, ff);
}
static int run_jacobi(const fedfile_master_run *r, char *err, size_t errlen)
{
    return msjacobi_run(r->m, r->links, r->n_links, r->ff->algo.t_step, err, errlen);
}

const fedfile_algo_def fedfile_algo_msjacobi = {
    .name = "master-jacobi",
    .side = FEDFILE_SIDE_MASTER,
    .summary = "fixed-step Jacobi driven by a master over the port (doc/master.md)",
    .parse = parse,
    .run_master = run_jacobi,
    .saves = 1, /* its state between steps (doc/checkpoint.md "Master methods") */
};
