/* Algorithm 1 of Glumac and Kovačić (2023) over the port (algorithms/defect_master.h;
 * doc/algorithms/defect-control.md). One macro step k, from T = T_{k-1} with step H:
 *
 *   1. port_open(T + H): the instant of the step (doc/algorithms/port.md)
 *   2. inputs (eqs. 14, 15): for each slave in order, the connected outputs' Taylor
 *      coefficients at T (orders 0..min(m,n), zeros up to m) become its input polynomial;
 *      with DC_EXCHANGE_SEQUENTIAL its outputs are read again at T so that later slaves see
 *      the effect of its new inputs (direct feedthrough), as the paper's code exchanges
 *   3. every slave steps to T + H in two halves, the first half's outputs being the mid
 *      samples y_mid (Algorithm 1 lines 7-12; one step when the output defect is not used)
 *   4. outputs and derivatives 1..n at T + H (eq. 12); a slave offering fewer derivatives
 *      gets them from the polynomial through its last n + 1 samples
 *   5. defects: (32) per output, (17) per link, eps = the largest (38)
 *   6. the observer, record, port_close(T + H); stop when T + H >= t_end; else H from the PI
 *      controller (39), or h1 when the step is fixed
 *
 * Before step 1 the start instant T_0 is opened and closed: the initial outputs (below) and
 * every slave's first results row.
 *
 * Initial derivatives (DC_INIT_CONSISTENT): the paper's "compute initial outputs by solving
 * (1b) and (1d)" extended to derivatives. Output derivative j of a slave depends on its input
 * derivatives up to j, which are other slaves' output derivatives: sweeping "set inputs of
 * order n from the current outputs, read outputs and derivatives" (n + 1) * S + 1 times fixes
 * one more order (and one more slave of a chain) per sweep when there is no algebraic loop.
 * Zero initial derivatives make the first step a hold whose defect is O(H) on a span H, so
 * the RMS over [0, 1] falls only as sqrt(H * H^2) = H^1.5 (doc/algorithms/defect-control.md). */
#include "algorithms/defect_master.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/pstate.h"

typedef struct dc_work {
    const port_master *m;
    const dc_config *cfg;
    size_t S, L;
    int n, m_in, w;       /* output order, input order, n + 1 */
    double **out;         /* per slave: n_out * (n + 1), the current output polynomials */
    double **out_def;     /* per slave: n_out output-defect RMS of the last step */
    double **ysub;        /* per slave: 2 * n_out sub-step outputs */
    double **uc;          /* per slave: n_in * (order + 1) input coefficients to post */
    double **hs_v;        /* per slave: n_out * (n + 1) past values, newest first */
    int64_t *hs_t;        /* per slave: n + 1 past times, newest first */
    int *hs_k;            /* per slave: samples held */
    double *in_c;         /* per link: (m + 1) input coefficients of the step */
    double *conn_def;     /* per link: connection-defect RMS */
    port_step_result *sr; /* per slave */
    dc_result *res;
} dc_work;

/* port_sync, with the first failing slave named in res->err. */
static int sync_all(dc_work *w, const char *what, int64_t t)
{
    long j;
    int rc = port_sync_first(w->m, NULL, &j);
    if (rc == PORT_OK) return PORT_OK;
    const char *who = j >= 0 && w->m->slaves[j].info.name ? w->m->slaves[j].info.name : "a slave";
    return port_errorf(w->res->err, sizeof w->res->err, rc, "%s at t = %.9g s: %s: %s", what,
                       port_seconds(w->m->tick, t), who, port_strerror(rc));
}

/* A post that failed: collect (the slave's status names it), else report the post's code. */
static int posted(dc_work *w, int rc, const char *what, int64_t t)
{
    if (rc == PORT_OK) return PORT_OK;
    int st = sync_all(w, what, t);
    return st ? st
              : port_errorf(w->res->err, sizeof w->res->err, rc, "%s at t = %.9g s: %s", what,
                            port_seconds(w->m->tick, t), port_strerror(rc));
}

static int check(dc_work *w)
{
    const dc_config *c = w->cfg;
    const port_master *m = w->m;
    if (c->m < 0 || c->m > DC_MAX_ORDER || c->n < 0 || c->n > DC_MAX_ORDER)
        return port_errorf(w->res->err, sizeof w->res->err, PORT_EUSAGE,
                           "defect-control: orders m = %d, n = %d outside 0..%d", c->m, c->n,
                           DC_MAX_ORDER);
    if (!(c->h1 > 0) || !(m->tick > 0) || m->t_end <= m->t_start)
        return port_errorf(w->res->err, sizeof w->res->err, PORT_EUSAGE,
                           "defect-control: h1 must be > 0 and end after start");
    if (c->variable && !(c->tol > 0))
        return port_errorf(w->res->err, sizeof w->res->err, PORT_EUSAGE,
                           "defect-control: tol must be > 0 for a variable step");
    if (c->n_links && !c->links)
        return port_errorf(w->res->err, sizeof w->res->err, PORT_EUSAGE,
                           "defect-control: links missing");
    for (size_t l = 0; l < c->n_links; l++) {
        const port_link *k = &c->links[l];
        if (k->to >= w->S || k->from >= w->S || k->in >= m->slaves[k->to].info.n_in ||
            k->out >= m->slaves[k->from].info.n_out)
            return port_errorf(w->res->err, sizeof w->res->err, PORT_EUSAGE,
                               "defect-control: link %zu names no such slave, input "
                               "or output",
                               l);
        for (size_t q = 0; q < l; q++)
            if (c->links[q].to == k->to && c->links[q].in == k->in)
                return port_errorf(w->res->err, sizeof w->res->err, PORT_EUSAGE,
                                   "defect-control: input %zu of %s is fed twice", k->in,
                                   m->slaves[k->to].info.name);
    }
    for (size_t j = 0; j < w->S; j++)
        for (size_t i = 0; i < m->slaves[j].info.n_in; i++) {
            size_t l = 0;
            while (l < c->n_links && !(c->links[l].to == j && c->links[l].in == i))
                l++;
            if (l == c->n_links)
                return port_errorf(w->res->err, sizeof w->res->err, PORT_EUSAGE,
                                   "defect-control: input %zu of %s is not connected", i,
                                   m->slaves[j].info.name);
        }
    return PORT_OK;
}

static void work_free(dc_work *w)
{
    for (size_t j = 0; w->out && j < w->S; j++) {
        free(w->out[j]);
        free(w->out_def[j]);
        free(w->ysub[j]);
        free(w->uc[j]);
        free(w->hs_v[j]);
    }
    free(w->out);
    free(w->out_def);
    free(w->ysub);
    free(w->uc);
    free(w->hs_v);
    free(w->hs_t);
    free(w->hs_k);
    free(w->in_c);
    free(w->conn_def);
    free(w->sr);
}

static int work_alloc(dc_work *w)
{
    size_t S = w->S, L = w->L ? w->L : 1, wo = (size_t)w->w, K = DC_MAX_ORDER + 1;
    w->out = calloc(S, sizeof *w->out);
    w->out_def = calloc(S, sizeof *w->out_def);
    w->ysub = calloc(S, sizeof *w->ysub);
    w->uc = calloc(S, sizeof *w->uc);
    w->hs_v = calloc(S, sizeof *w->hs_v);
    w->hs_t = calloc(S * wo, sizeof *w->hs_t);
    w->hs_k = calloc(S, sizeof *w->hs_k);
    w->in_c = calloc(L * K, sizeof *w->in_c);
    w->conn_def = calloc(L, sizeof *w->conn_def);
    w->sr = calloc(S, sizeof *w->sr);
    if (!w->out || !w->out_def || !w->ysub || !w->uc || !w->hs_v || !w->hs_t || !w->hs_k ||
        !w->in_c || !w->conn_def || !w->sr)
        return PORT_ENOMEM;
    for (size_t j = 0; j < S; j++) {
        size_t no = w->m->slaves[j].info.n_out + 1, ni = w->m->slaves[j].info.n_in + 1;
        w->out[j] = calloc(no * wo, sizeof(double));
        w->out_def[j] = calloc(no, sizeof(double));
        w->ysub[j] = calloc(2 * no, sizeof(double));
        w->uc[j] = calloc(ni * K, sizeof(double));
        w->hs_v[j] = calloc(no * wo, sizeof(double));
        if (!w->out[j] || !w->out_def[j] || !w->ysub[j] || !w->uc[j] || !w->hs_v[j])
            return PORT_ENOMEM;
    }
    return PORT_OK;
}

/* Post slave j's inputs about t0 with `order`: each input takes the coefficients 0..min(order,
 * n) of its source's current output polynomial, zeros above (eq. 15); remembers them per link
 * when `keep` (the input polynomial of the step, for eq. 17). */
static int post_inputs(dc_work *w, size_t j, int64_t t0, int order, int keep)
{
    const port_slave *s = &w->m->slaves[j];
    size_t wi = (size_t)order + 1;
    int top = order < w->n ? order : w->n;
    for (size_t l = 0; l < w->L; l++) {
        const port_link *k = &w->cfg->links[l];
        if (k->to != j) continue;
        double *c = &w->uc[j][k->in * wi];
        const double *y = &w->out[k->from][k->out * (size_t)w->w];
        for (int d = 0; d <= order; d++)
            c[d] = d <= top ? y[d] : 0;
        if (keep) memcpy(&w->in_c[l * (DC_MAX_ORDER + 1)], c, wi * sizeof(double));
    }
    port_poly u = {.t0 = t0, .order = order, .n = s->info.n_in, .c = w->uc[j]};
    return port_set_inputs(s, &u);
}

/* Slave j's derivatives come from its own get_output_derivs when it offers order n. */
static int own_derivs(const dc_work *w, size_t j)
{
    return w->m->slaves[j].info.max_output_deriv >= w->n;
}

/* Post the reads of slave j's outputs (into out[j] coefficient 0 via ysub scratch) and, when
 * `derivs` and the slave offers them, of derivatives 1..n (into scratch hs of the call). */
static int post_reads(dc_work *w, size_t j, int derivs, double *dbuf)
{
    const port_slave *s = &w->m->slaves[j];
    int rc = port_get_outputs(s, w->ysub[j]);
    for (int d = 1; rc == PORT_OK && derivs && own_derivs(w, j) && d <= w->n; d++)
        rc = port_get_output_derivs(s, d, &dbuf[(size_t)(d - 1) * s->info.n_out]);
    return rc;
}

/* After post_reads and sync: fill out[j] at time t. Derivatives: the slave's (derivs and
 * own), else from past samples (derivs), else zero. `push` adds the sample to the history. */
static void take_reads(dc_work *w, size_t j, int64_t t, int derivs, const double *dbuf, int push)
{
    size_t no = w->m->slaves[j].info.n_out, wo = (size_t)w->w;
    int own = own_derivs(w, j);
    if (push) { /* history newest first */
        int k = w->hs_k[j] < w->w ? w->hs_k[j] : w->w - 1;
        if (w->hs_k[j] > 0 && w->hs_t[j * wo] == t)
            k = w->hs_k[j] - 1; /* same instant */
        else {
            for (int q = k; q > 0; q--) {
                w->hs_t[j * wo + (size_t)q] = w->hs_t[j * wo + (size_t)q - 1];
                for (size_t o = 0; o < no; o++)
                    w->hs_v[j][o * wo + (size_t)q] = w->hs_v[j][o * wo + (size_t)q - 1];
            }
        }
        w->hs_t[j * wo] = t;
        for (size_t o = 0; o < no; o++)
            w->hs_v[j][o * wo] = w->ysub[j][o];
        w->hs_k[j] = k + 1;
    }
    for (size_t o = 0; o < no; o++) {
        double *y = &w->out[j][o * wo];
        y[0] = w->ysub[j][o];
        for (int d = 1; d <= w->n; d++)
            y[d] = derivs && own ? dbuf[(size_t)(d - 1) * no + o] : 0;
        if (derivs && !own && w->hs_k[j] > 1) {
            double s[DC_MAX_ORDER + 1], v[DC_MAX_ORDER + 1], c[DC_MAX_ORDER + 1];
            int np = w->hs_k[j];
            for (int q = 0; q < np; q++) {
                s[q] = (double)(w->hs_t[j * wo + (size_t)q] - t) * w->m->tick;
                v[q] = w->hs_v[j][o * wo + (size_t)q];
            }
            if (dc_taylor_from_samples(s, v, np, c) == 0)
                for (int d = 1; d < np; d++)
                    y[d] = c[d];
        }
    }
}

/* Read every slave's outputs at t (and derivatives when `derivs`). */
static int read_all(dc_work *w, int64_t t, int derivs, int push, double *dbuf, size_t dstride)
{
    for (size_t j = 0; j < w->S; j++) {
        int rc = post_reads(w, j, derivs, &dbuf[j * dstride]);
        if (rc) return posted(w, rc, "reading outputs", t);
    }
    int rc = sync_all(w, "reading outputs", t);
    if (rc) return rc;
    for (size_t j = 0; j < w->S; j++)
        take_reads(w, j, t, derivs, &dbuf[j * dstride], push);
    return PORT_OK;
}

/* Initial outputs and, for DC_INIT_CONSISTENT, their derivatives (see the file comment). */
static int initial_outputs(dc_work *w, double *dbuf, size_t dstride)
{
    int64_t t = w->m->t_start;
    int consistent = w->cfg->init == DC_INIT_CONSISTENT;
    int order = consistent ? w->n : 0;
    size_t sweeps = (size_t)(w->n + 1) * w->S + 1;
    int rc = read_all(w, t, 0, 0, dbuf, dstride); /* values with the start inputs */
    for (size_t q = 0; rc == PORT_OK && q < sweeps; q++) {
        for (size_t j = 0; rc == PORT_OK && j < w->S; j++)
            rc = post_inputs(w, j, t, order, 0);
        rc = rc ? posted(w, rc, "initial inputs", t) : sync_all(w, "initial inputs", t);
        if (rc == PORT_OK) rc = read_all(w, t, consistent, 0, dbuf, dstride);
    }
    if (rc) return rc;
    for (size_t j = 0; j < w->S; j++)
        take_reads(w, j, t, consistent, &dbuf[j * dstride], 1);
    return PORT_OK;
}

/* A step in ticks, rounded to an even count when a mid sample is taken, so that the mid point
 * T_{k-1} + H/2 is a whole tick and eq. 30's sample lies exactly at -H/2 (else an Euler slave's
 * exact zero output defect would read as half a tick times the slope). */
static int64_t to_ticks(double s, double tick, int even)
{
    double v = s / tick;
    if (v >= 9.2e18) v = 9.2e18 / 4;
    int64_t t = even ? 2 * (int64_t)(v / 2 + 0.5) : (int64_t)(v + 0.5);
    int64_t least = even ? 2 : 1;
    return t < least ? least : t;
}

/* The state between steps (doc/checkpoint.md "Master methods"): "DCM1", the version, the
 * instant T_k, the steps taken k, the next step in ticks, the controller's integral part, the
 * result so far (N, T_N, h_min, h_max, eps_max), and per slave its output polynomials at T_k
 * and its past samples (the derivatives of a slave that offers fewer than n). Inputs, defects
 * and mid samples are computed again in the next step. */
#define DCM_MAGIC   0x314d4344u /* "DCM1" little-endian */
#define DCM_VERSION 1u

typedef struct dc_between {
    int64_t t;  /* T_k */
    int64_t k;  /* steps taken */
    int64_t ht; /* the next step, ticks */
    double I;   /* the controller's integral part */
} dc_between;

static int offer(dc_work *w, const dc_between *b)
{
    const port_master *m = w->m;
    if (!m->ckpt || !m->ckpt->offer) return PORT_OK;
    const dc_result *r = w->res;
    size_t wo = (size_t)w->w;
    pstate_buf o = {0};
    pstate_put_u32(&o, DCM_MAGIC);
    pstate_put_u32(&o, DCM_VERSION);
    pstate_put_i64(&o, b->t);
    pstate_put_i64(&o, b->k);
    pstate_put_i64(&o, b->ht);
    pstate_put_f64(&o, b->I);
    pstate_put_i64(&o, (int64_t)r->N);
    pstate_put_i64(&o, r->t_end);
    pstate_put_f64(&o, r->h_min);
    pstate_put_f64(&o, r->h_max);
    pstate_put_f64(&o, r->eps_max);
    pstate_put_u32(&o, (uint32_t)w->S);
    for (size_t j = 0; j < w->S; j++) {
        size_t no = m->slaves[j].info.n_out;
        pstate_put_u32(&o, (uint32_t)no);
        for (size_t q = 0; q < no * wo; q++) {
            pstate_put_f64(&o, w->out[j][q]);
            pstate_put_f64(&o, w->hs_v[j][q]);
        }
        for (size_t q = 0; q < wo; q++)
            pstate_put_i64(&o, w->hs_t[j * wo + q]);
        pstate_put_i64(&o, w->hs_k[j]);
    }
    int rc = o.bad ? PORT_ENOMEM : port_ckpt_offer(m, b->t, o.p, o.n);
    free(o.p);
    if (rc)
        return port_errorf(w->res->err, sizeof w->res->err, rc,
                           "defect-control: the state at %.9g s: %s", port_seconds(m->tick, b->t),
                           port_strerror(rc));
    return PORT_OK;
}

/* Take the state a resumed run starts from; bytes it did not write, for other slaves or
 * another order, are refused. */
static int resume(dc_work *w, dc_between *b)
{
    const port_master *m = w->m;
    dc_result *r = w->res;
    size_t wo = (size_t)w->w;
    pstate_rd d = {.p = m->ckpt->resume, .n = m->ckpt->n_resume};
    int ok = pstate_get_u32(&d) == DCM_MAGIC && pstate_get_u32(&d) == DCM_VERSION;
    b->t = pstate_get_i64(&d);
    b->k = pstate_get_i64(&d);
    b->ht = pstate_get_i64(&d);
    b->I = pstate_get_f64(&d);
    int64_t N = pstate_get_i64(&d);
    r->t_end = pstate_get_i64(&d);
    r->h_min = pstate_get_f64(&d);
    r->h_max = pstate_get_f64(&d);
    r->eps_max = pstate_get_f64(&d);
    ok = ok && b->k >= 0 && N == b->k && b->ht >= 1 && pstate_get_u32(&d) == w->S;
    r->N = ok ? (size_t)N : 0;
    for (size_t j = 0; ok && j < w->S; j++) {
        size_t no = m->slaves[j].info.n_out;
        ok = pstate_get_u32(&d) == no;
        for (size_t q = 0; ok && q < no * wo; q++) {
            w->out[j][q] = pstate_get_f64(&d);
            w->hs_v[j][q] = pstate_get_f64(&d);
        }
        for (size_t q = 0; ok && q < wo; q++)
            w->hs_t[j * wo + q] = pstate_get_i64(&d);
        int64_t hk = pstate_get_i64(&d);
        ok = ok && hk >= 0 && hk <= (int64_t)wo;
        w->hs_k[j] = ok ? (int)hk : 0;
    }
    if (!ok || d.bad || d.at != d.n)
        return port_errorf(r->err, sizeof r->err, PORT_EUSAGE,
                           "defect-control: the state to resume from is not one it wrote for "
                           "these slaves and this order (%zu bytes)",
                           m->ckpt->n_resume);
    if (b->t < m->t_start || b->t >= m->t_end)
        return port_errorf(r->err, sizeof r->err, PORT_EUSAGE,
                           "defect-control: the state to resume from is at %.9g s, outside the "
                           "run [%.9g, %.9g) s",
                           port_seconds(m->tick, b->t), port_seconds(m->tick, m->t_start),
                           port_seconds(m->tick, m->t_end));
    return PORT_OK;
}

/* The start instant T_0, opened and closed like every other (a distributed master's first
 * instant, doc/master.md): the initial outputs and their derivatives, and every slave's first
 * results row. */
static int start_instant(dc_work *w, double *dbuf, size_t dstride)
{
    const port_master *m = w->m;
    int rc = port_open(m, m->t_start);
    if (rc)
        return port_errorf(w->res->err, sizeof w->res->err, rc, "opening the start instant: %s",
                           port_strerror(rc));
    rc = initial_outputs(w, dbuf, dstride);
    for (size_t j = 0; rc == PORT_OK && j < w->S; j++) {
        rc = port_record(&m->slaves[j]);
        if (rc) return posted(w, rc, "record", m->t_start);
    }
    if (rc == PORT_OK) rc = sync_all(w, "record", m->t_start);
    if (rc == PORT_OK) {
        const dc_config *c = w->cfg;
        dc_between b = {m->t_start, 0, to_ticks(c->h1, m->tick, c->defect != DC_DEFECT_CONNECTION),
                        c->variable ? log(c->h1) : 0};
        rc = offer(w, &b);
    }
    if (rc == PORT_OK && (rc = port_close(m, m->t_start)))
        return port_errorf(w->res->err, sizeof w->res->err, rc, "closing the start instant: %s",
                           port_strerror(rc));
    return rc;
}

/* Step 2 of the file comment: the inputs of the step about t0. */
static int exchange(dc_work *w, int64_t t0, int first, double *dbuf, size_t dstride)
{
    int derivs = !(first && w->cfg->init == DC_INIT_ZERO);
    for (size_t j = 0; j < w->S; j++) {
        int rc = post_inputs(w, j, t0, w->m_in, 1);
        if (rc == PORT_OK && w->cfg->exchange == DC_EXCHANGE_SEQUENTIAL && j + 1 < w->S) {
            rc = post_reads(w, j, derivs && own_derivs(w, j), &dbuf[j * dstride]);
            rc = rc ? posted(w, rc, "exchanging inputs", t0) : sync_all(w, "exchanging inputs", t0);
            if (rc == PORT_OK) { /* the value and the slave's own derivatives, fresh */
                size_t no = w->m->slaves[j].info.n_out, wo = (size_t)w->w;
                for (size_t o = 0; o < no; o++) {
                    w->out[j][o * wo] = w->ysub[j][o];
                    for (int d = 1; derivs && own_derivs(w, j) && d <= w->n; d++)
                        w->out[j][o * wo + (size_t)d] =
                            dbuf[j * dstride + (size_t)(d - 1) * no + o];
                }
            }
        }
        if (rc) return w->res->err[0] ? rc : posted(w, rc, "exchanging inputs", t0);
    }
    return sync_all(w, "exchanging inputs", t0);
}

/* Steps 3-5 of the file comment for the step [t0, t1]; fills the defects, returns eps. */
static int one_step(dc_work *w, int64_t t0, int64_t t1, double H, double *dbuf, size_t dstride,
                    double *eps_out, double *eps_conn)
{
    int mid = w->cfg->defect != DC_DEFECT_CONNECTION;
    for (size_t j = 0; j < w->S; j++) {
        const port_slave *s = &w->m->slaves[j];
        int rc = port_step(s, t1, mid ? 2 : 1, w->ysub[j], &w->sr[j]);
        if (rc) return posted(w, rc, "step", t0);
    }
    int rc = sync_all(w, "step", t0);
    if (rc == PORT_OK)
        for (size_t j = 0; j < w->S; j++)
            if (w->sr[j].t_reached != t1)
                return port_errorf(w->res->err, sizeof w->res->err, PORT_EFAIL,
                                   "step to %.9g s: %s stopped early at %.9g s (defect "
                                   "control has no events)",
                                   port_seconds(w->m->tick, t1), w->m->slaves[j].info.name,
                                   (double)w->sr[j].t_reached * w->m->tick);
    if (rc) return rc;
    /* mid samples: the first half's outputs, kept before ysub is reused by the reads */
    for (size_t j = 0; j < w->S; j++) {
        size_t no = w->m->slaves[j].info.n_out;
        for (size_t o = 0; o < no; o++)
            w->out_def[j][o] = w->ysub[j][o];
    }
    rc = read_all(w, t1, 1, 1, dbuf, dstride);
    if (rc) return rc;
    *eps_out = 0;
    *eps_conn = 0;
    for (size_t j = 0; j < w->S; j++)
        for (size_t o = 0; o < w->m->slaves[j].info.n_out; o++) {
            double ymid = w->out_def[j][o];
            w->out_def[j][o] =
                mid ? dc_output_defect_rms(&w->out[j][o * (size_t)w->w], w->n, ymid, H) : NAN;
            if (mid && !(w->out_def[j][o] <= *eps_out)) *eps_out = w->out_def[j][o];
        }
    for (size_t l = 0; l < w->L; l++) {
        const port_link *k = &w->cfg->links[l];
        w->conn_def[l] = dc_connection_defect_rms(&w->in_c[l * (DC_MAX_ORDER + 1)], w->m_in,
                                                  &w->out[k->from][k->out * (size_t)w->w], w->n, H);
        if (!(w->conn_def[l] <= *eps_conn)) *eps_conn = w->conn_def[l];
    }
    if (!isfinite(*eps_out) || !isfinite(*eps_conn))
        return port_errorf(w->res->err, sizeof w->res->err, PORT_EFAIL,
                           "step to %.9g s: a defect is not finite (a slave's outputs "
                           "are NaN or infinite)",
                           port_seconds(w->m->tick, t1));
    return PORT_OK;
}

/* Steps 1-6 for every k: the loop of Algorithm 1; from the start instant, or from the state
 * of a resumed run (b not NULL). */
static int loop(dc_work *w, dc_observer *obs, void *obs_ctx, double *dbuf, size_t dstride,
                const dc_between *b)
{
    const port_master *m = w->m;
    const dc_config *c = w->cfg;
    dc_pi pi;
    if (c->variable &&
        dc_pi_init(&pi, c->tol, c->h1, c->kp, c->ki, c->theta_max, c->h_min, c->h_max))
        return port_errorf(w->res->err, sizeof w->res->err, PORT_EUSAGE,
                           "defect-control: bad controller settings (tol, h1, h_min, "
                           "h_max)");
    int even = c->defect != DC_DEFECT_CONNECTION;
    int64_t t0 = m->t_start, ht = to_ticks(c->h1, m->tick, even);
    size_t k0 = 1;
    if (b) {
        t0 = b->t, ht = b->ht, k0 = (size_t)b->k + 1;
        if (c->variable) pi.I = b->I;
    }
    dc_result *r = w->res;
    for (size_t k = k0;; k++) {
        if (c->clip_end && port_tick_add(t0, ht) > m->t_end) ht = m->t_end - t0;
        int64_t t1 = port_tick_add(t0, ht);
        double H = (double)(t1 - t0) * m->tick, eo = 0, ec = 0;
        int rc = port_open(m, t1);
        if (rc)
            return port_errorf(w->res->err, sizeof w->res->err, rc,
                               "opening the instant %.9g s: %s", port_seconds(m->tick, t1),
                               port_strerror(rc));
        rc = exchange(w, t0, k == 1, dbuf, dstride);
        if (rc == PORT_OK) rc = one_step(w, t0, t1, H, dbuf, dstride, &eo, &ec);
        if (rc) return rc;
        double eps = c->defect == DC_DEFECT_OUTPUT       ? eo
                     : c->defect == DC_DEFECT_CONNECTION ? ec
                                                         : (eo > ec ? eo : ec);
        int last = t1 >= m->t_end;
        double Hn = last ? 0 : c->variable ? dc_pi_next(&pi, H, eps) : c->h1;
        r->N = k;
        r->t_end = t1;
        if (k == 1 || H < r->h_min) r->h_min = H;
        if (k == 1 || H > r->h_max) r->h_max = H;
        if (eps > r->eps_max) r->eps_max = eps;
        if (obs) {
            dc_step_info si = {.k = k,
                               .t0 = t0,
                               .t1 = t1,
                               .H = H,
                               .eps = eps,
                               .eps_out = eo,
                               .eps_conn = ec,
                               .H_next = Hn,
                               .n = w->n,
                               .out_poly = (const double *const *)w->out,
                               .out_def = (const double *const *)w->out_def,
                               .m = w->m_in,
                               .in_poly = w->in_c,
                               .conn_def = w->conn_def};
            if (obs(obs_ctx, &si))
                return port_errorf(w->res->err, sizeof w->res->err, PORT_ENOCONV,
                                   "stopped by the observer");
        }
        for (size_t j = 0; j < w->S; j++) {
            rc = port_record(&m->slaves[j]);
            if (rc) return posted(w, rc, "record", t1);
        }
        rc = sync_all(w, "record", t1);
        /* noted before the close, so that a save made in the close (doc/checkpoint.md
         * "Master methods") holds the instant's notes and a resumed run has them once */
        if (rc == PORT_OK && m->ops->note) {
            m->ops->note(m->ctx, "defect", eps);
            if (!last) m->ops->note(m->ctx, "next_step", Hn);
        }
        if (rc == PORT_OK && !last) { /* the state once t1 closes: the next step decided */
            int64_t hn = c->variable && Hn > 0 && isfinite(Hn) ? to_ticks(Hn, m->tick, even) : ht;
            dc_between nb = {t1, (int64_t)k, hn, c->variable ? pi.I : 0};
            rc = offer(w, &nb);
        }
        if (rc == PORT_OK) rc = port_close(m, t1);
        if (rc)
            return w->res->err[0] ? rc
                                  : port_errorf(w->res->err, sizeof w->res->err, rc,
                                                "closing %.9g s", port_seconds(m->tick, t1));
        if (last) break;
        if (!(Hn > 0) || !isfinite(Hn))
            return port_errorf(w->res->err, sizeof w->res->err, PORT_EFAIL,
                               "the controller chose a step of %g s", Hn);
        /* with the stride kept in ticks the fixed grid is exact: T_k = T_0 + k * h1 */
        ht = c->variable ? to_ticks(Hn, m->tick, even) : ht;
        t0 = t1;
    }
    r->h_mean = (double)(r->t_end - m->t_start) * m->tick / (double)r->N;
    return PORT_OK;
}

int dc_run(const port_master *m, const dc_config *cfg, dc_observer *obs, void *obs_ctx,
           dc_result *res)
{
    if (!res) return PORT_EUSAGE;
    memset(res, 0, sizeof *res);
    if (!m || !cfg || !m->ops || (m->n_slaves && !m->slaves)) {
        snprintf(res->err, sizeof res->err, "defect-control: NULL master or settings");
        return PORT_EUSAGE;
    }
    dc_work w = {.m = m,
                 .cfg = cfg,
                 .S = m->n_slaves,
                 .L = cfg->n_links,
                 .n = cfg->n,
                 .m_in = cfg->m,
                 .w = cfg->n + 1,
                 .res = res};
    int rc = check(&w);
    if (rc) return rc;
    size_t dstride = 0; /* derivative scratch: per slave n * n_out */
    for (size_t j = 0; j < w.S; j++) {
        size_t d = (size_t)(w.n ? w.n : 1) * (m->slaves[j].info.n_out + 1);
        if (d > dstride) dstride = d;
    }
    double *dbuf = calloc((w.S ? w.S : 1) * dstride, sizeof(double));
    rc = dbuf ? work_alloc(&w) : PORT_ENOMEM;
    dc_between b = {0};
    int resumed = m->ckpt && m->ckpt->resume;
    if (rc == PORT_OK && resumed) rc = resume(&w, &b); /* after the saved instant */
    if (rc == PORT_OK && !resumed) rc = start_instant(&w, dbuf, dstride);
    if (rc == PORT_OK) rc = loop(&w, obs, obs_ctx, dbuf, dstride, resumed ? &b : NULL);
    if (rc == PORT_ENOMEM && !res->err[0])
        snprintf(res->err, sizeof res->err, "defect-control: out of memory");
    work_free(&w);
    free(dbuf);
    return rc;
}
