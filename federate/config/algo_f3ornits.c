/* F3ORNITS of Éguillon et al. (2021) (algorithms/f3ornits_master.h, doc/algorithms/f3ornits.md)
 * as a value of the algorithm table (federate/config/fedfile_algo.h). Its one key is the object
 * "f3ornits" (doc/federation.md): dt_init (required), dt_max, order, fit, variable, norm, mu,
 * rtol, atol, rho_min, rho_max, safety, smooth, imposed ({"federate": step}). The settings are
 * a fedfile_f3 (federate/config/algo_f3ornits.h); the run turns them into an f3_config, the
 * links into its port_links and the imposed steps (by federate name) into one per slave.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/f3ornits_master.h"
#include "federate/config/algo_f3ornits.h"
#include "federate/config/fedfile_algo.h"

static void f3_free(void *p)
{
    fedfile_f3 *f = p;
    for (size_t k = 0; f && k < f->n_imposed; k++)
        free(f->imposed_fed[k]);
    if (f) free(f->imposed_fed), free(f->imposed_step);
    free(f);
}

static int parse(fedfile_keys *k, fedfile *ff, void **settings)
{
    (void)ff;
    fedfile_f3 *f = calloc(1, sizeof *f);
    if (!f) return fedfile_key_fail(k, NULL, "out of memory");
    *settings = f;
    *f = (fedfile_f3){.order = -1,
                      .variable = 1,
                      .mu = 0.5,
                      .rtol = 1e-3,
                      .atol = 1e-6,
                      .rho_min = 0.2,
                      .rho_max = 2,
                      .safety = 0.9};
    static const char *const fits[] = {"extrapolation", "cls", NULL};
    static const char *const norms[] = {"magnitude", "amplitude", "damped", NULL};
    fedfile_keys d;
    int rc = fedfile_key_object(k, "f3ornits", FEDFILE_KEY_REQUIRED, &d), have = 0;
    if (rc ||
        (rc = fedfile_key_ticks(&d, "dt_init", FEDFILE_KEY_REQUIRED, 1, &f->dt_init, NULL, NULL)) ||
        (rc = fedfile_key_num(&d, "dt_max", 0, &f->dt_max, &have)))
        return rc;
    if (have && f->dt_max < f->dt_init)
        return fedfile_key_fail(&d, "dt_max", "%g must be >= dt_init %g", f->dt_max, f->dt_init);
    const char *num[] = {"mu", "rtol", "atol", "rho_min", "rho_max", "safety"};
    double *dst[] = {&f->mu, &f->rtol, &f->atol, &f->rho_min, &f->rho_max, &f->safety};
    const int zero_ok[] = {1, 0, 1, 0, 0, 0};
    for (int i = 0; i < 6; i++)
        if ((rc = fedfile_key_num(&d, num[i], zero_ok[i] ? FEDFILE_KEY_ZERO_OK : 0, dst[i], NULL)))
            return rc;
    if (f->rho_max < f->rho_min)
        return fedfile_key_fail(&d, "rho_max", "%g must be >= rho_min %g", f->rho_max, f->rho_min);
    const json_t *o = fedfile_key_get(&d, "order");
    if (o && !(json_is_string(o) && !strcmp(json_string_value(o), "flexible")) &&
        !(json_is_integer(o) && json_integer_value(o) >= 0 && json_integer_value(o) <= 2))
        return fedfile_key_fail(&d, "order", "expected \"flexible\" or an order 0..2");
    if (o && json_is_integer(o)) f->order = (int)json_integer_value(o);
    fedfile_keys im;
    if ((rc = fedfile_key_bool(&d, "variable", &f->variable)) ||
        (rc = fedfile_key_bool(&d, "smooth", &f->smooth)) ||
        (rc = fedfile_key_choice(&d, "fit", fits, &f->fit)) ||
        (rc = fedfile_key_choice(&d, "norm", norms, &f->norm)) ||
        (rc = fedfile_key_object(&d, "imposed", 0, &im)) || (rc = fedfile_keys_done(&d)) || !im.obj)
        return rc;
    size_t n = json_object_size(im.obj);
    f->imposed_fed = calloc(n + 1, sizeof *f->imposed_fed);
    f->imposed_step = calloc(n + 1, sizeof *f->imposed_step);
    if (!f->imposed_fed || !f->imposed_step) return fedfile_key_fail(&im, NULL, "out of memory");
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)im.obj, key, v)
    {
        if ((rc = fedfile_key_ticks(&im, key, FEDFILE_KEY_REQUIRED, 0,
                                    &f->imposed_step[f->n_imposed], NULL, NULL)))
            return rc;
        if (!(f->imposed_fed[f->n_imposed] = strdup(key)))
            return fedfile_key_fail(&im, NULL, "out of memory");
        f->n_imposed++;
    }
    return FEDFILE_OK;
}

static int run_f3ornits(const fedfile_master_run *r, char *err, size_t errlen)
{
    const fedfile_f3 *f = r->ff->algo.settings;
    size_t S = r->ff->n_feds;
    double *imposed = calloc(S + 1, sizeof *imposed);
    if (!imposed) {
        return PORT_ENOMEM;
    }
    int rc = PORT_OK;
    for (size_t k = 0; k < f->n_imposed && rc == PORT_OK; k++) {
        long j = fedfile_find(r->ff, f->imposed_fed[k]);
        if (j < 0)
            rc = port_errorf(err, errlen, PORT_EUSAGE,
                             "%s: algorithm.f3ornits.imposed[\"%s\"]: no such federate",
                             r->ff->path, f->imposed_fed[k]);
        else
            imposed[j] = f->imposed_step[k];
    }
    f3_config cfg = {.fit = (f3_fit)f->fit,
                     .order = f->order,
                     .variable = f->variable,
                     .norm = (f3_norm)f->norm,
                     .mu = f->mu,
                     .rtol = f->rtol,
                     .atol = f->atol,
                     .rho_min = f->rho_min,
                     .rho_max = f->rho_max,
                     .safety = f->safety,
                     .dt_init = f->dt_init,
                     .dt_max = f->dt_max,
                     .imposed = imposed,
                     .smooth = f->smooth,
                     .n_links = r->n_links,
                     .links = r->links};
    f3_result res;
    if (rc == PORT_OK) {
        rc = f3_run(r->m, &cfg, NULL, NULL, &res);
        if (rc != PORT_OK)
            snprintf(err, errlen, "%s", res.err);
        else if (!r->quiet)
            printf("tempo-master: %s: f3ornits: %zu instants, %zu slave steps, between instants "
                   "%.4g .. %.4g s\n",
                   r->ff->federation, res.N, res.steps, res.h_min, res.h_max);
    }
    free(imposed);
    return rc;
}

const fedfile_algo_def fedfile_algo_f3ornits = {
    .name = "f3ornits",
    .side = FEDFILE_SIDE_MASTER,
    .summary = "F3ORNITS: flexible order, asynchronous steps (Éguillon et al. 2021)",
    .parse = parse,
    .free = f3_free,
    .run_master = run_f3ornits,
    .saves = 1, /* its state between steps (doc/checkpoint.md "Master methods") */
};
