/* The hybrid algorithm (algorithms/hybrid.h, doc/algorithms/hybrid.md, the Awais thesis §5.5,
 * Algorithm 5: events, rewind, step-size control) as a value of the algorithm table
 * (federate/config/fedfile_algo.h). Keys: "step" (H_0) and the object "hybrid" (all optional,
 * defaults of hybrid_opts_default): h_min, h_max, delta, bisect_tol (s), bisect (boolean), tol,
 * max_iter, norm ("max", "2"), tol_d, tau0, grow, shrink, discrete (the "Class.attribute"
 * outputs that are discrete-valued, fed slave to slave over the bus: FEDFILE_NEEDS_BUS). The
 * settings are a fedfile_hybrid (federate/config/algo_hybrid.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/hybrid.h"
#include "federate/config/algo_hybrid.h"
#include "federate/config/fedfile_algo.h"

static void hy_free(void *p)
{
    fedfile_hybrid *h = p;
    for (size_t i = 0; h && i < h->n_discrete; i++)
        free(h->discrete[i]);
    if (h) free(h->discrete);
    free(h);
}

static int parse(fedfile_keys *k, fedfile *ff, void **settings)
{
    fedfile_hybrid *s = calloc(1, sizeof *s);
    if (!s) return fedfile_key_fail(k, NULL, "out of memory");
    *settings = s;
    int rc = fedfile_key_step(k, ff), have_delta = 0, have_h_min = 0;
    if (rc) return rc;
    hybrid_opts *o = &s->opts;
    hybrid_opts_default(o, ff->algo.t_step);
    fedfile_keys h;
    static const char *const norms[] = {"max", "2", NULL};
    int norm = -1;
    if ((rc = fedfile_key_object(k, "hybrid", 0, &h)) ||
        (rc = fedfile_key_ticks(&h, "h_min", 0, 1, NULL, &o->h_min, &have_h_min)) ||
        (rc = fedfile_key_ticks(&h, "h_max", 0, 1, NULL, &o->h_max, NULL)) ||
        (rc = fedfile_key_ticks(&h, "delta", 0, 1, NULL, &o->delta, &have_delta)) ||
        (rc = fedfile_key_ticks(&h, "bisect_tol", 0, 1, NULL, &o->bisect_tol, NULL)) ||
        (rc = fedfile_key_num(&h, "tol", 0, &o->tol, NULL)) ||
        (rc = fedfile_key_num(&h, "tol_d", FEDFILE_KEY_ZERO_OK, &o->tol_d, NULL)) ||
        (rc = fedfile_key_num(&h, "tau0", FEDFILE_KEY_ZERO_OK, &o->tau0, NULL)) ||
        (rc = fedfile_key_num(&h, "grow", 0, &o->grow, NULL)) ||
        (rc = fedfile_key_num(&h, "shrink", 0, &o->shrink, NULL)) ||
        (rc = fedfile_key_int(&h, "max_iter", 1, 1000000, NULL, &o->max_iter)) ||
        (rc = fedfile_key_bool(&h, "bisect", &o->bisect)) ||
        (rc = fedfile_key_choice(&h, "norm", norms, &norm)))
        return rc;
    if (!have_delta && have_h_min) o->delta = o->h_min;
    if (o->h_max < o->h_min) return fedfile_key_fail(&h, "h_max", "must be >= h_min");
    if (o->grow < 1) return fedfile_key_fail(&h, "grow", "expected a factor >= 1");
    if (o->shrink > 1) return fedfile_key_fail(&h, "shrink", "expected a factor in (0, 1]");
    if (norm >= 0) o->norm = norm ? HYBRID_NORM_2 : HYBRID_NORM_MAX;
    const json_t *v = fedfile_key_get(&h, "discrete");
    if ((rc = fedfile_keys_done(&h)) || !v) return rc;
    if (!json_is_array(v))
        return fedfile_key_fail(&h, "discrete", "expected an array of \"Class.attribute\"");
    if (!(s->discrete = calloc(json_array_size(v) + 1, sizeof *s->discrete)))
        return fedfile_key_fail(&h, NULL, "out of memory");
    for (size_t i = 0; i < json_array_size(v); i++) {
        json_t *e = json_array_get(v, i);
        char p[40];
        snprintf(p, sizeof p, "discrete[%zu]", i);
        if (!json_is_string(e) || !strchr(json_string_value(e), '.'))
            return fedfile_key_fail(&h, p, "expected a string \"Class.attribute\"");
        if (!(s->discrete[s->n_discrete++] = strdup(json_string_value(e))))
            return fedfile_key_fail(&h, NULL, "out of memory");
    }
    return FEDFILE_OK;
}

/* 1 when cls.attr is listed in algorithm.hybrid.discrete. */
static int listed_discrete(const fedfile_hybrid *h, const char *cls, const char *attr)
{
    size_t lc = strlen(cls);
    for (size_t q = 0; h && q < h->n_discrete; q++) {
        const char *d = h->discrete[q];
        if (!strncmp(d, cls, lc) && d[lc] == '.' && !strcmp(d + lc + 1, attr)) return 1;
    }
    return 0;
}

/* on_bus: the outputs listed in algorithm.hybrid.discrete go slave to slave. */
static int hy_on_bus(const void *settings, const char *cls, const char *attr)
{
    return listed_discrete(settings, cls, attr);
}

static int discrete_flags(const fedfile_master_run *r, unsigned char **out, char *err,
                          size_t errlen)
{
    const fedfile *ff = r->ff;
    const fedfile_hybrid *hy = ff->algo.settings;
    size_t n = 0;
    for (size_t i = 0; i < ff->n_feds; i++)
        n += ff->feds[i].n_outputs;
    unsigned char *d = calloc(n + 1, 1);
    if (!d) return PORT_ENOMEM;
    for (size_t q = 0; q < hy->n_discrete; q++) {
        const char *want = hy->discrete[q];
        int found = 0;
        for (size_t i = 0, k = 0; i < ff->n_feds; i++)
            for (size_t o = 0; o < ff->feds[i].n_outputs; o++, k++) {
                const fedfile_wire *w = &ff->feds[i].outputs[o];
                size_t lc = strlen(w->cls);
                if (!strncmp(want, w->cls, lc) && want[lc] == '.' &&
                    !strcmp(want + lc + 1, w->attr))
                    d[k] = 1, found = 1;
            }
        if (!found) {
            free(d);
            return port_errorf(err, errlen, PORT_EUSAGE,
                               "%s: algorithm.hybrid.discrete[%zu]: no federate publishes \"%s\"",
                               ff->path, q, want);
        }
    }
    *out = d;
    return PORT_OK;
}

static int run_hybrid(const fedfile_master_run *r, char *err, size_t errlen)
{
    unsigned char *disc = NULL;
    int rc = discrete_flags(r, &disc, err, errlen);
    if (rc) return rc;
    hybrid_result res = {0};
    rc = hybrid_run(r->m, r->links, r->n_links, disc,
                    &((const fedfile_hybrid *)r->ff->algo.settings)->opts, &res, err, errlen);
    if (rc == PORT_OK && !r->quiet) {
        int64_t hmin = INT64_MAX, hmax = 0;
        for (size_t i = 0; i < res.n_steps; i++) {
            int64_t h = res.steps[i].t_to - res.steps[i].t_from;
            if (h < hmin) hmin = h;
            if (h > hmax) hmax = h;
        }
        /* instants: what every slave and tempo-run count as its steps (one instant holds the
         * steps committed up to an event and the event's step, doc/algorithms/hybrid.md) */
        printf("tempo-master: %s: hybrid: %zu instants, %zu steps committed (%zu normal), %zu "
               "events, %zu attempts (%zu aborted at an event), %zu iterations (most %d); steps "
               "%.6g..%.6g s\n",
               r->ff->federation, res.n_instants, res.n_steps, res.n_normal, res.n_events,
               res.n_attempts, res.n_aborted, res.iter_total, res.iter_max,
               res.n_steps ? (double)hmin * r->m->tick : 0.0, (double)hmax * r->m->tick);
    }
    hybrid_result_fini(&res);
    free(disc);
    return rc;
}

const fedfile_algo_def fedfile_algo_hybrid = {
    .name = "hybrid",
    .side = FEDFILE_SIDE_MASTER,
    .needs = FEDFILE_NEEDS_BUS | FEDFILE_NEEDS_EVENT_STOPS,
    .summary = "hybrid co-simulation: events, rewind, step-size control (§5.5, Algorithm 5)",
    .parse = parse,
    .free = hy_free,
    .on_bus = hy_on_bus,
    .run_master = run_hybrid,
    .saves = 1, /* its state between steps (doc/checkpoint.md "Master methods") */
};
