/* The throwaway algorithm of algorithms/subjacobi.h: per macro step [T, T+H] every slave steps
 * to T+H in n_sub sub-steps with the others' outputs at T held (order 0), then the outputs at
 * T+H become the inputs of the next step; every exchange of a step at the one instant T+H. */
#include "algorithms/subjacobi.h"

#include <stdlib.h>

static int sync_or_fail(const port_master *m, int *st, const char *what, int64_t t, char *err,
                        size_t errlen)
{
    long who = -1;
    int rc = port_sync_first(m, st, &who);
    if (rc >= 0 && rc != PORT_TERMINATED) return PORT_OK;
    return port_errorf(err, errlen, rc, "subjacobi: %s at %.9g s: slave %s: %s", what,
                       (double)t * m->tick, who >= 0 ? m->slaves[who].info.name : "?",
                       port_strerror(rc));
}

int subjacobi_run(const port_master *m, const port_link *links, size_t n_links,
                  const subjacobi_settings *s, char *err, size_t errlen)
{
    size_t n = m->n_slaves, ny = 0, nu = 0;
    for (size_t j = 0; j < n; j++)
        ny += m->slaves[j].info.n_out * (size_t)s->n_sub, nu += m->slaves[j].info.n_in;
    size_t *yo = calloc(n + 1, sizeof *yo), *uo = calloc(n + 1, sizeof *uo);
    double *y = calloc(ny + 1, sizeof *y), *u = calloc(nu + 1, sizeof *u);
    int *st = calloc(n + 1, sizeof *st);
    port_step_result *res = calloc(n + 1, sizeof *res);
    int rc = yo && uo && y && u && st && res ? PORT_OK : PORT_ENOMEM;
    for (size_t j = 0; !rc && j < n; j++) {
        yo[j + 1] = yo[j] + m->slaves[j].info.n_out * (size_t)s->n_sub;
        uo[j + 1] = uo[j] + m->slaves[j].info.n_in;
    }
    for (int64_t T = m->t_start, first = 1; !rc; first = 0) {
        int64_t t1 = first ? T : (T > m->t_end - s->t_step ? m->t_end : T + s->t_step);
        if ((rc = port_open(m, t1))) break;
        for (size_t j = 0; j < n; j++) {
            const port_slave *sl = &m->slaves[j];
            if (first)
                port_get_outputs(sl, &y[yo[j]]);
            else
                port_step(sl, t1, s->n_sub, &y[yo[j]], &res[j]);
        }
        if ((rc = sync_or_fail(m, st, "step", t1, err, errlen))) break;
        for (size_t k = 0; k < n_links; k++) { /* the last sub-step's outputs */
            const port_link *l = &links[k];
            size_t last = first ? 0 : (size_t)(s->n_sub - 1) * m->slaves[l->from].info.n_out;
            u[uo[l->to] + l->in] = y[yo[l->from] + last + l->out];
        }
        for (size_t j = 0; j < n; j++) {
            const port_slave *sl = &m->slaves[j];
            port_poly p = {.t0 = t1, .order = 0, .n = sl->info.n_in, .c = &u[uo[j]]};
            if (sl->info.n_in) port_set_inputs(sl, &p);
            port_record(sl);
        }
        if ((rc = sync_or_fail(m, st, "inputs", t1, err, errlen)) || (rc = port_close(m, t1)))
            break;
        T = t1;
        if (T >= m->t_end) break;
    }
    if (rc == PORT_ENOMEM) port_errorf(err, errlen, rc, "subjacobi: out of memory");
    free(yo), free(uo), free(y), free(u), free(st), free(res);
    return rc;
}
