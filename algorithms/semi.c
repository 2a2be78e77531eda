/* Semi-implicit coupling with quasi-Newton over the port (algorithms/semi.h).
 *
 * Source: the Awais thesis §5.3 (Algorithm 3, eqs. 5.10-5.16), after Sicklinger et al. (2014)
 * for the interface Jacobian and Broyden (1965) for the update; doc/references.md. Page:
 * doc/algorithms/semi-implicit.md.
 *
 * Over a macro step [T_n, T_n+1] (h = T_n+1 - T_n s) every slave j integrates
 *     z_j' = f_j(z_j, u_j, t),   y_j = g_j(z_j, u_j, t)                                (eq. 4.3)
 * first over [T_n, T_r], T_r = T_n+1 - h / n_sub, with its inputs held at u_j(T_n) ("Advance
 * Time"), and then over the last internal step [T_r, T_n+1] with the inputs u_j held at a
 * value the master chooses ("Recalculate", from the state saved at T_r). With y the vector of
 * every slave's outputs at T_n+1 (n_out values, s.u. of each output) and u = A y the inputs
 * wired from it (eq. 4.4), one recalculation round is the map y -> F(y): the outputs at T_n+1
 * when the last step is taken with the inputs A y. The coupling equations are
 *     R(y) = F(y) - y = 0                                                 (eqs. 5.10, 5.11)
 * solved from the predictor y^0 = the outputs after Advance Time by
 *     fixed point  y^{k+1} = F(y^k)
 *     Newton       J(y^k) s = -R(y^k),  y^{k+1} = y^k + s                 (eq. 5.13, 5.12)
 *     Broyden      B_k s = -R(y^k),     y^{k+1} = y^k + s                 (eq. 5.14)
 *                  B_{k+1} = B_k + (dR - B_k s) s^T / (s^T s),  dR = R(y^{k+1}) - R(y^k)
 * J = dF/dy - I is formed column by column by finite differences: column i of dF/dy is
 * (F(y + d_i e_i) - F(y)) / d_i, d_i = fd_rel max(1, |y_i|), one probe per output that feeds
 * an input (an output feeding nothing has dF/dy_i = 0, column -e_i). A probe redoes the step of
 * the slaves whose inputs y_i feeds, and only theirs: the others would redo it with the inputs
 * of F(y) and give F(y)'s outputs bit for bit (a restore makes a step repeatable), a column of
 * exact zeros. Every probe of one Jacobian is posted before one sync: one round, not one per
 * column (doc/algorithms/semi-implicit.md "Cost"). A step
 * is accepted when ||R(y^k)||_max <= tol; the slaves then hold the state computed with the
 * inputs A y^k and their outputs F(y^k).
 *
 * Errata of the printed Algorithm 3 (doc/algorithms/semi-implicit.md "Errata"): line 35 tests
 * |updates| < NUMBER_OF_OUTPUTS where "=" is meant; "R > TOL" is a norm (here the max-norm); no
 * MAX guard (here max_iter, then PORT_ENOCONV with a report); B^-1 is never initialised (here
 * B0 = -I, whose first update is the fixed-point step, or the finite-difference Jacobian, reset
 * at every macro step so that each step's solve depends on that step only); eqs. 5.15/5.16 are
 * printed J x = R where the Newton form is J dx = -R. We keep B itself and solve with it
 * (Gaussian elimination with partial pivoting, n_out is small) instead of updating B^-1.
 *
 * Jacobian-free Newton-Krylov (the thesis's case study used Newton-Krylov with LGMRES) goes
 * through SUNDIALS KINSOL with GMRES: J v is KINSOL's difference quotient of R, one round each;
 * after KINSOL returns, one more round at its solution leaves the slaves in the accepted state.
 *
 * Choices where the thesis is silent: the held inputs over the advance are u(T_n) (what the
 * slave last received); the input on the redone step is held constant at A y (an FMI 1.0
 * co-simulation FMU has no other); n_sub = 1 (the whole macro step is the redone step) unless
 * set; tol 1e-8, max_iter 50. No allocation after the set-up except the growth of the result's
 * history arrays (amortised doubling).
 */
#include "algorithms/semi.h"

#include <kinsol/kinsol.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sunlinsol/sunlinsol_spgmr.h>

#include "algorithms/pstate.h"

/* Defaults (doc/algorithms/semi-implicit.md "Settings"). */
#define SEMI_DEFAULT_TOL      1e-8  /* output units; the thesis gives no value */
#define SEMI_DEFAULT_MAX_ITER 50    /* the thesis has no guard */
#define SEMI_DEFAULT_FD_REL   1e-7  /* about sqrt(machine epsilon): truncation ~ rounding */
#define SEMI_REPORT_RESIDUALS 8     /* residuals quoted in a failure report (the last ones) */
#define SEMI_PIVOT_REL        1e-14 /* a pivot below this times max |B_ij| is singular */

void semi_opts_default(semi_opts *o, int64_t step)
{
    *o = (semi_opts){.step = step,
                     .tol = SEMI_DEFAULT_TOL,
                     .max_iter = SEMI_DEFAULT_MAX_ITER,
                     .iter = SEMI_FIXED_POINT,
                     .jac0 = SEMI_JAC0_IDENTITY,
                     .n_sub = 1,
                     .fd_rel = SEMI_DEFAULT_FD_REL};
}

const char *semi_iter_name(semi_iter it)
{
    switch (it) {
    case SEMI_FIXED_POINT:
        return "fixed-point";
    case SEMI_BROYDEN:
        return "broyden";
    case SEMI_NEWTON:
        return "newton";
    case SEMI_NEWTON_KRYLOV:
        return "newton-krylov";
    }
    return "?";
}

void semi_result_fini(semi_result *r)
{
    if (!r) return;
    free(r->steps);
    free(r->residuals);
    memset(r, 0, sizeof *r);
}

/* The working set of one run, sized at set-up. */
typedef struct semi_work {
    const port_master *m;
    const port_link *given; /* the caller's links, n_given, in any order */
    size_t n_given;
    port_link *links; /* the same by the input they feed (port_frame by_in), n_in */
    const semi_opts *o;
    semi_result *res;
    char *err;
    size_t errlen;
    size_t n_c, n;                  /* slaves; outputs (unknowns) */
    size_t *off_out, *off_in;       /* n_c + 1 prefix sums */
    int *feeds;                     /* n: 1 when output i feeds some input */
    double *y, *Fy, *R;             /* iterate, F(iterate), residual */
    double *y_old, *R_old, *s, *Fp; /* previous iterate and residual, update, probe outputs
                                       (n x n, column i at Fp + i n: the probe of y_i) */
    double *B, *LU; /* n x n, row-major: Jacobian (approximation), its factorisation */
    double *u;      /* sum n_in: input values */
    double *D, *E;  /* directional only: every slave's dy/du (n_out x n_in, column by column,
                       slave by slave); the unit vectors of the largest input count */
    size_t *off_D;  /* n_c + 1 prefix sums into D */
    size_t max_in;  /* the largest input count: E is max_in x max_in */
    port_step_result *sr;
    int *st;
    double worst; /* the largest |R_i| of the last residual and where */
    size_t worst_i;
    /* Newton-Krylov only (KINSOL), created at set-up: */
    SUNContext sun;
    N_Vector ku, kscale;
    SUNLinearSolver kls;
    void *kin;
    int64_t k_tr, k_to; /* ticks: the redone step of the current solve */
    int k_status;       /* the port status that made the residual callback fail */
} semi_work;

static double secs(const semi_work *w, int64_t t)
{
    return port_seconds(w->m->tick, t);
}

static int recalc(semi_work *w, const double *y, int64_t t_r, int64_t t_to, double *Fy);

/* KINSOL's system function: f = F(u) - u, one recalculation round. A port failure is kept in
 * k_status and ends the solve (a negative return is unrecoverable for KINSOL). */
static int kin_residual(N_Vector u, N_Vector f, void *data)
{
    semi_work *w = data;
    const double *uu = N_VGetArrayPointer(u);
    double *ff = N_VGetArrayPointer(f);
    int st = recalc(w, uu, w->k_tr, w->k_to, w->Fp);
    if (st != PORT_OK) {
        w->k_status = st;
        return -1;
    }
    for (size_t i = 0; i < w->n; i++)
        ff[i] = w->Fp[i] - uu[i];
    return 0;
}

/* KINSOL's own messages are not printed: a failure is reported by its return flag. */
static void kin_quiet(int code, const char *module, const char *fn, char *msg, void *data)
{
}

/* KINSOL with GMRES (no preconditioner), J v by its difference quotients, the stopping test
 * ||F(u) - u||_max <= tol (unit scaling), at most max_iter Newton iterations, no line search. */
static int kin_setup(semi_work *w)
{
    sunindextype n = (sunindextype)(w->n ? w->n : 1);
    if (SUNContext_Create(NULL, &w->sun) || !(w->ku = N_VNew_Serial(n, w->sun)) ||
        !(w->kscale = N_VNew_Serial(n, w->sun)) ||
        !(w->kls = SUNLinSol_SPGMR(w->ku, SUN_PREC_NONE, (int)n, w->sun)) ||
        !(w->kin = KINCreate(w->sun)))
        return port_errorf(w->err, w->errlen, PORT_ENOMEM,
                           "semi-implicit: cannot create the KINSOL solver");
    N_VConst(1.0, w->kscale);
    N_VConst(0.0, w->ku);
    if (KINInit(w->kin, kin_residual, w->ku) != KIN_SUCCESS ||
        KINSetLinearSolver(w->kin, w->kls, NULL) != KIN_SUCCESS ||
        KINSetUserData(w->kin, w) != KIN_SUCCESS ||
        KINSetErrHandlerFn(w->kin, kin_quiet, NULL) != KIN_SUCCESS ||
        KINSetFuncNormTol(w->kin, w->o->tol) != KIN_SUCCESS ||
        KINSetNumMaxIters(w->kin, w->o->max_iter) != KIN_SUCCESS)
        return port_errorf(w->err, w->errlen, PORT_EUSAGE,
                           "semi-implicit: cannot configure KINSOL (tol %g, max_iter %d)",
                           w->o->tol, w->o->max_iter);
    return PORT_OK;
}

/* Check settings and links, size the working set. */
/* Room for eq. 5.12's D and the unit vectors; every slave with inputs must offer them. */
static int directional_setup(semi_work *w)
{
    const port_master *m = w->m;
    size_t max_in = 0;
    if (!(w->off_D = calloc(w->n_c + 1, sizeof *w->off_D)))
        return port_errorf(w->err, w->errlen, PORT_ENOMEM, "semi-implicit: out of memory");
    for (size_t j = 0; j < w->n_c; j++) {
        const port_slave_info *in = &m->slaves[j].info;
        if (in->n_in && in->n_out && !in->has_directional)
            return port_errorf(w->err, w->errlen, PORT_EUNSUPPORTED,
                               "semi-implicit: slave '%s' gives no directional derivatives "
                               "(\"jacobian\": \"directional\" needs them)",
                               in->name ? in->name : "?");
        w->off_D[j + 1] = w->off_D[j] + in->n_out * in->n_in;
        max_in = in->n_in > max_in ? in->n_in : max_in;
    }
    w->D = calloc(w->off_D[w->n_c] + 1, sizeof(double));
    w->E = calloc(max_in * max_in + 1, sizeof(double));
    if (!w->D || !w->E)
        return port_errorf(w->err, w->errlen, PORT_ENOMEM, "semi-implicit: out of memory");
    for (size_t i = 0; i < max_in; i++)
        w->E[i * max_in + i] = 1;
    w->max_in = max_in;
    return PORT_OK;
}

/* The fields of the working set that port_frame_init sizes. */
static port_frame frame(semi_work *w)
{
    return (port_frame){&w->n_c, &w->n,  NULL,   &w->off_out, &w->off_in,
                        NULL,    &w->sr, &w->st, &w->links};
}

static int setup(semi_work *w)
{
    const port_master *m = w->m;
    const semi_opts *o = w->o;
    if (!(o->step > 0) || !(o->tol > 0) || o->max_iter < 1 || o->n_sub < 1 ||
        o->n_sub > SEMI_MAX_SUB || !(o->fd_rel > 0) ||
        (o->iter != SEMI_FIXED_POINT && o->iter != SEMI_BROYDEN && o->iter != SEMI_NEWTON &&
         o->iter != SEMI_NEWTON_KRYLOV) ||
        (o->jac0 != SEMI_JAC0_IDENTITY && o->jac0 != SEMI_JAC0_FD &&
         o->jac0 != SEMI_JAC0_DIRECTIONAL))
        return port_errorf(
            w->err, w->errlen, PORT_EUSAGE,
            "semi-implicit: bad settings: step %lld ticks (> 0), tol %g (> 0), max_iter %d "
            "(>= 1), n_sub %d (1..%d), fd_rel %g (> 0), iteration %d, jacobian %d",
            (long long)o->step, o->tol, o->max_iter, o->n_sub, SEMI_MAX_SUB, o->fd_rel,
            (int)o->iter, (int)o->jac0);
    port_frame f = frame(w);
    port_frame_rules r = {
        "semi-implicit", PORT_NEED_SAVE, "cannot save its state (Recalculate needs it)",
        w->given,        w->n_given,     0};
    int st = port_frame_init(&f, m, &r, w->err, w->errlen);
    if (st != PORT_OK) return st;
    size_t n_in = w->off_in[w->n_c], n = w->n ? w->n : 1;
    w->feeds = calloc(n, sizeof *w->feeds);
    if (!w->feeds)
        return port_errorf(w->err, w->errlen, PORT_ENOMEM, "semi-implicit: out of memory");
    for (size_t k = 0; k < n_in; k++)
        w->feeds[w->off_out[w->links[k].from] + w->links[k].out] = 1;
    double **vecs[] = {&w->y, &w->Fy, &w->R, &w->y_old, &w->R_old, &w->s, &w->Fp};
    for (size_t k = 0; k < sizeof vecs / sizeof *vecs; k++)
        if (!(*vecs[k] = calloc(vecs[k] == &w->Fp ? n * n : n, sizeof(double))))
            return port_errorf(w->err, w->errlen, PORT_ENOMEM, "semi-implicit: out of memory");
    w->u = calloc(n_in ? n_in : 1, sizeof(double));
    if (o->jac0 == SEMI_JAC0_DIRECTIONAL && (o->iter == SEMI_NEWTON || o->iter == SEMI_BROYDEN)) {
        st = directional_setup(w);
        if (st != PORT_OK) return st;
    }
    if (o->iter != SEMI_FIXED_POINT) {
        w->B = calloc(n * n, sizeof(double));
        w->LU = calloc(n * n, sizeof(double));
    }
    if (!w->u || (o->iter != SEMI_FIXED_POINT && (!w->B || !w->LU)))
        return port_errorf(w->err, w->errlen, PORT_ENOMEM,
                           "semi-implicit: out of memory (%zu x %zu Jacobian)", n, n);
    return o->iter == SEMI_NEWTON_KRYLOV ? kin_setup(w) : PORT_OK;
}

static void teardown(semi_work *w)
{
    if (w->kin) KINFree(&w->kin);
    if (w->kls) SUNLinSolFree(w->kls);
    if (w->ku) N_VDestroy(w->ku);
    if (w->kscale) N_VDestroy(w->kscale);
    if (w->sun) SUNContext_Free(&w->sun);
    port_frame f = frame(w);
    port_frame_fini(&f);
    free(w->feeds);
    free(w->y);
    free(w->Fy);
    free(w->R);
    free(w->y_old);
    free(w->R_old);
    free(w->s);
    free(w->Fp);
    free(w->B);
    free(w->LU);
    free(w->u);
    free(w->D);
    free(w->E);
    free(w->off_D);
}

/* A sync, and on error a report naming the first slave at fault. */
static int sync_all(semi_work *w, const char *what, int64_t t)
{
    return port_sync_report(w->m, w->st, "semi-implicit", what, secs(w, t), 0,
                            " (the semi-implicit coupling does not handle events)",
                            &w->res->failed_slave, w->err, w->errlen);
}

/* The input values of every slave from the outputs y (each input's link names its output). */
static void inputs_from(semi_work *w, const double *y)
{
    size_t n_in = w->off_in[w->n_c];
    for (size_t k = 0; k < n_in; k++) {
        const port_link *l = &w->links[k];
        w->u[k] = y[w->off_out[l->from] + l->out];
    }
}

/* Post the inputs u (held: order 0) expanded about t0 to slave j. */
static void post_inputs(semi_work *w, size_t j, int64_t t0)
{
    const port_slave *s = &w->m->slaves[j];
    port_poly p = {
        .t0 = t0, .order = 0, .n = s->info.n_in, .c = s->info.n_in ? &w->u[w->off_in[j]] : NULL};
    port_set_inputs(s, &p);
    w->res->msg_commands++;
}

/* Advance Time: from T_n to T_r with the inputs A y (y = the outputs at T_n), save at T_r
 * (slot 0), and the last step to T_n+1 with the same inputs; its outputs are the predictor. */
static int advance(semi_work *w, int64_t t_from, int64_t t_r, int64_t t_to, double *y_out)
{
    inputs_from(w, w->y);
    for (size_t j = 0; j < w->n_c; j++) {
        const port_slave *s = &w->m->slaves[j];
        if (t_r > t_from) {
            post_inputs(w, j, t_from);
            port_step(s, t_r, 1, NULL, &w->sr[j]);
            w->res->msg_commands++;
            w->res->msg_replies++;
        }
        port_save(s, 0);
        post_inputs(w, j, t_r);
        port_step(s, t_to, 1, &y_out[w->off_out[j]], &w->sr[j]);
        w->res->msg_commands += 2;
        w->res->msg_replies++;
    }
    return sync_all(w, "advancing", t_to);
}

/* Recalculate: F(y) into Fy, every slave's last step redone from slot 0 with inputs A y. */
static int recalc(semi_work *w, const double *y, int64_t t_r, int64_t t_to, double *Fy)
{
    inputs_from(w, y);
    for (size_t j = 0; j < w->n_c; j++) {
        const port_slave *s = &w->m->slaves[j];
        port_restore(s, 0);
        post_inputs(w, j, t_r);
        port_step(s, t_to, 1, &Fy[w->off_out[j]], &w->sr[j]);
        w->res->msg_commands += 2;
        w->res->msg_replies++;
    }
    w->res->eval_total++;
    return sync_all(w, "recalculating its last step", t_to);
}

/* R = Fy - y and its max-norm (NaN counts as infinite), remembering the worst output. */
static double residual(semi_work *w)
{
    double r = 0;
    w->worst = -1;
    for (size_t i = 0; i < w->n; i++) {
        w->R[i] = w->Fy[i] - w->y[i];
        double a = fabs(w->R[i]);
        if (isnan(a)) a = INFINITY;
        if (a > w->worst) w->worst = a, w->worst_i = i;
        r = fmax(r, a);
    }
    return r;
}

/* 1 when an input of slave j takes output i. */
static int fed_by(const semi_work *w, size_t j, size_t i)
{
    for (size_t k = w->off_in[j]; k < w->off_in[j + 1]; k++)
        if (w->off_out[w->links[k].from] + w->links[k].out == i) return 1;
    return 0;
}

/* B = dF/dy - I at y (Fy = F(y)) by forward differences over the outputs that feed inputs:
 * the probe of y_i redoes the step of the slaves y_i feeds (their rows of column i; the
 * others' rows are exactly 0), every probe posted before one sync (the file's opening
 * comment). Each probe counts as one evaluation in eval_total, as when each took a round. */
static int jacobian_fd(semi_work *w, int64_t t_r, int64_t t_to)
{
    size_t n = w->n;
    double *d = w->s; /* the steps d_i (s is free until solve) */
    for (size_t i = 0; i < n; i++) {
        if (!w->feeds[i]) continue;
        double yi = w->y[i];
        d[i] = w->o->fd_rel * fmax(1, fabs(yi));
        w->y[i] = yi + d[i];
        inputs_from(w, w->y);
        w->y[i] = yi;
        for (size_t j = 0; j < w->n_c; j++) {
            if (!fed_by(w, j, i)) continue;
            const port_slave *s = &w->m->slaves[j];
            port_restore(s, 0);
            post_inputs(w, j, t_r);
            port_step(s, t_to, 1, &w->Fp[i * n + w->off_out[j]], &w->sr[j]);
            w->res->msg_commands += 2;
            w->res->msg_replies++;
        }
        w->res->eval_total++;
    }
    int st = sync_all(w, "recalculating its last step", t_to);
    if (st != PORT_OK) return st;
    memset(w->B, 0, n * n * sizeof *w->B);
    for (size_t i = 0; i < n; i++) {
        w->B[i * n + i] = -1;
        if (!w->feeds[i]) continue;
        for (size_t j = 0; j < w->n_c; j++) {
            if (!fed_by(w, j, i)) continue;
            for (size_t r = w->off_out[j]; r < w->off_out[j + 1]; r++)
                w->B[r * n + i] += (w->Fp[i * n + r] - w->Fy[r]) / d[i];
        }
    }
    return PORT_OK;
}

/* B = dR/dy = D A - I at the slaves' current point (the last recalculation), eq. 5.12: D the
 * slaves' dy/du from one round of directional derivatives (a column per input), A the wiring.
 * Exact when the outputs depend on the inputs only through direct feedthrough; with states
 * the step's own sensitivity is left out (the thesis's interface Jacobian, not dF/dy). */
static int jacobian_dir(semi_work *w, int64_t t_to)
{
    const port_master *m = w->m;
    size_t n = w->n;
    for (size_t j = 0; j < w->n_c; j++) {
        const port_slave *s = &m->slaves[j];
        if (!s->info.n_in || !s->info.n_out) continue;
        for (size_t i = 0; i < s->info.n_in; i++)
            port_get_directional(s, &w->E[i * w->max_in], &w->D[w->off_D[j] + i * s->info.n_out]);
        w->res->msg_commands += s->info.n_in;
        w->res->msg_replies += s->info.n_in;
    }
    int st = sync_all(w, "giving its directional derivatives", t_to);
    if (st != PORT_OK) return st;
    memset(w->B, 0, n * n * sizeof *w->B);
    for (size_t i = 0; i < n; i++)
        w->B[i * n + i] = -1;
    for (size_t j = 0; j < w->n_c; j++) {
        size_t n_out = m->slaves[j].info.n_out;
        for (size_t i = 0; i < m->slaves[j].info.n_in && n_out; i++) {
            const port_link *l = &w->links[w->off_in[j] + i];
            size_t c = w->off_out[l->from] + l->out;
            for (size_t r = 0; r < n_out; r++)
                w->B[(w->off_out[j] + r) * n + c] += w->D[w->off_D[j] + i * n_out + r];
        }
    }
    return PORT_OK;
}

/* Solve B s = -R by Gaussian elimination with partial pivoting on a copy; -1 if singular. */
static int solve(semi_work *w)
{
    size_t n = w->n;
    double *A = w->LU, *x = w->s, scale = 0;
    memcpy(A, w->B, n * n * sizeof *A);
    for (size_t i = 0; i < n * n; i++)
        scale = fmax(scale, fabs(A[i]));
    for (size_t i = 0; i < n; i++)
        x[i] = -w->R[i];
    if (!(scale > 0) || !isfinite(scale)) return -1;
    for (size_t c = 0; c < n; c++) {
        size_t p = c;
        for (size_t r = c + 1; r < n; r++)
            if (fabs(A[r * n + c]) > fabs(A[p * n + c])) p = r;
        if (!(fabs(A[p * n + c]) > SEMI_PIVOT_REL * scale)) return -1;
        if (p != c) {
            for (size_t k = 0; k < n; k++) {
                double t = A[c * n + k];
                A[c * n + k] = A[p * n + k], A[p * n + k] = t;
            }
            double t = x[c];
            x[c] = x[p], x[p] = t;
        }
        for (size_t r = c + 1; r < n; r++) {
            double f = A[r * n + c] / A[c * n + c];
            if (f == 0) continue;
            for (size_t k = c; k < n; k++)
                A[r * n + k] -= f * A[c * n + k];
            x[r] -= f * x[c];
        }
    }
    for (size_t c = n; c-- > 0;) {
        double v = x[c];
        for (size_t k = c + 1; k < n; k++)
            v -= A[c * n + k] * x[k];
        x[c] = v / A[c * n + c];
    }
    return 0;
}

/* Good Broyden: B += (dR - B s) s^T / (s^T s), s = y - y_old, dR = R - R_old. */
static void broyden_update(semi_work *w)
{
    size_t n = w->n;
    double ss = 0;
    for (size_t i = 0; i < n; i++) {
        w->s[i] = w->y[i] - w->y_old[i];
        ss += w->s[i] * w->s[i];
    }
    if (!(ss > 0)) return; /* no move: nothing learnt */
    for (size_t r = 0; r < n; r++) {
        double bs = 0;
        for (size_t c = 0; c < n; c++)
            bs += w->B[r * n + c] * w->s[c];
        double f = ((w->R[r] - w->R_old[r]) - bs) / ss;
        for (size_t c = 0; c < n; c++)
            w->B[r * n + c] += f * w->s[c];
    }
}

/* The output index i as "output o of slave 'name'". */
static void where(const semi_work *w, size_t i, size_t *j, size_t *o)
{
    size_t k = 0;
    while (k + 1 < w->n_c && w->off_out[k + 1] <= i)
        k++;
    *j = k;
    *o = i - w->off_out[k];
}

static int report_noconv(semi_work *w, int64_t t_to, int k, size_t res_off, const char *why)
{
    char hist[256] = "";
    size_t nres = w->res->n_residuals - res_off, n = 0;
    size_t first = nres > SEMI_REPORT_RESIDUALS ? nres - SEMI_REPORT_RESIDUALS : 0;
    for (size_t q = first; q < nres && n < sizeof hist; q++)
        n += (size_t)snprintf(hist + n, sizeof hist - n, "%s%.3g", q > first ? " " : "",
                              w->res->residuals[res_off + q]);
    size_t j = 0, o = 0;
    where(w, w->worst_i, &j, &o);
    w->res->failed_slave = (int)j;
    return port_errorf(
        w->err, w->errlen, PORT_ENOCONV,
        "semi-implicit (%s): no convergence at %.17g s after %d updates: %s; residuals "
        "(max-norm, tol %g) of evaluations %zu..%zu: %s; largest |R| %.3g in output %zu "
        "of slave '%s'. Remedies: a smaller step, a larger max_iter, \"iteration\": "
        "\"newton\" or \"broyden\"",
        semi_iter_name(w->o->iter), secs(w, t_to), k, why, w->o->tol, first, nres - 1, hist,
        w->worst, o, w->m->slaves[j].info.name ? w->m->slaves[j].info.name : "?");
}

static int push_residual(semi_work *w, double r)
{
    semi_result *res = w->res;
    if (port_grow((void **)&res->residuals, &res->cap_residuals, res->n_residuals + 1,
                  sizeof(double)))
        return port_errorf(w->err, w->errlen, PORT_ENOMEM,
                           "semi-implicit: out of memory (residual history)");
    res->residuals[res->n_residuals++] = r;
    port_note(w->m, "semi.residual", r);
    return PORT_OK;
}

/* The next iterate: y_old, R_old <- y, R; y <- y + s by the chosen method (k: updates so far). */
static int update(semi_work *w, int k, int64_t t_r, int64_t t_to, const char **why)
{
    size_t n = w->n;
    if (w->o->iter == SEMI_FIXED_POINT) {
        memcpy(w->y_old, w->y, n * sizeof *w->y);
        memcpy(w->R_old, w->R, n * sizeof *w->R);
        memcpy(w->y, w->Fy, n * sizeof *w->y);
        return PORT_OK;
    }
    int st = PORT_OK;
    if ((w->o->iter == SEMI_NEWTON || k == 0) && w->o->jac0 == SEMI_JAC0_DIRECTIONAL) {
        st = jacobian_dir(w, t_to);
    } else if (w->o->iter == SEMI_NEWTON || (k == 0 && w->o->jac0 == SEMI_JAC0_FD)) {
        st = jacobian_fd(w, t_r, t_to);
    } else if (k == 0) {
        memset(w->B, 0, n * n * sizeof *w->B);
        for (size_t i = 0; i < n; i++)
            w->B[i * n + i] = -1;
    } else {
        broyden_update(w);
    }
    if (st != PORT_OK) return st;
    if (solve(w)) {
        *why = "the Jacobian (approximation) is singular";
        return PORT_ENOCONV;
    }
    memcpy(w->y_old, w->y, n * sizeof *w->y);
    memcpy(w->R_old, w->R, n * sizeof *w->R);
    for (size_t i = 0; i < n; i++)
        w->y[i] += w->s[i];
    return PORT_OK;
}

/* Accept the step whose last evaluation left R, Fy: histogram, history, notes. */
static int accept(semi_work *w, int64_t t_to, int k, size_t res_off, int evals0)
{
    semi_result *res = w->res;
    if (port_grow((void **)&res->steps, &res->cap_steps, res->n_steps + 1, sizeof *res->steps))
        return port_errorf(w->err, w->errlen, PORT_ENOMEM,
                           "semi-implicit: out of memory (step history)");
    res->steps[res->n_steps++] = (semi_step_rec){t_to, k, (int)res->eval_total - evals0, res_off};
    res->n_accepted++;
    res->hist[k < SEMI_HIST_MAX ? k : SEMI_HIST_MAX - 1]++;
    if (k > res->iter_max) res->iter_max = k;
    port_note(w->m, "semi.accept", k);
    memcpy(w->y, w->Fy, w->n * sizeof *w->y);
    return PORT_OK;
}

/* Newton-Krylov: KINSOL from the predictor, then one more round at its solution so that the
 * slaves hold the state of the accepted inputs (KINSOL's last evaluation may be a J v probe);
 * that round's residual is the one tested and recorded. */
static int kin_step(semi_work *w, int64_t t_r, int64_t t_to, size_t res_off, int evals0)
{
    memcpy(N_VGetArrayPointer(w->ku), w->y, w->n * sizeof *w->y);
    w->k_tr = t_r, w->k_to = t_to, w->k_status = PORT_OK;
    int flag = KINSol(w->kin, w->ku, KIN_NONE, w->kscale, w->kscale);
    if (w->k_status != PORT_OK) return w->k_status; /* sync_all has written the report */
    long nni = 0;
    KINGetNumNonlinSolvIters(w->kin, &nni);
    int k = (int)nni;
    w->res->iter_total += (size_t)k;
    memcpy(w->y, N_VGetArrayPointer(w->ku), w->n * sizeof *w->y);
    int st = recalc(w, w->y, t_r, t_to, w->Fy);
    if (st != PORT_OK) return st;
    double r = residual(w);
    if ((st = push_residual(w, r)) != PORT_OK) return st;
    port_note(w->m, "semi.iter", k);
    if (r <= w->o->tol && flag >= 0) return accept(w, t_to, k, res_off, evals0);
    char why[160];
    char *name = KINGetReturnFlagName(flag); /* malloc'ed by SUNDIALS */
    snprintf(why, sizeof why, "KINSOL returned %d (%s)", flag, name ? name : "?");
    free(name);
    return report_noconv(w, t_to, k, res_off, why);
}

/* One macro step [t_from, t_to]: advance, then iterate until ||R|| <= tol. On entry w->y holds
 * the outputs at t_from; on success, those at t_to. */
static int macro_step(semi_work *w, int64_t t_from, int64_t t_to)
{
    semi_result *res = w->res;
    int64_t span = t_to - t_from;
    int64_t t_r = t_from + (int64_t)((double)span * (w->o->n_sub - 1) / w->o->n_sub);
    size_t res_off = res->n_residuals;
    int evals0 = (int)res->eval_total;
    int st = advance(w, t_from, t_r, t_to, w->y);
    if (st != PORT_OK) return st;
    if (w->o->iter == SEMI_NEWTON_KRYLOV) return kin_step(w, t_r, t_to, res_off, evals0);
    for (int k = 0;; k++) {
        if ((st = recalc(w, w->y, t_r, t_to, w->Fy)) != PORT_OK) return st;
        double r = residual(w);
        if ((st = push_residual(w, r)) != PORT_OK) return st;
        if (r <= w->o->tol) return accept(w, t_to, k, res_off, evals0);
        if (!isfinite(r)) return report_noconv(w, t_to, k, res_off, "the residual is not finite");
        if (k == w->o->max_iter) return report_noconv(w, t_to, k, res_off, "max_iter reached");
        const char *why = "";
        st = update(w, k, t_r, t_to, &why);
        if (st == PORT_ENOCONV) return report_noconv(w, t_to, k, res_off, why);
        if (st != PORT_OK) return st;
        res->iter_total++;
        port_note(w->m, "semi.iter", k + 1);
    }
}

/* Every slave records its accepted row: posted only, so that the records travel with the
 * close and cost no round of their own; the sync after the close completes them (port.h,
 * port_master_ops.close). */
static void record_all(semi_work *w)
{
    for (size_t j = 0; j < w->n_c; j++)
        port_record(&w->m->slaves[j]);
    w->res->msg_commands += w->n_c;
}

/* The state between macro steps (doc/checkpoint.md "Master methods"): "SMI1", the version, the
 * instant, y (the outputs at it: the next step's Advance Time inputs) and the result's
 * counters. The iteration matrix (Jacobian or Broyden's B) and KINSOL's iterate are formed
 * again at each step's first update, so nothing of them lives between steps; slot 0 is saved
 * again by each step's Advance Time; the step and residual histories are not saved. */
#define SEMI_CK_MAGIC   0x31494d53u /* "SMI1" little-endian */
#define SEMI_CK_VERSION 1u

static int offer_state(semi_work *w, int64_t t)
{
    const port_master *m = w->m;
    if (!m->ckpt || !m->ckpt->offer) return PORT_OK;
    const semi_result *r = w->res;
    pstate_buf b = {0};
    pstate_put_u32(&b, SEMI_CK_MAGIC);
    pstate_put_u32(&b, SEMI_CK_VERSION);
    pstate_put_i64(&b, t);
    pstate_put_u32(&b, (uint32_t)w->n);
    for (size_t k = 0; k < w->n; k++)
        pstate_put_f64(&b, w->y[k]);
    size_t c[] = {r->n_accepted, r->iter_total, r->eval_total, r->msg_commands, r->msg_replies};
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++)
        pstate_put_i64(&b, (int64_t)c[k]);
    pstate_put_i64(&b, r->iter_max);
    for (size_t k = 0; k < SEMI_HIST_MAX; k++)
        pstate_put_i64(&b, (int64_t)r->hist[k]);
    int st = b.bad ? PORT_ENOMEM : port_ckpt_offer(m, t, b.p, b.n);
    free(b.p);
    if (st)
        return port_errorf(w->err, w->errlen, st, "semi-implicit: the state at %.17g s: %s",
                           secs(w, t), port_strerror(st));
    return PORT_OK;
}

/* Take the state a resumed run starts from; bytes it did not write are refused before any
 * command. */
static int resume_state(semi_work *w, int64_t *t)
{
    const port_master *m = w->m;
    semi_result *res = w->res;
    pstate_rd r = {.p = m->ckpt->resume, .n = m->ckpt->n_resume};
    uint32_t magic = pstate_get_u32(&r), version = pstate_get_u32(&r);
    int64_t at = pstate_get_i64(&r);
    uint32_t n = pstate_get_u32(&r);
    int ok = !r.bad && magic == SEMI_CK_MAGIC && version == SEMI_CK_VERSION && n == w->n;
    double *y = ok ? calloc(w->n + 1, sizeof *y) : NULL;
    int64_t c[5 + 1 + SEMI_HIST_MAX];
    for (size_t k = 0; y && k < w->n; k++)
        y[k] = pstate_get_f64(&r);
    for (size_t k = 0; y && k < sizeof c / sizeof c[0]; k++)
        if ((c[k] = pstate_get_i64(&r)) < 0) r.bad = 1;
    if (!y || r.bad || r.at != r.n || c[5] > INT32_MAX) {
        free(y);
        return port_errorf(w->err, w->errlen, PORT_EUSAGE,
                           "semi-implicit: the state to resume from is not one it wrote for these "
                           "slaves (%zu bytes)",
                           m->ckpt->n_resume);
    }
    if (at < m->t_start || at >= m->t_end) {
        free(y);
        return port_errorf(w->err, w->errlen, PORT_EUSAGE,
                           "semi-implicit: the state to resume from is at %.17g s, outside the "
                           "run [%.17g, %.17g) s",
                           secs(w, at), secs(w, m->t_start), secs(w, m->t_end));
    }
    memcpy(w->y, y, w->n * sizeof *y);
    free(y);
    res->n_accepted = (size_t)c[0];
    res->iter_total = (size_t)c[1];
    res->eval_total = (size_t)c[2];
    res->msg_commands = (size_t)c[3];
    res->msg_replies = (size_t)c[4];
    res->iter_max = (int)c[5];
    for (size_t k = 0; k < SEMI_HIST_MAX; k++)
        res->hist[k] = (size_t)c[6 + k];
    res->t_reached = at;
    *t = at;
    return PORT_OK;
}

int semi_run(const port_master *m, const port_link *links, size_t n_links, const semi_opts *o,
             semi_result *res, char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    res->failed_slave = -1;
    res->t_reached = m ? m->t_start : 0;
    if (err && errlen) err[0] = '\0';
    semi_work w = {.m = m,
                   .given = links,
                   .n_given = n_links,
                   .o = o,
                   .res = res,
                   .err = err,
                   .errlen = errlen};
    if (!m || !o)
        return port_errorf(w.err, w.errlen, PORT_EUSAGE, "semi-implicit: no master or no settings");
    int st = setup(&w);
    int resumed = st == PORT_OK && m->ckpt && m->ckpt->resume;
    int64_t t0 = m->t_start;
    if (resumed) st = resume_state(&w, &t0); /* after the saved instant */
    if (st == PORT_OK && !resumed) st = port_open(m, m->t_start);
    if (st == PORT_OK && !resumed) { /* the outputs at t_start and the first results row */
        for (size_t j = 0; j < w.n_c; j++) {
            const port_slave *s = &m->slaves[j];
            port_get_outputs(s, &w.y[w.off_out[j]]);
        }
        res->msg_commands += w.n_c;
        res->msg_replies += w.n_c;
        st = sync_all(&w, "reading the initial outputs", m->t_start);
    }
    if (st == PORT_OK && !resumed) {
        record_all(&w);
        if ((st = offer_state(&w, m->t_start)) == PORT_OK) st = port_close(m, m->t_start);
        if (st == PORT_OK) st = sync_all(&w, "recording", m->t_start);
    }
    for (int64_t t = t0; st == PORT_OK && t < m->t_end; t = res->t_reached) {
        int64_t t_to = port_tick_add(t, o->step);
        if (t_to > m->t_end) t_to = m->t_end;
        if ((st = port_open(m, t_to)) != PORT_OK) {
            port_errorf(w.err, w.errlen, st, "semi-implicit: opening the instant %.17g s: %s",
                        secs(&w, t_to), port_strerror(st));
            break;
        }
        if ((st = macro_step(&w, t, t_to)) == PORT_OK) record_all(&w);
        if (st == PORT_OK) st = offer_state(&w, t_to);
        if (st == PORT_OK && (st = port_close(m, t_to)) != PORT_OK)
            port_errorf(w.err, w.errlen, st, "semi-implicit: closing the instant %.17g s: %s",
                        secs(&w, t_to), port_strerror(st));
        if (st == PORT_OK) st = sync_all(&w, "recording", t_to);
        if (st == PORT_OK) res->t_reached = t_to;
    }
    teardown(&w);
    return st;
}
