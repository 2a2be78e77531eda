/* Waveform relaxation (algorithms/wr.h, doc/algorithms/waveform-relaxation.md, the Awais thesis
 * §5.2, Algorithm 2) as a value of the algorithm table (federate/config/fedfile_algo.h). Keys
 * (doc/federation.md): "step", and optional "tol", "max_iter", "norm", "n_sub",
 * "on_no_convergence", "h_min" (the halving floor); defaults of wr_opts_default. The settings
 * are a wr_opts in ticks (fedfile_settings(ff, "wr")).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/wr.h"
#include "federate/config/fedfile_algo.h"

static int parse(fedfile_keys *k, fedfile *ff, void **settings)
{
    wr_opts *o = calloc(1, sizeof *o);
    if (!o) return fedfile_key_fail(k, NULL, "out of memory");
    *settings = o;
    int rc = fedfile_key_step(k, ff), have = 0;
    if (rc) return rc;
    wr_opts_default(o, ff->algo.t_step);
    if ((rc = fedfile_key_num(k, "tol", 0, &o->tol, NULL)) ||
        (rc = fedfile_key_int(k, "max_iter", 1, 1000000, NULL, &o->max_iter)) ||
        (rc = fedfile_key_int(k, "n_sub", 1, WR_MAX_SUB,
                              "sub-points per step, the degree of the input polynomials",
                              &o->n_sub)))
        return rc;
    static const char *const norms[] = {"max", "2", "max-relative", "2-relative", NULL};
    int norm = -1, on_fail = -1;
    if ((rc = fedfile_key_choice(k, "norm", norms, &norm))) return rc;
    if (norm >= 0) {
        o->norm = norm % 2 ? WR_NORM_2 : WR_NORM_MAX;
        o->relative = norm >= 2;
    }
    static const char *const fails[] = {"fail", "halve", NULL};
    if ((rc = fedfile_key_choice(k, "on_no_convergence", fails, &on_fail))) return rc;
    if (on_fail >= 0) o->on_fail = on_fail ? WR_HALVE : WR_FAIL;
    int64_t h_min = 0;
    if ((rc = fedfile_key_ticks(k, "h_min", 0, 1, NULL, &h_min, &have))) return rc;
    if (have) {
        if (o->on_fail != WR_HALVE)
            return fedfile_key_fail(k, "h_min", "only used with \"on_no_convergence\": \"halve\"");
        if (h_min > ff->algo.t_step)
            return fedfile_key_fail(k, "h_min", "must be at most the step");
        o->h_min = h_min;
    }
    return FEDFILE_OK;
}

static int run_wr(const fedfile_master_run *r, char *err, size_t errlen)
{
    wr_result res = {0};
    int rc = wr_run(r->m, r->links, r->n_links, r->ff->algo.settings, &res, err, errlen);
    if (rc == PORT_OK && !r->quiet)
        /* instants: what every slave and tempo-run count; halving puts several accepted steps
         * in one (doc/master.md "Instants and steps") */
        printf("tempo-master: %s: wr: %zu instants, %zu steps accepted (%zu halved away), %zu "
               "iterations (most %d per step); messages %zu (eq. 5.5 convention: %zu)\n",
               r->ff->federation, res.n_instants, res.n_accepted, res.n_abandoned, res.iter_total,
               res.iter_max, res.msg_init + res.msg_commands + res.msg_replies, res.msg_thesis);
    wr_result_fini(&res);
    return rc;
}

const fedfile_algo_def fedfile_algo_wr = {
    .name = "wr",
    .side = FEDFILE_SIDE_MASTER,
    .needs = FEDFILE_NEEDS_SUB_OUTPUTS,
    .summary = "waveform relaxation, iterated steps (Awais thesis §5.2, Algorithm 2)",
    .parse = parse,
    .free = free,
    .run_master = run_wr,
    .saves = 1, /* its state between steps (doc/checkpoint.md "Master methods") */
};
