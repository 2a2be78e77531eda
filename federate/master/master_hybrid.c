/* The hybrid algorithm (algorithms/hybrid.h, doc/algorithms/hybrid.md) as an entry of
 * tempo-master's table: the couplings as hybrid_links, the file's algorithm.hybrid.discrete
 * attributes as the discrete-output flags, and the summary line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/hybrid.h"
#include "federate/master/master_algos.h"

/* One flag per output of every slave (file order): 1 when its attribute is listed as
 * discrete. Every listed attribute must be some federate's output. */
static int discrete_flags(const master_run *r, unsigned char **out, char *err, size_t errlen)
{
    const fedfile *ff = r->ff;
    size_t n = 0;
    for (size_t i = 0; i < ff->n_feds; i++)
        n += ff->feds[i].n_outputs;
    unsigned char *d = calloc(n + 1, 1);
    if (!d) return PORT_ENOMEM;
    for (size_t q = 0; q < ff->algo.hy_n_discrete; q++) {
        const char *want = ff->algo.hy_discrete[q];
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

int master_run_hybrid(const master_run *r, char *err, size_t errlen)
{
    unsigned char *disc = NULL;
    int rc = discrete_flags(r, &disc, err, errlen);
    if (rc) return rc;
    hybrid_link *links = calloc(r->n_cp + 1, sizeof *links);
    if (!links) {
        free(disc);
        return PORT_ENOMEM;
    }
    for (size_t k = 0; k < r->n_cp; k++)
        links[k] = (hybrid_link){.src = (long)r->cp[k].from, .out = r->cp[k].output};
    hybrid_result res = {0};
    rc = hybrid_run(r->m, links, disc, &r->ff->algo.hybrid, &res, err, errlen);
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
    free(links);
    free(disc);
    return rc;
}
