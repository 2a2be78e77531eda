/* The throwaway algorithm algorithms/subjacobi.h as a value of the algorithm table
 * (federate/config/fedfile_algo.h). Keys: "step" and "n_sub" (sub-steps, default 2).
 */
#include <stdio.h>
#include <stdlib.h>

#include "algorithms/subjacobi.h"
#include "federate/config/fedfile_algo.h"

static int parse(fedfile_keys *k, fedfile *ff, void **settings)
{
    subjacobi_settings *s = calloc(1, sizeof *s);
    if (!s) return fedfile_key_fail(k, NULL, "out of memory");
    *settings = s;
    s->n_sub = 2;
    int rc = fedfile_key_step(k, ff);
    if (rc || (rc = fedfile_key_int(k, "n_sub", 1, 64, "sub-steps per step", &s->n_sub))) return rc;
    s->t_step = ff->algo.t_step;
    return FEDFILE_OK;
}

static int run(const fedfile_master_run *r, char *err, size_t errlen)
{
    const subjacobi_settings *s = r->ff->algo.settings;
    int rc = subjacobi_run(r->m, r->links, r->n_links, s, err, errlen);
    if (rc == PORT_OK && !r->quiet)
        printf("tempo-master: %s: subjacobi: %d sub-steps per step\n", r->ff->federation, s->n_sub);
    return rc;
}

const fedfile_algo_def fedfile_algo_subjacobi = {
    .name = "subjacobi",
    .side = FEDFILE_SIDE_MASTER,
    .summary = "a throwaway algorithm: Jacobi with sub-steps (tests/integration/new_algo.sh)",
    .parse = parse,
    .free = free,
    .run_master = run,
};
