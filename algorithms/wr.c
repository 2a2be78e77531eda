/* Waveform relaxation with rollback over the port (algorithms/wr.h).
 *
 * Source: the Awais thesis §5.2 (Algorithm 2, eq. 5.5), after Lelarasmee et al. (1982);
 * doc/references.md. Page: doc/algorithms/waveform-relaxation.md.
 *
 * Over a macro step [T_n, T_n + h] (h s, T_n ticks) slave j integrates
 *     z_j' = f_j(z_j, u_j^k, t),   y_j^k = g_j(z_j, u_j^k, t),   u_j^k = A_j y^{k-1} (eq. 4.3, 4.4)
 * with its inputs taken from the previous iterate y^{k-1} of the other slaves. A waveform is
 * known at the n_sub + 1 points T_n + m h / n_sub (m = 0..n_sub); the inputs handed to a slave
 * are the interpolating polynomial of degree n_sub through them (wr_fit), so the slave's own
 * integrator sees a smooth input, not a held value. y^0 holds y(T_n) over the step (the
 * thesis's predictor). After iteration k the change d = y^k - y^{k-1} at the sub-points is
 * measured (max or 2-norm, absolute or relative to ||y^k||) and the step is accepted when
 * ||d|| <= tol.
 *
 * Errata of the printed Algorithm 2 (doc/algorithms/waveform-relaxation.md "Errata"): it rolls
 * the slaves back at the end of every iteration, the converged one included, so its final Send
 * States returns the T_n states and it never advances (E1); its Update States carries T_{n+1}
 * as the time to go back to (E2). Here the rollback (restore slot 0, which holds T_n) is the
 * FIRST action of every iteration and convergence is tested before any rollback, so an
 * accepted iterate leaves the slaves at T_n + h; the time to go back to is the slot's, not a
 * time stamp. Rolling back before iteration 1 too (where the slave already is at T_n) costs
 * one state copy and makes every iteration of a step start from the same solver state, so
 * equal inputs give bit-identical waveforms and the residual measures the coupling only.
 *
 * Choices where the thesis is silent: the norm (max by default), n_sub = 4, tol 1e-6,
 * max_iter 50 (wr_opts_default); the residual of iteration 1 is against the held predictor,
 * as the thesis compares the first iterate with the states at T_n; on no convergence either
 * stop or halve (the thesis's first remedy, §5.2), the halved steps staying inside the
 * logical instant of the nominal step. No allocation after the set-up of wr_run except the
 * growth of the result's history arrays (amortised doubling).
 */
#include "algorithms/wr.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/pstate.h"

/* Defaults (doc/algorithms/waveform-relaxation.md "Settings"). */
#define WR_DEFAULT_TOL      1e-6 /* output units; the thesis gives no value */
#define WR_DEFAULT_MAX_ITER 50   /* the thesis gives none; MAX_ITER 1000 in its code is far */
#define WR_DEFAULT_N_SUB    4    /* quartic inputs: interpolation error O(h^5) */
#define WR_DEFAULT_HMIN_DIV 1024 /* h_min = step / 1024: ten halvings */
#define WR_REPORT_RESIDUALS 8    /* residuals quoted in a failure report (the last ones) */

void wr_opts_default(wr_opts *o, int64_t step)
{
    *o = (wr_opts){.step = step,
                   .tol = WR_DEFAULT_TOL,
                   .max_iter = WR_DEFAULT_MAX_ITER,
                   .norm = WR_NORM_MAX,
                   .relative = 0,
                   .n_sub = WR_DEFAULT_N_SUB,
                   .on_fail = WR_FAIL,
                   .h_min = step / WR_DEFAULT_HMIN_DIV > 0 ? step / WR_DEFAULT_HMIN_DIV : 1};
}

wr_decision wr_decide(const wr_opts *o, int iter, double residual, int64_t h)
{
    if (residual <= o->tol) /* false for NaN */
        return (wr_decision){WR_ACCEPT, h, "converged: change below tol"};
    if (iter < o->max_iter)
        return (wr_decision){WR_ITERATE, h, "change above tol: iterate again from T_n"};
    if (o->on_fail == WR_HALVE && h / 2 >= o->h_min && h / 2 >= 1)
        return (wr_decision){WR_RETRY_HALF, h / 2, "no convergence within max_iter: halve"};
    if (o->on_fail == WR_HALVE)
        return (wr_decision){WR_GIVE_UP, h, "no convergence within max_iter at h_min"};
    return (wr_decision){WR_GIVE_UP, h, "no convergence within max_iter"};
}

int wr_fit(int n_sub, double h, const double *v, double *c)
{
    if (n_sub < 1 || n_sub > WR_MAX_SUB || !(h > 0)) return -1;
    int n = n_sub;
    double dd[WR_MAX_SUB + 1], a[WR_MAX_SUB + 1];
    /* Newton divided differences on sigma_m = m / n (sigma = s / h in [0, 1]). */
    for (int m = 0; m <= n; m++)
        dd[m] = v[m];
    for (int l = 1; l <= n; l++)
        for (int m = n; m >= l; m--)
            dd[m] = (dd[m] - dd[m - 1]) / ((double)l / n);
    /* Horner on the Newton form: a(sigma) = dd[n]; a = a (sigma - sigma_m) + dd[m]. */
    memset(a, 0, sizeof a);
    a[0] = dd[n];
    for (int m = n - 1; m >= 0; m--) {
        double sm = (double)m / n;
        for (int i = n - m; i >= 1; i--)
            a[i] = a[i - 1] - sm * a[i];
        a[0] = -sm * a[0] + dd[m];
    }
    /* p(s) = sum a_k (s / h)^k, so p^(k)(0) = a_k k! / h^k. */
    double f = 1;
    for (int k = 0; k <= n; k++) {
        if (k) f *= (double)k / h;
        c[k] = a[k] * f;
    }
    return 0;
}

void wr_result_fini(wr_result *r)
{
    if (!r) return;
    free(r->steps);
    free(r->residuals);
    memset(r, 0, sizeof *r);
}

/* The run's working set, allocated once by wr_run. */
typedef struct wr_work {
    const port_master *m;
    const port_link *given; /* the caller's links, n_given, in any order */
    size_t n_given;
    port_link *links; /* the same by the input they feed (port_frame by_in), n_in */
    const wr_opts *o;
    wr_result *res;
    char *err;
    size_t errlen;
    size_t n_c, n_out, n_in;  /* slaves, all outputs, all inputs */
    size_t *off_out, *off_in; /* per slave: first output / input index */
    int sub;                  /* n_sub */
    double *y0;               /* n_out: outputs at T_n (committed) */
    double *w_prev, *w_cur;   /* (sub + 1) * n_out each, slave-major blocks (see wave()) */
    double *coef;             /* n_in * (sub + 1): the polynomial inputs being posted */
    double *samples;          /* sub + 1 */
    port_step_result *sr;     /* n_c */
    int *st;                  /* n_c statuses of the last sync */
    double worst_d;           /* the largest |d| of the last residual and where it was */
    size_t worst_j, worst_o;
    int64_t commit_t; /* ticks: a commit posted and not synced yet (commit_sync), -1 none */
    int64_t offer_t;  /* ticks: the instant whose state was last offered (write_state) */
} wr_work;

/* Slave j's block of a waveform: (sub + 1) rows of n_out_j outputs, row m at T_n + m h / sub;
 * rows 1..sub are the y_sub of a step. */
static double *wave(const wr_work *w, double *base, size_t j)
{
    return base + w->off_out[j] * (size_t)(w->sub + 1);
}

static double secs(const wr_work *w, int64_t t)
{
    return port_seconds(w->m->tick, t);
}

/* The fields of the working set that port_frame_init sizes. */
static port_frame frame(wr_work *w)
{
    return (port_frame){&w->n_c, &w->n_out, &w->n_in, &w->off_out, &w->off_in,
                        NULL,    &w->sr,    &w->st,   &w->links};
}

/* Check settings and links, size the working set. */
static int setup(wr_work *w)
{
    const port_master *m = w->m;
    const wr_opts *o = w->o;
    if (!(o->step > 0) || !(o->tol > 0) || o->max_iter < 1 || o->n_sub < 1 ||
        o->n_sub > WR_MAX_SUB || (o->norm != WR_NORM_MAX && o->norm != WR_NORM_2) ||
        (o->on_fail == WR_HALVE && o->h_min < 1))
        return port_errorf(
            w->err, w->errlen, PORT_EUSAGE,
            "wr: bad settings: step %lld ticks (> 0), tol %g (> 0), max_iter %d (>= 1), "
            "n_sub %d (1..%d), h_min %lld ticks (>= 1 when halving)",
            (long long)o->step, o->tol, o->max_iter, o->n_sub, WR_MAX_SUB, (long long)o->h_min);
    w->sub = o->n_sub;
    port_frame f = frame(w);
    port_frame_rules r = {"wr",     PORT_NEED_SAVE, "cannot save its state (rollback needs it)",
                          w->given, w->n_given,     0};
    int st = port_frame_init(&f, m, &r, w->err, w->errlen);
    if (st != PORT_OK) return st;
    size_t rows = (size_t)w->sub + 1, no = w->n_out ? w->n_out : 1, ni = w->n_in ? w->n_in : 1;
    w->y0 = calloc(no, sizeof(double));
    w->w_prev = calloc(no * rows, sizeof(double));
    w->w_cur = calloc(no * rows, sizeof(double));
    w->coef = calloc(ni * rows, sizeof(double));
    w->samples = calloc(rows, sizeof(double));
    if (!w->y0 || !w->w_prev || !w->w_cur || !w->coef || !w->samples)
        return port_errorf(w->err, w->errlen, PORT_ENOMEM, "wr: out of memory");
    return PORT_OK;
}

static void teardown(wr_work *w)
{
    port_frame f = frame(w);
    port_frame_fini(&f);
    free(w->y0);
    free(w->w_prev);
    free(w->w_cur);
    free(w->coef);
    free(w->samples);
}

/* A sync, and on error a report naming the first slave at fault. */
static int sync_all(wr_work *w, const char *what, int64_t t)
{
    /* an event or a terminated model: WR has no event handling (the hybrid one does) */
    return port_sync_report(w->m, w->st, "wr", what, secs(w, t), 0,
                            " (waveform relaxation does not handle events)", &w->res->failed_slave,
                            w->err, w->errlen);
}

/* At t_start: the outputs y(t_start), the first rollback point, the first results row. */
static int start(wr_work *w)
{
    const port_master *m = w->m;
    for (size_t j = 0; j < w->n_c; j++) {
        const port_slave *s = &m->slaves[j];
        port_get_outputs(s, &w->y0[w->off_out[j]]);
        port_save(s, 0);
        port_record(s);
    }
    w->res->msg_init = 4 * w->n_c; /* get_outputs, its reply, save, record */
    return sync_all(w, "reading the initial outputs", m->t_start);
}

/* Post iteration k's work to every slave: roll back to T_n (slot 0), inputs fitted to the
 * previous iterate, integrate to T_n + h with the outputs at the sub-points. */
static void post_iteration(wr_work *w, int64_t t_from, int64_t t_to)
{
    const port_master *m = w->m;
    int sub = w->sub;
    size_t rows = (size_t)sub + 1;
    double h = secs(w, t_to - t_from);
    for (size_t j = 0; j < w->n_c; j++) {
        const port_slave *s = &m->slaves[j];
        size_t n_in = s->info.n_in;
        for (size_t i = 0; i < n_in; i++) {
            const port_link *l = &w->links[w->off_in[j] + i];
            double *c = &w->coef[(w->off_in[j] + i) * rows];
            size_t src = l->from, no = m->slaves[src].info.n_out;
            const double *blk = wave(w, w->w_prev, src);
            for (int r = 0; r <= sub; r++)
                w->samples[r] = blk[(size_t)r * no + l->out];
            wr_fit(sub, h, w->samples, c);
        }
        port_poly u = {.t0 = t_from,
                       .order = sub,
                       .n = n_in,
                       .c = n_in ? &w->coef[w->off_in[j] * rows] : NULL};
        port_restore(s, 0);
        port_set_inputs(s, &u);
        port_step(s, t_to, sub, wave(w, w->w_cur, j) + s->info.n_out, &w->sr[j]);
    }
    w->res->msg_commands += 3 * w->n_c; /* restore, set_inputs, step */
    w->res->msg_replies += w->n_c;      /* the step's sub-point outputs */
    w->res->msg_thesis += 5 * w->n_c;   /* Update States, Update Inputs, Advance Time, Send States
                                           and its Update (the step's reply answers it) */
}

/* ||y^k - y^{k-1}|| over rows 1..sub of every output (relative: divided by ||y^k||), and where
 * the largest change is. */
static double residual(wr_work *w)
{
    int sub = w->sub;
    double dn = 0, yn = 0;
    w->worst_d = -1;
    for (size_t j = 0; j < w->n_c; j++) {
        size_t no = w->m->slaves[j].info.n_out;
        const double *a = wave(w, w->w_cur, j), *b = wave(w, w->w_prev, j);
        for (size_t r = 1; r <= (size_t)sub; r++)
            for (size_t o = 0; o < no; o++) {
                double y = a[r * no + o], d = fabs(y - b[r * no + o]);
                if (isnan(d)) d = INFINITY;
                if (d > w->worst_d) w->worst_d = d, w->worst_j = j, w->worst_o = o;
                if (w->o->norm == WR_NORM_MAX) {
                    dn = fmax(dn, d);
                    yn = fmax(yn, fabs(y));
                } else {
                    dn += d * d;
                    yn += y * y;
                }
            }
    }
    if (w->o->norm == WR_NORM_2) dn = sqrt(dn), yn = sqrt(yn);
    return w->o->relative && yn > 0 ? dn / yn : dn;
}

/* The predictor y^0: y(T_n) held over the step, in every row. */
static void predict(wr_work *w)
{
    for (size_t j = 0; j < w->n_c; j++) {
        size_t no = w->m->slaves[j].info.n_out;
        double *blk0 = wave(w, w->w_prev, j), *blk1 = wave(w, w->w_cur, j);
        for (int r = 0; r <= w->sub; r++) {
            memcpy(blk0 + (size_t)r * no, &w->y0[w->off_out[j]], no * sizeof(double));
            memcpy(blk1 + (size_t)r * no, &w->y0[w->off_out[j]], no * sizeof(double));
        }
    }
}

static int record_step(wr_work *w, int64_t t_from, int64_t t_to, int iters, const wr_decision *dec,
                       size_t res_off)
{
    wr_result *r = w->res;
    if (port_grow((void **)&r->steps, &r->cap_steps, r->n_steps + 1, sizeof *r->steps))
        return port_errorf(w->err, w->errlen, PORT_ENOMEM, "wr: out of memory (step history)");
    r->steps[r->n_steps++] =
        (wr_step_rec){t_from, t_to, iters, dec->verdict == WR_ACCEPT, res_off, dec->reason};
    return PORT_OK;
}

/* The report of a step that did not converge: step, residuals, the output that moved most. */
static int report_noconv(wr_work *w, int64_t t_from, int64_t t_to, int iters, size_t res_off)
{
    const port_slave_info *in = &w->m->slaves[w->worst_j].info;
    char hist[256] = "";
    size_t n = 0, first = iters > WR_REPORT_RESIDUALS ? (size_t)iters - WR_REPORT_RESIDUALS : 0;
    for (size_t k = first; k < (size_t)iters && n < sizeof hist; k++)
        n += (size_t)snprintf(hist + n, sizeof hist - n, "%s%.3g", k > first ? " " : "",
                              w->res->residuals[res_off + k]);
    w->res->failed_slave = (int)w->worst_j;
    return port_errorf(
        w->err, w->errlen, PORT_ENOCONV,
        "wr: no convergence on [%.17g, %.17g] s after %d iterations: residual %.3g > tol "
        "%g (%s-norm, %s); residuals of iterations %zu..%d: %s; largest change %.3g in "
        "output %zu of slave '%s'. Remedies: a smaller step, \"on_no_convergence\": "
        "\"halve\", a larger max_iter, or another split",
        secs(w, t_from), secs(w, t_to), iters, w->res->residuals[res_off + iters - 1], w->o->tol,
        w->o->norm == WR_NORM_MAX ? "max" : "2", w->o->relative ? "relative" : "absolute",
        first + 1, iters, hist, w->worst_d, w->worst_o, in->name ? in->name : "?");
}

/* Accept: commit T_n + h in every slave (new slot 0), read y(T_n + h), record. Posted only:
 * the outputs serve the next attempt, so commit_sync completes them before one, or after the
 * close when the instant ends here (they travel with it: port.h, port_master_ops.close). */
static int commit(wr_work *w, int64_t t_to)
{
    for (size_t j = 0; j < w->n_c; j++) {
        const port_slave *s = &w->m->slaves[j];
        port_save(s, 0);
        port_get_outputs(s, &w->y0[w->off_out[j]]);
        port_record(s);
    }
    w->res->msg_commands += 3 * w->n_c; /* save, get_outputs, record */
    w->res->msg_replies += w->n_c;      /* the outputs */
    w->res->msg_thesis += 4 * w->n_c;   /* End Iteration, Send States and its Update, and the
                                           fourth per-step message of eq. 5.5 (our record) */
    w->commit_t = t_to;
    return PORT_OK;
}

/* Complete a commit posted by commit(), if any. */
static int commit_sync(wr_work *w)
{
    if (w->commit_t < 0) return PORT_OK;
    int64_t t = w->commit_t;
    w->commit_t = -1;
    return sync_all(w, "committing the step", t);
}

/* One attempt from t_from to t_to: iterate until a decision other than ITERATE. */
static int attempt(wr_work *w, int64_t t_from, int64_t t_to, wr_decision *dec)
{
    wr_result *r = w->res;
    size_t res_off = r->n_residuals;
    predict(w);
    for (int k = 1;; k++) {
        post_iteration(w, t_from, t_to);
        int st = sync_all(w, "integrating the step", t_from);
        if (st != PORT_OK) return st;
        double rk = residual(w);
        if (port_grow((void **)&r->residuals, &r->cap_residuals, r->n_residuals + 1,
                      sizeof(double)))
            return port_errorf(w->err, w->errlen, PORT_ENOMEM,
                               "wr: out of memory (residual history)");
        r->residuals[r->n_residuals++] = rk;
        r->iter_total++;
        port_note(w->m, "wr.iter", k);
        port_note(w->m, "wr.residual", rk);
        *dec = wr_decide(w->o, k, rk, t_to - t_from);
        if (dec->verdict == WR_ITERATE) {
            double *t = w->w_prev;
            w->w_prev = w->w_cur, w->w_cur = t;
            /* Row 0 (T_n) of the new current block must hold y(T_n) again. */
            for (size_t j = 0; j < w->n_c; j++)
                memcpy(wave(w, w->w_cur, j), &w->y0[w->off_out[j]],
                       w->m->slaves[j].info.n_out * sizeof(double));
            continue;
        }
        int acc = dec->verdict == WR_ACCEPT;
        if (record_step(w, t_from, t_to, k, dec, res_off)) return PORT_ENOMEM;
        if (acc) {
            r->n_accepted++;
            r->hist[k < WR_HIST_MAX ? k : WR_HIST_MAX - 1]++;
            if (k > r->iter_max) r->iter_max = k;
            port_note(w->m, "wr.accept", secs(w, t_to - t_from));
            return commit(w, t_to);
        }
        if (dec->verdict == WR_RETRY_HALF) {
            r->n_abandoned++;
            port_note(w->m, "wr.halve", secs(w, dec->h_next));
            return PORT_OK; /* the next attempt's first action is the rollback */
        }
        return report_noconv(w, t_from, t_to, k, res_off);
    }
}

/* The state between instants (doc/checkpoint.md "Master methods"): "WRS1", the version, the
 * instant, y(T_n) (the predictor and the row 0 of every waveform) and the result's counters.
 * The rollback point (slot 0) is each slave's own state; the step and residual histories
 * (wr_result.steps, .residuals) are not saved: a resumed run's start after the instant. */
#define WR_CK_MAGIC   0x31535257u /* "WRS1" little-endian */
#define WR_CK_VERSION 1u

static void put_size(pstate_buf *b, size_t v)
{
    pstate_put_i64(b, (int64_t)v);
}

/* The bytes (port_ckpt_offer_later's write): y(T_n) is the reply of the commit's get_outputs,
 * which travels with the close, so they are written when a save needs them, once it landed. */
static int write_state(void *arg, void **bytes, size_t *n)
{
    wr_work *w = arg;
    int64_t t = w->offer_t;
    const wr_result *r = w->res;
    pstate_buf b = {0};
    pstate_put_u32(&b, WR_CK_MAGIC);
    pstate_put_u32(&b, WR_CK_VERSION);
    pstate_put_i64(&b, t);
    pstate_put_u32(&b, (uint32_t)w->n_out);
    for (size_t k = 0; k < w->n_out; k++)
        pstate_put_f64(&b, w->y0[k]);
    put_size(&b, r->n_accepted);
    put_size(&b, r->n_abandoned);
    put_size(&b, r->iter_total);
    pstate_put_i64(&b, r->iter_max);
    for (size_t k = 0; k < WR_HIST_MAX; k++)
        put_size(&b, r->hist[k]);
    put_size(&b, r->msg_init);
    put_size(&b, r->msg_commands);
    put_size(&b, r->msg_replies);
    put_size(&b, r->msg_thesis);
    if (b.bad) {
        free(b.p);
        return PORT_ENOMEM;
    }
    *bytes = b.p;
    *n = b.n;
    return PORT_OK;
}

static int offer_state(wr_work *w, int64_t t)
{
    const port_master *m = w->m;
    if (!m->ckpt || (!m->ckpt->offer && !m->ckpt->offer_later)) return PORT_OK;
    w->offer_t = t;
    int st = port_ckpt_offer_later(m, t, write_state, w);
    if (st)
        return port_errorf(w->err, w->errlen, st, "wr: the state at %.17g s: %s", secs(w, t),
                           port_strerror(st));
    return PORT_OK;
}

static size_t get_size(pstate_rd *r)
{
    int64_t v = pstate_get_i64(r);
    if (v < 0) r->bad = 1;
    return v < 0 ? 0 : (size_t)v;
}

/* Take the state a resumed run starts from; bytes it did not write are refused. */
static int resume_state(wr_work *w, int64_t *t)
{
    const port_master *m = w->m;
    wr_result *res = w->res;
    pstate_rd r = {.p = m->ckpt->resume, .n = m->ckpt->n_resume};
    uint32_t magic = pstate_get_u32(&r), version = pstate_get_u32(&r);
    int64_t at = pstate_get_i64(&r);
    uint32_t n_out = pstate_get_u32(&r);
    int ok = !r.bad && magic == WR_CK_MAGIC && version == WR_CK_VERSION && n_out == w->n_out;
    for (size_t k = 0; ok && k < w->n_out; k++)
        w->y0[k] = pstate_get_f64(&r);
    if (ok) {
        res->n_accepted = get_size(&r);
        res->n_abandoned = get_size(&r);
        res->iter_total = get_size(&r);
        int64_t im = pstate_get_i64(&r);
        if (im < 0 || im > INT32_MAX) r.bad = 1;
        res->iter_max = (int)(r.bad ? 0 : im);
        for (size_t k = 0; k < WR_HIST_MAX; k++)
            res->hist[k] = get_size(&r);
        res->msg_init = get_size(&r);
        res->msg_commands = get_size(&r);
        res->msg_replies = get_size(&r);
        res->msg_thesis = get_size(&r);
    }
    if (!ok || r.bad || r.at != r.n)
        return port_errorf(w->err, w->errlen, PORT_EUSAGE,
                           "wr: the state to resume from is not one it wrote for these slaves "
                           "(%zu bytes)",
                           m->ckpt->n_resume);
    if (at < m->t_start || at >= m->t_end)
        return port_errorf(w->err, w->errlen, PORT_EUSAGE,
                           "wr: the state to resume from is at %.17g s, outside the run [%.17g, "
                           "%.17g) s",
                           secs(w, at), secs(w, m->t_start), secs(w, m->t_end));
    res->t_reached = *t = at;
    return PORT_OK;
}

/* One instant: the nominal step [t, t_inst], halved attempts inside it as needed. */
static int instant(wr_work *w, int64_t t, int64_t t_inst)
{
    const port_master *m = w->m;
    int st = port_open(m, t_inst);
    if (st)
        return port_errorf(w->err, w->errlen, st, "wr: opening the instant %.17g s: %s",
                           secs(w, t_inst), port_strerror(st));
    w->res->n_instants++;
    int64_t h = t_inst - t;
    while (t < t_inst) {
        if (h > t_inst - t) h = t_inst - t;
        wr_decision dec = {WR_GIVE_UP, h, ""};
        st = attempt(w, t, t + h, &dec);
        if (st != PORT_OK) return st;
        if (dec.verdict == WR_ACCEPT) {
            t += h;
            w->res->t_reached = t;
        } else {
            h = dec.h_next;
        }
        /* another attempt in this instant starts from the committed outputs */
        if (t < t_inst && (st = commit_sync(w)) != PORT_OK) return st;
    }
    if ((st = offer_state(w, t_inst))) return st;
    st = port_close(m, t_inst);
    if (st)
        return port_errorf(w->err, w->errlen, st, "wr: closing the instant %.17g s: %s",
                           secs(w, t_inst), port_strerror(st));
    return commit_sync(w); /* the last commit went out with the close */
}

int wr_run(const port_master *m, const port_link *links, size_t n_links, const wr_opts *o,
           wr_result *res, char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    res->failed_slave = -1;
    res->t_reached = m ? m->t_start : 0;
    if (err && errlen) err[0] = '\0';
    wr_work w = {.m = m,
                 .given = links,
                 .n_given = n_links,
                 .o = o,
                 .res = res,
                 .err = err,
                 .errlen = errlen,
                 .commit_t = -1};
    if (!m || !o) return port_errorf(w.err, w.errlen, PORT_EUSAGE, "wr: no master or no settings");
    int st = setup(&w);
    int64_t t0 = m->t_start;
    if (st == PORT_OK && m->ckpt && m->ckpt->resume) { /* after the saved instant */
        st = resume_state(&w, &t0);
    } else {
        if (st == PORT_OK) st = port_open(m, m->t_start);
        if (st == PORT_OK) st = start(&w);
        if (st == PORT_OK) st = offer_state(&w, m->t_start);
        if (st == PORT_OK) st = port_close(m, m->t_start);
    }
    for (int64_t t = t0; st == PORT_OK && t < m->t_end; t = res->t_reached) {
        int64_t t_inst = port_tick_add(t, o->step);
        if (t_inst > m->t_end) t_inst = m->t_end;
        st = instant(&w, t, t_inst);
    }
    teardown(&w);
    return st;
}
