/* Strong coupling (algorithms/strong.h, doc/algorithms/strong-coupling.md, the Awais thesis §5.4,
 * Algorithm 4) as a value of the algorithm table (federate/config/fedfile_algo.h): CVODE in the
 * master over every slave's states, the slaves model-exchange evaluators
 * (FEDFILE_NEEDS_ME_STATES). Keys: "step" (the output step) and "solver", the master's CVODE
 * {"method": "bdf"|"adams", "rtol", "atol", "max_step"} over strong_opts_default. The settings
 * are a strong_opts (fedfile_settings(ff, "strong")).
 */
#include <stdio.h>
#include <stdlib.h>

#include "algorithms/strong.h"
#include "federate/config/fedfile_algo.h"

static int parse(fedfile_keys *k, fedfile *ff, void **settings)
{
    strong_opts *o = calloc(1, sizeof *o);
    if (!o) return fedfile_key_fail(k, NULL, "out of memory");
    *settings = o;
    int rc = fedfile_key_step(k, ff);
    if (rc) return rc;
    strong_opts_default(o, ff->algo.t_step);
    fedfile_keys sv;
    static const char *const methods[] = {"bdf", "adams", NULL};
    int method = 0;
    double max_step = 0;
    if ((rc = fedfile_key_object(k, "solver", 0, &sv)) ||
        (rc = fedfile_key_choice(&sv, "method", methods, &method)) ||
        (rc = fedfile_key_num(&sv, "rtol", 0, &o->rtol, NULL)) ||
        (rc = fedfile_key_num(&sv, "atol", 0, &o->atol, NULL)) ||
        (rc = fedfile_key_num(&sv, "max_step", 0, &max_step, NULL)) ||
        (rc = fedfile_keys_done(&sv)))
        return rc;
    o->adams = method == 1;
    o->max_step = max_step;
    return FEDFILE_OK;
}

static int run_strong(const fedfile_master_run *r, char *err, size_t errlen)
{
    strong_result res;
    const strong_opts *o = r->ff->algo.settings;
    int rc = strong_run(r->m, r->links, r->n_links, o, &res, err, errlen);
    if (rc == PORT_OK && !r->quiet)
        printf("tempo-master: %s: strong (%s, rtol %g, atol %g): %zu output instants, %ld "
               "right-hand sides in %ld rounds, %ld CVODE steps; messages %zu (eq. 5.19: "
               "%zu n_s + %zu n_f + %zu)\n",
               r->ff->federation, o->adams ? "adams" : "bdf", o->rtol, o->atol, res.n_out,
               res.n_rhs, res.n_rounds, res.n_steps, res.msg_commands + res.msg_replies, res.c1,
               res.c2, res.c0);
    return rc;
}

const fedfile_algo_def fedfile_algo_strong = {
    .name = "strong",
    .side = FEDFILE_SIDE_MASTER,
    .needs = FEDFILE_NEEDS_ME_STATES | FEDFILE_NEEDS_NO_LOOP,
    .summary = "strong coupling, CVODE in the master over every slave's states (§5.4)",
    .parse = parse,
    .free = free,
    .run_master = run_strong,
    .saves = 1, /* its state between steps (doc/checkpoint.md "Master methods") */
};
