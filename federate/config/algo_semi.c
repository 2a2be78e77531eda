/* The semi-implicit coupling (algorithms/semi.h, doc/algorithms/semi-implicit.md, the Awais
 * thesis §5.3, Algorithm 3) as a value of the algorithm table (federate/config/fedfile_algo.h).
 * Keys (doc/federation.md): "step", and optional "iteration" ("fixed-point", "broyden", "newton",
 * "newton-krylov"), "jacobian" ("identity", "fd", "directional"), "tol", "max_iter", "n_sub";
 * defaults of semi_opts_default. The settings are a semi_opts in ticks
 * (fedfile_settings(ff, "semi-implicit")).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/semi.h"
#include "algorithms/wr.h"
#include "federate/config/fedfile_algo.h"

static int parse(fedfile_keys *k, fedfile *ff, void **settings)
{
    semi_opts *o = calloc(1, sizeof *o);
    if (!o) return fedfile_key_fail(k, NULL, "out of memory");
    *settings = o;
    int rc = fedfile_key_step(k, ff);
    if (rc) return rc;
    semi_opts_default(o, ff->algo.t_step);
    if ((rc = fedfile_key_num(k, "tol", 0, &o->tol, NULL)) ||
        (rc = fedfile_key_int(k, "max_iter", 1, 1000000, NULL, &o->max_iter)) ||
        (rc = fedfile_key_int(k, "n_sub", 1, SEMI_MAX_SUB,
                              "internal steps per macro step; the last one is redone", &o->n_sub)))
        return rc;
    static const char *const iters[] = {"fixed-point", "broyden", "newton", "newton-krylov", NULL};
    static const semi_iter iter_of[] = {SEMI_FIXED_POINT, SEMI_BROYDEN, SEMI_NEWTON,
                                        SEMI_NEWTON_KRYLOV};
    int it = -1;
    if ((rc = fedfile_key_choice(k, "iteration", iters, &it))) return rc;
    if (it >= 0) o->iter = iter_of[it];
    const json_t *v = fedfile_key_get(k, "jacobian");
    if (v) {
        const char *j = json_is_string(v) ? json_string_value(v) : "";
        if (o->iter != SEMI_BROYDEN && o->iter != SEMI_NEWTON)
            return fedfile_key_fail(k, "jacobian",
                                    "only used with \"iteration\": \"broyden\" or \"newton\"");
        if (!strcmp(j, "identity") && o->iter == SEMI_BROYDEN)
            o->jac0 = SEMI_JAC0_IDENTITY;
        else if (!strcmp(j, "fd"))
            o->jac0 = SEMI_JAC0_FD;
        else if (!strcmp(j, "directional"))
            o->jac0 = SEMI_JAC0_DIRECTIONAL;
        else
            return fedfile_key_fail(k, "jacobian", "expected %s\"fd\" or \"directional\"",
                                    o->iter == SEMI_BROYDEN ? "\"identity\", " : "");
    }
    return FEDFILE_OK;
}

/* The semi-implicit coupling and its summary line: steps, updates, the histogram. */
static int run_semi(const fedfile_master_run *r, char *err, size_t errlen)
{
    const semi_opts *o = r->ff->algo.settings;
    semi_result res = {0};
    int rc = semi_run(r->m, r->links, r->n_links, o, &res, err, errlen);
    if (rc == PORT_OK && !r->quiet) {
        printf("tempo-master: %s: semi-implicit (%s): %zu steps, %zu updates (most %d per "
               "step), %zu recalculation rounds; messages %zu; updates per step:",
               r->ff->federation, semi_iter_name(o->iter), res.n_accepted, res.iter_total,
               res.iter_max, res.eval_total, res.msg_commands + res.msg_replies);
        for (int k = 0; k < SEMI_HIST_MAX; k++)
            if (res.hist[k]) printf(" %d%s:%zu", k, k == SEMI_HIST_MAX - 1 ? "+" : "", res.hist[k]);
        printf("\n");
    }
    semi_result_fini(&res);
    return rc;
}

const fedfile_algo_def fedfile_algo_semi = {
    .name = "semi-implicit",
    .side = FEDFILE_SIDE_MASTER,
    .summary = "semi-implicit coupling, quasi-Newton on the inputs (Awais thesis §5.3)",
    .parse = parse,
    .free = free,
    .run_master = run_semi,
    .saves = 1, /* its state between steps (doc/checkpoint.md "Master methods") */
};
