/* Hybrid co-simulation over the port (algorithms/hybrid.h).
 *
 * Source: the Awais thesis §5.5 (Algorithm 5, ProcessDiscreteEvent, Figs. 5.15-5.17) and
 * §5.5.2 (communication step-size control, eq. 5.22); doc/references.md. Page:
 * doc/algorithms/hybrid.md.
 *
 * A step [T_n, T_n + H] (ticks) is a waveform-relaxation iteration: every slave is rewound to
 * T_n (restore slot 0, the thesis's Rewind), takes its inputs and integrates to T_n + H. A
 * continuous input is the line through the source output's committed value y(T_n) and its
 * end value in the previous iterate (held for the first iterate, the thesis's guess); a
 * discrete input is held: it changes only where a step containing an event is committed, and
 * its value goes there slave to slave (share_discrete, Share Data Only Discrete; the master
 * hands NaN for it when every slave can share). The iteration converges when
 * ||y^k - y^{k-1}|| <= tol over the continuous outputs at the step end (y^0 = y(T_n)).
 *
 * Events. A slave that locates an event stops its step there (to the next whole tick,
 * port_step_result.event); a discrete output that changed over a step is an event at the time
 * it carries (get_discrete, asked after every step), or at the step end from a slave that
 * reports no time. The thesis flags an event by a negative time (erratum E8: no flag for
 * t = 0); the port carries the time itself. An attempt that sees an event is abandoned at
 * once (Abort Iteration), H drops to H_min, and the step is redone from T_n:
 *   1. up to t_a, the last point of the delta grid from T_n strictly before the earliest
 *      reported event time (the thesis's "stage 1", Fig. 5.17, done with the reported time);
 *      an event seen on the way moves t_a back;
 *   2. [t_a, t_a + delta], the thesis's delta step (ProcessDiscreteEvent), optionally
 *      narrowed by bisection to bisect_tol: each half without event is committed;
 *   3. the step containing the event is iterated to convergence with the slaves carried
 *      through their events (a slave that stopped early is stepped on to the step end),
 *      then committed: its end is where the other slaves see the new discrete values.
 * The event's effect on the others is late by at most delta (bisect_tol with bisection).
 *
 * Logical time (erratum E5). The printed algorithm sets time <- time - step after an event
 * and sends commands at T_n + delta, below the instant T_n + step it has already been granted.
 * Here every exchange of the step from T_n happens at the instant T_n + 1 tick, opened before
 * the step and closed after its last commit whatever that commit's time: the next step opens
 * at T_{n+1} + 1 > T_n + 1, so instants only grow. Simulation time travels as the payload of
 * the step and restore commands.
 *
 * Step-size control (§5.5.2, eq. 5.22): after an accepted normal step,
 *     e_d = ||y_f - y_i||_2,   e = e_d + tau0 ||y_f - y_i||_max,
 * y_i the guess the iteration started from (y(T_n) held), y_f the converged outputs at
 * T_n + H (continuous outputs only); H grows by `grow` when e < tol_d, shrinks by `shrink`
 * when e > tol_d, within [H_min, H_max] (hybrid_control). A step with e > tol_d is kept (the
 * thesis does not redo it). Constants: hybrid_opts_default.
 */
#include "algorithms/hybrid.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/pstate.h"

/* Defaults and limits (doc/algorithms/hybrid.md "Settings"). */
#define HY_DEFAULT_TOL      1e-8   /* output units: the thesis gives no value */
#define HY_DEFAULT_MAX_ITER 50     /* the thesis gives none */
#define HY_DEFAULT_TAU0     0.1    /* "a small positive value used for normalization" */
#define HY_DEFAULT_GROW     1.1    /* +10 %: "increased by some percent" */
#define HY_DEFAULT_SHRINK   0.5    /* -50 %: "decreased by some percent" */
#define HY_HMIN_DIV         100    /* H_min = H_0 / 100 */
#define HY_HMAX_MUL         10     /* H_max = 10 H_0 */
#define HY_BISECT_DIV       64     /* bisect_tol = delta / 64: six halvings */
#define HY_MAX_CARRY        1000   /* steps-on of one slave through events in one attempt */
#define HY_MAX_REWINDS      100000 /* rounds of event processing of one step */
#define HY_SAME(a, b)       (fabs((a) - (b)) <= 1e-12 * fmax(1.0, fabs(a)))

void hybrid_opts_default(hybrid_opts *o, int64_t step)
{
    int64_t hmin = step / HY_HMIN_DIV > 0 ? step / HY_HMIN_DIV : 1;
    *o = (hybrid_opts){.step = step,
                       .h_min = hmin,
                       .h_max = step > INT64_MAX / HY_HMAX_MUL ? INT64_MAX : step * HY_HMAX_MUL,
                       .delta = hmin,
                       .bisect = 0,
                       .bisect_tol = hmin / HY_BISECT_DIV > 0 ? hmin / HY_BISECT_DIV : 1,
                       .tol = HY_DEFAULT_TOL,
                       .max_iter = HY_DEFAULT_MAX_ITER,
                       .norm = HYBRID_NORM_MAX,
                       .tol_d = 0,
                       .tau0 = HY_DEFAULT_TAU0,
                       .grow = HY_DEFAULT_GROW,
                       .shrink = HY_DEFAULT_SHRINK};
}

int64_t hybrid_control(const hybrid_opts *o, int64_t h, double e2, double emax)
{
    int64_t next = h;
    if (o->tol_d > 0) {
        double e = e2 + o->tau0 * emax;
        if (isnan(e) || e > o->tol_d) {
            next = (int64_t)((double)h * o->shrink);
        } else if (e < o->tol_d) {
            double g = (double)h * o->grow;
            next = g >= (double)INT64_MAX ? INT64_MAX : (int64_t)g;
            if (o->grow > 1 && next <= h) next = h + 1;
        }
    }
    if (next > o->h_max) next = o->h_max;
    if (next < o->h_min) next = o->h_min;
    return next;
}

int64_t hybrid_before_event(const hybrid_opts *o, int64_t t_from, int64_t t_ev)
{
    if (t_ev - t_from <= o->delta) return t_from;
    return t_from + ((t_ev - 1 - t_from) / o->delta) * o->delta;
}

void hybrid_result_fini(hybrid_result *r)
{
    if (!r) return;
    free(r->steps);
    free(r->events);
    memset(r, 0, sizeof *r);
}

/* ---- the working set ------------------------------------------------------------------- */

typedef struct hy_work {
    const port_master *m;
    const port_link *given; /* the caller's links, n_given, in any order */
    size_t n_given;
    port_link *links;          /* the same by the input they feed (port_frame by_in), n_in */
    const unsigned char *disc; /* per output, or NULL */
    const hybrid_opts *o;
    hybrid_result *res;
    char *err;
    size_t errlen;
    size_t n_c, n_out, n_in;
    size_t *off_out, *off_in;
    double *y0;             /* n_out: outputs at the committed time T */
    double *y_prev, *y_cur; /* n_out: step-end outputs of the previous / current iterate */
    double *coef;           /* n_in * 2: value and slope of every input */
    port_step_result *sr;   /* n_c */
    int *st;                /* n_c */
    size_t *off_dsc;        /* n_c + 1: slave j's discrete outputs (get_discrete), 0 when it
                               offers none */
    port_discrete *dsc;     /* their values and event times after the last step */
    int share;              /* 1: discrete inputs are fed slave to slave (share_discrete) */
} hy_work;

/* What an attempt found. */
typedef struct hy_attempt {
    int event;       /* 1: some slave reported an event (or a discrete output changed) */
    int located;     /* 1: t_ev is where a slave stopped; 0: only "in the step" (t_ev = end) */
    int64_t t_ev;    /* the earliest event time reported, ticks */
    long slave;      /* who reported it */
    int iters;       /* iterations done */
    double e2, emax; /* ||y_f - y_i|| of the accepted iterate (2 and max) */
} hy_attempt;

static double secs(const hy_work *w, int64_t t)
{
    return port_seconds(w->m->tick, t);
}

static int is_disc(const hy_work *w, size_t k)
{
    return w->disc && w->disc[k];
}

/* The fields of the working set that port_frame_init sizes. */
static port_frame frame(hy_work *w)
{
    return (port_frame){&w->n_c, &w->n_out, &w->n_in, &w->off_out, &w->off_in,
                        NULL,    &w->sr,    &w->st,   &w->links};
}

static int setup(hy_work *w)
{
    const port_master *m = w->m;
    const hybrid_opts *o = w->o;
    if (o->step < 1 || o->h_min < 1 || o->h_max < o->h_min || o->delta < 1 ||
        (o->bisect && o->bisect_tol < 1) || !(o->tol > 0) || o->max_iter < 1 ||
        (o->norm != HYBRID_NORM_MAX && o->norm != HYBRID_NORM_2) || !(o->tol_d >= 0) ||
        !(o->tau0 >= 0) || !(o->grow >= 1) || !(o->shrink > 0 && o->shrink <= 1))
        return port_errorf(w->err, w->errlen, PORT_EUSAGE,
                           "hybrid: bad settings: step %lld, h_min %lld, h_max %lld, delta %lld "
                           "ticks (>= 1, h_min <= h_max), bisect_tol %lld, tol %g (> 0), "
                           "max_iter %d, tol_d %g (>= 0), tau0 %g (>= 0), grow %g (>= 1), "
                           "shrink %g (in (0, 1])",
                           (long long)o->step, (long long)o->h_min, (long long)o->h_max,
                           (long long)o->delta, (long long)o->bisect_tol, o->tol, o->max_iter,
                           o->tol_d, o->tau0, o->grow, o->shrink);
    port_frame f = frame(w);
    port_frame_rules r = {"hybrid", PORT_NEED_SAVE, "cannot save its state (Rewind needs it)",
                          w->given, w->n_given,     0};
    int st = port_frame_init(&f, m, &r, w->err, w->errlen);
    if (st != PORT_OK) return st;
    /* Discrete outputs with event times, where the slaves offer them (get_discrete). */
    w->off_dsc = calloc(w->n_c + 1, sizeof *w->off_dsc);
    if (!w->off_dsc) return port_errorf(w->err, w->errlen, PORT_ENOMEM, "hybrid: out of memory");
    for (size_t j = 0; j < w->n_c; j++) {
        const port_slave *s = &m->slaves[j];
        w->off_dsc[j + 1] =
            w->off_dsc[j] + (port_has(s, PORT_OP_DISCRETE) ? s->info.n_discrete : 0);
    }
    if (!(w->dsc = calloc(w->off_dsc[w->n_c] + 1, sizeof *w->dsc)))
        return port_errorf(w->err, w->errlen, PORT_ENOMEM, "hybrid: out of memory");
    /* Slave to slave (Share Data Only Discrete) when a discrete output feeds an input and every
     * slave can share; else the master hands the held value over with the inputs. */
    int fed = 0, can = 1;
    for (size_t j = 0; j < w->n_c; j++) {
        can &= port_has(&m->slaves[j], PORT_OP_SHARE_DISCRETE);
        for (size_t i = 0; i < m->slaves[j].info.n_in; i++) {
            const port_link *l = &w->links[w->off_in[j] + i];
            fed |= is_disc(w, w->off_out[l->from] + l->out);
        }
    }
    w->share = fed && can;
    size_t no = w->n_out ? w->n_out : 1, ni = w->n_in ? w->n_in : 1;
    w->y0 = calloc(no, sizeof(double));
    w->y_prev = calloc(no, sizeof(double));
    w->y_cur = calloc(no, sizeof(double));
    w->coef = calloc(ni * 2, sizeof(double));
    if (!w->y0 || !w->y_prev || !w->y_cur || !w->coef)
        return port_errorf(w->err, w->errlen, PORT_ENOMEM, "hybrid: out of memory");
    return PORT_OK;
}

static void teardown(hy_work *w)
{
    port_frame f = frame(w);
    port_frame_fini(&f);
    free(w->y0);
    free(w->y_prev);
    free(w->y_cur);
    free(w->coef);
    free(w->off_dsc);
    free(w->dsc);
}

/* A sync; errors (and a terminated model) become a report naming the slave. PORT_EVENT is
 * passed up: the caller reads the step results. */
static int sync_all(hy_work *w, const char *what, int64_t t)
{
    /* port_strerror(PORT_TERMINATED) is "the model terminated" */
    return port_sync_report(w->m, w->st, "hybrid", what, secs(w, t), 1,
                            " the simulation before the end", &w->res->failed_slave, w->err,
                            w->errlen);
}

/* Share Data Only Discrete: every slave sends its discrete outputs to the slaves they feed
 * and takes its discrete inputs from them, the round named by the commit time t (posted to all
 * before the caller's sync, as share_discrete asks). */
static void share_all(hy_work *w, int64_t t)
{
    for (size_t j = 0; w->share && j < w->n_c; j++)
        port_share_discrete(&w->m->slaves[j], t);
}

/* Ask slave j for its discrete outputs and their event times after the step just posted. */
static void post_discrete(hy_work *w, size_t j)
{
    const port_slave *s = &w->m->slaves[j];
    if (w->off_dsc[j + 1] > w->off_dsc[j]) port_get_discrete(s, &w->dsc[w->off_dsc[j]]);
}

/* Commit t in every slave: save (End Iteration), read the outputs (Synch; the discrete ones
 * become the held inputs from here: Share Data Only Discrete), record. */
static int commit(hy_work *w, int64_t t_from, int64_t t, int kind, int iters, double e_d,
                  int64_t h_next)
{
    for (size_t j = 0; j < w->n_c; j++) {
        const port_slave *s = &w->m->slaves[j];
        port_save(s, 0);
        port_get_outputs(s, &w->y0[w->off_out[j]]);
        port_record(s);
    }
    if (kind == 4) share_all(w, t); /* discrete values change only in a step with an event */
    int st = sync_all(w, "committing the step", t);
    if (st != PORT_OK) return st == PORT_EVENT ? PORT_OK : st;
    hybrid_result *r = w->res;
    if (port_grow((void **)&r->steps, &r->cap_steps, r->n_steps + 1, sizeof *r->steps))
        return port_errorf(w->err, w->errlen, PORT_ENOMEM, "hybrid: out of memory (steps)");
    r->steps[r->n_steps++] = (hybrid_step){t_from, t, iters, kind, e_d, h_next};
    r->t_reached = t;
    if (kind == 0) r->n_normal++;
    port_note(w->m, "hybrid.t", secs(w, t));
    port_note(w->m, "hybrid.h", secs(w, t - t_from));
    port_note(w->m, "hybrid.H", secs(w, h_next));
    return PORT_OK;
}

/* Post one iterate: rewind to t_from, the inputs (lines through y(T) and the previous
 * iterate's end, discrete ones held), integrate to t_to. */
static void post_iterate(hy_work *w, int64_t t_from, int64_t t_to, int first)
{
    const port_master *m = w->m;
    double h = secs(w, t_to - t_from);
    for (size_t j = 0; j < w->n_c; j++) {
        const port_slave *s = &m->slaves[j];
        size_t n_in = s->info.n_in;
        for (size_t i = 0; i < n_in; i++) {
            const port_link *l = &w->links[w->off_in[j] + i];
            double *c = &w->coef[(w->off_in[j] + i) * 2];
            size_t k = w->off_out[l->from] + l->out;
            c[0] = w->y0[k];
            c[1] = first || is_disc(w, k) ? 0.0 : (w->y_prev[k] - w->y0[k]) / h;
            /* shared slave to slave: the slave holds what its source sent it, never this */
            if (w->share && is_disc(w, k)) c[0] = NAN;
        }
        port_poly u = {
            .t0 = t_from, .order = 1, .n = n_in, .c = n_in ? &w->coef[w->off_in[j] * 2] : NULL};
        port_restore(s, 0);
        port_set_inputs(s, &u);
        port_step(s, t_to, 1, &w->y_cur[w->off_out[j]], &w->sr[j]);
        post_discrete(w, j);
    }
}

/* The events of the last sync: the earliest reported stop; else a discrete output that changed
 * over the slave's step from t_from: at the event time it carries (get_discrete), or, from a
 * slave that does not report one, at t_to. */
static void find_events(hy_work *w, int64_t t_from, int64_t t_to, hy_attempt *a)
{
    for (size_t j = 0; j < w->n_c; j++) {
        int64_t t = -1;
        int loc = w->sr[j].event != 0;
        if (loc) t = w->sr[j].t_reached;
        for (size_t k = w->off_dsc[j]; !loc && k < w->off_dsc[j + 1]; k++)
            if (w->dsc[k].t > t_from && (t < 0 || w->dsc[k].t < t)) t = w->dsc[k].t;
        for (size_t k = w->off_out[j];
             t < 0 && w->off_dsc[j + 1] == w->off_dsc[j] && k < w->off_out[j + 1]; k++)
            if (is_disc(w, k) && !HY_SAME(w->y_cur[k], w->y0[k])) t = t_to;
        if (t >= 0 && (!a->event || t < a->t_ev || (t == a->t_ev && loc))) {
            a->event = 1;
            a->located = loc;
            a->t_ev = t;
            a->slave = (long)j;
        }
    }
}

/* Step on every slave that stopped early at an event until all are at t_to (the thesis's
 * slave integrates through the event; ours stops there to report its time). */
static int carry(hy_work *w, int64_t t_to)
{
    for (int round = 0;; round++) {
        size_t left = 0;
        for (size_t j = 0; j < w->n_c; j++) {
            if (w->sr[j].t_reached >= t_to) continue;
            const port_slave *s = &w->m->slaves[j];
            port_step(s, t_to, 1, &w->y_cur[w->off_out[j]], &w->sr[j]);
            post_discrete(w, j);
            left++;
        }
        if (!left) return PORT_OK;
        if (round >= HY_MAX_CARRY)
            return port_errorf(w->err, w->errlen, PORT_ENOCONV,
                               "hybrid: more than %d events in the step ending at %.17g s "
                               "(chattering?)",
                               HY_MAX_CARRY, secs(w, t_to));
        int st = sync_all(w, "stepping on through an event", t_to);
        if (st < 0) return st;
    }
}

/* ||y_cur - ref|| over the continuous outputs: 2-norm and max-norm. */
static void change(const hy_work *w, const double *ref, double *n2, double *nmax)
{
    double s = 0, mx = 0;
    for (size_t k = 0; k < w->n_out; k++) {
        if (is_disc(w, k)) continue;
        double d = fabs(w->y_cur[k] - ref[k]);
        if (isnan(d)) d = INFINITY;
        s += d * d;
        mx = fmax(mx, d);
    }
    *n2 = sqrt(s), *nmax = mx;
}

/* One attempt [t_from, t_to]: iterate to convergence. abort_on_event: return at the first
 * event seen (a->event); else carry the slaves through their events and converge. */
static int attempt(hy_work *w, int64_t t_from, int64_t t_to, int abort_on_event, hy_attempt *a)
{
    hybrid_result *r = w->res;
    *a = (hy_attempt){.slave = -1};
    r->n_attempts++;
    for (int k = 1; k <= w->o->max_iter; k++) {
        post_iterate(w, t_from, t_to, k == 1);
        int st = sync_all(w, "integrating the step", t_to);
        if (st < 0) return st;
        r->iter_total++;
        a->iters = k;
        if (k > r->iter_max) r->iter_max = k;
        hy_attempt seen = {.slave = -1};
        find_events(w, t_from, t_to, &seen);
        /* what the last iterate saw: an event may come and go while the inputs settle */
        a->event = seen.event, a->located = seen.located, a->t_ev = seen.t_ev;
        a->slave = seen.slave;
        if (seen.event && abort_on_event) {
            r->n_aborted++;
            return PORT_OK;
        }
        if ((st = carry(w, t_to)) != PORT_OK) return st;
        double n2, nmax;
        change(w, k == 1 ? w->y0 : w->y_prev, &n2, &nmax);
        double d = w->o->norm == HYBRID_NORM_MAX ? nmax : n2;
        port_note(w->m, "hybrid.iter", k);
        if (d <= w->o->tol) {
            change(w, w->y0, &a->e2, &a->emax);
            return PORT_OK;
        }
        double *t = w->y_prev;
        w->y_prev = w->y_cur, w->y_cur = t;
    }
    return port_errorf(w->err, w->errlen, PORT_ENOCONV,
                       "hybrid: no convergence on [%.17g, %.17g] s within %d iterations (tol %g)",
                       secs(w, t_from), secs(w, t_to), w->o->max_iter, w->o->tol);
}

static int push_event(hy_work *w, const hy_attempt *a, int64_t t_from, int64_t t_commit)
{
    hybrid_result *r = w->res;
    if (port_grow((void **)&r->events, &r->cap_events, r->n_events + 1, sizeof *r->events))
        return port_errorf(w->err, w->errlen, PORT_ENOMEM, "hybrid: out of memory (events)");
    r->events[r->n_events++] = (hybrid_event){a->t_ev, t_from, t_commit, a->slave};
    port_note(w->m, "hybrid.event", secs(w, a->t_ev));
    port_note(w->m, "hybrid.event_commit", secs(w, t_commit));
    return PORT_OK;
}

/* Narrow [*lo, *hi] (an event in (*lo, *hi], nothing before *lo) by halving until it is at
 * most `width` long; each event-free half is committed (kind 3). */
static int bisect(hy_work *w, int64_t *lo, int64_t *hi, int64_t width)
{
    while (*hi - *lo > width) {
        int64_t mid = *lo + (*hi - *lo) / 2;
        hy_attempt a;
        int st = attempt(w, *lo, mid, 1, &a);
        if (st != PORT_OK) return st;
        if (a.event) {
            *hi = a.located && a.t_ev < mid ? a.t_ev : mid;
            continue;
        }
        if ((st = commit(w, *lo, mid, 3, a.iters, 0, w->o->h_min)) != PORT_OK) return st;
        *lo = mid;
    }
    return PORT_OK;
}

/* ProcessDiscreteEvent, corrected (file comment): from the committed *t, an event at t_ev
 * (located by a slave, or only known to lie in (*t, t_ev]) inside the abandoned step that
 * ended at t_to. On return *t is the commit after the event (or t_to when the event vanished
 * on the way). */
static int process_event(hy_work *w, int64_t *t, int64_t t_to, int64_t t_ev, int located)
{
    const hybrid_opts *o = w->o;
    for (long round = 0; round < HY_MAX_REWINDS; round++) {
        hy_attempt a;
        int st;
        int64_t lo = *t, hi = t_ev;
        if (located) { /* 1. up to the delta grid point before the reported time */
            int64_t t_a = hybrid_before_event(o, *t, t_ev);
            if (t_a > *t) {
                if ((st = attempt(w, *t, t_a, 1, &a)) != PORT_OK) return st;
                if (a.event) {
                    t_ev = a.t_ev, located = a.located;
                    continue;
                }
                if ((st = commit(w, *t, t_a, 1, a.iters, 0, o->h_min)) != PORT_OK) return st;
                *t = t_a;
            }
            lo = *t, hi = port_tick_add(*t, o->delta);
            if (hi > w->m->t_end) hi = w->m->t_end;
        } else if ((st = bisect(w, &lo, &hi, o->delta)) != PORT_OK) { /* 1'. unlocated */
            return st;
        }
        *t = lo;
        if (o->bisect && (st = bisect(w, &lo, &hi, o->bisect_tol)) != PORT_OK) return st;
        *t = lo;
        /* 2. the step containing the event, carried through it and converged */
        if ((st = attempt(w, lo, hi, 0, &a)) != PORT_OK) return st;
        if ((st = commit(w, lo, hi, a.event ? 4 : 2, a.iters, 0, o->h_min)) != PORT_OK) return st;
        *t = hi;
        if (a.event) return push_event(w, &a, lo, hi);
        if (*t >= t_to || *t >= w->m->t_end) return PORT_OK; /* the event vanished */
        t_ev = t_to, located = 0; /* look again up to the abandoned step's end */
    }
    return port_errorf(w->err, w->errlen, PORT_ENOCONV,
                       "hybrid: the event near %.17g s could not be passed in %d rounds",
                       secs(w, t_ev), HY_MAX_REWINDS);
}

/* The state between instants (doc/checkpoint.md "Master methods"): "HYB1", the version, the
 * instant closed, the committed time T and the step size the controller chose for the next
 * step (ticks), y(T) (n_out values: the next step's guess and rewind outputs) and the result's
 * counters. The rewind point (slot 0, saved at T) and the discrete inputs held are each
 * slave's own state; the step and event histories are not saved. */
#define HY_CK_MAGIC   0x31425948u /* "HYB1" little-endian */
#define HY_CK_VERSION 1u

static int offer_state(hy_work *w, int64_t inst, int64_t t, int64_t H)
{
    const port_master *m = w->m;
    if (!m->ckpt || !m->ckpt->offer) return PORT_OK;
    const hybrid_result *r = w->res;
    pstate_buf b = {0};
    pstate_put_u32(&b, HY_CK_MAGIC);
    pstate_put_u32(&b, HY_CK_VERSION);
    pstate_put_i64(&b, inst);
    pstate_put_i64(&b, t);
    pstate_put_i64(&b, H);
    pstate_put_u32(&b, (uint32_t)w->n_out);
    for (size_t k = 0; k < w->n_out; k++)
        pstate_put_f64(&b, w->y0[k]);
    /* n_steps is the length of the step history, which a resumed run starts afresh */
    int64_t c[] = {(int64_t)r->n_normal,  (int64_t)r->n_attempts,
                   (int64_t)r->n_aborted, (int64_t)r->iter_total,
                   r->iter_max,           (int64_t)r->n_instants};
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++)
        pstate_put_i64(&b, c[k]);
    int st = b.bad ? PORT_ENOMEM : port_ckpt_offer(m, inst, b.p, b.n);
    free(b.p);
    if (st)
        return port_errorf(w->err, w->errlen, st, "hybrid: the state at %.17g s: %s", secs(w, inst),
                           port_strerror(st));
    return PORT_OK;
}

/* A resumed run: the committed time and step size of the saved instant; bytes it did not write
 * are refused before any command. */
static int resume_state(hy_work *w, int64_t *t, int64_t *H)
{
    const port_master *m = w->m;
    hybrid_result *res = w->res;
    pstate_rd r = {.p = m->ckpt->resume, .n = m->ckpt->n_resume};
    uint32_t magic = pstate_get_u32(&r), version = pstate_get_u32(&r);
    int64_t inst = pstate_get_i64(&r), tc = pstate_get_i64(&r), h = pstate_get_i64(&r);
    uint32_t n = pstate_get_u32(&r);
    int ok = !r.bad && magic == HY_CK_MAGIC && version == HY_CK_VERSION && n == w->n_out;
    double *y = ok ? calloc(w->n_out + 1, sizeof *y) : NULL;
    int64_t c[6] = {0};
    for (size_t k = 0; y && k < w->n_out; k++)
        y[k] = pstate_get_f64(&r);
    for (size_t k = 0; y && k < 6; k++)
        if ((c[k] = pstate_get_i64(&r)) < 0) r.bad = 1;
    if (!y || r.bad || r.at != r.n || c[4] > INT32_MAX || h < w->o->h_min || h > w->o->h_max) {
        free(y);
        return port_errorf(w->err, w->errlen, PORT_EUSAGE,
                           "hybrid: the state to resume from is not one it wrote for these "
                           "slaves and settings (%zu bytes)",
                           m->ckpt->n_resume);
    }
    if (inst < m->t_start || tc < inst - 1 || tc > m->t_end) { /* T = end: the run only ends */
        free(y);
        return port_errorf(w->err, w->errlen, PORT_EUSAGE,
                           "hybrid: the state to resume from is at %.17g s, outside the run "
                           "[%.17g, %.17g) s",
                           secs(w, tc), secs(w, m->t_start), secs(w, m->t_end));
    }
    memcpy(w->y0, y, w->n_out * sizeof *y);
    free(y);
    res->n_normal = (size_t)c[0];
    res->n_attempts = (size_t)c[1];
    res->n_aborted = (size_t)c[2];
    res->iter_total = (size_t)c[3];
    res->iter_max = (int)c[4];
    res->n_instants = (size_t)c[5];
    res->t_reached = tc;
    *t = tc;
    *H = h;
    return PORT_OK;
}

/* One logical instant: the step from *t with the step size *H. */
static int instant(hy_work *w, int64_t *t, int64_t *H)
{
    const port_master *m = w->m;
    int64_t inst = *t + 1;
    int st = port_open(m, inst);
    if (st)
        return port_errorf(w->err, w->errlen, st, "hybrid: opening the instant %.17g s: %s",
                           secs(w, inst), port_strerror(st));
    w->res->n_instants++;
    int64_t h = *H < m->t_end - *t ? *H : m->t_end - *t, t_to = *t + h;
    hy_attempt a;
    st = attempt(w, *t, t_to, 1, &a);
    if (st == PORT_OK && !a.event) {
        int64_t next = hybrid_control(w->o, *H, a.e2, a.emax);
        st = commit(w, *t, t_to, 0, a.iters, a.e2 + w->o->tau0 * a.emax, next);
        if (st == PORT_OK) *t = t_to, *H = next;
    } else if (st == PORT_OK) {
        *H = w->o->h_min; /* "intermediately reduced to minimum" (§5.5.2) */
        st = process_event(w, t, t_to, a.t_ev, a.located);
    }
    if (st == PORT_OK) st = offer_state(w, inst, *t, *H);
    if (st != PORT_OK) return st;
    st = port_close(m, inst);
    if (st)
        return port_errorf(w->err, w->errlen, st, "hybrid: closing the instant %.17g s: %s",
                           secs(w, inst), port_strerror(st));
    return PORT_OK;
}

int hybrid_run(const port_master *m, const port_link *links, size_t n_links,
               const unsigned char *discrete, const hybrid_opts *o, hybrid_result *res, char *err,
               size_t errlen)
{
    memset(res, 0, sizeof *res);
    res->failed_slave = -1;
    res->t_reached = m ? m->t_start : 0;
    if (err && errlen) err[0] = '\0';
    hy_work w = {.m = m,
                 .given = links,
                 .n_given = n_links,
                 .disc = discrete,
                 .o = o,
                 .res = res,
                 .err = err,
                 .errlen = errlen};
    if (!m || !o) return port_errorf(err, errlen, PORT_EUSAGE, "hybrid: no master or no settings");
    int st = setup(&w);
    int64_t t = m->t_start, H = o->step;
    if (st == PORT_OK && H > o->h_max) H = o->h_max;
    if (st == PORT_OK && H < o->h_min) H = o->h_min;
    int resumed = st == PORT_OK && m->ckpt && m->ckpt->resume;
    if (resumed) st = resume_state(&w, &t, &H); /* after the saved instant */
    if (st == PORT_OK && !resumed) st = port_open(m, m->t_start);
    if (st == PORT_OK && !resumed) { /* the outputs at the start, the first rewind point, the
                                        first row */
        for (size_t j = 0; j < w.n_c; j++) {
            const port_slave *s = &m->slaves[j];
            port_get_outputs(s, &w.y0[w.off_out[j]]);
            port_save(s, 0);
            port_record(s);
        }
        share_all(&w, m->t_start); /* the discrete inputs' first values, slave to slave */
        st = sync_all(&w, "reading the initial outputs", m->t_start);
    }
    if (st == PORT_OK && !resumed) st = offer_state(&w, m->t_start, t, H);
    if (st == PORT_OK && !resumed) st = port_close(m, m->t_start);
    while (st == PORT_OK && t < m->t_end)
        st = instant(&w, &t, &H);
    teardown(&w);
    return st;
}
