/* F3ORNITS over the port (algorithms/f3ornits_master.h; doc/algorithms/f3ornits.md), event
 * driven. Every slave j has its own time t_j and next time next_j. The start instant T_0: read
 * every output, hold it (Remark 3: order 0 on the first step), schedule, post the inputs,
 * record. Then each instant T = the least next_j:
 *
 *   1. port_open(T); every slave due at T steps from t_j to T and its outputs are read
 *   2. per output of those: eps = |y(T) - the polynomial used on the step (T)| (the coupling
 *      error of the step), the new sample into the history, the order function (18-20), the
 *      band (36), eps~ (33-35), rho_jq = safety (1/eps~)^(1/(p+1)) (32); rho_j = clip(min_q)
 *      (37); the output's polynomial about T for the steps to come (eqs. 21-23): Omega^(p)
 *      through the newest p + 1 samples or Gamma^(p) through the newest and least squares on
 *      p + 1 older ones
 *   3. the scheduler (eq. 40, ours; the paper gives no rule): an imposed step Delta_j gives
 *      next_j = T + Delta_j; else t^_j = T + rho_j (T - t_j^prev) (38) within [dt_init, dt_max],
 *      bounded by the next time of each variable-step provider (a receiver does not run past
 *      the horizon its provider planned, Fig. 6), never below T + dt_init; at most t_end
 *   4. inputs of the next step about T (eqs. 24-25): each provider's newest polynomial, whose
 *      sample time is <= T since every instant before T is done (that is m*); with smoothing,
 *      after the first step, the Hermite cubic from the previous input's value and slope at T
 *      to this polynomial's value and slope at next_j (26-28)
 *   5. record the slaves due at T; the observer; port_close(T)
 *
 * When every slave is variable and each feeds the others, all share one next time: the
 * synchronous scheme. No step is rejected or repeated. */
#include "algorithms/f3ornits_master.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/pstate.h"

#define HIST (F3_PBAR + 2) /* samples kept per output: CLS of degree 2 needs 4 */

#define UW (F3_PBAR + 2) /* input coefficients per input: degree 3 with smoothing */

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
    f3_out **o;   /* per slave, per output */
    double **y;   /* per slave: outputs */
    int **ord;    /* per slave: orders used, for the observer */
    double **uc;  /* per slave: n_in * UW input coefficients of its current step, about t_j */
    int64_t *t;   /* per slave: its time, ticks */
    int64_t *tp;  /* per slave: its previous time, ticks */
    int64_t *nx;  /* per slave: its next time, ticks */
    int64_t *imp; /* per slave: imposed step, ticks; 0: variable */
    double *rho;  /* per slave: ratio of its last step */
    int *due;     /* per slave: 1 when due at the current instant */
    int64_t *bd;  /* per slave: scratch of the scheduler */
    f3_result *res;
} f3_work;

static int sync_all(f3_work *w, const char *what, int64_t t)
{
    long j;
    int rc = port_sync_first(w->m, NULL, &j);
    if (rc == PORT_OK) return PORT_OK;
    const char *who = j >= 0 && w->m->slaves[j].info.name ? w->m->slaves[j].info.name : "a slave";
    return port_errorf(w->res->err, sizeof w->res->err, rc, "%s at t = %.9g s: %s: %s", what,
                       port_seconds(w->m->tick, t), who, port_strerror(rc));
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
    for (size_t j = 0; c->imposed && j < w->S; j++)
        if (!(c->imposed[j] >= 0) || !isfinite(c->imposed[j]))
            return port_errorf(w->res->err, sizeof w->res->err, PORT_EUSAGE,
                               "f3ornits: imposed step of %s: %g (want >= 0 s)",
                               w->m->slaves[j].info.name, c->imposed[j]);
    for (size_t l = 0; l < c->n_links; l++) {
        const port_link *k = &c->links[l];
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
    free(w->t);
    free(w->tp);
    free(w->nx);
    free(w->imp);
    free(w->rho);
    free(w->due);
    free(w->bd);
}

static int work_alloc(f3_work *w)
{
    w->o = calloc(w->S, sizeof *w->o);
    w->y = calloc(w->S, sizeof *w->y);
    w->ord = calloc(w->S, sizeof *w->ord);
    w->uc = calloc(w->S, sizeof *w->uc);
    size_t S1 = w->S + 1;
    w->t = calloc(S1, sizeof *w->t);
    w->tp = calloc(S1, sizeof *w->tp);
    w->nx = calloc(S1, sizeof *w->nx);
    w->imp = calloc(S1, sizeof *w->imp);
    w->rho = calloc(S1, sizeof *w->rho);
    w->due = calloc(S1, sizeof *w->due);
    w->bd = calloc(S1, sizeof *w->bd);
    if (!w->o || !w->y || !w->ord || !w->uc || !w->t || !w->tp || !w->nx || !w->imp || !w->rho ||
        !w->due || !w->bd)
        return PORT_ENOMEM;
    for (size_t j = 0; j < w->S; j++) {
        size_t no = w->m->slaves[j].info.n_out + 1, ni = w->m->slaves[j].info.n_in + 1;
        w->o[j] = calloc(no, sizeof **w->o);
        w->y[j] = calloc(no, sizeof **w->y);
        w->ord[j] = calloc(no, sizeof **w->ord);
        w->uc[j] = calloc(ni * UW, sizeof **w->uc);
        if (!w->o[j] || !w->y[j] || !w->ord[j] || !w->uc[j]) return PORT_ENOMEM;
    }
    return PORT_OK;
}

/* A step of s seconds in ticks, at least one. */
static int64_t ticks_of(double s, double tick)
{
    double v = s / tick + 0.5;
    if (v >= 9.2e18) return INT64_MAX / 4;
    return v < 1 ? 1 : (int64_t)v;
}

/* Complete what was posted; name the failing slave. */
static int posted(f3_work *w, int rc, const char *what, int64_t t)
{
    int st = sync_all(w, what, t);
    if (st || rc == PORT_OK) return st;
    return port_errorf(w->res->err, sizeof w->res->err, rc, "%s at t = %.9g s: %s", what,
                       port_seconds(w->m->tick, t), port_strerror(rc));
}

/* Step 1: the slaves due at T step there; their outputs are read. */
static int step_due(f3_work *w, int64_t T)
{
    for (size_t j = 0; j < w->S; j++) {
        if (!w->due[j]) continue;
        const port_slave *s = &w->m->slaves[j];
        /* No step result is asked for: over libtempo it is written when the reply arrives,
         * at the sync below, so a result buffer would have to outlive this loop. */
        int rc = port_step(s, T, 1, NULL, NULL);
        if (rc == PORT_OK) rc = port_get_outputs(s, w->y[j]);
        if (rc) return posted(w, rc, "step", T);
    }
    return sync_all(w, "step", T);
}

/* Step 2 for slave j at T (s: T in seconds; H: its step, s): returns rho_j. */
static double learn(f3_work *w, size_t j, double Ts, double H)
{
    const f3_config *c = w->cfg;
    double rho = INFINITY;
    for (size_t q = 0; q < w->m->slaves[j].info.n_out; q++) {
        f3_out *o = &w->o[j][q];
        double y = w->y[j][q], eps = fabs(y - dc_poly_eval(o->c, F3_PBAR, H));
        w->ord[j][q] = o->used;
        push(o, Ts, y);
        o->order = c->order >= 0 ? c->order : f3_order(o->t, o->y, o->nh, F3_PBAR, 1e-9, NULL);
        f3_band_update(&o->band, y, H, c->norm == F3_NORM_DAMPED ? c->mu : 0);
        double en = f3_normalise(c->norm, eps, y, &o->band, c->rtol, c->atol);
        double r = f3_ratio(en, o->used, c->safety > 0 ? c->safety : 1);
        if (r < rho) rho = r;
        fit(c, o);
    }
    /* no outputs: no error to measure (Remark 2): the largest ratio */
    return w->m->slaves[j].info.n_out ? f3_clip(rho, c->rho_min, c->rho_max) : c->rho_max;
}

/* Step 3 for every slave due at T: next times. */
static void schedule(f3_work *w, int64_t T, int first)
{
    const f3_config *c = w->cfg;
    const port_master *m = w->m;
    int64_t dmin = ticks_of(c->dt_init, m->tick);
    for (size_t j = 0; j < w->S; j++) { /* the time-stepper's wish (38) */
        if (!w->due[j]) continue;
        if (w->imp[j]) {
            w->nx[j] = port_tick_add(T, w->imp[j]);
            continue;
        }
        double H = first || !c->variable ? c->dt_init : w->rho[j] * (double)(T - w->t[j]) * m->tick;
        if (H < c->dt_init) H = c->dt_init;
        if (c->dt_max > 0 && H > c->dt_max) H = c->dt_max;
        w->nx[j] = port_tick_add(T, ticks_of(H, m->tick));
    }
    /* the correctness stage: not past a variable-step provider's next time; the wishes of
       the slaves due now are read before any is bounded, so the order does not matter */
    int64_t *bound = w->bd;
    for (size_t j = 0; j < w->S; j++) {
        if (!w->due[j] || w->imp[j]) continue;
        int64_t b = w->nx[j];
        for (size_t l = 0; l < c->n_links; l++) {
            const port_link *k = &c->links[l];
            if (k->to == j && k->from != j && !w->imp[k->from] && w->nx[k->from] < b)
                b = w->nx[k->from];
        }
        int64_t least = port_tick_add(T, dmin);
        bound[j] = b < least ? least : b;
    }
    for (size_t j = 0; j < w->S; j++) {
        if (!w->due[j]) continue;
        if (!w->imp[j]) w->nx[j] = bound[j];
        if (w->nx[j] > m->t_end) w->nx[j] = m->t_end;
    }
}

/* Step 4 for every slave due at T: its next step's inputs about T, posted. */
static int post_inputs(f3_work *w, int64_t T, int first)
{
    const f3_config *c = w->cfg;
    const port_master *m = w->m;
    double u[UW];
    for (size_t l = 0; l < c->n_links; l++) {
        const port_link *k = &c->links[l];
        if (!w->due[k->to]) continue;
        double *uc = &w->uc[k->to][k->in * UW];
        const f3_out *o = &w->o[k->from][k->out];
        memset(u, 0, sizeof u);
        /* the provider's polynomial is about its newest sample (<= T) */
        dc_poly_shift(o->c, F3_PBAR, port_seconds(m->tick, T) - o->t[o->nh - 1], u);
        if (c->smooth && !first && w->nx[k->to] > T) { /* (none after the last step) */
            /* left: the input of the step just taken, at T; right: u at the next time */
            double left[UW], right[UW], h = (double)(w->nx[k->to] - T) * m->tick;
            dc_poly_shift(uc, UW - 1, (double)(T - w->t[k->to]) * m->tick, left);
            dc_poly_shift(u, UW - 1, h, right);
            f3_hermite(0, left[0], left[1], h, right[0], right[1], u);
        }
        memcpy(uc, u, sizeof u);
    }
    for (size_t j = 0; j < w->S; j++) {
        const port_slave *s = &m->slaves[j];
        if (!w->due[j] || !s->info.n_in) continue;
        port_poly p = {.t0 = T, .order = c->smooth ? UW - 1 : F3_PBAR, .n = s->info.n_in};
        double *cc = w->uc[j];
        if (!c->smooth) { /* pack: the slave reads n_in * (order + 1) */
            for (size_t i = 1; i < s->info.n_in; i++)
                memmove(&cc[i * (F3_PBAR + 1)], &cc[i * UW], (F3_PBAR + 1) * sizeof(double));
        }
        p.c = cc;
        int rc = port_set_inputs(s, &p);
        if (!c->smooth) /* unpack again: uc keeps UW per input */
            for (size_t i = s->info.n_in; i-- > 1;) {
                memmove(&cc[i * UW], &cc[i * (F3_PBAR + 1)], (F3_PBAR + 1) * sizeof(double));
                cc[i * UW + F3_PBAR + 1] = 0;
            }
        if (rc) return posted(w, rc, "setting inputs", T);
    }
    return PORT_OK;
}

/* The state between instants (doc/checkpoint.md "Master methods"): "F3S1", the version, the
 * instant T, the result so far (N, steps, h_min, h_max), then per slave its time, previous and
 * next times (ticks), the ratio of its last step, its outputs, the orders used and its input
 * coefficients about its time (the left end of a smoothed next input), and per output the
 * sample history, the orders, the polynomial and the band (the step-size controller's
 * memory). The imposed steps come from the settings. */
#define F3_CK_MAGIC   0x31533346u /* "F3S1" little-endian */
#define F3_CK_VERSION 1u

static int offer_state(f3_work *w, int64_t T)
{
    const port_master *m = w->m;
    if (!m->ckpt || !m->ckpt->offer) return PORT_OK;
    pstate_buf b = {0};
    pstate_put_u32(&b, F3_CK_MAGIC);
    pstate_put_u32(&b, F3_CK_VERSION);
    pstate_put_i64(&b, T);
    pstate_put_i64(&b, (int64_t)w->res->N);
    pstate_put_i64(&b, (int64_t)w->res->steps);
    pstate_put_f64(&b, w->res->h_min);
    pstate_put_f64(&b, w->res->h_max);
    pstate_put_u32(&b, (uint32_t)w->S);
    for (size_t j = 0; j < w->S; j++) {
        const port_slave_info *in = &m->slaves[j].info;
        pstate_put_u32(&b, (uint32_t)in->n_out);
        pstate_put_u32(&b, (uint32_t)in->n_in);
        pstate_put_i64(&b, w->t[j]);
        pstate_put_i64(&b, w->tp[j]);
        pstate_put_i64(&b, w->nx[j]);
        pstate_put_f64(&b, w->rho[j]);
        for (size_t q = 0; q < in->n_out; q++) {
            const f3_out *o = &w->o[j][q];
            pstate_put_f64(&b, w->y[j][q]);
            pstate_put_i64(&b, w->ord[j][q]);
            pstate_put_i64(&b, o->nh);
            pstate_put_i64(&b, o->order);
            pstate_put_i64(&b, o->used);
            for (int h = 0; h < HIST; h++) {
                pstate_put_f64(&b, o->t[h]);
                pstate_put_f64(&b, o->y[h]);
            }
            for (int p = 0; p <= F3_PBAR; p++)
                pstate_put_f64(&b, o->c[p]);
            pstate_put_f64(&b, o->band.ymin);
            pstate_put_f64(&b, o->band.ymax);
            pstate_put_u8(&b, (uint8_t)(o->band.started ? 1 : 0));
        }
        for (size_t i = 0; i < in->n_in * UW; i++)
            pstate_put_f64(&b, w->uc[j][i]);
    }
    int rc = b.bad ? PORT_ENOMEM : port_ckpt_offer(m, T, b.p, b.n);
    free(b.p);
    if (rc)
        return port_errorf(w->res->err, sizeof w->res->err, rc, "f3ornits: the state at %.9g s: %s",
                           port_seconds(m->tick, T), port_strerror(rc));
    return PORT_OK;
}

/* A resumed run: the state of the saved instant T (*T); bytes it did not write are refused
 * before any command. */
static int resume_state(f3_work *w, int64_t *T)
{
    const port_master *m = w->m;
    pstate_rd r = {.p = m->ckpt->resume, .n = m->ckpt->n_resume};
    uint32_t magic = pstate_get_u32(&r), version = pstate_get_u32(&r);
    int64_t at = pstate_get_i64(&r), N = pstate_get_i64(&r), steps = pstate_get_i64(&r);
    double hmin = pstate_get_f64(&r), hmax = pstate_get_f64(&r);
    uint32_t S = pstate_get_u32(&r);
    int ok = !r.bad && magic == F3_CK_MAGIC && version == F3_CK_VERSION && S == w->S && N >= 0 &&
             steps >= 0;
    for (size_t j = 0; ok && j < w->S; j++) {
        const port_slave_info *in = &m->slaves[j].info;
        uint32_t no = pstate_get_u32(&r), ni = pstate_get_u32(&r);
        if (r.bad || no != in->n_out || ni != in->n_in) {
            ok = 0;
            break;
        }
        w->imp[j] =
            w->cfg->imposed && w->cfg->imposed[j] > 0 ? ticks_of(w->cfg->imposed[j], m->tick) : 0;
        w->t[j] = pstate_get_i64(&r);
        w->tp[j] = pstate_get_i64(&r);
        w->nx[j] = pstate_get_i64(&r);
        w->rho[j] = pstate_get_f64(&r);
        if (w->tp[j] > w->t[j] || w->t[j] > at || w->nx[j] < w->t[j]) r.bad = 1;
        for (size_t q = 0; q < in->n_out; q++) {
            f3_out *o = &w->o[j][q];
            w->y[j][q] = pstate_get_f64(&r);
            int64_t ord = pstate_get_i64(&r), nh = pstate_get_i64(&r);
            int64_t order = pstate_get_i64(&r), used = pstate_get_i64(&r);
            if (nh < 0 || nh > HIST || ord < 0 || ord > F3_PBAR || order < 0 || order > F3_PBAR ||
                used < 0 || used > F3_PBAR)
                r.bad = 1;
            w->ord[j][q] = (int)ord, o->nh = (int)nh, o->order = (int)order, o->used = (int)used;
            for (int h = 0; h < HIST; h++) {
                o->t[h] = pstate_get_f64(&r);
                o->y[h] = pstate_get_f64(&r);
            }
            for (int p = 0; p <= F3_PBAR; p++)
                o->c[p] = pstate_get_f64(&r);
            o->band.ymin = pstate_get_f64(&r);
            o->band.ymax = pstate_get_f64(&r);
            int started = pstate_get_u8(&r);
            if (started > 1) r.bad = 1;
            o->band.started = started;
        }
        for (size_t i = 0; i < in->n_in * UW; i++)
            w->uc[j][i] = pstate_get_f64(&r);
        ok = !r.bad;
    }
    if (!ok || r.bad || r.at != r.n)
        return port_errorf(w->res->err, sizeof w->res->err, PORT_EUSAGE,
                           "f3ornits: the state to resume from is not one it wrote for these "
                           "slaves (%zu bytes)",
                           m->ckpt->n_resume);
    if (at < m->t_start || at >= m->t_end)
        return port_errorf(w->res->err, sizeof w->res->err, PORT_EUSAGE,
                           "f3ornits: the state to resume from is at %.9g s, outside the run "
                           "[%.9g, %.9g) s",
                           port_seconds(m->tick, at), port_seconds(m->tick, m->t_start),
                           port_seconds(m->tick, m->t_end));
    w->res->N = (size_t)N;
    w->res->steps = (size_t)steps;
    w->res->h_min = hmin;
    w->res->h_max = hmax;
    *T = at;
    return PORT_OK;
}

/* Steps 4-5 and the instant's close; also the start instant (first). */
static int finish_instant(f3_work *w, int64_t T, int first, size_t k, int64_t Tprev,
                          f3_observer *obs, void *obs_ctx)
{
    const port_master *m = w->m;
    schedule(w, T, first);
    int rc = post_inputs(w, T, first);
    for (size_t j = 0; rc == PORT_OK && j < w->S; j++)
        if (w->due[j] && (rc = port_record(&m->slaves[j]))) return posted(w, rc, "record", T);
    if (rc == PORT_OK) rc = sync_all(w, "record", T);
    if (rc) return rc;
    double rho = 1;
    for (size_t j = 0; j < w->S; j++) {
        if (!w->due[j]) continue;
        w->tp[j] = w->t[j];
        w->t[j] = T;
        if (!first && !w->imp[j] && w->cfg->variable && w->rho[j] < rho) rho = w->rho[j];
    }
    if (obs && !first) {
        f3_step_info si = {.k = k,
                           .t0 = Tprev,
                           .t1 = T,
                           .H = (double)(T - Tprev) * m->tick,
                           .stepped = w->due,
                           .y = (const double *const *)w->y,
                           .order = (const int *const *)w->ord,
                           .u = (const double *const *)w->uc,
                           .next = w->nx,
                           .rho = rho};
        if (obs(obs_ctx, &si))
            return port_errorf(w->res->err, sizeof w->res->err, PORT_ENOCONV,
                               "stopped by the observer");
    }
    /* noted before the close, so that a save made in it holds the instant's notes */
    if (!first) port_note(m, "step_ratio", rho);
    if ((rc = offer_state(w, T))) return rc;
    if ((rc = port_close(m, T)))
        return port_errorf(w->res->err, sizeof w->res->err, rc, "closing %.9g s: %s",
                           port_seconds(m->tick, T), port_strerror(rc));
    return PORT_OK;
}

/* The start instant: outputs read and held (Remark 3), next times, inputs, rows. */
static int start(f3_work *w, f3_observer *obs, void *obs_ctx)
{
    const port_master *m = w->m;
    int64_t T = m->t_start;
    int rc = port_open(m, T);
    if (rc)
        return port_errorf(w->res->err, sizeof w->res->err, rc, "opening the start instant: %s",
                           port_strerror(rc));
    for (size_t j = 0; j < w->S; j++) {
        const port_slave *s = &m->slaves[j];
        w->due[j] = 1;
        w->t[j] = w->tp[j] = T;
        w->imp[j] =
            w->cfg->imposed && w->cfg->imposed[j] > 0 ? ticks_of(w->cfg->imposed[j], m->tick) : 0;
        if ((rc = port_get_outputs(s, w->y[j]))) return posted(w, rc, "reading outputs", T);
    }
    if ((rc = sync_all(w, "reading outputs", T))) return rc;
    for (size_t j = 0; j < w->S; j++)
        for (size_t q = 0; q < m->slaves[j].info.n_out; q++) {
            f3_out *o = &w->o[j][q];
            push(o, port_seconds(m->tick, T), w->y[j][q]);
            f3_band_update(&o->band, w->y[j][q], 0, 0);
            fit(w->cfg, o); /* order 0 with one sample: the hold */
        }
    return finish_instant(w, T, 1, 0, T, obs, obs_ctx);
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
    int64_t Tprev = m->t_start;
    if (rc == PORT_OK && m->ckpt && m->ckpt->resume) /* after the saved instant */
        rc = resume_state(&w, &Tprev);
    else if (rc == PORT_OK)
        rc = start(&w, obs, obs_ctx);
    for (size_t k = res->N + 1; rc == PORT_OK; k++) {
        int64_t T = INT64_MAX;
        for (size_t j = 0; j < w.S; j++)
            if (w.t[j] < m->t_end && w.nx[j] < T) T = w.nx[j];
        if (T == INT64_MAX) break;
        for (size_t j = 0; j < w.S; j++)
            w.due[j] = w.t[j] < m->t_end && w.nx[j] == T;
        if ((rc = port_open(m, T))) {
            port_errorf(w.res->err, sizeof w.res->err, rc, "opening %.9g s: %s",
                        port_seconds(m->tick, T), port_strerror(rc));
            break;
        }
        if ((rc = step_due(&w, T))) break;
        for (size_t j = 0; j < w.S; j++)
            if (w.due[j]) {
                double H = (double)(T - w.t[j]) * m->tick;
                w.rho[j] = learn(&w, j, port_seconds(m->tick, T), H);
                res->steps++;
            }
        double Hs = (double)(T - Tprev) * m->tick;
        res->N = k;
        if (k == 1 || Hs < res->h_min) res->h_min = Hs;
        if (k == 1 || Hs > res->h_max) res->h_max = Hs;
        if ((rc = finish_instant(&w, T, 0, k, Tprev, obs, obs_ctx))) break;
        Tprev = T;
    }
    if (rc && !res->err[0])
        port_errorf(w.res->err, sizeof w.res->err, rc, "f3ornits: %s", port_strerror(rc));
    work_free(&w);
    return rc;
}
