/* The Jacobi peer methods as values of the algorithm table (federate/config/fedfile_algo.h):
 * "jacobi-naive" (TAR, lookahead = step, the Awais thesis §4.2.1, Fig. 4.4) and "jacobi"
 * (TARA/TAR at lookahead 0, Fig. 4.9), both run by algorithms/jacobi.c (doc/algorithms/jacobi.md).
 * Keys: "step", "extrapolation", and "lookahead" for jacobi-naive (doc/federation.md).
 */
#include <stdio.h>
#include <stdlib.h>

#include "federate/config/fedfile_algo.h"

static int parse_jacobi(fedfile_keys *k, fedfile *ff, void **settings)
{
    (void)settings;
    int rc = fedfile_key_step(k, ff);
    return rc ? rc : fedfile_key_extrapolation(k, ff);
}

static int parse_naive(fedfile_keys *k, fedfile *ff, void **settings)
{
    int rc = parse_jacobi(k, ff, settings);
    if (rc) return rc;
    /* the thesis' naive algorithm: lookahead = step (Fig. 4.6) unless given */
    ff->algo.t_lookahead = ff->algo.t_step;
    /* at least one tick: TAR at lookahead 0 cannot publish at the granted time */
    return fedfile_key_ticks(k, "lookahead", 0, 1, NULL, &ff->algo.t_lookahead, NULL);
}

static int create(const fedfile *ff, size_t idx, void **run, char *err, size_t errlen)
{
    jacobi_settings *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "federate %s: out of memory", ff->feds[idx].name);
        return FEDFILE_ENOMEM;
    }
    s->t_step = ff->algo.t_step;
    s->t_lookahead = ff->algo.t_lookahead;
    s->naive = s->t_lookahead > 0;
    *run = s;
    return FEDFILE_OK;
}

static int run(const void *s, peer *p)
{
    return jacobi_run(p, s);
}

const fedfile_algo_def fedfile_algo_jacobi_naive = {
    .name = "jacobi-naive",
    .side = FEDFILE_SIDE_PEER,
    .needs = FEDFILE_NEEDS_PROGRAMS,
    .summary = "fixed-step Jacobi, TAR with lookahead = step (Awais thesis Fig. 4.4)",
    .parse = parse_naive,
    .create = create,
    .run_peer = run,
    .destroy = free,
};

const fedfile_algo_def fedfile_algo_jacobi = {
    .name = "jacobi",
    .side = FEDFILE_SIDE_PEER,
    .needs = FEDFILE_NEEDS_PROGRAMS,
    .summary = "fixed-step Jacobi, TARA/TAR at lookahead 0 (Awais thesis Fig. 4.9)",
    .parse = parse_jacobi,
    .create = create,
    .run_peer = run,
    .destroy = free,
};
