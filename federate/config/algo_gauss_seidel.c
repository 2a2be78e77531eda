/* Gauss-Seidel (algorithms/gauss_seidel.c, doc/algorithms/gauss-seidel.md, the Awais thesis
 * §4.3, Algorithm 1) as a value of the algorithm table (federate/config/fedfile_algo.h): the
 * loader plans the roles and order from the wiring (FEDFILE_NEEDS_GS_PLAN, algorithms/topology.h).
 * Keys: "step", "extrapolation".
 */
#include <stdio.h>
#include <stdlib.h>

#include "federate/config/fedfile_algo.h"

static int parse(fedfile_keys *k, fedfile *ff, void **settings)
{
    (void)settings;
    int rc = fedfile_key_step(k, ff);
    return rc ? rc : fedfile_key_extrapolation(k, ff);
}

static int create(const fedfile *ff, size_t idx, void **run, char *err, size_t errlen)
{
    if (!ff->gs_plan || idx >= ff->n_feds) {
        snprintf(err, errlen, "gauss-seidel without a topology plan");
        return FEDFILE_EUSAGE;
    }
    gauss_seidel_settings *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "federate %s: out of memory", ff->feds[idx].name);
        return FEDFILE_ENOMEM;
    }
    topo_role r = ff->gs_plan->role[idx];
    s->t_step = ff->algo.t_step;
    s->role = r == TOPO_ROLE_SOURCE ? GS_SOURCE : r == TOPO_ROLE_SINK ? GS_SINK : GS_COMMON;
    *run = s;
    return FEDFILE_OK;
}

static int run(const void *s, peer *p)
{
    return gauss_seidel_run(p, s);
}

const fedfile_algo_def fedfile_algo_gauss_seidel = {
    .name = "gauss-seidel",
    .side = FEDFILE_SIDE_PEER,
    .needs = FEDFILE_NEEDS_GS_PLAN,
    .summary = "Gauss-Seidel: FQR and a step-forward token (Awais thesis §4.3, Algorithm 1)",
    .parse = parse,
    .create = create,
    .run_peer = run,
    .destroy = free,
};
