/* The co-simulation side of the example-FMU framework: fmi2DoStep integrates the model with
 * an adaptive Dormand-Prince 5(4) (fw_rk.c), stops exactly at time events, locates state
 * events by bisection to a few ulps of t, and runs the model's event handler there; plus input
 * derivatives (inputs are polynomials in time), output derivatives and status queries.
 * doc/fmu.md. Read fw_fmi.c for the common functions and the state machine. */
#include <string.h>

#include "examples/fmus/framework/fw_impl.h"

/* Step-size control (standard choices for a 5th-order pair, Hairer-Norsett-Wanner II.4). */
#define SAFETY            0.9     /* fraction of the optimal step actually taken */
#define FAC_MIN           0.2     /* largest shrink per step */
#define FAC_MAX           5.0     /* largest growth per step */
#define ATOL_FACTOR       1e-2    /* absolute tolerance = rtol * ATOL_FACTOR (states are O(1)) */
#define MAX_STEPS         1000000 /* internal steps per fmi2DoStep before giving up */
#define MAX_EVENT_ITER    100     /* event-handler calls at one instant before giving up */
#define LOCATE_MAX_PROBES 200     /* bisection probes per event: width / 2^200 is below any ulp */

/* f(t, x) for the integrator: states into r, inputs at t, then the model's derivatives. */
static void rhs(void *ctx, double t, const double *x, double *dx)
{
    fw_inst *in = ctx;
    for (int i = 0; i < in->nx; i++)
        in->r[in->xvr[i]] = x[i];
    fw_eval_inputs(in, t);
    fw_ctx c = {.t = t, .r = in->r, .inst = in};
    if (in->m->derivatives) in->m->derivatives(&c);
    for (int i = 0; i < in->nx; i++)
        dx[i] = in->r[in->dvr[i]];
}

/* Make (t, x) the instance's current point: states into r, outputs refreshed. */
static void commit(fw_inst *in, double t, const double *x)
{
    in->d->t = t;
    for (int i = 0; i < in->nx; i++)
        in->r[in->xvr[i]] = x[i];
    fw_refresh(in);
}

/* Indicators at the point (t, x) into in->z. */
static void indicators_at(fw_inst *in, double t, const double *x)
{
    commit(in, t, x);
    fw_indicators(in, in->z);
}

/* Does any indicator at (t, x) sit on the other side of zero than z_prev? */
static int crossed_at(fw_inst *in, double t, const double *x)
{
    indicators_at(in, t, x);
    for (int i = 0; i < in->m->nz; i++)
        if ((in->z[i] > 0) != (in->z_prev[i] > 0)) return 1;
    return 0;
}

/* Event iteration at the current instant: call the handler until it stops asking. */
static fmi2Status event_iteration(fw_inst *in, int time_event, const int *crossed)
{
    for (int it = 0; it < MAX_EVENT_ITER; it++) {
        fw_event ev;
        fw_handle_event(in, it == 0 ? time_event : 0, it == 0 ? crossed : NULL, &ev);
        if (!ev.iterate) return fmi2OK;
    }
    fw_log(in, fmi2Error, FW_LOG_ERROR,
           "event iteration at t=%.17g did not settle after %d handler calls", in->d->t,
           MAX_EVENT_ITER);
    in->d->mode = FW_ERROR;
    return fmi2Error;
}

fmi2Status fw_cs_after_init(fw_inst *in)
{
    double t = in->d->t;
    int time_event = isfinite(in->d->next_time) && t >= in->d->next_time - fw_time_tol(t);
    return event_iteration(in, time_event, NULL);
}

/*
 * Having accepted a step (t, x) -> (t1, x1) over which some indicator changed sign, find the
 * earliest crossing: bisection on [t, t1] keeping "no sign change at a, a change at b", each
 * probe being one fresh Dormand-Prince step of size s - t from (t, x) (as accurate as the
 * accepted step, costs 6 evaluations of f). It runs until the bracket cannot be halved any
 * more (a few ulps of t, at most ~60 probes), so that the event time carries no error beyond
 * the integration's; an error of the located time would otherwise add up over repeated events
 * such as bounces. On return in->x1 / *t1 hold the point just past the crossing (the right end
 * of the bracket) and in->crossed the directions.
 */
static void locate(fw_inst *in, double t, double *t1, double atol)
{
    double a = t, b = *t1;
    memcpy(in->xs, in->x1, sizeof(double) * (size_t)in->nx);
    for (int it = 0; it < LOCATE_MAX_PROBES; it++) {
        double mid = a + 0.5 * (b - a);
        if (!(mid > a && mid < b)) break;
        double *probe = in->x1; /* reuse as scratch: the accepted end is kept in xs */
        fw_rk_step(&in->rk, rhs, in, t, in->x, in->k1, mid - t, in->d->rtol, atol, probe);
        if (crossed_at(in, mid, probe)) {
            b = mid;
            memcpy(in->xs, probe, sizeof(double) * (size_t)in->nx);
        } else {
            a = mid;
        }
    }
    memcpy(in->x1, in->xs, sizeof(double) * (size_t)in->nx);
    *t1 = b;
    indicators_at(in, b, in->x1);
    for (int i = 0; i < in->m->nz; i++) {
        int was = in->z_prev[i] > 0, now = in->z[i] > 0;
        in->crossed[i] = was == now ? 0 : now ? 1 : -1;
    }
}

/* One adaptive step from the current point towards t_target (not past it). Returns 1 when it
 * ended on a state event (handled), 0 on a plain step, -1 on failure (logged). */
static int substep(fw_inst *in, double t_target, int *stop)
{
    double t = in->d->t, rtol = in->d->rtol, atol = rtol * ATOL_FACTOR;
    double h = in->d->h_prev > 0 ? in->d->h_prev : 1e-3 * fmax(t_target - t, 1e-6);
    int rejected = 0;
    rhs(in, t, in->x, in->k1);
    for (;;) {
        int last = h >= t_target - t;
        if (last) h = t_target - t;
        double err = fw_rk_step(&in->rk, rhs, in, t, in->x, in->k1, h, rtol, atol, in->x1);
        int finite = 1;
        for (int i = 0; i < in->nx; i++)
            finite = finite && isfinite(in->x1[i]);
        if (finite && err <= 1.0) {
            double t1 = last ? t_target : t + h;
            double fac = err > 0 ? SAFETY * pow(err, -0.2) : FAC_MAX;
            /* A step clipped to the target says nothing about the next one, unless the error
             * control had to shrink it. */
            if (!last || rejected)
                in->d->h_prev = h * fmin(FAC_MAX, fmax(FAC_MIN, fac));
            else if (in->d->h_prev <= 0)
                in->d->h_prev = h;
            int ev = in->m->nz > 0 && crossed_at(in, t1, in->x1);
            if (ev) locate(in, t, &t1, atol);
            memcpy(in->x, in->x1, sizeof(double) * (size_t)in->nx);
            commit(in, t1, in->x);
            if (!ev) {
                memcpy(in->z_prev, in->z, sizeof(double) * (size_t)in->m->nz);
                return 0;
            }
            fw_log(in, fmi2OK, FW_LOG_EVENTS, "state event located at t=%.17g", t1);
            if (event_iteration(in, 0, in->crossed) != fmi2OK) return -1;
            *stop = in->d->model_terminated;
            return 1;
        }
        double fac = finite ? fmax(FAC_MIN, SAFETY * pow(err, -0.2)) : FAC_MIN;
        fw_log(in, fmi2OK, FW_LOG_SOLVER, "step rejected at t=%.17g, h=%g, error %g", t, h, err);
        h *= fmin(1.0, fac);
        rejected = 1;
        if (h < fw_time_tol(t) * 1e-2) {
            fw_log(in, fmi2Error, FW_LOG_ERROR,
                   "fmi2DoStep: step size underflow at t=%.17g (error estimate %g)", t, err);
            return -1;
        }
    }
}

/* Integrate from the current time to t_end, through time and state events. */
static fmi2Status advance(fw_inst *in, double t_end)
{
    if (in->m->cs_step) { /* the model's own method, when it wants it */
        fw_eval_inputs(in, in->d->t);
        fw_ctx c = {.t = in->d->t, .r = in->r, .inst = in};
        int r = in->m->cs_step(&c, t_end - in->d->t);
        if (r < 0) { /* the model failed the step: the instance is in error from here */
            fw_log(in, fmi2Error, FW_LOG_ERROR, "fmi2DoStep: the model failed the step at t=%.17g",
                   in->d->t);
            in->d->mode = FW_ERROR;
            return fmi2Error;
        }
        if (r) {
            in->d->t = t_end;
            in->d->steps++;
            fw_refresh(in);
            return fmi2OK;
        }
    }
    for (int i = 0; i < in->nx; i++)
        in->x[i] = in->r[in->xvr[i]];
    for (long n = 0; n < MAX_STEPS; n++) {
        double t = in->d->t, tol = fw_time_tol(t_end);
        if (t_end - t <= tol) break;
        double te = in->d->next_time, target = t_end;
        if (isfinite(te) && te <= t + fw_time_tol(t)) {
            /* A time event due now (scheduled at or before the current time). */
            if (event_iteration(in, 1, NULL) != fmi2OK) return fmi2Error;
            if (in->d->model_terminated) return fmi2Discard;
            for (int i = 0; i < in->nx; i++)
                in->x[i] = in->r[in->xvr[i]];
            continue;
        }
        int time_event = isfinite(te) && te <= t_end + tol;
        if (time_event && te < t_end - tol) target = te;
        int stop = 0;
        int r = substep(in, target, &stop);
        if (r < 0) {
            in->d->mode = FW_ERROR;
            return fmi2Error;
        }
        if (stop) return fmi2Discard;
        /* An early return asked by the event handler: the step ends at the handled event,
         * unless that event is the communication point itself. */
        if (in->d->early_return) {
            in->d->early_return = 0;
            if (r == 1 && t_end - in->d->t > tol) {
                fw_refresh(in);
                return fmi2Discard;
            }
        }
        if (r == 0 && time_event && in->d->t >= target - tol) {
            if (target >= t_end - tol)
                in->d->t = t_end; /* the event falls on the communication point */
            if (event_iteration(in, 1, NULL) != fmi2OK) return fmi2Error;
            if (in->d->model_terminated) return fmi2Discard;
            for (int i = 0; i < in->nx; i++)
                in->x[i] = in->r[in->xvr[i]];
        } else if (r == 1) {
            for (int i = 0; i < in->nx; i++)
                in->x[i] = in->r[in->xvr[i]];
        }
    }
    if (t_end - in->d->t > fw_time_tol(t_end)) {
        fw_log(in, fmi2Error, FW_LOG_ERROR,
               "fmi2DoStep: more than %d internal steps before t=%.17g (stopped at %.17g)",
               MAX_STEPS, t_end, in->d->t);
        in->d->mode = FW_ERROR;
        return fmi2Error;
    }
    in->d->t = t_end; /* exact communication point, whatever the rounding of the sum */
    in->d->steps++;
    fw_refresh(in);
    return fmi2OK;
}

static fw_inst *enter_cs(fmi2Component c, const char *fn, unsigned mask)
{
    fw_inst *in = c;
    if (!in) return NULL;
    if (in->kind != fmi2CoSimulation) {
        fw_log(in, fmi2Error, FW_LOG_ERROR, "%s: this is a model-exchange instance", fn);
        return NULL;
    }
    fw_log(in, fmi2OK, FW_LOG_CALLS, "%s", fn);
    return fw_check_mode(in, fn, mask) ? in : NULL;
}

fmi2Status fmi2DoStep(fmi2Component c, fmi2Real currentCommunicationPoint,
                      fmi2Real communicationStepSize, fmi2Boolean noSetFMUStatePriorToCurrentPoint)
{
    fw_inst *in = enter_cs(c, "fmi2DoStep", FW_BIT(FW_STEP));
    if (!in) return fmi2Error;
    double t = in->d->t, h = communicationStepSize, tc = currentCommunicationPoint;
    const char *why = NULL;
    if (in->d->model_terminated)
        why = "the model asked to terminate the simulation";
    else if (!isfinite(tc) || fabs(tc - t) > fw_time_tol(t))
        why = "currentCommunicationPoint is not the FMU's current time";
    else if (!isfinite(h) || !(h > 0))
        why = "communicationStepSize must be > 0";
    else if (tc + h > in->d->t_stop + fw_time_tol(in->d->t_stop))
        why = "the step goes past the stop time";
    if (why) {
        fw_log(in, fmi2Error, FW_LOG_ERROR, "fmi2DoStep(%.17g, %.17g) at t=%.17g (stop %g): %s", tc,
               h, t, in->d->t_stop, why);
        return fmi2Error;
    }
    fmi2Status st = advance(in, tc + h);
    if (st == fmi2Discard && in->d->model_terminated)
        fw_log(in, fmi2Discard, FW_LOG_WARNING,
               "fmi2DoStep: the model terminated the simulation at t=%.17g", in->d->t);
    else if (st == fmi2Discard)
        fw_log(in, fmi2OK, FW_LOG_EVENTS, "fmi2DoStep: returned early at the event at t=%.17g",
               in->d->t);
    return st;
}

fmi2Status fmi2CancelStep(fmi2Component c)
{
    fw_inst *in = enter_cs(c, "fmi2CancelStep", FW_BIT(FW_STEP));
    if (in) fw_log(in, fmi2Error, FW_LOG_ERROR, "fmi2CancelStep: steps are never asynchronous");
    return fmi2Error;
}

fmi2Status fmi2SetRealInputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                       const fmi2Integer order[], const fmi2Real value[])
{
    fw_inst *in = enter_cs(c, "fmi2SetRealInputDerivatives",
                           FW_BIT(FW_INSTANTIATED) | FW_BIT(FW_INIT) | FW_BIT(FW_STEP));
    if (!in) return fmi2Error;
    const fw_model *m = in->m;
    if (nvr > 0 && (!vr || !order || !value)) {
        fw_log(in, fmi2Error, FW_LOG_ERROR, "fmi2SetRealInputDerivatives: NULL array");
        return fmi2Error;
    }
    for (size_t i = 0; i < nvr; i++) {
        if (vr[i] >= (unsigned)m->nvars || m->vars[vr[i]].causality != FW_INPUT || order[i] < 1 ||
            order[i] > FW_MAX_INPUT_ORDER || !isfinite(value[i])) {
            fw_log(in, fmi2Error, FW_LOG_ERROR,
                   "fmi2SetRealInputDerivatives: vr %u order %d: need a Real input, order 1..%d "
                   "and a finite value",
                   vr[i], order[i], FW_MAX_INPUT_ORDER);
            return fmi2Error;
        }
    }
    double t = in->d->t;
    for (size_t i = 0; i < nvr; i++) {
        unsigned v = vr[i];
        fw_eval_inputs(in, t);
        fw_input_restart(in, v, in->r[v]); /* the value continues from the old polynomial */
        in->du[(size_t)(order[i] - 1) * m->nvars + v] = value[i];
    }
    return fmi2OK;
}

fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                        const fmi2Integer order[], fmi2Real value[])
{
    fw_inst *in =
        enter_cs(c, "fmi2GetRealOutputDerivatives",
                 FW_BIT(FW_INIT) | FW_BIT(FW_STEP) | FW_BIT(FW_TERMINATED) | FW_BIT(FW_ERROR));
    if (!in) return fmi2Error;
    const fw_model *m = in->m;
    if (nvr > 0 && (!vr || !order || !value)) {
        fw_log(in, fmi2Error, FW_LOG_ERROR, "fmi2GetRealOutputDerivatives: NULL array");
        return fmi2Error;
    }
    fw_refresh(in);
    fw_ctx cx = {.t = in->d->t, .r = in->r, .inst = in};
    for (size_t i = 0; i < nvr; i++) {
        int ok = vr[i] < (unsigned)m->nvars && m->vars[vr[i]].causality == FW_OUTPUT &&
                 order[i] >= 1 && order[i] <= m->max_output_order && m->output_der &&
                 m->output_der(&cx, vr[i], order[i], &value[i]) == 0;
        if (!ok) {
            fw_log(in, fmi2Error, FW_LOG_ERROR,
                   "fmi2GetRealOutputDerivatives: vr %u order %d: not available (need an output "
                   "and 1 <= order <= %d)",
                   vr[i], order[i], m->max_output_order);
            return fmi2Error;
        }
    }
    return fmi2OK;
}

#define STATUS_MODES (FW_BIT(FW_STEP) | FW_BIT(FW_TERMINATED) | FW_BIT(FW_ERROR))

fmi2Status fmi2GetStatus(fmi2Component c, const fmi2StatusKind s, fmi2Status *value)
{
    fw_inst *in = enter_cs(c, "fmi2GetStatus", STATUS_MODES);
    if (in)
        fw_log(in, fmi2Discard, FW_LOG_WARNING, "fmi2GetStatus: no asynchronous step to report");
    return in ? fmi2Discard : fmi2Error;
}

fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind s, fmi2Real *value)
{
    fw_inst *in = enter_cs(c, "fmi2GetRealStatus", STATUS_MODES);
    if (!in) return fmi2Error;
    if (s != fmi2LastSuccessfulTime || !value) {
        fw_log(in, fmi2Discard, FW_LOG_WARNING,
               "fmi2GetRealStatus: only fmi2LastSuccessfulTime is available");
        return fmi2Discard;
    }
    *value = in->d->t;
    return fmi2OK;
}

fmi2Status fmi2GetIntegerStatus(fmi2Component c, const fmi2StatusKind s, fmi2Integer *value)
{
    fw_inst *in = enter_cs(c, "fmi2GetIntegerStatus", STATUS_MODES);
    if (in) fw_log(in, fmi2Discard, FW_LOG_WARNING, "fmi2GetIntegerStatus: no integer status");
    return in ? fmi2Discard : fmi2Error;
}

fmi2Status fmi2GetBooleanStatus(fmi2Component c, const fmi2StatusKind s, fmi2Boolean *value)
{
    fw_inst *in = enter_cs(c, "fmi2GetBooleanStatus", STATUS_MODES);
    if (!in) return fmi2Error;
    if (s != fmi2Terminated || !value) {
        fw_log(in, fmi2Discard, FW_LOG_WARNING,
               "fmi2GetBooleanStatus: only fmi2Terminated is available");
        return fmi2Discard;
    }
    *value = in->d->model_terminated ? fmi2True : fmi2False;
    return fmi2OK;
}

fmi2Status fmi2GetStringStatus(fmi2Component c, const fmi2StatusKind s, fmi2String *value)
{
    fw_inst *in = enter_cs(c, "fmi2GetStringStatus", STATUS_MODES);
    if (in) fw_log(in, fmi2Discard, FW_LOG_WARNING, "fmi2GetStringStatus: no pending step");
    return in ? fmi2Discard : fmi2Error;
}
