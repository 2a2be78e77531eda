/* F3ORNITS, synchronous, over the port (algorithms/f3ornits_master.h;
 * doc/algorithms/f3ornits.md). One step from T with step H:
 *
 *   1. port_open(T + H)
 *   2. each output's polynomial about T (eqs. 21-23): its order p (the order function's choice
 *      after the previous step, 0 on the first: start-up hold), reduced to what the history
 *      holds; Omega^(p) through the newest p + 1 outputs, or Gamma^(p) through the newest and
 *      least squares on p + 1 older ones; each input gets its source's polynomial (degree 2 at
 *      the port, zeros above p)
 *   3. every slave steps to T + H; outputs read at T + H
 *   4. per output: eps = |y(T + H) - polynomial(T + H)| (the coupling error of the step), the
 *      new sample into the history, the order function (18-20), the band (36), eps~ (33-35),
 *      rho_j = safety (1/eps~)^(1/(p+1)) (32)
 *   5. rho = clip(min_j rho_j) (37); H <- rho H within [dt_init, dt_max] (dt_init is also the
 *      smallest step, as in the paper's tests); the last step ends at t_end
 * No step is rejected or repeated. */
#include "algorithms/f3ornits_master.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HIST (F3_PBAR + 2) /* samples kept per output: CLS of degree 2 needs 4 */

typedef struct f3_out {
    double t[HIST], y[HIST]; /* history, newest last; t in s */
    int nh;
    int order;             /* for the next step */
    int used;              /* order of the polynomial on the current step */
    double c[F3_PBAR + 1]; /* that polynomial about T */
    f3_band band;
} f3_out;

typedef struct f3_work {
    const port_master *m;
    const f3_config *cfg;
    size_t S;
    f3_out **o;  /* per slave, per output */
    double **y;  /* per slave: outputs */
    int **ord;   /* per slave: orders used, for the observer */
    double **uc; /* per slave: n_in * (F3_PBAR + 1) input coefficients */
    f3_result *res;
} f3_work;

static int sync_all(f3_work *w, const char *what, int64_t t)
{
    long j;
    int rc = port_sync_first(w->m, NULL, &j);
    if (rc == PORT_OK) return PORT_OK;
    const char *who = j >= 0 && w->m->slaves[j].info.name ? w->m->slaves[j].info.name : "a slave";
    return port_errorf(w->res->err, sizeof w->res->err, rc, "%s at t = %.9g s: %s: %s", what,
                       (double)t * w->m->tick, who, port_strerror(rc));
}

static int check(f3_work *w)
{
    const f3_config *c = w->cfg;
    if (c->order < -1 || c->order > F3_PBAR)
        return port_errorf(w->res->err, sizeof w->res->err, PORT_EUSAGE,
                           "f3ornits: order %d (want -1 or 0..%d)", c->order, F3_PBAR);
    if (!(c->dt_init > 0) || (c->dt_max > 0 && c->dt_max < c->dt_init))
        return port_errorf(w->res->err, sizeof w->res->err, PORT_EUSAGE,
                           "f3ornits: dt_init must be > 0 and <= dt_max");
    if (c->variable && (!(c->rtol > 0) || c->atol < 0 || !(c->rho_min > 0) ||
                        !(c->rho_max >= c->rho_min) || c->mu < 0))
        return port_errorf(w->res->err, sizeof w->res->err, PORT_EUSAGE,
                           "f3ornits: rtol > 0, atol >= 0, 0 < rho_min <= rho_max and "
                           "mu >= 0 are needed for a variable step");
    for (size_t l = 0; l < c->n_links; l++) {
        const dc_link *k = &c->links[l];
        if (k->to >= w->S || k->from >= w->S || k->in >= w->m->slaves[k->to].info.n_in ||
            k->out >= w->m->slaves[k->from].info.n_out)
            return port_errorf(w->res->err, sizeof w->res->err, PORT_EUSAGE,
                               "f3ornits: link %zu names no such slave, input or "
                               "output",
                               l);
    }
    for (size_t j = 0; j < w->S; j++)
        for (size_t i = 0; i < w->m->slaves[j].info.n_in; i++) {
            size_t l = 0, n = 0;
            for (; l < c->n_links; l++)
                n += c->links[l].to == j && c->links[l].in == i;
            if (n != 1)
                return port_errorf(w->res->err, sizeof w->res->err, PORT_EUSAGE,
                                   "f3ornits: input %zu of %s is fed %zu times "
                                   "(want 1)",
                                   i, w->m->slaves[j].info.name, n);
        }
    return PORT_OK;
}

/* The polynomial of output o about its newest sample (step 2 of the file comment). */
static void fit(const f3_config *c, f3_out *o)
{
    int p = o->order;
    double *t = o->t, *y = o->y;
    int nh = o->nh;
    if (c->fit == F3_FIT_CLS && p > nh - 2) p = nh - 2 > 0 ? nh - 2 : 0;
    if (p > nh - 1) p = nh - 1;
    memset(o->c, 0, sizeof o->c);
    int ok = -1;
    if (p > 0) /* CLS: p + 2 samples from nh - 2 - p; extrapolation: p + 1 from nh - 1 - p */
        ok = c->fit == F3_FIT_CLS ? f3_cls(&t[nh - 2 - p], &y[nh - 2 - p], p, o->c)
                                  : f3_extrap(&t[nh - 1 - p], &y[nh - 1 - p], p, t[nh - 1], o->c);
    if (ok != 0) { /* the hold (start-up, order 0, or a degenerate fit) */
        memset(o->c, 0, sizeof o->c);
        o->c[0] = y[nh - 1];
        p = 0;
    }
    o->used = p;
}

static void push(f3_out *o, double t, double y)
{
    if (o->nh == HIST) {
        memmove(o->t, o->t + 1, (HIST - 1) * sizeof o->t[0]);
        memmove(o->y, o->y + 1, (HIST - 1) * sizeof o->y[0]);
        o->nh--;
    }
    o->t[o->nh] = t;
    o->y[o->nh] = y;
    o->nh++;
}

static void work_free(f3_work *w)
{
    for (size_t j = 0; w->o && j < w->S; j++) {
        free(w->o[j]);
        free(w->y[j]);
        free(w->ord[j]);
        free(w->uc[j]);
    }
    free(w->o);
    free(w->y);
    free(w->ord);
    free(w->uc);
}

static int work_alloc(f3_work *w)
{
    w->o = calloc(w->S, sizeof *w->o);
    w->y = calloc(w->S, sizeof *w->y);
    w->ord = calloc(w->S, sizeof *w->ord);
    w->uc = calloc(w->S, sizeof *w->uc);
    if (!w->o || !w->y || !w->ord || !w->uc) return PORT_ENOMEM;
    for (size_t j = 0; j < w->S; j++) {
        size_t no = w->m->slaves[j].info.n_out + 1, ni = w->m->slaves[j].info.n_in + 1;
        w->o[j] = calloc(no, sizeof **w->o);
        w->y[j] = calloc(no, sizeof **w->y);
        w->ord[j] = calloc(no, sizeof **w->ord);
        w->uc[j] = calloc(ni * (F3_PBAR + 1), sizeof **w->uc);
        if (!w->o[j] || !w->y[j] || !w->ord[j] || !w->uc[j]) return PORT_ENOMEM;
    }
    return PORT_OK;
}

static int read_outputs(f3_work *w, int64_t t)
{
    for (size_t j = 0; j < w->S; j++) {
        const port_slave *s = &w->m->slaves[j];
        int rc = s->ops->get_outputs(s->ctx, w->y[j]);
        if (rc) {
            int st = sync_all(w, "reading outputs", t);
            return st ? st
                      : port_errorf(w->res->err, sizeof w->res->err, rc, "reading outputs: %s",
                                    port_strerror(rc));
        }
    }
    return sync_all(w, "reading outputs", t);
}

/* Steps 2-3: inputs about t0, every slave to t1, outputs at t1. */
static int advance(f3_work *w, int64_t t0, int64_t t1)
{
    const f3_config *c = w->cfg;
    for (size_t l = 0; l < c->n_links; l++) {
        const dc_link *k = &c->links[l];
        memcpy(&w->uc[k->to][k->in * (F3_PBAR + 1)], w->o[k->from][k->out].c,
               (F3_PBAR + 1) * sizeof(double));
    }
    for (size_t j = 0; j < w->S; j++) {
        const port_slave *s = &w->m->slaves[j];
        port_poly u = {.t0 = t0, .order = F3_PBAR, .n = s->info.n_in, .c = w->uc[j]};
        int rc = s->info.n_in ? s->ops->set_inputs(s->ctx, &u) : PORT_OK;
        port_step_result r;
        if (rc == PORT_OK) rc = s->ops->step(s->ctx, t1, 1, NULL, &r);
        if (rc) {
            int st = sync_all(w, "step", t0);
            return st ? st
                      : port_errorf(w->res->err, sizeof w->res->err, rc, "step: %s",
                                    port_strerror(rc));
        }
    }
    int rc = sync_all(w, "step", t0);
    return rc ? rc : read_outputs(w, t1);
}

/* Steps 4-5: the new samples, orders and the ratio of the next step. */
static double learn(f3_work *w, double H, double t1s)
{
    const f3_config *c = w->cfg;
    double rho = INFINITY;
    for (size_t j = 0; j < w->S; j++)
        for (size_t q = 0; q < w->m->slaves[j].info.n_out; q++) {
            f3_out *o = &w->o[j][q];
            double y = w->y[j][q], eps = fabs(y - dc_poly_eval(o->c, F3_PBAR, H));
            w->ord[j][q] = o->used;
            push(o, t1s, y);
            o->order = c->order >= 0 ? c->order : f3_order(o->t, o->y, o->nh, F3_PBAR, 1e-9, NULL);
            f3_band_update(&o->band, y, H, c->norm == F3_NORM_DAMPED ? c->mu : 0);
            double en = f3_normalise(c->norm, eps, y, &o->band, c->rtol, c->atol);
            double r = f3_ratio(en, o->used, c->safety > 0 ? c->safety : 1);
            if (r < rho) rho = r;
        }
    return f3_clip(rho, c->rho_min, c->rho_max);
}

int f3_run(const port_master *m, const f3_config *cfg, f3_observer *obs, void *obs_ctx,
           f3_result *res)
{
    if (!res) return PORT_EUSAGE;
    memset(res, 0, sizeof *res);
    if (!m || !cfg || !(m->tick > 0) || m->t_end <= m->t_start) {
        snprintf(res->err, sizeof res->err, "f3ornits: bad master or settings");
        return PORT_EUSAGE;
    }
    f3_work w = {.m = m, .cfg = cfg, .S = m->n_slaves, .res = res};
    int rc = check(&w);
    if (rc == PORT_OK) rc = work_alloc(&w);
    if (rc == PORT_ENOMEM)
        port_errorf(w.res->err, sizeof w.res->err, rc, "f3ornits: out of memory");
    int64_t t0 = m->t_start;
    if (rc == PORT_OK) rc = read_outputs(&w, t0);
    for (size_t j = 0; rc == PORT_OK && j < w.S; j++)
        for (size_t q = 0; q < m->slaves[j].info.n_out; q++) {
            f3_out *o = &w.o[j][q];
            push(o, (double)t0 * m->tick, w.y[j][q]);
            f3_band_update(&o->band, w.y[j][q], 0, 0);
        }
    double H = cfg->dt_init;
    for (size_t k = 1; rc == PORT_OK && t0 < m->t_end; k++) {
        int64_t ht = (int64_t)(H / m->tick + 0.5);
        if (ht < 1) ht = 1;
        int64_t t1 = port_tick_add(t0, ht);
        if (t1 > m->t_end) t1 = m->t_end;
        double Hs = (double)(t1 - t0) * m->tick;
        for (size_t j = 0; j < w.S; j++)
            for (size_t q = 0; q < m->slaves[j].info.n_out; q++)
                fit(cfg, &w.o[j][q]);
        if ((rc = port_open(m, t1))) break;
        if ((rc = advance(&w, t0, t1))) break;
        double rho = learn(&w, Hs, (double)t1 * m->tick);
        if (!cfg->variable) rho = 1;
        res->N = k;
        if (k == 1 || Hs < res->h_min) res->h_min = Hs;
        if (k == 1 || Hs > res->h_max) res->h_max = Hs;
        if (obs) {
            f3_step_info si = {.k = k,
                               .t0 = t0,
                               .t1 = t1,
                               .H = Hs,
                               .y = (const double *const *)w.y,
                               .order = (const int *const *)w.ord,
                               .rho = rho};
            if (obs(obs_ctx, &si)) {
                rc = port_errorf(w.res->err, sizeof w.res->err, PORT_ENOCONV,
                                 "stopped by the observer");
                break;
            }
        }
        if ((rc = port_close(m, t1))) break;
        if (m->ops->note) m->ops->note(m->ctx, "step_ratio", rho);
        /* the ratio applies to the step just taken (not to a shortened last one) */
        H = cfg->variable ? rho * H : cfg->dt_init;
        if (H < cfg->dt_init) H = cfg->dt_init;
        if (cfg->dt_max > 0 && H > cfg->dt_max) H = cfg->dt_max;
        t0 = t1;
    }
    if (rc && !res->err[0])
        port_errorf(w.res->err, sizeof w.res->err, rc, "f3ornits: %s", port_strerror(rc));
    work_free(&w);
    return rc;
}
