/* Model-exchange stepping with SUNDIALS CVODE 6 (BDF or Adams, dense Newton): state events by
 * root finding on the event indicators, time events by stop times, step events from
 * fmi2CompletedIntegratorStep, event iteration with fmi2NewDiscreteStates, polynomial inputs.
 * Serves doc/fmu.md. CVODE keeps its history across communication points and is
 * re-initialised only where the right-hand side jumps: an event, an input whose value changed,
 * a state or input set from outside, a save or restore of the FMU state (doc/fmu.md §6, §7).
 * Read next: doc/fmu.md. */
#include "federate/fmu/fmu_step_impl.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

/* Tuning constants. */
#define ME_MAX_EVENT_ITER      1000     /* fmi2NewDiscreteStates calls per event before giving up */
#define ME_MAX_EVENTS_PER_STEP 100000   /* events in one communication step (Zeno guard) */
#define ME_MAX_INTERNAL_STEPS  5000000L /* CVODE steps in one communication step */
#define ME_MAX_STALLED         20       /* consecutive CVODE steps that do not advance time */
#define ME_DEFAULT_RTOL        1e-6     /* when neither caller nor DefaultExperiment gives one */
#define ME_MAX_INPUT_ORDER     8        /* highest input derivative accepted (fmu_step.c checks) */
/* An input counts as changed (the RHS jumps, CVODE restarts) when its new value at the step
 * start differs from the value the FMU holds by more than this, relative to max(1, |u|):
 * a piecewise-linear input recomputed by the caller differs from the continued polynomial by
 * a few rounding errors, which is no jump. */
#define ME_INPUT_JUMP 1e-12

struct fmu_me {
    fmu_step *s;             /* owner */
    size_t nx;               /* continuous states of the FMU */
    size_t n;                /* CVODE size: nx, or 1 (a dummy state x'=0) when nx = 0 */
    size_t nz;               /* event indicators */
    fmi2ValueReference *xvr; /* nx value references of the states (for output derivatives) */
    double *xnom;            /* nx nominals */
    double rtol, atol;       /* atol 0: rtol * nominal */
    SUNContext sun;
    N_Vector y, abstol;
    SUNMatrix A;
    SUNLinearSolver LS;
    void *cv;
    fmi2EventInfo ev; /* last event info (nextEventTime) */
    int step_events;  /* call fmi2CompletedIntegratorStep */
    /* Inputs of the current step: u_i(t) = sum_k coef[i*(order+1)+k] (t - t0)^k / k!. */
    size_t n_in, cap_in;
    fmi2ValueReference *in_vr;
    double *in_coef;
    double *in_val; /* n_in scratch values */
    int in_order;
    double in_t0;
    double *in_old;   /* n_in scratch: values the FMU held before the step's inputs */
    char cv_msg[200]; /* last CVODE error message */
    int need_restart; /* CVODE must be re-initialised from the FMU's states before going on */
    long restarts[FMU_RESTART_NCAUSES]; /* restarts done, by cause (fmu_restart_cause) */
};

/* ---- callbacks ----------------------------------------------------------------------------- */

static void cv_err(int code, const char *module, const char *function, char *msg, void *data)
{
    fmu_me *me = data;
    snprintf(me->cv_msg, sizeof me->cv_msg, "%s: %s", function, msg);
    (void)code, (void)module;
}

/* Inputs at time t (Horner-free direct sum; order is at most 8). */
static fmi2Status set_inputs_at(fmu_me *me, double t)
{
    if (!me->n_in) return fmi2OK;
    size_t w = (size_t)me->in_order + 1;
    double dt = t - me->in_t0;
    for (size_t i = 0; i < me->n_in; i++) {
        double sum = 0, term = 1;
        for (size_t k = 0; k < w; k++) {
            sum += me->in_coef[i * w + k] * term;
            term *= dt / (double)(k + 1);
        }
        me->in_val[i] = sum;
    }
    return me->s->f->fn.SetReal(me->s->c, me->in_vr, me->n_in, me->in_val);
}

/* Time, inputs and states into the FMU; CVODE return convention (0, >0 retry, <0 fail). */
static int load_point(fmu_me *me, double t, N_Vector y)
{
    fmu_step *s = me->s;
    fmu_fns *fn = &s->f->fn;
    int rc = fmu_step_check(s, fn->SetTime(s->c, t), "fmi2SetTime");
    if (!rc && me->in_order > 0)
        rc = fmu_step_check(s, set_inputs_at(me, t), "fmi2SetReal(inputs)");
    if (!rc && me->nx)
        rc = fmu_step_check(s, fn->SetContinuousStates(s->c, N_VGetArrayPointer(y), me->nx),
                            "fmi2SetContinuousStates");
    return rc == FMU_STEP_EDISCARD ? 1 : rc ? -1 : 0;
}

static int rhs(realtype t, N_Vector y, N_Vector ydot, void *data)
{
    fmu_me *me = data;
    int rc = load_point(me, t, y);
    if (rc) return rc;
    double *d = N_VGetArrayPointer(ydot);
    if (!me->nx) {
        d[0] = 0.0;
        return 0;
    }
    rc = fmu_step_check(me->s, me->s->f->fn.GetDerivatives(me->s->c, d, me->nx),
                        "fmi2GetDerivatives");
    return rc == FMU_STEP_EDISCARD ? 1 : rc ? -1 : 0;
}

static int roots(realtype t, N_Vector y, realtype *g, void *data)
{
    fmu_me *me = data;
    if (load_point(me, t, y)) return -1;
    return fmu_step_check(me->s, me->s->f->fn.GetEventIndicators(me->s->c, g, me->nz),
                          "fmi2GetEventIndicators")
               ? -1
               : 0;
}

/* ---- set-up -------------------------------------------------------------------------------- */

/* Absolute tolerances: the caller's scalar, else rtol * |nominal| per state. */
static void set_tolerances(fmu_me *me)
{
    double *a = N_VGetArrayPointer(me->abstol);
    for (size_t i = 0; i < me->n; i++) {
        double nom = i < me->nx ? fabs(me->xnom[i]) : 1.0;
        if (!(nom > 0) || !isfinite(nom)) nom = 1.0;
        a[i] = me->atol > 0 ? me->atol : me->rtol * nom;
    }
}

/* Event iteration (FMU in event mode on entry, continuous-time mode on success). */
static int event_iteration(fmu_me *me, double t)
{
    fmu_step *s = me->s;
    fmu_fns *fn = &s->f->fn;
    int rc = 0, it;
    me->ev.newDiscreteStatesNeeded = fmi2True;
    me->ev.terminateSimulation = fmi2False;
    int values_changed = 0, nominals_changed = 0;
    for (it = 0; it < ME_MAX_EVENT_ITER && me->ev.newDiscreteStatesNeeded; it++) {
        rc = fmu_step_check(s, fn->NewDiscreteStates(s->c, &me->ev), "fmi2NewDiscreteStates");
        if (rc) return rc == FMU_STEP_EDISCARD ? FMU_STEP_EFMU : rc;
        values_changed |= me->ev.valuesOfContinuousStatesChanged;
        nominals_changed |= me->ev.nominalsOfContinuousStatesChanged;
        if (me->ev.terminateSimulation) {
            s->terminated = 1;
            return fmu_step_fail(s, FMU_STEP_TERMINATED,
                                 "%s: the model terminated the "
                                 "simulation at t=%.17g",
                                 s->md->model_name, t);
        }
    }
    if (it == ME_MAX_EVENT_ITER && me->ev.newDiscreteStatesNeeded) {
        s->need_restore = 1;
        return fmu_step_fail(s, FMU_STEP_EDISCARD,
                             "%s: event iteration at t=%.17g did not "
                             "settle in %d rounds",
                             s->md->model_name, t, ME_MAX_EVENT_ITER);
    }
    rc = fmu_step_check(s, fn->EnterContinuousTimeMode(s->c), "fmi2EnterContinuousTimeMode");
    if (rc) return rc == FMU_STEP_EDISCARD ? FMU_STEP_EFMU : rc;
    if (me->nx && values_changed)
        rc = fmu_step_check(s, fn->GetContinuousStates(s->c, N_VGetArrayPointer(me->y), me->nx),
                            "fmi2GetContinuousStates");
    if (!rc && me->nx && nominals_changed) {
        rc = fmu_step_check(s, fn->GetNominalsOfContinuousStates(s->c, me->xnom, me->nx),
                            "fmi2GetNominalsOfContinuousStates");
        set_tolerances(me);
    }
    return rc == FMU_STEP_EDISCARD ? FMU_STEP_EFMU : rc;
}

static int cv_fail(fmu_me *me, int flag, const char *what)
{
    return fmu_step_fail(me->s, FMU_STEP_ESYS, "CVODE %s failed (flag %d)%s%s", what, flag,
                         me->cv_msg[0] ? ": " : "", me->cv_msg);
}

static int make_solver(fmu_me *me, const fmu_step_opts *o)
{
    int flag;
    if (SUNContext_Create(NULL, &me->sun)) return cv_fail(me, -1, "SUNContext_Create");
    me->y = N_VNew_Serial((sunindextype)me->n, me->sun);
    me->abstol = N_VNew_Serial((sunindextype)me->n, me->sun);
    me->A = SUNDenseMatrix((sunindextype)me->n, (sunindextype)me->n, me->sun);
    me->cv = CVodeCreate(o->solver == FMU_SOLVER_ADAMS ? CV_ADAMS : CV_BDF, me->sun);
    if (!me->y || !me->abstol || !me->A || !me->cv) return cv_fail(me, -1, "allocation");
    me->LS = SUNLinSol_Dense(me->y, me->A, me->sun);
    if (!me->LS) return cv_fail(me, -1, "SUNLinSol_Dense");
    N_VConst(0.0, me->y);
    if ((flag = CVodeSetErrHandlerFn(me->cv, cv_err, me)) ||
        (flag = CVodeInit(me->cv, rhs, me->s->t, me->y)) || (flag = CVodeSetUserData(me->cv, me)) ||
        (flag = CVodeSetLinearSolver(me->cv, me->LS, me->A)) ||
        (flag = CVodeSetMaxNumSteps(me->cv, ME_MAX_INTERNAL_STEPS)) ||
        (me->nz && (flag = CVodeRootInit(me->cv, (int)me->nz, roots))) ||
        (o->max_step > 0 && (flag = CVodeSetMaxStep(me->cv, o->max_step))))
        return cv_fail(me, flag, "set-up");
    set_tolerances(me);
    if ((flag = CVodeSVtolerances(me->cv, me->rtol, me->abstol)))
        return cv_fail(me, flag, "CVodeSVtolerances");
    return 0;
}

int fmu_me_new(fmu_step *s, const fmu_step_opts *o)
{
    const fmu_md *md = s->md;
    fmu_me *me = calloc(1, sizeof *me);
    if (!me) return fmu_step_fail(s, FMU_STEP_ESYS, "out of memory");
    s->me = me;
    me->s = s;
    me->nx = md->n_states;
    me->n = me->nx ? me->nx : 1;
    me->nz = (size_t)md->n_event_indicators;
    me->rtol = o->rtol > 0 ? o->rtol : md->has_tolerance ? md->tolerance : ME_DEFAULT_RTOL;
    me->atol = o->atol;
    me->step_events = !s->f->caps->completed_integrator_step_not_needed;
    me->need_restart = FMU_RESTART_START + 1;
    me->xvr = calloc(me->n, sizeof *me->xvr);
    me->xnom = calloc(me->n, sizeof *me->xnom);
    if (!me->xvr || !me->xnom) return fmu_step_fail(s, FMU_STEP_ESYS, "out of memory");
    for (size_t i = 0; i < me->nx; i++) {
        me->xvr[i] = md->vars[md->state_index[i]].vr;
        me->xnom[i] = 1.0;
    }
    /* After fmi2ExitInitializationMode the FMU is in event mode: settle it first. */
    int rc = event_iteration(me, s->t);
    if (rc == FMU_STEP_TERMINATED) rc = 0; /* reported by the first step */
    if (rc) return rc == FMU_STEP_EDISCARD ? FMU_STEP_EFMU : rc;
    if (me->nx)
        rc = fmu_step_check(s, s->f->fn.GetNominalsOfContinuousStates(s->c, me->xnom, me->nx),
                            "fmi2GetNominalsOfContinuousStates");
    if (rc) return rc == FMU_STEP_EDISCARD ? FMU_STEP_EFMU : rc;
    return make_solver(me, o);
}

void fmu_me_free(fmu_me *me)
{
    if (!me) return;
    if (me->cv) CVodeFree(&me->cv);
    if (me->LS) SUNLinSolFree(me->LS);
    if (me->A) SUNMatDestroy(me->A);
    if (me->y) N_VDestroy(me->y);
    if (me->abstol) N_VDestroy(me->abstol);
    if (me->sun) SUNContext_Free(&me->sun);
    free(me->xvr);
    free(me->xnom);
    free(me->in_vr);
    free(me->in_coef);
    free(me->in_val);
    free(me->in_old);
    free(me);
}

void fmu_me_get_event(const fmu_me *me, int *defined, double *t)
{
    *defined = me->ev.nextEventTimeDefined;
    *t = me->ev.nextEventTime;
}

void fmu_me_set_event(fmu_me *me, int defined, double t)
{
    me->ev.nextEventTimeDefined = defined;
    me->ev.nextEventTime = t;
}

long fmu_me_state_of(const fmu_me *me, fmi2ValueReference vr)
{
    for (size_t i = 0; i < me->nx; i++)
        if (me->xvr[i] == vr) return (long)i;
    return -1;
}

int fmu_me_derivatives(fmu_step *s, double *dx)
{
    fmu_me *me = s->me;
    if (!me->nx) return 0;
    return fmu_step_check(s, s->f->fn.GetDerivatives(s->c, dx, me->nx), "fmi2GetDerivatives");
}

/* ---- stepping ------------------------------------------------------------------------------ */

/* Copies the step's inputs into the polynomial the RHS evaluates and sets their values at t0.
 * NULL: keep the values. A value that differs from what the FMU held asks for a restart. */
static int take_inputs(fmu_me *me, const fmu_inputs *in, double t0)
{
    fmu_step *s = me->s;
    if (!in) {
        me->in_order = 0; /* hold what the FMU has */
        me->n_in = 0;
        return 0;
    }
    size_t w = (size_t)in->order + 1;
    if (in->n * w > me->cap_in) {
        size_t cap = in->n * w;
        double *c = realloc(me->in_coef, cap * sizeof *c);
        if (c) me->in_coef = c;
        fmi2ValueReference *v = realloc(me->in_vr, cap * sizeof *v);
        if (v) me->in_vr = v;
        double *x = realloc(me->in_val, cap * sizeof *x);
        if (x) me->in_val = x;
        double *o = realloc(me->in_old, cap * sizeof *o);
        if (o) me->in_old = o;
        if (!c || !v || !x || !o) return fmu_step_fail(s, FMU_STEP_ESYS, "out of memory");
        me->cap_in = cap;
    }
    me->n_in = in->n;
    me->in_order = in->order;
    me->in_t0 = t0;
    for (size_t i = 0; i < in->n; i++) {
        me->in_vr[i] = in->vr[i];
        me->in_coef[i * w] = in->u[i];
        for (size_t k = 1; k < w; k++)
            me->in_coef[i * w + k] = in->du[i * (w - 1) + k - 1];
    }
    /* What the FMU holds now: the previous step's polynomial at t0, a held value, or a value
     * set from outside. A jump in value makes the RHS discontinuous; a change of slope only
     * does not. */
    int rc = in->n ? fmu_step_check(s, s->f->fn.GetReal(s->c, me->in_vr, in->n, me->in_old),
                                    "fmi2GetReal(inputs)")
                   : 0;
    for (size_t i = 0; !rc && i < in->n && !me->need_restart; i++)
        if (fabs(in->u[i] - me->in_old[i]) >
            ME_INPUT_JUMP * fmax(1.0, fmax(fabs(in->u[i]), fabs(me->in_old[i]))))
            me->need_restart = FMU_RESTART_INPUT + 1;
    /* Held inputs are set once here; polynomials again before every evaluation. */
    if (!rc) rc = fmu_step_check(s, set_inputs_at(me, t0), "fmi2SetReal(inputs)");
    if (me->in_order == 0) me->n_in = 0;
    return rc == FMU_STEP_EDISCARD ? FMU_STEP_EUSAGE : rc;
}

/* (Re)starts CVODE at t from the FMU's current states (read_states) or from me->y, counting
 * the restart under cause. */
static int restart(fmu_me *me, double t, int read_states, fmu_restart_cause cause)
{
    fmu_step *s = me->s;
    if (read_states && me->nx) {
        int rc =
            fmu_step_check(s, s->f->fn.GetContinuousStates(s->c, N_VGetArrayPointer(me->y), me->nx),
                           "fmi2GetContinuousStates");
        if (rc) return rc == FMU_STEP_EDISCARD ? FMU_STEP_EFMU : rc;
    }
    if (!me->nx) N_VConst(0.0, me->y);
    int flag = CVodeReInit(me->cv, t, me->y);
    if (!flag) flag = CVodeSVtolerances(me->cv, me->rtol, me->abstol);
    if (flag) return cv_fail(me, flag, "CVodeReInit");
    me->need_restart = 0;
    me->restarts[cause]++;
    return 0;
}

int fmu_me_note_set(fmu_me *me, size_t n, const fmi2ValueReference vr[], const double v[])
{
    fmu_step *s = me->s;
    for (size_t i = 0; i < n && !me->need_restart; i++) {
        double old;
        int rc = fmu_step_check(s, s->f->fn.GetReal(s->c, &vr[i], 1, &old), "fmi2GetReal");
        if (rc) return rc == FMU_STEP_EDISCARD ? FMU_STEP_EFMU : rc;
        if (fabs(v[i] - old) > ME_INPUT_JUMP * fmax(1.0, fmax(fabs(v[i]), fabs(old))))
            me->need_restart = FMU_RESTART_SET + 1;
    }
    return 0;
}

int fmu_me_set_inputs(fmu_step *s, const fmu_inputs *in)
{
    return take_inputs(s->me, in, s->t);
}

void fmu_me_mark_restart(fmu_me *me, fmu_restart_cause cause)
{
    if (!me->need_restart) me->need_restart = (int)cause + 1;
}

long fmu_me_restarts(const fmu_me *me, fmu_restart_cause cause)
{
    return me->restarts[cause];
}

/* After a CVODE failure: FMU broken (EFMU) or a refused step (EDISCARD, restore needed). */
static int solver_failed(fmu_me *me, int flag, double t)
{
    fmu_step *s = me->s;
    if (s->broken) return FMU_STEP_EFMU;
    s->need_restore = 1;
    return fmu_step_fail(s, FMU_STEP_EDISCARD, "%s: CVODE failed at t=%.17g (flag %d)%s%s",
                         s->md->model_name, t, flag, me->cv_msg[0] ? ": " : "", me->cv_msg);
}

/* One event at time t (state, time or step event): event mode, iteration, solver restart. */
static int handle_event(fmu_me *me, double t)
{
    fmu_step *s = me->s;
    int rc = fmu_step_check(s, s->f->fn.EnterEventMode(s->c), "fmi2EnterEventMode");
    if (rc) return rc == FMU_STEP_EDISCARD ? FMU_STEP_EFMU : rc;
    if ((rc = event_iteration(me, t))) return rc;
    return restart(me, t, 0, FMU_RESTART_EVENT);
}

int fmu_me_input_event_begin(fmu_step *s)
{
    int rc = fmu_step_check(s, s->f->fn.EnterEventMode(s->c), "fmi3EnterEventMode");
    return rc == FMU_STEP_EDISCARD ? FMU_STEP_EFMU : rc;
}

int fmu_me_input_event_end(fmu_step *s)
{
    int rc = event_iteration(s->me, s->t);
    if (!rc || rc == FMU_STEP_TERMINATED) fmu_me_mark_restart(s->me, FMU_RESTART_EVENT);
    return rc;
}

int fmu_me_step(fmu_step *s, double t_end, const fmu_inputs *in, double *t_reached)
{
    fmu_me *me = s->me;
    fmu_fns *fn = &s->f->fn;
    double t = s->t; /* t_end is CVODE's stop time as the caller computed it (doc/fmu.md) */
    me->cv_msg[0] = '\0';
    int rc = fmu_step_check(s, fn->SetTime(s->c, t), "fmi2SetTime");
    if (!rc) rc = take_inputs(me, in, t);
    /* CVODE goes on from where the last step stopped (its stop time t) unless the RHS jumped
     * here; the FMU holds the states CVODE returned at t. */
    if (!rc && me->need_restart) rc = restart(me, t, 1, (fmu_restart_cause)(me->need_restart - 1));
    long events = 0, steps = 0, stalled = 0;
    /* Invariant: the FMU holds time t, inputs u(t) and states y(t) in continuous-time mode. */
    while (!rc && t < t_end) {
        double tstop = t_end;
        int time_event = me->ev.nextEventTimeDefined && me->ev.nextEventTime <= t_end;
        if (time_event) tstop = me->ev.nextEventTime;
        int flag = CV_TSTOP_RETURN;
        if (tstop - t <= 4 * DBL_EPSILON * fmax(1.0, fabs(t))) {
            /* Too close for CVODE to take a step (states unchanged), or a time event the FMU
             * placed in the past: handled at t, time never goes back. */
            t = fmax(t, tstop);
            if ((rc = fmu_step_check(s, fn->SetTime(s->c, t), "fmi2SetTime"))) break;
        } else {
            realtype tret = t;
            flag = CVodeSetStopTime(me->cv, tstop);
            if (!flag) flag = CVode(me->cv, tstop, me->y, &tret, CV_ONE_STEP);
            if (flag < 0) {
                rc = solver_failed(me, flag, t);
                break;
            }
            /* CVODE in one-step mode has no step budget of its own, and an FMU that keeps
             * refusing evaluations (fmi2Discard) can make it creep towards a point forever. */
            stalled = tret - t <= 16 * DBL_EPSILON * fmax(1.0, fabs(t)) ? stalled + 1 : 0;
            if (++steps > ME_MAX_INTERNAL_STEPS || stalled > ME_MAX_STALLED) {
                s->need_restore = 1;
                rc = fmu_step_fail(s, FMU_STEP_EDISCARD, "%s: CVODE failed at t=%.17g: %s",
                                   s->md->model_name, (double)tret,
                                   stalled ? "the step size underflowed (the FMU keeps refusing "
                                             "evaluations?)"
                                           : "too many internal steps");
                t = tret;
                break;
            }
            t = tret;
            if ((rc = load_point(me, t, me->y))) {
                rc = rc > 0 ? FMU_STEP_EDISCARD : FMU_STEP_EFMU;
                if (rc == FMU_STEP_EDISCARD) s->need_restore = 1;
                break;
            }
        }
        fmi2Boolean enter = fmi2False, term = fmi2False;
        if (me->step_events &&
            (rc = fmu_step_check(s, fn->CompletedIntegratorStep(s->c, fmi2False, &enter, &term),
                                 "fmi2CompletedIntegratorStep")))
            break;
        if (term) {
            s->terminated = 1;
            rc = fmu_step_fail(s, FMU_STEP_TERMINATED,
                               "%s: the model terminated the simulation "
                               "at t=%.17g",
                               s->md->model_name, t);
            break;
        }
        int is_time_event = time_event && flag == CV_TSTOP_RETURN && t >= tstop;
        if (flag == CV_ROOT_RETURN || enter || is_time_event) {
            if (++events > ME_MAX_EVENTS_PER_STEP) {
                s->need_restore = 1;
                rc = fmu_step_fail(s, FMU_STEP_EDISCARD,
                                   "%s: more than %d events in one step "
                                   "(chattering?) at t=%.17g",
                                   s->md->model_name, ME_MAX_EVENTS_PER_STEP, t);
                break;
            }
            /* The values just before the event, for a caller that records them (fmusim's
             * row before an event, doc/fmu.md §8). */
            if (s->on_event && s->on_event(s->on_event_ctx, s, t)) {
                rc = fmu_step_fail(s, FMU_STEP_ESYS, "%s: the event hook failed at t=%.17g",
                                   s->md->model_name, t);
                break;
            }
            rc = handle_event(me, t);
            /* Hybrid master: stop here, the event handled (fmu_step_set_event_stop). */
            if (!rc && s->event_stop) rc = FMU_STEP_EVENT;
        }
    }
    if (rc == FMU_STEP_EDISCARD) s->need_restore = 1;
    if (!rc || rc == FMU_STEP_TERMINATED || rc == FMU_STEP_EVENT) s->t = rc ? t : t_end;
    *t_reached = (!rc || rc == FMU_STEP_TERMINATED || rc == FMU_STEP_EVENT) ? s->t : t;
    return rc;
}
