/* The explicit master (algorithms/explicit.h). One macro step [T, T + H]:
 *   1. post get_outputs (and get_output_derivs(1) where a slope comes from it) to every slave;
 *      sync: the outputs at T, with the inputs of T already set (direct feedthrough seen);
 *   2. per connection: close the previous interval with the amount A = I(T) - I(T - H) of the
 *      running-integral output, open the next one with u(T), u'(T): a polynomial in s = t - T;
 *   3. per receiver: set_inputs with all its connections' polynomials (Taylor coefficients
 *      c_k = k! a_k about T); step to T + H; sync; record.
 * No step is ever repeated: the scheme is explicit (Scharff, Moshagen, Vondrejc 2017, §3).
 * doc/algorithms/balance-correction.md. */
#include "algorithms/explicit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/pstate.h"

/* The first failing slave's name and message for the caller. */
static int slave_failed(const port_master *m, const int *status, int rc, const char *what,
                        char *err, size_t errlen)
{
    for (size_t j = 0; j < m->n_slaves; j++)
        if (status[j] < 0)
            return port_errorf(err, errlen, rc, "%s: slave %s: %s", what, m->slaves[j].info.name,
                               port_strerror(status[j]));
    return port_errorf(err, errlen, rc, "%s: %s", what, port_strerror(rc));
}

static int validate(const port_master *m, const explicit_settings *set, char *err, size_t errlen)
{
    if (set->H <= 0) return port_errorf(err, errlen, PORT_EUSAGE, "the macro step must be > 0");
    size_t n_inputs = 0;
    for (size_t j = 0; j < m->n_slaves; j++)
        n_inputs += m->slaves[j].info.n_in;
    if (set->n_conns != n_inputs)
        return port_errorf(err, errlen, PORT_EUSAGE,
                           "%zu connections for %zu inputs: every input "
                           "needs exactly one",
                           set->n_conns, n_inputs);
    for (size_t k = 0; k < set->n_conns; k++) {
        const explicit_conn *c = &set->conns[k];
        if (c->from >= m->n_slaves || c->to >= m->n_slaves)
            return port_errorf(err, errlen, PORT_EUSAGE, "connection %zu: no such slave", k);
        const port_slave_info *fi = &m->slaves[c->from].info, *ti = &m->slaves[c->to].info;
        if (c->out >= fi->n_out || c->in >= ti->n_in ||
            (c->slope >= 0 && (size_t)c->slope >= fi->n_out) ||
            (c->amount >= 0 && (size_t)c->amount >= fi->n_out))
            return port_errorf(err, errlen, PORT_EUSAGE,
                               "connection %zu (%s -> %s): index out of range", k, fi->name,
                               ti->name);
        for (size_t q = 0; q < k; q++)
            if (set->conns[q].to == c->to && set->conns[q].in == c->in)
                return port_errorf(err, errlen, PORT_EUSAGE, "%s input %zu is fed twice", ti->name,
                                   c->in);
        if (c->layer.bc != BAL_BC_OFF && c->amount < 0)
            return port_errorf(err, errlen, PORT_EUSAGE,
                               "connection %zu (%s -> %s): balance "
                               "correction needs the sender's running integral (amount)",
                               k, fi->name, ti->name);
        if (c->layer.extrap == BAL_EXTRAP_LINEAR && c->slope == EXPLICIT_SLOPE_DERIV &&
            fi->max_output_deriv < 1)
            return port_errorf(err, errlen, PORT_EUSAGE,
                               "connection %zu: %s offers no output "
                               "derivatives: name an output holding the slope",
                               k, fi->name);
        if (c->layer.span > 1 && (m->t_end - m->t_start) % set->H != 0)
            return port_errorf(err, errlen, PORT_EUSAGE,
                               "connection %zu: a hat over %d intervals "
                               "needs a macro step that divides the run",
                               k, c->layer.span);
    }
    return PORT_OK;
}

/* Work arrays, allocated once per run (the step loop allocates nothing). */
typedef struct work {
    double **y, **dy, **yprev; /* per slave: outputs, first derivatives, outputs one step ago */
    double **ys;               /* per slave: outputs with the fresh inputs of T (the slopes) */
    int fresh;                 /* some linear connection: re-read the slopes (step 1b) */
    int *sends_slope;          /* per slave: it sends on a linear connection (step 1b reads it) */
    double **coef;             /* per slave: n_in * (PORT_MAX_ORDER + 1) Taylor coefficients */
    int *need_deriv;           /* per slave: some connection takes a slope from its derivative */
    int *status;
    bal_conn *conn;
} work;

static void work_free(work *w, size_t n)
{
    for (size_t j = 0; j < n; j++) {
        if (w->y) free(w->y[j]);
        if (w->dy) free(w->dy[j]);
        if (w->yprev) free(w->yprev[j]);
        if (w->ys) free(w->ys[j]);
        if (w->coef) free(w->coef[j]);
    }
    free(w->y), free(w->dy), free(w->yprev), free(w->ys), free(w->coef);
    free(w->need_deriv), free(w->sends_slope), free(w->status), free(w->conn);
}

static int work_new(work *w, const port_master *m, const explicit_settings *set)
{
    size_t n = m->n_slaves;
    memset(w, 0, sizeof *w);
    w->y = calloc(n, sizeof *w->y);
    w->dy = calloc(n, sizeof *w->dy);
    w->yprev = calloc(n, sizeof *w->yprev);
    w->ys = calloc(n, sizeof *w->ys);
    w->coef = calloc(n, sizeof *w->coef);
    w->need_deriv = calloc(n, sizeof *w->need_deriv);
    w->sends_slope = calloc(n, sizeof *w->sends_slope);
    w->status = calloc(n, sizeof *w->status);
    w->conn = calloc(set->n_conns ? set->n_conns : 1, sizeof *w->conn);
    if (!w->y || !w->dy || !w->yprev || !w->ys || !w->coef || !w->need_deriv || !w->sends_slope ||
        !w->status || !w->conn)
        return PORT_ENOMEM;
    for (size_t j = 0; j < n; j++) {
        size_t no = m->slaves[j].info.n_out + 1, ni = m->slaves[j].info.n_in + 1;
        w->y[j] = calloc(no, sizeof(double));
        w->dy[j] = calloc(no, sizeof(double));
        w->yprev[j] = calloc(no, sizeof(double));
        w->ys[j] = calloc(no, sizeof(double));
        w->coef[j] = calloc(ni * (PORT_MAX_ORDER + 1), sizeof(double));
        if (!w->y[j] || !w->dy[j] || !w->yprev[j] || !w->ys[j] || !w->coef[j]) return PORT_ENOMEM;
    }
    for (size_t k = 0; k < set->n_conns; k++) {
        if (set->conns[k].layer.extrap != BAL_EXTRAP_LINEAR) continue;
        w->fresh = 1;
        w->sends_slope[set->conns[k].from] = 1;
        if (set->conns[k].slope == EXPLICIT_SLOPE_DERIV) w->need_deriv[set->conns[k].from] = 1;
    }
    return PORT_OK;
}

/* Step 1: outputs (and derivatives) of every slave at the current time. */
static int read_outputs(const port_master *m, work *w, explicit_stats *st)
{
    for (size_t j = 0; j < m->n_slaves; j++) {
        const port_slave *s = &m->slaves[j];
        port_get_outputs(s, w->y[j]);
        st->operations++;
        if (w->need_deriv[j] && !w->fresh) {
            port_get_output_derivs(s, 1, w->dy[j]);
            st->operations++;
        }
    }
    return port_sync(m, w->status);
}

/* Step 1b (linear extrapolation): a slope is the sender's derivative at T, which depends on its
 * input where the model has direct feedthrough (the spring's f' = -c v, the mass's a = f / m):
 * read it again with every input set to the value just exchanged, not the previous interval's
 * extrapolation to T (doc/algorithms/balance-correction.md "Slopes from the fresh values"). */
static int read_slopes(const port_master *m, const explicit_settings *set, work *w, int64_t T,
                       explicit_stats *st)
{
    for (size_t k = 0; k < set->n_conns; k++) {
        const explicit_conn *c = &set->conns[k];
        double *coef = &w->coef[c->to][c->in * (PORT_MAX_ORDER + 1)];
        memset(coef, 0, (PORT_MAX_ORDER + 1) * sizeof *coef);
        coef[0] = w->y[c->from][c->out];
    }
    for (size_t j = 0; j < m->n_slaves; j++) {
        const port_slave *s = &m->slaves[j];
        if (!w->sends_slope[j]) continue; /* nobody takes a slope from it */
        port_poly u = {.t0 = T, .order = PORT_MAX_ORDER, .n = s->info.n_in, .c = w->coef[j]};
        if (s->info.n_in) port_set_inputs(s, &u), st->operations++;
        port_get_outputs(s, w->ys[j]);
        st->operations++;
        if (w->need_deriv[j]) {
            port_get_output_derivs(s, 1, w->dy[j]);
            st->operations++;
        }
    }
    return port_sync(m, w->status);
}

/* Step 2 for one connection: the receiver's polynomial over [T, T + H] into its coefficients. */
static int hand_over(const explicit_conn *c, bal_conn *bc, work *w, const port_master *m, double H,
                     int first)
{
    const double *y = w->y[c->from];
    if (!first &&
        bal_conn_close(bc, c->amount >= 0 ? y[c->amount] - w->yprev[c->from][c->amount] : 0))
        return PORT_EUSAGE;
    double du = c->slope >= 0 ? w->ys[c->from][c->slope] : w->dy[c->from][c->out];
    bal_poly p;
    if (bal_conn_open(bc, H, y[c->out], du, &p)) return PORT_EUSAGE;
    double *coef = &w->coef[c->to][c->in * (PORT_MAX_ORDER + 1)], fact = 1;
    for (int k = 0; k <= PORT_MAX_ORDER; k++) {
        coef[k] = k <= p.deg ? p.a[k] * fact : 0; /* Taylor: c_k = k! a_k */
        fact *= k + 1;
    }
    (void)m;
    return PORT_OK;
}

/* The state between steps (doc/checkpoint.md "Master methods"): "EXP1", the version, the
 * instant, whether no step was taken yet, the counts, each slave's outputs of the last step
 * (the amounts' previous values) and each connection's coupling layer (bal_conn without its
 * settings, which come from the file). */
#define EXP_MAGIC   0x31505845u /* "EXP1" little-endian */
#define EXP_VERSION 1u

static int offer(const port_master *m, const explicit_settings *set, const work *w, int64_t T,
                 int first, const explicit_stats *st, char *err, size_t errlen)
{
    if (!m->ckpt || !m->ckpt->offer) return PORT_OK;
    pstate_buf b = {0};
    pstate_put_u32(&b, EXP_MAGIC);
    pstate_put_u32(&b, EXP_VERSION);
    pstate_put_i64(&b, T);
    pstate_put_u8(&b, (uint8_t)(first != 0));
    pstate_put_i64(&b, st->steps);
    pstate_put_i64(&b, st->operations);
    pstate_put_u32(&b, (uint32_t)m->n_slaves);
    for (size_t j = 0; j < m->n_slaves; j++) {
        pstate_put_u32(&b, (uint32_t)m->slaves[j].info.n_out);
        for (size_t o = 0; o < m->slaves[j].info.n_out; o++)
            pstate_put_f64(&b, w->yprev[j][o]);
    }
    pstate_put_u32(&b, (uint32_t)set->n_conns);
    for (size_t k = 0; k < set->n_conns; k++) {
        const bal_conn *c = &w->conn[k];
        pstate_put_i64(&b, c->j);
        pstate_put_f64(&b, c->H);
        pstate_put_f64(&b, c->u_prev);
        pstate_put_f64(&b, c->du_prev);
        pstate_put_f64(&b, c->int_ubar);
        pstate_put_f64(&b, c->int_ext);
        pstate_put_u8(&b, (uint8_t)(c->open != 0));
        pstate_put_u32(&b, (uint32_t)c->n_pend);
        for (int q = 0; q < c->n_pend; q++) {
            pstate_put_f64(&b, c->pend[q].amount);
            pstate_put_i64(&b, c->pend[q].start);
        }
    }
    int rc = b.bad ? PORT_ENOMEM : port_ckpt_offer(m, T, b.p, b.n);
    free(b.p);
    if (rc)
        return port_errorf(err, errlen, rc, "the state at %.9g s: %s", port_seconds(m->tick, T),
                           port_strerror(rc));
    return PORT_OK;
}

/* Take the state a resumed run starts from (the connections initialised from the settings
 * first); bytes it did not write, for other slaves or connections, are refused. */
static int resume(const port_master *m, const explicit_settings *set, work *w, int64_t *T,
                  int *first, explicit_stats *st, char *err, size_t errlen)
{
    pstate_rd r = {.p = m->ckpt->resume, .n = m->ckpt->n_resume};
    int ok = pstate_get_u32(&r) == EXP_MAGIC && pstate_get_u32(&r) == EXP_VERSION;
    int64_t t = pstate_get_i64(&r);
    *first = pstate_get_u8(&r);
    st->steps = (long)pstate_get_i64(&r);
    st->operations = (long)pstate_get_i64(&r);
    ok = ok && *first <= 1 && st->steps >= 0 && st->operations >= 0 &&
         pstate_get_u32(&r) == m->n_slaves;
    for (size_t j = 0; ok && j < m->n_slaves; j++) {
        ok = pstate_get_u32(&r) == m->slaves[j].info.n_out;
        for (size_t o = 0; ok && o < m->slaves[j].info.n_out; o++)
            w->yprev[j][o] = pstate_get_f64(&r);
    }
    ok = ok && pstate_get_u32(&r) == set->n_conns;
    for (size_t k = 0; ok && k < set->n_conns; k++) {
        bal_conn *c = &w->conn[k];
        c->j = (long)pstate_get_i64(&r);
        c->H = pstate_get_f64(&r);
        c->u_prev = pstate_get_f64(&r);
        c->du_prev = pstate_get_f64(&r);
        c->int_ubar = pstate_get_f64(&r);
        c->int_ext = pstate_get_f64(&r);
        uint8_t open = pstate_get_u8(&r);
        uint32_t n_pend = pstate_get_u32(&r);
        ok = c->j >= 0 && open <= 1 && n_pend <= BAL_MAX_PENDING;
        c->open = open;
        c->n_pend = ok ? (int)n_pend : 0;
        for (int q = 0; ok && q < c->n_pend; q++) {
            c->pend[q].amount = pstate_get_f64(&r);
            c->pend[q].start = (long)pstate_get_i64(&r);
        }
    }
    if (!ok || r.bad || r.at != r.n)
        return port_errorf(err, errlen, PORT_EUSAGE,
                           "the state to resume from is not one this master wrote for these "
                           "slaves and connections (%zu bytes)",
                           m->ckpt->n_resume);
    if (t < m->t_start || t >= m->t_end)
        return port_errorf(err, errlen, PORT_EUSAGE,
                           "the state to resume from is at %.9g s, outside the run [%.9g, "
                           "%.9g) s",
                           port_seconds(m->tick, t), port_seconds(m->tick, m->t_start),
                           port_seconds(m->tick, m->t_end));
    *T = t;
    return PORT_OK;
}

int explicit_run(const port_master *m, const explicit_settings *set, explicit_stats *st, char *err,
                 size_t errlen)
{
    explicit_stats local = {0, 0};
    if (!st) st = &local;
    *st = local;
    int rc = validate(m, set, err, errlen);
    if (rc) return rc;
    work w;
    if ((rc = work_new(&w, m, set))) {
        work_free(&w, m->n_slaves);
        return port_errorf(err, errlen, rc, "out of memory");
    }
    for (size_t k = 0; k < set->n_conns && !rc; k++)
        rc = bal_conn_init(&w.conn[k], &set->conns[k].layer, err, errlen) ? PORT_EUSAGE : 0;
    int64_t T = m->t_start;
    int first = 1;
    if (!rc && m->ckpt && m->ckpt->resume) {
        rc = resume(m, set, &w, &T, &first, st, err, errlen); /* after the saved instant */
    } else {
        /* The start instant: the first rows (distributed, the slaves are open there already). */
        if (!rc) rc = port_open(m, m->t_start);
        for (size_t j = 0; j < m->n_slaves && !rc; j++) {
            port_record(&m->slaves[j]);
            st->operations++;
        }
        if (!rc && (rc = port_sync(m, w.status)))
            rc = slave_failed(m, w.status, rc, "first record", err, errlen);
        if (!rc) rc = offer(m, set, &w, T, first, st, err, errlen);
        if (!rc) rc = port_close(m, m->t_start);
    }
    for (; !rc && T < m->t_end; first = 0) {
        int64_t Tn = port_tick_add(T, set->H) < m->t_end ? T + set->H : m->t_end;
        double H = (double)(Tn - T) * m->tick;
        if ((rc = port_open(m, Tn))) break;
        if ((rc = read_outputs(m, &w, st))) {
            rc = slave_failed(m, w.status, rc, "reading outputs", err, errlen);
            break;
        }
        if (w.fresh && (rc = read_slopes(m, set, &w, T, st))) {
            rc = slave_failed(m, w.status, rc, "reading slopes", err, errlen);
            break;
        }
        for (size_t k = 0; k < set->n_conns && !rc; k++)
            if ((rc = hand_over(&set->conns[k], &w.conn[k], &w, m, H, first)))
                rc = port_errorf(err, errlen, rc,
                                 "connection %zu: the coupling layer refused the "
                                 "interval (step changed under a multi-interval hat?)",
                                 k);
        for (size_t j = 0; j < m->n_slaves && !rc; j++) {
            const port_slave *s = &m->slaves[j];
            port_poly u = {.t0 = T, .order = PORT_MAX_ORDER, .n = s->info.n_in, .c = w.coef[j]};
            if (s->info.n_in) port_set_inputs(s, &u), st->operations++;
            port_step(s, Tn, 1, NULL, NULL);
            port_record(s);
            st->operations += 2;
            memcpy(w.yprev[j], w.y[j], s->info.n_out * sizeof(double));
        }
        if (rc) break;
        if ((rc = port_sync(m, w.status)) < 0) {
            rc = slave_failed(m, w.status, rc, "stepping", err, errlen);
            break;
        }
        rc = PORT_OK; /* an event or termination inside a step does not stop this scheme */
        st->steps++;
        if ((rc = offer(m, set, &w, Tn, 0, st, err, errlen))) break;
        if ((rc = port_close(m, Tn))) break;
        T = Tn;
    }
    work_free(&w, m->n_slaves);
    return rc;
}
