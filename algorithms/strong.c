/* Strong coupling with CVODE in the master over the port (algorithms/strong.h).
 *
 * Source: the Awais thesis §5.4 (Algorithm 4, eqs. 5.18, 5.19); doc/references.md. Page:
 * doc/algorithms/strong-coupling.md.
 *
 * The states of every slave form one vector x (sum n_state values, slave by slave). CVODE
 * integrates x' = f(t, x) (eq. 5.18) where one evaluation of f is one round over the port,
 * Algorithm 4's Update States / Update Inputs / Send Derivatives:
 *   every slave j: set_states(t, x_j), set_inputs(u_j = A y, held), get_derivatives(x_j')  (sync)
 * with the wired outputs read from x itself, which holds when every wired output is a state
 * (info.out_state). Otherwise the outputs are read at x first, a round of set_states +
 * get_outputs before it (our addition: right for any output map). The RHS time is a payload
 * (set_states' t), not a time stamp (erratum E4 of the thesis: CVODE evaluates at
 * non-monotonic t); the instant stays the output time T_n+1 being integrated to, and CVODE
 * stops exactly there (tstop), so it never evaluates beyond the instant it is working in.
 *
 * At the start and at each output time T_n+1 = T_n + step the slaves receive the states and the
 * inputs wired from them and record their row (Algorithm 4's Send States / End Iteration).
 * Messages are counted as eq. 5.19 has them (strong.h). No allocation after set-up.
 */
#include "algorithms/strong.h"

#include <cvode/cvode.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include "algorithms/pstate.h"

#define STRONG_DEFAULT_RTOL 1e-6
#define STRONG_DEFAULT_ATOL 1e-8
#define STRONG_MAX_STEPS    100000 /* CVODE internal steps per output interval */

void strong_opts_default(strong_opts *o, int64_t step)
{
    *o = (strong_opts){.step = step,
                       .adams = 0,
                       .rtol = STRONG_DEFAULT_RTOL,
                       .atol = STRONG_DEFAULT_ATOL,
                       .max_step = 0};
}

typedef struct strong_work {
    const port_master *m;
    const port_link *given; /* the caller's links, n_given, in any order */
    size_t n_given;
    port_link *links; /* the same by the input they feed (port_frame by_in), n_in */
    const strong_opts *o;
    strong_result *res;
    char *err;
    size_t errlen;
    size_t n_c, nx;
    size_t *off_x, *off_out, *off_in; /* n_c + 1 prefix sums */
    double *y, *u;                    /* all outputs; all inputs */
    int *st;
    int port_status; /* the slave error that stopped the RHS */
    SUNContext sun;
    N_Vector x;
    SUNMatrix A;
    SUNLinearSolver LS;
    void *cv;
    long steps_done; /* CVODE's steps before its last (re)start: CVodeReInit counts from 0 */
} strong_work;

static double secs(const strong_work *w, int64_t t)
{
    return port_seconds(w->m->tick, t);
}

static int sync_all(strong_work *w, const char *what, double t)
{
    return port_sync_report(w->m, w->st, "strong coupling", what, t, 0, "", &w->res->failed_slave,
                            w->err, w->errlen);
}

/* u = A y: every input from the output it is wired to; with one_round the output is a state,
 * read from x itself (Algorithm 4's Update Inputs from the state vector). */
static void wire(strong_work *w, const double *x)
{
    size_t n_in = w->off_in[w->n_c];
    for (size_t k = 0; k < n_in; k++) {
        const port_link *l = &w->links[k];
        if (w->res->one_round)
            w->u[k] = x[w->off_x[l->from] + (size_t)w->m->slaves[l->from].info.out_state[l->out]];
        else
            w->u[k] = w->y[w->off_out[l->from] + l->out];
    }
}

/* One round: every slave j gets x_j at tt (ticks) and, when inputs is set, its inputs u_j; then
 * records its row (what == RECORD), reports its outputs (OUTPUTS) or its derivatives into dx
 * (DERIVS). Counts the messages (commands and replies with values) and syncs. */
enum { RECORD, OUTPUTS, DERIVS };
static int round_(strong_work *w, int64_t tt, const double *x, int inputs, int what, double *dx)
{
    for (size_t j = 0; j < w->n_c; j++) {
        const port_slave *s = &w->m->slaves[j];
        if (x) port_set_states(s, tt, &x[w->off_x[j]]);
        if (inputs) {
            port_poly p = {.t0 = tt,
                           .order = 0,
                           .n = s->info.n_in,
                           .c = s->info.n_in ? &w->u[w->off_in[j]] : NULL};
            port_set_inputs(s, &p);
        }
        if (what == RECORD)
            port_record(s);
        else if (what == OUTPUTS)
            port_get_outputs(s, &w->y[w->off_out[j]]);
        else
            port_get_derivatives(s, &dx[w->off_x[j]]);
    }
    w->res->msg_commands += ((x != NULL) + (inputs != 0) + 1) * w->n_c;
    if (what != RECORD) w->res->msg_replies += w->n_c;
    static const char *const doing[] = {"recording", "reporting its outputs",
                                        "evaluating its derivatives"};
    return sync_all(w, doing[what], port_seconds(w->m->tick, tt));
}

/* The slaves at (tt, x) with the inputs wired from there: one round, or two when the outputs
 * must be read first; what: RECORD or DERIVS (into dx). */
static int evaluate(strong_work *w, int64_t tt, const double *x, int what, double *dx)
{
    if (w->res->one_round) {
        wire(w, x);
        return round_(w, tt, x, 1, what, dx);
    }
    int st = round_(w, tt, x, 0, OUTPUTS, NULL);
    if (st != PORT_OK) return st;
    wire(w, x);
    return round_(w, tt, NULL, 1, what, dx);
}

/* CVODE's right-hand side: x' from the slaves at (t, x). The time is a payload in ticks. */
static int rhs(sunrealtype t, N_Vector xv, N_Vector dxv, void *data)
{
    strong_work *w = data;
    w->res->n_rhs++; /* CVODE's own and its difference-quotient Jacobian's evaluations */
    w->res->n_rounds += w->res->one_round ? 1 : 2;
    int64_t tt = (int64_t)llround(t / w->m->tick);
    double *dx = N_VGetArrayPointer(dxv);
    int st = evaluate(w, tt, N_VGetArrayPointer(xv), DERIVS, dx);
    /* A derivative that is not finite is its slave's failure (a model that broke down), named
     * here: integrated, it would show up as the next slave's refused states. */
    for (size_t j = 0; st == PORT_OK && j < w->n_c; j++)
        for (size_t i = w->off_x[j]; i < w->off_x[j + 1]; i++)
            if (!isfinite(dx[i])) {
                w->res->failed_slave = (int)j;
                st = port_errorf(w->err, w->errlen, PORT_EFAIL,
                                 "strong coupling: slave '%s' evaluating its derivatives at "
                                 "%.17g s: derivative %zu is not finite",
                                 w->m->slaves[j].info.name, port_seconds(w->m->tick, tt),
                                 i - w->off_x[j]);
                break;
            }
    if (st != PORT_OK) {
        w->port_status = st;
        return -1; /* unrecoverable for CVODE */
    }
    return 0;
}

static void cv_quiet(int code, const char *module, const char *fn, char *msg, void *data)
{
}

/* The fields of the working set that port_frame_init sizes. */
static port_frame frame(strong_work *w)
{
    return (port_frame){&w->n_c,   NULL, NULL,   &w->off_out, &w->off_in,
                        &w->off_x, NULL, &w->st, &w->links};
}

static int setup(strong_work *w)
{
    const port_master *m = w->m;
    const strong_opts *o = w->o;
    if (!(o->step > 0) || !(o->rtol > 0) || !(o->atol > 0) || !(o->max_step >= 0))
        return port_errorf(w->err, w->errlen, PORT_EUSAGE,
                           "strong coupling: bad settings: step %lld ticks (> 0), rtol %g, "
                           "atol %g (> 0), max_step %g (>= 0)",
                           (long long)o->step, o->rtol, o->atol, o->max_step);
    port_frame f = frame(w);
    port_frame_rules r = {"strong coupling",
                          PORT_NEED_STATE_DERIVS,
                          "cannot set its states and give their derivatives",
                          w->given,
                          w->n_given,
                          1};
    int st = port_frame_init(&f, m, &r, w->err, w->errlen);
    if (st != PORT_OK) return st;
    w->nx = w->off_x[w->n_c];
    size_t n_in = w->off_in[w->n_c];
    if (!w->nx)
        return port_errorf(w->err, w->errlen, PORT_EUSAGE,
                           "strong coupling: the slaves have no states");
    /* One round per evaluation when every wired output is a state of its slave. */
    w->res->one_round = 1;
    for (size_t k = 0; k < n_in; k++) {
        const port_link *l = &w->links[k];
        const port_slave_info *src = &m->slaves[l->from].info;
        if (!src->out_state || src->out_state[l->out] < 0 ||
            (size_t)src->out_state[l->out] >= src->n_state)
            w->res->one_round = 0;
    }
    size_t n_c = w->n_c;
    w->res->c0 = 2 * n_c;
    w->res->c1 = (w->res->one_round ? 3 : 5) * n_c;
    w->res->c2 = (w->res->one_round ? 4 : 6) * n_c;
    w->res->c0 += w->res->c1; /* the start is committed like an output instant */
    w->y = calloc(w->off_out[w->n_c] + 1, sizeof(double));
    w->u = calloc(n_in + 1, sizeof(double));
    if (!w->y || !w->u)
        return port_errorf(w->err, w->errlen, PORT_ENOMEM, "strong coupling: out of memory");
    sunindextype n = (sunindextype)w->nx;
    if (SUNContext_Create(NULL, &w->sun) || !(w->x = N_VNew_Serial(n, w->sun)) ||
        !(w->A = SUNDenseMatrix(n, n, w->sun)) || !(w->LS = SUNLinSol_Dense(w->x, w->A, w->sun)) ||
        !(w->cv = CVodeCreate(o->adams ? CV_ADAMS : CV_BDF, w->sun)))
        return port_errorf(w->err, w->errlen, PORT_ENOMEM, "strong coupling: cannot create CVODE");
    return PORT_OK;
}

static void teardown(strong_work *w)
{
    if (w->cv) CVodeFree(&w->cv);
    if (w->LS) SUNLinSolFree(w->LS);
    if (w->A) SUNMatDestroy(w->A);
    if (w->x) N_VDestroy(w->x);
    if (w->sun) SUNContext_Free(&w->sun);
    port_frame f = frame(w);
    port_frame_fini(&f);
    free(w->y);
    free(w->u);
}

/* CVODE started at t (s) from w->x with the run's settings. */
static int cv_init(strong_work *w, double t)
{
    int flag;
    if ((flag = CVodeSetErrHandlerFn(w->cv, cv_quiet, NULL)) ||
        (flag = CVodeInit(w->cv, rhs, t, w->x)) || (flag = CVodeSetUserData(w->cv, w)) ||
        (flag = CVodeSStolerances(w->cv, w->o->rtol, w->o->atol)) ||
        (flag = CVodeSetLinearSolver(w->cv, w->LS, w->A)) ||
        (flag = CVodeSetMaxNumSteps(w->cv, STRONG_MAX_STEPS)) ||
        (w->o->max_step > 0 && (flag = CVodeSetMaxStep(w->cv, w->o->max_step))))
        return port_errorf(w->err, w->errlen, PORT_EFAIL,
                           "strong coupling: CVODE set-up failed (flag %d)", flag);
    return PORT_OK;
}

/* The state between output instants (doc/checkpoint.md "Master methods"): "STR1", the
 * version, the instant, x (every slave's states there) and the result's counters. CVODE's
 * history (order, step size, Nordsieck array) cannot be written through its public API, so the
 * master restarts CVODE at the first instant closed at or past each checkpoint instant
 * (port_ckpt_marked), as a run resumed there starts it: the resumed run equals the run that
 * was asked for the same checkpoint instants, bit for bit (as model exchange, doc/checkpoint.md
 * "Model exchange: the checkpoint instants"). */
#define STRONG_CK_MAGIC   0x31525453u /* "STR1" little-endian */
#define STRONG_CK_VERSION 1u

static int offer_state(strong_work *w, int64_t t, long steps)
{
    const port_master *m = w->m;
    if (!m->ckpt || !m->ckpt->offer) return PORT_OK;
    const strong_result *r = w->res;
    const double *x = N_VGetArrayPointer(w->x);
    pstate_buf b = {0};
    pstate_put_u32(&b, STRONG_CK_MAGIC);
    pstate_put_u32(&b, STRONG_CK_VERSION);
    pstate_put_i64(&b, t);
    pstate_put_u32(&b, (uint32_t)w->nx);
    for (size_t k = 0; k < w->nx; k++)
        pstate_put_f64(&b, x[k]);
    int64_t c[] = {(int64_t)r->n_out,      r->n_rhs, r->n_rounds, steps, (int64_t)r->msg_commands,
                   (int64_t)r->msg_replies};
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++)
        pstate_put_i64(&b, c[k]);
    int st = b.bad ? PORT_ENOMEM : port_ckpt_offer(m, t, b.p, b.n);
    free(b.p);
    if (st)
        return port_errorf(w->err, w->errlen, st, "strong coupling: the state at %.17g s: %s",
                           secs(w, t), port_strerror(st));
    return PORT_OK;
}

/* A resumed run: the state of the saved instant, CVODE started there; bytes it did not write
 * are refused before any command. */
static int resume_state(strong_work *w, int64_t *t)
{
    const port_master *m = w->m;
    strong_result *res = w->res;
    pstate_rd r = {.p = m->ckpt->resume, .n = m->ckpt->n_resume};
    uint32_t magic = pstate_get_u32(&r), version = pstate_get_u32(&r);
    int64_t at = pstate_get_i64(&r);
    uint32_t nx = pstate_get_u32(&r);
    int ok = !r.bad && magic == STRONG_CK_MAGIC && version == STRONG_CK_VERSION && nx == w->nx;
    double *x = N_VGetArrayPointer(w->x);
    int64_t c[6] = {0};
    for (size_t k = 0; ok && k < w->nx; k++)
        x[k] = pstate_get_f64(&r);
    for (size_t k = 0; ok && k < 6; k++)
        if ((c[k] = pstate_get_i64(&r)) < 0) r.bad = 1;
    if (!ok || r.bad || r.at != r.n)
        return port_errorf(w->err, w->errlen, PORT_EUSAGE,
                           "strong coupling: the state to resume from is not one it wrote for "
                           "these slaves (%zu bytes)",
                           m->ckpt->n_resume);
    if (at < m->t_start || at >= m->t_end)
        return port_errorf(w->err, w->errlen, PORT_EUSAGE,
                           "strong coupling: the state to resume from is at %.17g s, outside the "
                           "run [%.17g, %.17g) s",
                           secs(w, at), secs(w, m->t_start), secs(w, m->t_end));
    res->n_out = (size_t)c[0];
    res->n_rhs = c[1];
    res->n_rounds = c[2];
    w->steps_done = c[3];
    res->msg_commands = (size_t)c[4];
    res->msg_replies = (size_t)c[5];
    res->t_reached = at;
    *t = at;
    return cv_init(w, secs(w, at));
}

/* The initial states, the first row, CVODE's initialisation. */
static int start(strong_work *w)
{
    const port_master *m = w->m;
    double *x = N_VGetArrayPointer(w->x);
    for (size_t j = 0; j < w->n_c; j++) {
        const port_slave *s = &m->slaves[j];
        port_get_states(s, &x[w->off_x[j]]);
    }
    w->res->msg_commands += w->n_c;
    w->res->msg_replies += w->n_c;
    int st = sync_all(w, "reading its initial states", secs(w, m->t_start));
    if (st == PORT_OK) st = evaluate(w, m->t_start, x, RECORD, NULL);
    if (st != PORT_OK) return st;
    return cv_init(w, secs(w, m->t_start));
}

/* port_open / port_close failed (a slave lost while the instant opens or closes): the master
 * only returns a status (tempo-master prints it first and appends the lost slave's own
 * words), so the report says which step of the run broke. */
static int instant_failed(strong_work *w, int st, const char *what, int64_t t)
{
    return port_errorf(w->err, w->errlen, st, "strong coupling: %s the instant %.17g s", what,
                       secs(w, t));
}

int strong_run(const port_master *m, const port_link *links, size_t n_links, const strong_opts *o,
               strong_result *res, char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    res->failed_slave = -1;
    res->t_reached = m ? m->t_start : 0;
    if (err && errlen) err[0] = '\0';
    strong_work w = {.m = m,
                     .given = links,
                     .n_given = n_links,
                     .o = o,
                     .res = res,
                     .err = err,
                     .errlen = errlen};
    if (!m || !o)
        return port_errorf(w.err, w.errlen, PORT_EUSAGE,
                           "strong coupling: no master or no settings");
    int st = setup(&w);
    int64_t t0 = m->t_start;
    if (st == PORT_OK && m->ckpt && m->ckpt->resume) { /* after the saved instant */
        st = resume_state(&w, &t0);
    } else {
        if (st == PORT_OK && (st = port_open(m, m->t_start)) != PORT_OK)
            instant_failed(&w, st, "opening", m->t_start);
        if (st == PORT_OK) st = start(&w);
        if (st == PORT_OK) st = offer_state(&w, m->t_start, 0);
        if (st == PORT_OK && (st = port_close(m, m->t_start)) != PORT_OK)
            instant_failed(&w, st, "closing", m->t_start);
    }
    long rhs_before = res->n_rhs, steps_before = 0;
    for (int64_t t = t0; st == PORT_OK && t < m->t_end; t = res->t_reached) {
        int64_t t_to = port_tick_add(t, o->step);
        if (t_to > m->t_end) t_to = m->t_end;
        if ((st = port_open(m, t_to)) != PORT_OK) {
            instant_failed(&w, st, "opening", t_to);
            break;
        }
        double tout = secs(&w, t_to), tret = 0;
        int flag = CVodeSetStopTime(w.cv, tout);
        if (flag == CV_SUCCESS) flag = CVode(w.cv, tout, w.x, &tret, CV_NORMAL);
        if (w.port_status != PORT_OK) {
            st = w.port_status; /* sync_all wrote the report */
            break;
        }
        if (flag < 0) {
            st = port_errorf(w.err, w.errlen, PORT_EFAIL,
                             "strong coupling: CVODE failed at %.17g s integrating to "
                             "%.17g s (flag %d)",
                             tret, tout, flag);
            break;
        }
        if ((st = evaluate(&w, t_to, N_VGetArrayPointer(w.x), RECORD, NULL)) != PORT_OK) break;
        res->n_out++;
        long steps = 0;
        CVodeGetNumSteps(w.cv, &steps);
        /* noted before the close, so that a save made in it holds the instant's notes */
        port_note(m, "strong.rhs", (double)(res->n_rhs - rhs_before));
        port_note(m, "strong.steps", (double)(steps - steps_before));
        rhs_before = res->n_rhs;
        steps_before = steps;
        int restart = port_ckpt_marked(m, t_to);
        if ((st = offer_state(&w, t_to, w.steps_done + steps)) != PORT_OK) break;
        if ((st = port_close(m, t_to)) != PORT_OK) {
            instant_failed(&w, st, "closing", t_to);
            break;
        }
        res->t_reached = t_to;
        if (restart) { /* a checkpoint instant: CVODE afresh, as a run resumed here */
            w.steps_done += steps;
            steps_before = 0;
            int rflag = CVodeReInit(w.cv, tout, w.x);
            if (rflag != CV_SUCCESS) {
                st = port_errorf(w.err, w.errlen, PORT_EFAIL,
                                 "strong coupling: restarting CVODE at %.17g s (flag %d)", tout,
                                 rflag);
                break;
            }
        }
    }
    if (w.cv) CVodeGetNumSteps(w.cv, &res->n_steps);
    res->n_steps += w.steps_done;
    teardown(&w);
    return st;
}
