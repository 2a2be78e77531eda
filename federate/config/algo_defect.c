/* The defect-controlled non-iterative master of Glumac and Kovačić (2023) (algorithms/
 * defect_master.h, doc/algorithms/defect-control.md) as a value of the algorithm table
 * (federate/config/fedfile_algo.h). Its one key is the object "defect-control" (doc/federation.md):
 * m, n, h1, tol, h_min, h_max, kp, ki, theta_max, init, exchange, defect, clip_end. The settings
 * are a dc_config without links (fedfile_dc_config adds them); without clip_end the last step
 * ends at the first T_k >= end, so the master may open instants past the end
 * (FEDFILE_NEEDS_PAST_END). The same run as bin/tempo-example-defect, whose slaves are opened in
 * its own process.
 */
#include <stdio.h>
#include <stdlib.h>

#include "algorithms/defect_master.h"
#include "federate/config/algo_defect.h"
#include "federate/config/fedfile_algo.h"

static int parse(fedfile_keys *k, fedfile *ff, void **settings)
{
    dc_config *dc = calloc(1, sizeof *dc);
    if (!dc) return fedfile_key_fail(k, NULL, "out of memory");
    *settings = dc;
    static const char *const inits[] = {"consistent", "zero", NULL};
    static const char *const exch[] = {"sequential", "jacobi", NULL};
    static const char *const defs[] = {"both", "output", "connection", NULL};
    fedfile_keys d;
    int rc = fedfile_key_object(k, "defect-control", FEDFILE_KEY_REQUIRED, &d), have_tol = 0;
    int init = 0, ex = 0, def = 0;
    if (rc || (rc = fedfile_key_int(&d, "m", 0, 4, "a polynomial order", &dc->m)) ||
        (rc = fedfile_key_int(&d, "n", 0, 4, "a polynomial order", &dc->n)) ||
        (rc = fedfile_key_ticks(&d, "h1", FEDFILE_KEY_REQUIRED, 2, &dc->h1, NULL, NULL)) ||
        (rc = fedfile_key_num(&d, "tol", 0, &dc->tol, &have_tol)))
        return rc;
    const char *var[] = {"h_min", "h_max", "kp", "ki", "theta_max"};
    double *vdst[] = {&dc->h_min, &dc->h_max, &dc->kp, &dc->ki, &dc->theta_max};
    for (int i = 0; i < 5; i++) {
        int have = 0;
        if ((rc = fedfile_key_num(&d, var[i], 0, vdst[i], &have))) return rc;
        if (have && !have_tol)
            return fedfile_key_fail(&d, var[i], "only with \"tol\" (a variable step)");
    }
    if (dc->h_max > 0 && dc->h_max < dc->h_min)
        return fedfile_key_fail(&d, "h_max", "%g must be >= h_min %g", dc->h_max, dc->h_min);
    if (fedfile_key_get(&d, "theta_max") && !(dc->theta_max > 1))
        return fedfile_key_fail(&d, "theta_max", "expected a growth limit > 1");
    if ((rc = fedfile_key_choice(&d, "init", inits, &init)) ||
        (rc = fedfile_key_choice(&d, "exchange", exch, &ex)) ||
        (rc = fedfile_key_choice(&d, "defect", defs, &def)) ||
        (rc = fedfile_key_bool(&d, "clip_end", &dc->clip_end)) || (rc = fedfile_keys_done(&d)))
        return rc;
    dc->variable = dc->tol > 0;
    dc->init = (dc_init)init;
    dc->exchange = (dc_exchange)ex;
    dc->defect = (dc_defect)def;
    if (!dc->clip_end) ff->algo.needs |= FEDFILE_NEEDS_PAST_END;
    return FEDFILE_OK;
}

dc_config fedfile_dc_config(const fedfile *ff, const port_link *links, size_t n_links)
{
    dc_config c = *(const dc_config *)ff->algo.settings;
    c.n_links = n_links;
    c.links = links;
    return c;
}

static int run_defect(const fedfile_master_run *r, char *err, size_t errlen)
{
    dc_config cfg = fedfile_dc_config(r->ff, r->links, r->n_links);
    dc_result res;
    int rc = dc_run(r->m, &cfg, NULL, NULL, &res);
    if (rc != PORT_OK)
        snprintf(err, errlen, "%s", res.err);
    else if (!r->quiet)
        printf("tempo-master: %s: defect-control, m = %d, n = %d, %s: N = %zu steps to T_N = "
               "%.6g s, H mean %.4g s (min %.4g, max %.4g), largest defect %.3g\n",
               r->ff->federation, cfg.m, cfg.n, cfg.variable ? "variable step" : "fixed step",
               res.N, (double)res.t_end * r->m->tick, res.h_mean, res.h_min, res.h_max,
               res.eps_max);
    return rc;
}

const fedfile_algo_def fedfile_algo_defect = {
    .name = "defect-control",
    .side = FEDFILE_SIDE_MASTER,
    .summary = "defect-controlled non-iterative master (Glumac and Kovačić 2023)",
    .parse = parse,
    .free = free,
    .run_master = run_defect,
    .saves = 1, /* its state between steps (doc/checkpoint.md "Master methods") */
};
