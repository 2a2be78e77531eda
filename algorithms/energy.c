/* Negotiated power exchange (algorithms/energy.h; Moshagen 2017, §4.1-4.2; doc/algorithms/
 * energy-balance.md). One macro step [T, T + H]:
 *   A. get_outputs of every slave (standard outputs at T);               exchange 1 at T
 *   B. set the standard inputs (value and slope about T), get_outputs:   exchange 2 at T
 *      the powers P_a, P_b now use up-to-date inputs;
 *   B'. (linear power) set the standard inputs moved along their slopes by H,
 *      get_outputs: P_a', P_b'; the agreed power's slope is                exchange 3 at T
 *      dP^_b = ((P_b' - P_b) - (P_a' - P_a)) / H, the paper's (P_b. - P_a.) / 2 for a
 *      boundary whose two views agree (doc/algorithms/energy-balance.md "The power's slope");
 *   C. P^_b = (P_b - P_a) / 2, P^_a = -P^_b                             eq. (21)
 *      held, linear with the slope of B', or (secant) linear through the previous agreed
 *      value, with the slope of B' on the first step;
 *   D. set the inputs (standard ones and the agreed power as polynomials about T), step.
 * The slave rebuilds its replaced input from P^ with its current state (eq. 22-23). */
#include "algorithms/energy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/pstate.h"

#define W (PORT_MAX_ORDER + 1) /* coefficients per input */

static int validate(const port_master *m, const energy_settings *set, char *err, size_t errlen)
{
    if (set->H <= 0 || set->p_order < ENERGY_P_HELD || set->p_order > ENERGY_P_SECANT)
        return port_errorf(err, errlen, PORT_EUSAGE,
                           "macro step must be > 0 and p_order 0 (held), 1 (linear) or 2 "
                           "(secant)");
    size_t need = 0;
    for (size_t j = 0; j < m->n_slaves; j++)
        need += m->slaves[j].info.n_in;
    if (need != 4 * set->n_links)
        return port_errorf(err, errlen, PORT_EUSAGE,
                           "%zu inputs but %zu links: every input must be "
                           "the standard or the power input of one link",
                           need, set->n_links);
    for (size_t k = 0; k < set->n_links; k++) {
        const energy_link *l = &set->links[k];
        if (l->a >= m->n_slaves || l->b >= m->n_slaves || l->a == l->b)
            return port_errorf(err, errlen, PORT_EUSAGE, "link %zu: slaves out of range or equal",
                               k);
        const port_slave_info *a = &m->slaves[l->a].info, *b = &m->slaves[l->b].info;
        if (l->a_out >= a->n_out || l->a_P >= a->n_out || l->b_out >= b->n_out ||
            l->b_P >= b->n_out || l->a_in >= a->n_in || l->a_pin >= a->n_in || l->b_in >= b->n_in ||
            l->b_pin >= b->n_in || l->a_in == l->a_pin || l->b_in == l->b_pin ||
            (l->a_slope >= 0 && (size_t)l->a_slope >= a->n_out) ||
            (l->b_slope >= 0 && (size_t)l->b_slope >= b->n_out) || (l->a_W < 0) != (l->b_W < 0) ||
            (l->a_W >= 0 && (size_t)l->a_W >= a->n_out) ||
            (l->b_W >= 0 && (size_t)l->b_W >= b->n_out))
            return port_errorf(err, errlen, PORT_EUSAGE, "link %zu (%s - %s): index out of range",
                               k, a->name, b->name);
    }
    return PORT_OK;
}

typedef struct work {
    double **y;    /* per slave: outputs */
    double **y2;   /* per slave: outputs of exchange B' (the inputs moved along their slopes) */
    double **coef; /* per slave: n_in * W Taylor coefficients */
    double *phat;  /* per link: agreed power into b at the last step */
    double *dphat; /* per link: the agreed power's slope from exchange B' */
    double *u0;    /* per link: the standard inputs' values at T (a, b) while B' moves them */
    double *bk;    /* per link (refeed): W_a, W_b at the last step, and the energy the powers
                      handed to a and b over it should have delivered: 4 numbers */
    int *status;
} work;

static void work_free(work *w, size_t n)
{
    for (size_t j = 0; j < n; j++) {
        if (w->y) free(w->y[j]);
        if (w->y2) free(w->y2[j]);
        if (w->coef) free(w->coef[j]);
    }
    free(w->y), free(w->y2), free(w->coef), free(w->phat), free(w->dphat), free(w->u0), free(w->bk),
        free(w->status);
}

static int work_new(work *w, const port_master *m, size_t n_links)
{
    memset(w, 0, sizeof *w);
    w->y = calloc(m->n_slaves, sizeof *w->y);
    w->y2 = calloc(m->n_slaves, sizeof *w->y2);
    w->coef = calloc(m->n_slaves, sizeof *w->coef);
    w->phat = calloc(n_links ? n_links : 1, sizeof *w->phat);
    w->dphat = calloc(n_links ? n_links : 1, sizeof *w->dphat);
    w->u0 = calloc(2 * (n_links ? n_links : 1), sizeof *w->u0);
    w->bk = calloc(4 * (n_links ? n_links : 1), sizeof *w->bk);
    w->status = calloc(m->n_slaves, sizeof *w->status);
    if (!w->y || !w->y2 || !w->coef || !w->phat || !w->dphat || !w->u0 || !w->bk || !w->status)
        return PORT_ENOMEM;
    for (size_t j = 0; j < m->n_slaves; j++) {
        w->y[j] = calloc(m->slaves[j].info.n_out + 1, sizeof(double));
        w->y2[j] = calloc(m->slaves[j].info.n_out + 1, sizeof(double));
        w->coef[j] = calloc((m->slaves[j].info.n_in + 1) * W, sizeof(double));
        if (!w->y[j] || !w->y2[j] || !w->coef[j]) return PORT_ENOMEM;
    }
    return PORT_OK;
}

/* Whether a side holding the energy E > 0 and fed p0 + slope t over [0, H] must be landed on
 * its zero in this step: p0 < 0 and either the polynomial that drains E exactly where it
 * vanishes would vanish within the step (t1 = -2 E / p0 <= H), or the given polynomial would
 * take more than E before it turns (E would go negative, which no state has). */
static int must_land(double E, double p0, double slope, double H)
{
    if (!(E > 0) || !(p0 < 0)) return 0;
    if (!isfinite(p0 * p0 / (2 * E))) return 0; /* E too small for a landing slope */
    if (-2 * E / p0 <= H) return 1;
    double t = slope > 0 ? -p0 / slope : H; /* where the power turns, or the step's end */
    if (t > H) t = H;
    return E + p0 * t + slope * t * t / 2 < 0;
}

static void set_coef(double *c, double v, double slope)
{
    memset(c, 0, W * sizeof *c);
    c[0] = v;
    c[1] = slope;
}

/* Post get_outputs to every slave and sync; name the first failure. */
static int exchange(const port_master *m, work *w, energy_stats *st, const char *what, char *err,
                    size_t errlen)
{
    for (size_t j = 0; j < m->n_slaves; j++) {
        port_get_outputs(&m->slaves[j], w->y[j]);
        st->operations++;
    }
    st->exchanges++;
    int rc = port_sync(m, w->status);
    if (rc < 0)
        for (size_t j = 0; j < m->n_slaves; j++)
            if (w->status[j] < 0)
                return port_errorf(err, errlen, rc, "%s: slave %s: %s", what,
                                   m->slaves[j].info.name, port_strerror(w->status[j]));
    return rc < 0 ? rc : PORT_OK;
}

static void post_inputs(const port_master *m, work *w, int64_t T, energy_stats *st)
{
    for (size_t j = 0; j < m->n_slaves; j++) {
        const port_slave *s = &m->slaves[j];
        port_poly u = {.t0 = T, .order = PORT_MAX_ORDER, .n = s->info.n_in, .c = w->coef[j]};
        port_set_inputs(s, &u);
        st->operations++;
    }
}

/* Move every link's standard inputs along their slopes by H (their value at T is then the
 * extrapolation to T + H), keeping the values they had; shift_back puts those back bit for
 * bit (adding -H u' again would round: u + H u' - H u' need not be u). */
static void shift_inputs(const energy_settings *set, work *w, double H)
{
    for (size_t k = 0; k < set->n_links; k++) {
        const energy_link *l = &set->links[k];
        double *ca = &w->coef[l->a][l->a_in * W], *cb = &w->coef[l->b][l->b_in * W];
        w->u0[2 * k] = ca[0], w->u0[2 * k + 1] = cb[0];
        ca[0] += H * ca[1];
        cb[0] += H * cb[1];
    }
}

static void shift_back(const energy_settings *set, work *w)
{
    for (size_t k = 0; k < set->n_links; k++) {
        const energy_link *l = &set->links[k];
        w->coef[l->a][l->a_in * W] = w->u0[2 * k];
        w->coef[l->b][l->b_in * W] = w->u0[2 * k + 1];
    }
}

/* Exchange B': the slope of every link's agreed power at T. Each side's power is asked again
 * with its standard input moved to its extrapolation at T + H (into w->y2: the outputs of
 * exchange B stay in w->y), and the differences give the slope (doc/algorithms/
 * energy-balance.md "The power's slope"). */
static int power_slopes(const port_master *m, const energy_settings *set, work *w, int64_t T,
                        double H, energy_stats *st, char *err, size_t errlen)
{
    shift_inputs(set, w, H);
    post_inputs(m, w, T, st);
    double **y = w->y;
    w->y = w->y2;
    int rc = exchange(m, w, st, "power slopes", err, errlen);
    w->y = y;
    shift_back(set, w);
    if (rc) return rc;
    for (size_t k = 0; k < set->n_links; k++) {
        const energy_link *l = &set->links[k];
        w->dphat[k] = ((w->y2[l->b][l->b_P] - w->y[l->b][l->b_P]) -
                       (w->y2[l->a][l->a_P] - w->y[l->a][l->a_P])) /
                      H;
    }
    return PORT_OK;
}

/* The state between steps (doc/checkpoint.md "Master methods"): "ENB1", the version, the
 * instant, whether no step was taken yet, the last step's length, the counts, and per link the
 * last agreed power and the refeed's book (4 numbers). The rest is computed again each step. */
#define ENB_MAGIC   0x31424e45u /* "ENB1" little-endian */
#define ENB_VERSION 1u

typedef struct between {
    int64_t T;
    int first;
    double H_prev;
} between;

static int offer(const port_master *m, const energy_settings *set, const work *w, const between *b,
                 const energy_stats *st, char *err, size_t errlen)
{
    if (!m->ckpt || !m->ckpt->offer) return PORT_OK;
    pstate_buf o = {0};
    pstate_put_u32(&o, ENB_MAGIC);
    pstate_put_u32(&o, ENB_VERSION);
    pstate_put_i64(&o, b->T);
    pstate_put_u8(&o, (uint8_t)(b->first != 0));
    pstate_put_f64(&o, b->H_prev);
    pstate_put_i64(&o, st->steps);
    pstate_put_i64(&o, st->exchanges);
    pstate_put_i64(&o, st->operations);
    pstate_put_f64(&o, st->missed);
    pstate_put_i64(&o, st->landings);
    pstate_put_u32(&o, (uint32_t)set->n_links);
    for (size_t k = 0; k < set->n_links; k++) {
        pstate_put_f64(&o, w->phat[k]);
        for (int q = 0; q < 4; q++)
            pstate_put_f64(&o, w->bk[4 * k + (size_t)q]);
    }
    int rc = o.bad ? PORT_ENOMEM : port_ckpt_offer(m, b->T, o.p, o.n);
    free(o.p);
    if (rc)
        return port_errorf(err, errlen, rc, "the state at %.9g s: %s", port_seconds(m->tick, b->T),
                           port_strerror(rc));
    return PORT_OK;
}

/* Take the state a resumed run starts from; bytes it did not write, or for another number of
 * links, are refused. */
static int resume(const port_master *m, const energy_settings *set, work *w, between *b,
                  energy_stats *st, char *err, size_t errlen)
{
    pstate_rd r = {.p = m->ckpt->resume, .n = m->ckpt->n_resume};
    int ok = pstate_get_u32(&r) == ENB_MAGIC && pstate_get_u32(&r) == ENB_VERSION;
    b->T = pstate_get_i64(&r);
    b->first = pstate_get_u8(&r);
    b->H_prev = pstate_get_f64(&r);
    st->steps = (long)pstate_get_i64(&r);
    st->exchanges = (long)pstate_get_i64(&r);
    st->operations = (long)pstate_get_i64(&r);
    st->missed = pstate_get_f64(&r);
    st->landings = (long)pstate_get_i64(&r);
    ok = ok && b->first <= 1 && st->steps >= 0 && st->exchanges >= 0 && st->operations >= 0 &&
         st->landings >= 0 && pstate_get_u32(&r) == set->n_links;
    for (size_t k = 0; ok && k < set->n_links; k++) {
        w->phat[k] = pstate_get_f64(&r);
        for (int q = 0; q < 4; q++)
            w->bk[4 * k + (size_t)q] = pstate_get_f64(&r);
    }
    if (!ok || r.bad || r.at != r.n)
        return port_errorf(err, errlen, PORT_EUSAGE,
                           "the state to resume from is not one this master wrote for these "
                           "links (%zu bytes)",
                           m->ckpt->n_resume);
    if (b->T < m->t_start || b->T >= m->t_end)
        return port_errorf(err, errlen, PORT_EUSAGE,
                           "the state to resume from is at %.9g s, outside the run [%.9g, "
                           "%.9g) s",
                           port_seconds(m->tick, b->T), port_seconds(m->tick, m->t_start),
                           port_seconds(m->tick, m->t_end));
    return PORT_OK;
}

int energy_run(const port_master *m, const energy_settings *set, energy_stats *st, char *err,
               size_t errlen)
{
    energy_stats local = {0, 0, 0, 0, 0};
    if (!st) st = &local;
    *st = local;
    int rc = validate(m, set, err, errlen);
    if (rc) return rc;
    work w;
    if ((rc = work_new(&w, m, set->n_links))) {
        work_free(&w, m->n_slaves);
        return port_errorf(err, errlen, rc, "out of memory");
    }
    between b = {m->t_start, 1, 0};
    if (m->ckpt && m->ckpt->resume) {
        rc = resume(m, set, &w, &b, st, err, errlen); /* after the saved instant */
    } else {
        /* The start instant: the first rows (distributed, the slaves are open there already). */
        rc = port_open(m, m->t_start);
        for (size_t j = 0; j < m->n_slaves && !rc; j++)
            port_record(&m->slaves[j]);
        if (!rc && port_sync(m, NULL) < 0)
            rc = port_errorf(err, errlen, PORT_EFAIL, "first record failed");
        if (!rc) rc = offer(m, set, &w, &b, st, err, errlen);
        if (!rc) rc = port_close(m, m->t_start);
    }
    int64_t T = b.T;
    double H_prev = b.H_prev;
    for (int first = b.first; !rc && T < m->t_end; first = 0) {
        int64_t Tn = port_tick_add(T, set->H) < m->t_end ? T + set->H : m->t_end;
        double H = (double)(Tn - T) * m->tick;
        if ((rc = port_open(m, Tn))) break;
        /* A: standard outputs at T. */
        if ((rc = exchange(m, &w, st, "standard outputs", err, errlen))) break;
        for (size_t k = 0; k < set->n_links; k++) {
            const energy_link *l = &set->links[k];
            const double *ya = w.y[l->a], *yb = w.y[l->b];
            set_coef(&w.coef[l->b][l->b_in * W], ya[l->a_out],
                     l->a_slope >= 0 ? ya[l->a_slope] : 0);
            set_coef(&w.coef[l->a][l->a_in * W], yb[l->b_out],
                     l->b_slope >= 0 ? yb[l->b_slope] : 0);
        }
        /* B: the powers with the inputs of T in place. */
        post_inputs(m, &w, T, st);
        if ((rc = exchange(m, &w, st, "powers", err, errlen))) break;
        /* B': the agreed power's slope, every step (linear) or on the first (secant). */
        if ((set->p_order == ENERGY_P_LINEAR || (set->p_order == ENERGY_P_SECANT && first)) &&
            (rc = power_slopes(m, set, &w, T, H, st, err, errlen)))
            break;
        /* C, D: agree, refeed what each side missed, hand over, step. */
        double missed = 0;
        for (size_t k = 0; k < set->n_links; k++) {
            const energy_link *l = &set->links[k];
            double phat = (w.y[l->b][l->b_P] - w.y[l->a][l->a_P]) / 2; /* eq. (21) */
            double slope = set->p_order == ENERGY_P_HELD               ? 0
                           : set->p_order == ENERGY_P_SECANT && !first ? (phat - w.phat[k]) / H_prev
                                                                       : w.dphat[k];
            double ca = 0, cb = 0, *bk = &w.bk[4 * k];
            w.phat[k] = phat;
            if (l->a_W >= 0) {
                double Wa = w.y[l->a][l->a_W], Wb = w.y[l->b][l->b_W];
                if (!first) {
                    double ea = bk[2] - (Wa - bk[0]), eb = bk[3] - (Wb - bk[1]);
                    ca = ea / H, cb = eb / H;
                    missed += ea + eb;
                }
                /* Landing (our choice for the zero crossings, doc/algorithms/energy-balance.md):
                 * a side about to be emptied gets the one linear power that takes exactly its
                 * energy by the instant the power vanishes, W (1 - t / t1)^2: its divisor then
                 * crosses zero where the power does, instead of meeting a power of the wrong
                 * sign or none left to take. */
                if (must_land(Wb, phat + cb, slope, H))
                    slope = (phat + cb) * (phat + cb) / (2 * Wb), st->landings++;
                else if (must_land(Wa, ca - phat, -slope, H))
                    slope = -(ca - phat) * (ca - phat) / (2 * Wa), st->landings++;
                bk[0] = Wa, bk[1] = Wb;
                bk[2] = (ca - phat) * H - slope * H * H / 2;
                bk[3] = (cb + phat) * H + slope * H * H / 2;
            }
            set_coef(&w.coef[l->b][l->b_pin * W], phat + cb, slope);
            set_coef(&w.coef[l->a][l->a_pin * W], ca - phat, -slope);
        }
        st->missed = missed;
        if (m->ops->note) m->ops->note(m->ctx, "energy.missed", missed);
        post_inputs(m, &w, T, st);
        for (size_t j = 0; j < m->n_slaves; j++) {
            port_step(&m->slaves[j], Tn, 1, NULL, NULL);
            port_record(&m->slaves[j]);
            st->operations += 2;
        }
        if ((rc = port_sync(m, w.status)) < 0) {
            for (size_t j = 0; j < m->n_slaves; j++)
                if (w.status[j] < 0) {
                    rc = port_errorf(err, errlen, rc, "stepping: slave %s: %s",
                                     m->slaves[j].info.name, port_strerror(w.status[j]));
                    break;
                }
            break;
        }
        rc = PORT_OK;
        st->steps++;
        b = (between){Tn, 0, H};
        if ((rc = offer(m, set, &w, &b, st, err, errlen))) break;
        if ((rc = port_close(m, Tn))) break;
        T = Tn;
        H_prev = H;
    }
    work_free(&w, m->n_slaves);
    return rc;
}
