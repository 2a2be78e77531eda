/* Fixed-step Jacobi over the port (algorithms/msjacobi.h). Scheme: the Awais thesis §4.2.1
 * (doc/references.md (Awais)), doc/algorithms/jacobi.md. With y_j(T) the outputs of slave j
 * at the macro step's start T and H the step (s):
 *     u_i(t) = y_src(i)(T)  for t in [T, T+H]   (zero-order hold of the coupled outputs)
 *     x_i(T+H) = the slave's own integration of its model over [T, T+H] with u_i held
 * Every exchange of a step happens at the one logical instant T+H (doc/master.md). Choices:
 * the outputs of a step are read as the step's sub-step result (one round trip instead of
 * two); the inputs are set and the row recorded with the close, in its round trip, and their
 * statuses collected after it (port.h, port_master_ops.close). */
#include "algorithms/msjacobi.h"

#include <stdio.h>
#include <stdlib.h>

#include "algorithms/pstate.h"

/* The state between steps (doc/checkpoint.md "Master methods"): "MSJ1", the version and the
 * instant closed. The inputs each slave holds over the next step are the slave's own state
 * (its part), so the instant is all a resumed run needs. */
#define MSJ_MAGIC   0x314a534du /* "MSJ1" little-endian */
#define MSJ_VERSION 1u

static int offer(const port_master *m, int64_t t, char *err, size_t errlen)
{
    if (!m->ckpt || !m->ckpt->offer) return PORT_OK;
    pstate_buf b = {0};
    pstate_put_u32(&b, MSJ_MAGIC);
    pstate_put_u32(&b, MSJ_VERSION);
    pstate_put_i64(&b, t);
    int rc = b.bad ? PORT_ENOMEM : port_ckpt_offer(m, t, b.p, b.n);
    free(b.p);
    if (rc)
        return port_errorf(err, errlen, rc, "master-jacobi: state at %.9g s: %s",
                           port_seconds(m->tick, t), port_strerror(rc));
    return PORT_OK;
}

/* The instant a resumed run continues after; refuses bytes it did not write. */
static int resumed_at(const port_master *m, int64_t *T, char *err, size_t errlen)
{
    pstate_rd r = {.p = m->ckpt->resume, .n = m->ckpt->n_resume};
    uint32_t magic = pstate_get_u32(&r), version = pstate_get_u32(&r);
    int64_t t = pstate_get_i64(&r);
    if (r.bad || magic != MSJ_MAGIC || version != MSJ_VERSION || r.at != r.n)
        return port_errorf(err, errlen, PORT_EUSAGE,
                           "master-jacobi: the state to resume from is not one it wrote (%zu "
                           "bytes)",
                           m->ckpt->n_resume);
    if (t < m->t_start || t >= m->t_end)
        return port_errorf(err, errlen, PORT_EUSAGE,
                           "master-jacobi: the state to resume from is at %.9g s, outside the "
                           "run [%.9g, %.9g) s",
                           port_seconds(m->tick, t), port_seconds(m->tick, m->t_start),
                           port_seconds(m->tick, m->t_end));
    *T = t;
    return PORT_OK;
}

/* The worst status of a sync, naming the first slave that has it. */
static int sync_or_fail(const port_master *m, int *st, const char *what, int64_t t, char *err,
                        size_t errlen)
{
    int rc = port_sync(m, st);
    if (rc >= 0 && rc != PORT_TERMINATED) return PORT_OK;
    for (size_t j = 0; j < m->n_slaves; j++)
        if (st[j] == rc)
            return port_errorf(err, errlen, rc, "%s at %.9g s: slave %s: %s", what,
                               port_seconds(m->tick, t), m->slaves[j].info.name, port_strerror(rc));
    return port_errorf(err, errlen, rc, "%s at %.9g s: %s", what, port_seconds(m->tick, t),
                       port_strerror(rc));
}

int msjacobi_run(const port_master *m, const port_link *links, size_t n_links, int64_t t_step,
                 char *err, size_t errlen)
{
    if (!m || (n_links && !links) || t_step < 1 || m->t_end <= m->t_start)
        return port_errorf(err, errlen, PORT_EUSAGE,
                           "master-jacobi: bad arguments (step %lld ticks)", (long long)t_step);
    size_t n = m->n_slaves;
    /* y[j], u[j]: each slave's outputs and inputs, laid out one after the other. */
    size_t *y_off = calloc(n + 1, sizeof *y_off), *u_off = calloc(n + 1, sizeof *u_off);
    int *st = calloc(n + 1, sizeof *st);
    for (size_t j = 0; y_off && u_off && j < n; j++) {
        y_off[j + 1] = y_off[j] + m->slaves[j].info.n_out;
        u_off[j + 1] = u_off[j] + m->slaves[j].info.n_in;
    }
    double *y = y_off ? calloc(y_off[n] + 1, sizeof *y) : NULL;
    double *u = u_off ? calloc(u_off[n] + 1, sizeof *u) : NULL;
    port_step_result *res = calloc(n + 1, sizeof *res);
    int rc = PORT_OK;
    if (!y_off || !u_off || !st || !y || !u || !res) {
        rc = port_errorf(err, errlen, PORT_ENOMEM, "master-jacobi: out of memory");
        goto out;
    }
    for (size_t k = 0; k < n_links; k++) {
        const port_link *l = &links[k];
        if (l->to >= n || l->from >= n || l->in >= m->slaves[l->to].info.n_in ||
            l->out >= m->slaves[l->from].info.n_out) {
            rc = port_errorf(err, errlen, PORT_EUSAGE, "master-jacobi: link %zu out of range", k);
            goto out;
        }
    }
    int64_t T = m->t_start;
    int first = 1;
    if (m->ckpt && m->ckpt->resume) { /* re-enter the loop after the saved instant */
        if ((rc = resumed_at(m, &T, err, errlen))) goto out;
        first = 0;
    }
    for (;;) {
        int64_t t1 = first ? T : (T > m->t_end - t_step ? m->t_end : T + t_step);
        if ((rc = port_open(m, t1))) {
            rc = port_errorf(err, errlen, rc, "opening %.9g s: %s", port_seconds(m->tick, t1),
                             port_strerror(rc));
            goto out;
        }
        for (size_t j = 0; j < n; j++) {
            const port_slave *s = &m->slaves[j];
            if (first)
                port_get_outputs(s, &y[y_off[j]]);
            else
                port_step(s, t1, 1, &y[y_off[j]], &res[j]);
        }
        if ((rc = sync_or_fail(m, st, first ? "initial outputs" : "step", t1, err, errlen)))
            goto out;
        for (size_t k = 0; k < n_links; k++)
            u[u_off[links[k].to] + links[k].in] = y[y_off[links[k].from] + links[k].out];
        for (size_t j = 0; j < n; j++) {
            const port_slave *s = &m->slaves[j];
            port_poly p = {.t0 = t1, .order = 0, .n = s->info.n_in, .c = &u[u_off[j]]};
            if (s->info.n_in) port_set_inputs(s, &p);
            port_record(s);
        }
        /* noted before the close, so that a save made in the close (doc/checkpoint.md
         * "Master methods") holds the instant's notes and a resumed run has them once */
        if (m->ops->note) m->ops->note(m->ctx, "step", port_seconds(m->tick, t1));
        if ((rc = offer(m, t1, err, errlen))) goto out;
        if ((rc = port_close(m, t1))) {
            rc = port_errorf(err, errlen, rc, "closing %.9g s: %s", port_seconds(m->tick, t1),
                             port_strerror(rc));
            goto out;
        }
        if ((rc = sync_or_fail(m, st, "inputs and record", t1, err, errlen))) goto out;
        first = 0;
        T = t1;
        if (T >= m->t_end) break;
    }
out:
    free(y_off);
    free(u_off);
    free(st);
    free(y);
    free(u);
    free(res);
    return rc;
}
