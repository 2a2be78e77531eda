/* FMI 3.0 through the FMI 2.0-shaped table the stepping code calls (fmu_fns): each adapter
 * takes the v3_inst wrapper as its fmi2Component and calls the FMU's fmi3 function, turning
 * FMI 2.0's int booleans into C99 bools and back, folding fmi2SetupExperiment into
 * fmi3EnterInitializationMode and keeping fmi3DoStep's out-arguments for the FMI 2.0 status
 * queries. fmi3Status has the values of fmi2Status (both enums list OK, Warning, Discard,
 * Error, Fatal in that order), so statuses pass unchanged. Serves doc/fmu.md ("FMI 3.0").
 * Divisions: loading; instantiation; adapters; typed access by variable.
 * Read next: federate/fmu/fmu_step.c (the caller). */
#include "federate/fmu/fmu_v3.h"

#include <dlfcn.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "federate/fmu/fmu_sim.h"
#include "federate/fmu/fmu_step_impl.h"

/* The folder of this platform's binaries in an FMI 3.0 FMU (standard §2.5.1.1). */
#define V3_PLATFORM "x86_64-linux"

/* ---- loading ------------------------------------------------------------------------------ */

enum { N_ALL, N_ME, N_CS, N_STATE, N_SER, N_DIR, N_OUTDER, N_OPT };

#define FN3(name, need)                                                                            \
    {                                                                                              \
        "fmi3" #name, offsetof(fmu_fns3, name), need                                               \
    }
static const struct {
    const char *name;
    size_t off;
    int need;
} fn3_table[] = {
    FN3(GetVersion, N_ALL),
    FN3(SetDebugLogging, N_ALL),
    FN3(InstantiateModelExchange, N_ME),
    FN3(InstantiateCoSimulation, N_CS),
    FN3(FreeInstance, N_ALL),
    FN3(EnterInitializationMode, N_ALL),
    FN3(ExitInitializationMode, N_ALL),
    FN3(EnterConfigurationMode, N_OPT),
    FN3(ExitConfigurationMode, N_OPT),
    FN3(EnterEventMode, N_ME),
    FN3(Terminate, N_ALL),
    FN3(Reset, N_ALL),
    FN3(GetFloat32, N_ALL),
    FN3(GetFloat64, N_ALL),
    FN3(GetInt8, N_ALL),
    FN3(GetUInt8, N_ALL),
    FN3(GetInt16, N_ALL),
    FN3(GetUInt16, N_ALL),
    FN3(GetInt32, N_ALL),
    FN3(GetUInt32, N_ALL),
    FN3(GetInt64, N_ALL),
    FN3(GetUInt64, N_ALL),
    FN3(GetBoolean, N_ALL),
    FN3(GetString, N_ALL),
    FN3(GetBinary, N_ALL),
    FN3(GetClock, N_OPT),
    FN3(SetFloat32, N_ALL),
    FN3(SetFloat64, N_ALL),
    FN3(SetInt8, N_ALL),
    FN3(SetUInt8, N_ALL),
    FN3(SetInt16, N_ALL),
    FN3(SetUInt16, N_ALL),
    FN3(SetInt32, N_ALL),
    FN3(SetUInt32, N_ALL),
    FN3(SetInt64, N_ALL),
    FN3(SetUInt64, N_ALL),
    FN3(SetBoolean, N_ALL),
    FN3(SetString, N_ALL),
    FN3(SetBinary, N_ALL),
    FN3(SetClock, N_OPT),
    FN3(GetFMUState, N_STATE),
    FN3(SetFMUState, N_STATE),
    FN3(FreeFMUState, N_STATE),
    FN3(SerializedFMUStateSize, N_SER),
    FN3(SerializeFMUState, N_SER),
    FN3(DeserializeFMUState, N_SER),
    FN3(GetDirectionalDerivative, N_DIR),
    FN3(GetIntervalDecimal, N_OPT),
    FN3(GetShiftDecimal, N_OPT),
    FN3(UpdateDiscreteStates, N_ME),
    FN3(EnterContinuousTimeMode, N_ME),
    FN3(CompletedIntegratorStep, N_ME),
    FN3(SetTime, N_ME),
    FN3(SetContinuousStates, N_ME),
    FN3(GetContinuousStateDerivatives, N_ME),
    FN3(GetEventIndicators, N_ME),
    FN3(GetContinuousStates, N_ME),
    FN3(GetNominalsOfContinuousStates, N_ME),
    FN3(EnterStepMode, N_OPT),
    FN3(GetOutputDerivatives, N_OUTDER),
    FN3(DoStep, N_CS),
};

/* 0 = not looked up, 1 = required, 2 = optional. */
static int requirement3(int need, fmu_kind kind, const fmu_caps *k)
{
    int cs = kind == FMU_KIND_CS;
    switch (need) {
    case N_ALL:
        return 1;
    case N_ME:
        return cs ? 2 : 1; /* a CS FMU with event mode uses the ME event calls too */
    case N_CS:
        return cs ? 1 : 0;
    case N_STATE:
        return k->can_get_and_set_fmu_state ? 1 : 2;
    case N_SER:
        return k->can_serialize_fmu_state ? 1 : 2;
    case N_DIR:
        return k->provides_directional_derivative ? 1 : 2;
    case N_OUTDER:
        return cs ? (k->max_output_derivative_order > 0 ? 1 : 2) : 0;
    default:
        return 2;
    }
}

static void fill_adapters(fmu_file *f);

int fmu_v3_open(fmu_file *f, char *err, size_t errlen)
{
    const char *id = f->caps->model_identifier;
    char so[PATH_MAX + 300];
    snprintf(so, sizeof so, "%s/binaries/" V3_PLATFORM "/%s.so", f->dir, id);
    struct stat st;
    if (stat(so, &st) != 0)
        return snprintf(err, errlen,
                        "no binary for this platform: binaries/" V3_PLATFORM "/%s.so is missing",
                        id),
               -1;
    dlerror();
    f->so = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    if (!f->so) {
        const char *e = dlerror();
        return snprintf(err, errlen, "binaries/" V3_PLATFORM "/%s.so: dlopen failed: %s", id,
                        e ? e : "?"),
               -1;
    }
    for (size_t i = 0; i < sizeof fn3_table / sizeof fn3_table[0]; i++) {
        int req = requirement3(fn3_table[i].need, f->kind, f->caps);
        if (!req) continue;
        void *p = dlsym(f->so, fn3_table[i].name);
        if (!p && req == 1)
            return snprintf(err, errlen,
                            "binaries/" V3_PLATFORM "/%s.so: missing function %s (needed for %s)",
                            id, fn3_table[i].name,
                            f->kind == FMU_KIND_CS ? "CoSimulation" : "ModelExchange"),
                   -1;
        memcpy((char *)&f->fn3 + fn3_table[i].off, &p, sizeof p);
    }
    const char *v = f->fn3.GetVersion();
    if (!v || strncmp(v, "3.", 2) != 0)
        return snprintf(err, errlen,
                        "binaries/" V3_PLATFORM "/%s.so: fmi3GetVersion() returned \"%.20s\", "
                        "expected \"3.0\"",
                        id, v ? v : "(null)"),
               -1;
    if (f->kind == FMU_KIND_CS && f->caps->has_event_mode &&
        (!f->fn3.EnterEventMode || !f->fn3.UpdateDiscreteStates || !f->fn3.EnterStepMode))
        f->md->cs.has_event_mode = 0; /* declared but not exported: never used */
    /* Clocks (doc/fmu.md "FMI 3.0"): the FMU's own clocks tick inside it (its time events in
     * model exchange, its steps in co-simulation); an input clock is ticked by Tempo at its
     * times (fmi3SetClock in event mode), which are the description's or the FMU's to tell
     * (fmi3GetIntervalDecimal). A triggered one has no time of its own. */
    for (size_t i = 0; i < f->md->n_clocks; i++) {
        const fmu_var *ck = &f->md->vars[f->md->clocks[i]];
        static const char *const kinds[] = {"",         "constant",  "fixed",    "tunable",
                                            "changing", "countdown", "triggered"};
        if (ck->causality != FMU_C_INPUT) continue;
        int told =
            ck->clock == FMU_CLOCK_CHANGING || ck->clock == FMU_CLOCK_COUNTDOWN ||
            ((ck->clock == FMU_CLOCK_FIXED || ck->clock == FMU_CLOCK_TUNABLE) && !ck->has_interval);
        const char *why = NULL;
        if (ck->clock == FMU_CLOCK_TRIGGERED)
            why = "a triggered clock ticks when another model says so, and Tempo has no source "
                  "of such ticks (Tempo drives time-based input clocks: constant, fixed, "
                  "tunable, changing, countdown)";
        else if (ck->clock == FMU_CLOCK_CONSTANT && !ck->has_interval)
            why = "a constant clock needs intervalDecimal in the description";
        else if (ck->has_interval && !(ck->interval > 0))
            why = "its intervalDecimal is not positive";
        else if (!f->fn3.SetClock)
            why = "the binary has no fmi3SetClock";
        else if (told && !f->fn3.GetIntervalDecimal)
            why = "its interval is the FMU's to tell, and the binary has no "
                  "fmi3GetIntervalDecimal";
        else if (f->kind == FMU_KIND_CS && !f->caps->has_event_mode)
            why = "co-simulation takes clock ticks in event mode only, and the FMU has none "
                  "(hasEventMode)";
        if (why)
            return snprintf(err, errlen, "input clock \"%s\" (intervalVariability=\"%s\"): %s",
                            ck->name, kinds[ck->clock], why),
                   -1;
    }
    fill_adapters(f);
    return 0;
}

/* ---- instantiation ------------------------------------------------------------------------ */

/* What the adapters find behind their fmi2Component. */
typedef struct {
    fmi3Instance inst;
    const fmu_fns3 *fn;
    const fmu_md *md;
    fmu_log_sink *sink;
    int tol_defined, stop_defined; /* fmi2SetupExperiment's arguments, for */
    double tol, start, stop;       /* fmi3EnterInitializationMode */
    const int *event_stop;         /* the host stops at events (fmu_step.event_stop) */
    int event_mode;                /* CS: eventModeUsed (the host handles the FMU's events) */
    fmu_step *step;                /* for its event hook, or NULL */
    char **pre_text;               /* per variable of md: the text an array element was set to
                                      before initialization (NULL: none; the array NULL) */
    size_t n_ck;                   /* input clocks driven at their ticks */
    struct v3_clock {
        fmi3ValueReference vr;
        int kind;                /* fmu_clock_kind */
        int asks;                /* 1: the interval (and shift) come from the FMU at
                                    initialization (fmi3GetIntervalDecimal); 2: at every event
                                    too (tunable without intervalDecimal, changing, countdown) */
        int active;              /* a next tick is known */
        double anchor, interval; /* s: ticks at anchor + k * interval */
        long k;                  /* the next tick's k */
    } * ck;
    double now;       /* ME: the time of the last fmi3SetTime (s) */
    int fresh;        /* ME: an event iteration begins (its clocks are not set yet) */
    int terminated;   /* last fmi3DoStep: terminateSimulation */
    double last_time; /* last fmi3DoStep: lastSuccessfulTime (s) */
} v3_inst;

static void log3(fmi3InstanceEnvironment env, fmi3Status status, fmi3String category,
                 fmi3String message)
{
    fmu_load_log_line(env, "", (fmi2Status)status, category, message);
}

/* The intermediate-update callback: the environment is the sink of the fmu_step that opened
 * the instance (fmu_step.c hands &s->sink), so the handle is found around it; its update hook
 * reads the outputs where the FMU allows it. No early return is asked. */
static void update3(fmi3InstanceEnvironment env, fmi3Float64 t, fmi3Boolean set_requested,
                    fmi3Boolean get_allowed, fmi3Boolean step_finished, fmi3Boolean can_return,
                    fmi3Boolean *early, fmi3Float64 *early_time)
{
    fmu_step *s = (fmu_step *)((char *)env - offsetof(fmu_step, sink));
    *early = false;
    *early_time = t;
    if (get_allowed && s->on_update) s->on_update(s->on_update_ctx, s, t);
}

fmi2Component fmu_v3_instantiate(fmu_file *f, const char *name, fmu_log_sink *sink,
                                 const fmu_v3_opts *o)
{
    const fmu_md *md = o->md ? o->md : f->md;
    v3_inst *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->event_stop = o->event_stop;
    w->step = o->step;
    for (size_t i = 0; i < md->n_clocks; i++)
        w->n_ck += md->vars[md->clocks[i]].causality == FMU_C_INPUT;
    if (w->n_ck && !(w->ck = calloc(w->n_ck, sizeof *w->ck))) return free(w), NULL;
    for (size_t i = 0, j = 0; i < md->n_clocks; i++) {
        const fmu_var *v = &md->vars[md->clocks[i]];
        if (v->causality != FMU_C_INPUT) continue;
        /* The anchor is made absolute by a_EnterInitializationMode (the start time). */
        int aperiodic = v->clock == FMU_CLOCK_CHANGING || v->clock == FMU_CLOCK_COUNTDOWN;
        int asks = aperiodic || (v->clock == FMU_CLOCK_TUNABLE && !v->has_interval) ? 2
                   : !v->has_interval                                               ? 1
                                                                                    : 0;
        w->ck[j++] = (struct v3_clock){.vr = v->vr,
                                       .kind = v->clock,
                                       .asks = asks,
                                       .active = !asks,
                                       .anchor = v->shift,
                                       .interval = v->interval};
    }
    /* Co-simulation takes clock ticks in event mode (fmu_v3_open checked that it has it). */
    w->event_mode = f->kind == FMU_KIND_CS && (o->event_mode || w->n_ck) && f->caps->has_event_mode;
    w->fn = &f->fn3;
    w->md = md;
    w->sink = sink;
    char res[PATH_MAX + 16];
    snprintf(res, sizeof res, "%s/resources/", f->dir);
    /* Intermediate updates: the outputs (each value reference once) are required. */
    fmi3ValueReference *req = NULL;
    size_t n_req = 0;
    int update = f->kind == FMU_KIND_CS && o->intermediate_update && o->step &&
                 f->caps->provides_intermediate_update;
    if (update && !(req = calloc(md->n_vars + 1, sizeof *req))) return free(w->ck), free(w), NULL;
    for (size_t i = 0; update && i < md->n_vars; i++)
        if (md->vars[i].causality == FMU_C_OUTPUT && md->vars[i].type != FMU_T_CLOCK &&
            !md->vars[i].elem)
            req[n_req++] = md->vars[i].vr;
    if (f->kind == FMU_KIND_CS)
        w->inst = f->fn3.InstantiateCoSimulation(
            name, md->guid, res, fmi3False, o->logging != 0, w->event_mode,
            (o->early_return || w->event_mode) && f->caps->can_return_early, req, n_req, sink, log3,
            update ? update3 : NULL);
    else
        w->inst = f->fn3.InstantiateModelExchange(name, md->guid, res, fmi3False, o->logging != 0,
                                                  sink, log3);
    free(req);
    if (!w->inst) {
        free(w->ck);
        free(w);
        return NULL;
    }
    return w;
}

/* ---- adapters ----------------------------------------------------------------------------- */

#define W     ((v3_inst *)c)
#define CHUNK 64

static fmi2Status a_SetDebugLogging(fmi2Component c, fmi2Boolean on, size_t n,
                                    const fmi2String cat[])
{
    return (fmi2Status)W->fn->SetDebugLogging(W->inst, on != 0, n, cat);
}
static void a_FreeInstance(fmi2Component c)
{
    W->fn->FreeInstance(W->inst);
    for (size_t i = 0; W->pre_text && i < W->md->n_vars; i++)
        free(W->pre_text[i]);
    free(W->pre_text);
    free(W->ck);
    free(c);
}
static fmi2Status a_SetupExperiment(fmi2Component c, fmi2Boolean tol_defined, fmi2Real tol,
                                    fmi2Real start, fmi2Boolean stop_defined, fmi2Real stop)
{
    W->tol_defined = tol_defined, W->tol = tol, W->start = start;
    W->stop_defined = stop_defined, W->stop = stop;
    return fmi2OK;
}
static fmi2Status a_EnterInitializationMode(fmi2Component c)
{
    for (size_t i = 0; i < W->n_ck; i++) /* the description's shifts count from the start */
        if (!W->ck[i].asks) W->ck[i].anchor += W->start;
    return (fmi2Status)W->fn->EnterInitializationMode(W->inst, W->tol_defined != 0, W->tol,
                                                      W->start, W->stop_defined != 0, W->stop);
}
/* Input clocks (FMI 3.0 §2.2.9): the time of clock i's next tick, counted from the start time
 * (not summed); and, at time t in event mode, fmi3SetClock for every clock due at t (a tick
 * at or before t, up to rounding), each then moved to its following tick. */
static double tick_time(const v3_inst *w, size_t i)
{
    return w->ck[i].active ? w->ck[i].anchor + (double)w->ck[i].k * w->ck[i].interval : INFINITY;
}
static double next_tick(const v3_inst *w)
{
    double t = INFINITY;
    for (size_t i = 0; i < w->n_ck; i++)
        t = fmin(t, tick_time(w, i));
    return t;
}
static fmi3Status set_due_clocks(v3_inst *w, double t)
{
    for (size_t i = 0; i < w->n_ck; i++) {
        if (!(tick_time(w, i) <= t + 1e-12 * fmax(1.0, fabs(t)))) continue;
        bool on = true;
        fmi3Status st = w->fn->SetClock(w->inst, &w->ck[i].vr, 1, &on);
        if (st > fmi3Warning) return st;
        /* An aperiodic clock's next tick is the FMU's to tell (query_clocks, after the event
         * iteration); a periodic one goes on. */
        if (w->ck[i].kind == FMU_CLOCK_CHANGING || w->ck[i].kind == FMU_CLOCK_COUNTDOWN)
            w->ck[i].active = 0;
        while (tick_time(w, i) <= t + 1e-12 * fmax(1.0, fabs(t)))
            w->ck[i].k++;
    }
    return fmi3OK;
}

/* The intervals the FMU tells (FMI 3.0 §2.2.9.4, "Clock types"): at initialization (init)
 * every clock without intervalDecimal, and for a fixed or tunable one its shift; at the end
 * of every event iteration at time t the tunable ones without intervalDecimal, the changing
 * and the countdown ones. A changed interval counts from t (the time of the event mode, or
 * the start time): the next tick is t + interval, a periodic clock's every interval after;
 * "not yet known" leaves an aperiodic clock without a next tick until the FMU tells one. */
static fmi3Status query_clocks(v3_inst *w, double t, int init)
{
    for (size_t i = 0; i < w->n_ck; i++) {
        struct v3_clock *ck = &w->ck[i];
        if (ck->asks < (init ? 1 : 2)) continue;
        double iv = 0, shift = 0;
        fmi3IntervalQualifier q = fmi3IntervalNotYetKnown;
        fmi3Status st = w->fn->GetIntervalDecimal(w->inst, &ck->vr, 1, &iv, &q);
        if (st > fmi3Warning) return st;
        int periodic = ck->kind == FMU_CLOCK_FIXED || ck->kind == FMU_CLOCK_TUNABLE;
        if (init && periodic && w->fn->GetShiftDecimal &&
            (st = w->fn->GetShiftDecimal(w->inst, &ck->vr, 1, &shift)) > fmi3Warning)
            return st;
        if (q == fmi3IntervalChanged || (init && q == fmi3IntervalUnchanged)) {
            int bad = periodic ? !(iv > 0) : !(iv >= 0);
            if (bad || !isfinite(iv)) {
                char line[160];
                snprintf(line, sizeof line,
                         "fmi3GetIntervalDecimal: clock %u has the interval %g, which is not %s",
                         ck->vr, iv, periodic ? "positive" : "zero or positive");
                fmu_load_log_line(w->sink, "", fmi2Error, "tempo", line);
                return fmi3Error;
            }
            ck->interval = iv;
            ck->anchor = init && periodic ? t + shift : t;
            ck->k = init && periodic ? 0 : 1;
            ck->active = 1;
        } else if (q == fmi3IntervalNotYetKnown && !periodic) {
            ck->active = 0;
        }
    }
    return fmi3OK;
}

/* Co-simulation in event mode (FMI 3.0 §4.2.4): the event iteration at time t, then back to
 * step mode. A request to terminate is kept for the status queries (fmi2Terminated). */
#define V3_MAX_EVENT_ROUNDS 1000 /* fmi3UpdateDiscreteStates calls in one event iteration */
static fmi3Status cs_event_iteration(v3_inst *w, double t)
{
    bool need = true, term = false, nom = false, val = false, next_def = false;
    double next = 0;
    fmi3Status cst = set_due_clocks(w, t);
    if (cst > fmi3Warning) return cst;
    for (int k = 0; need; k++) {
        if (k == V3_MAX_EVENT_ROUNDS) {
            fmu_load_log_line(w->sink, "", fmi2Error, "tempo",
                              "fmi3UpdateDiscreteStates still asks for another round after 1000 "
                              "(an event iteration that does not converge)");
            return fmi3Error;
        }
        fmi3Status st =
            w->fn->UpdateDiscreteStates(w->inst, &need, &term, &nom, &val, &next_def, &next);
        if (st > fmi3Warning) return st;
        if (term) {
            w->terminated = 1, w->last_time = t;
            return fmi3OK;
        }
    }
    if ((cst = query_clocks(w, t, 0)) > fmi3Warning) return cst;
    return w->fn->EnterStepMode(w->inst);
}

static fmi2Status a_ExitInitializationMode(fmi2Component c)
{
    fmi3Status st = query_clocks(W, W->start, 1);
    if (st > fmi3Warning) return (fmi2Status)st;
    st = W->fn->ExitInitializationMode(W->inst);
    /* Event mode used: the FMU starts in event mode (the initial event iteration). */
    if (st <= fmi3Warning && W->event_mode) st = cs_event_iteration(W, W->start);
    W->fresh = 1, W->now = W->start; /* model exchange: its initial event iteration is next */
    return (fmi2Status)st;
}
static fmi2Status a_Terminate(fmi2Component c)
{
    return (fmi2Status)W->fn->Terminate(W->inst);
}
static fmi2Status a_Reset(fmi2Component c)
{
    return (fmi2Status)W->fn->Reset(W->inst);
}

/* The value-reference calls of FMI 2.0 name scalars: an FMI 3.0 array is reached by name. */
static fmi2Status scalars_only(fmi2Component c, const fmi2ValueReference vr[], size_t n)
{
    for (size_t i = 0; i < n; i++) {
        long k = fmu_md_find_any_vr(W->md, vr[i]);
        if (k >= 0 && W->md->vars[k].n_elems) {
            char line[200];
            snprintf(line, sizeof line,
                     "value reference %u is the array \"%s\": arrays are exchanged by name, "
                     "element by element",
                     vr[i], W->md->vars[k].name);
            fmu_load_log_line(W->sink, "", fmi2Error, "tempo", line);
            return fmi2Error;
        }
    }
    return fmi2OK;
}

/* Array element handles (fmu_md_wire_vr, doc/fmu.md "FMI 3.0"): a Float64 element is read by
 * reading its array whole (FMI 3.0 has no element access), written by reading the array,
 * changing the element and writing the array back; with order > 0, its output derivative of
 * that order. */
static fmi3Status elem_rw(v3_inst *w, long k, double *v, int set, int order)
{
    const fmu_var *e = &w->md->vars[k];
    if (e->type != FMU_T_REAL) return fmi3Error;
    size_t n = e->n_elems;
    double *buf = malloc(n * sizeof *buf);
    int *orders = order ? malloc(n * sizeof *orders) : NULL;
    if (!buf || (order && !orders)) return free(buf), free(orders), fmi3Error;
    fmi3ValueReference vr = e->vr;
    fmi3Status st;
    if (order) {
        for (size_t i = 0; i < n; i++)
            orders[i] = order;
        st = w->fn->GetOutputDerivatives(w->inst, &vr, 1, orders, buf, n);
    } else {
        st = w->fn->GetFloat64(w->inst, &vr, 1, buf, n);
    }
    if (st <= fmi3Warning && set) {
        buf[e->elem] = *v;
        st = w->fn->SetFloat64(w->inst, &vr, 1, buf, n);
    } else if (st <= fmi3Warning) {
        *v = buf[e->elem];
    }
    free(buf);
    free(orders);
    return st;
}

static int has_handles(const v3_inst *w, const fmi2ValueReference vr[], size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (fmu_md_elem_of_vr(w->md, vr[i]) >= 0) return 1;
    return 0;
}

/* Values one by one where element handles are among the value references. */
static fmi2Status rw_each(v3_inst *w, const fmi2ValueReference vr[], size_t n, double v[], int set,
                          const fmi2Integer order[])
{
    fmi3Status st = fmi3OK;
    for (size_t i = 0; st <= fmi3Warning && i < n; i++) {
        long k = fmu_md_elem_of_vr(w->md, vr[i]);
        int o = order ? order[i] : 0;
        if (k >= 0)
            st = elem_rw(w, k, &v[i], set, o);
        else if (order)
            st = w->fn->GetOutputDerivatives(w->inst, &vr[i], 1, &o, &v[i], 1);
        else
            st = set ? w->fn->SetFloat64(w->inst, &vr[i], 1, &v[i], 1)
                     : w->fn->GetFloat64(w->inst, &vr[i], 1, &v[i], 1);
    }
    return (fmi2Status)st;
}

static fmi2Status a_GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t n, fmi2Real v[])
{
    fmi2Status st = scalars_only(c, vr, n);
    if (!st && has_handles(W, vr, n)) return rw_each(W, vr, n, v, 0, NULL);
    return st ? st : (fmi2Status)W->fn->GetFloat64(W->inst, vr, n, v, n);
}
static fmi2Status a_SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                            const fmi2Real v[])
{
    fmi2Status st = scalars_only(c, vr, n);
    if (!st && has_handles(W, vr, n)) return rw_each(W, vr, n, (double *)v, 1, NULL);
    return st ? st : (fmi2Status)W->fn->SetFloat64(W->inst, vr, n, v, n);
}
static fmi2Status a_GetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                               fmi2Integer v[])
{
    fmi2Status st = scalars_only(c, vr, n);
    return st ? st : (fmi2Status)W->fn->GetInt32(W->inst, vr, n, v, n);
}
static fmi2Status a_SetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                               const fmi2Integer v[])
{
    fmi2Status st = scalars_only(c, vr, n);
    return st ? st : (fmi2Status)W->fn->SetInt32(W->inst, vr, n, v, n);
}
static fmi2Status a_GetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                               fmi2Boolean v[])
{
    fmi2Status st = scalars_only(c, vr, n);
    bool b[CHUNK];
    for (size_t i0 = 0; !st && i0 < n; i0 += CHUNK) {
        size_t m = n - i0 < CHUNK ? n - i0 : CHUNK;
        st = (fmi2Status)W->fn->GetBoolean(W->inst, vr + i0, m, b, m);
        for (size_t i = 0; st <= fmi2Warning && i < m; i++)
            v[i0 + i] = b[i] ? fmi2True : fmi2False;
        if (st == fmi2Warning) st = fmi2OK;
    }
    return st;
}
static fmi2Status a_SetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                               const fmi2Boolean v[])
{
    fmi2Status st = scalars_only(c, vr, n);
    bool b[CHUNK];
    for (size_t i0 = 0; !st && i0 < n; i0 += CHUNK) {
        size_t m = n - i0 < CHUNK ? n - i0 : CHUNK;
        for (size_t i = 0; i < m; i++)
            b[i] = v[i0 + i] != 0;
        st = (fmi2Status)W->fn->SetBoolean(W->inst, vr + i0, m, b, m);
        if (st == fmi2Warning) st = fmi2OK;
    }
    return st;
}
static fmi2Status a_GetString(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                              fmi2String v[])
{
    fmi2Status st = scalars_only(c, vr, n);
    return st ? st : (fmi2Status)W->fn->GetString(W->inst, vr, n, v, n);
}
static fmi2Status a_SetString(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                              const fmi2String v[])
{
    fmi2Status st = scalars_only(c, vr, n);
    return st ? st : (fmi2Status)W->fn->SetString(W->inst, vr, n, v, n);
}
/* FMU state with input clocks: the FMU's own state and the clock schedule (the next tick of
 * each clock), so that a rollback ticks the clocks again; serialized as the FMU's bytes then
 * the schedule. Without input clocks the FMU's state passes as it is. */
typedef struct {
    fmi3FMUState fs;      /* the FMU's */
    struct v3_clock ck[]; /* per input clock: its schedule */
} v3_state;

static fmi2Status a_GetFMUstate(fmi2Component c, fmi2FMUstate *s)
{
    if (!W->n_ck) return (fmi2Status)W->fn->GetFMUState(W->inst, s);
    v3_state *x = *s, *made = NULL;
    if (!x && !(x = made = calloc(1, sizeof *x + W->n_ck * sizeof *x->ck))) return fmi2Error;
    fmi3Status st = W->fn->GetFMUState(W->inst, &x->fs);
    if (st > fmi3Warning) return free(made), (fmi2Status)st;
    memcpy(x->ck, W->ck, W->n_ck * sizeof *x->ck);
    *s = x;
    return (fmi2Status)st;
}
static fmi2Status a_SetFMUstate(fmi2Component c, fmi2FMUstate s)
{
    if (!W->n_ck) return (fmi2Status)W->fn->SetFMUState(W->inst, s);
    const v3_state *x = s;
    if (!x) return fmi2Error;
    fmi3Status st = W->fn->SetFMUState(W->inst, x->fs);
    if (st <= fmi3Warning) memcpy(W->ck, x->ck, W->n_ck * sizeof *x->ck);
    return (fmi2Status)st;
}
static fmi2Status a_FreeFMUstate(fmi2Component c, fmi2FMUstate *s)
{
    if (!W->n_ck) return (fmi2Status)W->fn->FreeFMUState(W->inst, s);
    v3_state *x = *s;
    fmi3Status st = x ? W->fn->FreeFMUState(W->inst, &x->fs) : fmi3OK;
    free(x);
    *s = NULL;
    return (fmi2Status)st;
}
static fmi2Status a_SerializedFMUstateSize(fmi2Component c, fmi2FMUstate s, size_t *size)
{
    if (!W->n_ck) return (fmi2Status)W->fn->SerializedFMUStateSize(W->inst, s, size);
    fmi3Status st = W->fn->SerializedFMUStateSize(W->inst, ((v3_state *)s)->fs, size);
    *size += W->n_ck * sizeof(struct v3_clock);
    return (fmi2Status)st;
}
static fmi2Status a_SerializeFMUstate(fmi2Component c, fmi2FMUstate s, fmi2Byte b[], size_t n)
{
    if (!W->n_ck) return (fmi2Status)W->fn->SerializeFMUState(W->inst, s, (fmi3Byte *)b, n);
    size_t extra = W->n_ck * sizeof(struct v3_clock);
    if (n < extra) return fmi2Error;
    const v3_state *x = s;
    fmi3Status st = W->fn->SerializeFMUState(W->inst, x->fs, (fmi3Byte *)b, n - extra);
    memcpy(b + (n - extra), x->ck, extra);
    return (fmi2Status)st;
}
static fmi2Status a_DeSerializeFMUstate(fmi2Component c, const fmi2Byte b[], size_t n,
                                        fmi2FMUstate *s)
{
    if (!W->n_ck) return (fmi2Status)W->fn->DeserializeFMUState(W->inst, (const fmi3Byte *)b, n, s);
    size_t extra = W->n_ck * sizeof(struct v3_clock);
    if (n < extra) return fmi2Error;
    v3_state *x = calloc(1, sizeof *x + extra);
    if (!x) return fmi2Error;
    fmi3Status st = W->fn->DeserializeFMUState(W->inst, (const fmi3Byte *)b, n - extra, &x->fs);
    if (st > fmi3Warning) return free(x), (fmi2Status)st;
    memcpy(x->ck, b + (n - extra), extra);
    *s = x;
    return (fmi2Status)st;
}
static fmi2Status a_GetDirectionalDerivative(fmi2Component c, const fmi2ValueReference u[],
                                             size_t nu, const fmi2ValueReference k[], size_t nk,
                                             const fmi2Real dk[], fmi2Real du[])
{
    return (fmi2Status)W->fn->GetDirectionalDerivative(W->inst, u, nu, k, nk, dk, nk, du, nu);
}
static fmi2Status a_EnterEventMode(fmi2Component c)
{
    W->fresh = 1;
    return (fmi2Status)W->fn->EnterEventMode(W->inst);
}
static fmi2Status a_NewDiscreteStates(fmi2Component c, fmi2EventInfo *ev)
{
    bool need = false, term = false, nom = false, val = false, next = false;
    double t = 0;
    if (W->fresh) { /* the clocks due now tick in the first round of the iteration */
        W->fresh = 0;
        fmi3Status cst = set_due_clocks(W, W->now);
        if (cst > fmi3Warning) return (fmi2Status)cst;
    }
    fmi3Status st = W->fn->UpdateDiscreteStates(W->inst, &need, &term, &nom, &val, &next, &t);
    if (st <= fmi3Warning && !need && !term) { /* the iteration ends: the intervals now */
        fmi3Status cst = query_clocks(W, W->now, 0);
        if (cst > fmi3Warning) return (fmi2Status)cst;
    }
    if (W->n_ck && (!next || next_tick(W) < t)) /* the next tick is a time event too */
        next = true, t = next_tick(W);
    ev->newDiscreteStatesNeeded = need;
    ev->terminateSimulation = term;
    ev->nominalsOfContinuousStatesChanged = nom;
    ev->valuesOfContinuousStatesChanged = val;
    ev->nextEventTimeDefined = next;
    ev->nextEventTime = t;
    return (fmi2Status)st;
}
static fmi2Status a_EnterContinuousTimeMode(fmi2Component c)
{
    return (fmi2Status)W->fn->EnterContinuousTimeMode(W->inst);
}
static fmi2Status a_CompletedIntegratorStep(fmi2Component c, fmi2Boolean no_set, fmi2Boolean *enter,
                                            fmi2Boolean *term)
{
    bool e = false, t = false;
    fmi3Status st = W->fn->CompletedIntegratorStep(W->inst, no_set != 0, &e, &t);
    *enter = e, *term = t;
    return (fmi2Status)st;
}
static fmi2Status a_SetTime(fmi2Component c, fmi2Real t)
{
    W->now = t;
    return (fmi2Status)W->fn->SetTime(W->inst, t);
}
static fmi2Status a_SetContinuousStates(fmi2Component c, const fmi2Real x[], size_t n)
{
    return (fmi2Status)W->fn->SetContinuousStates(W->inst, x, n);
}
static fmi2Status a_GetDerivatives(fmi2Component c, fmi2Real dx[], size_t n)
{
    return (fmi2Status)W->fn->GetContinuousStateDerivatives(W->inst, dx, n);
}
static fmi2Status a_GetEventIndicators(fmi2Component c, fmi2Real z[], size_t n)
{
    return (fmi2Status)W->fn->GetEventIndicators(W->inst, z, n);
}
static fmi2Status a_GetContinuousStates(fmi2Component c, fmi2Real x[], size_t n)
{
    return (fmi2Status)W->fn->GetContinuousStates(W->inst, x, n);
}
static fmi2Status a_GetNominalsOfContinuousStates(fmi2Component c, fmi2Real x[], size_t n)
{
    return (fmi2Status)W->fn->GetNominalsOfContinuousStates(W->inst, x, n);
}
static fmi2Status a_GetRealOutputDerivatives(fmi2Component c, const fmi2ValueReference vr[],
                                             size_t n, const fmi2Integer order[], fmi2Real v[])
{
    fmi2Status st = scalars_only(c, vr, n);
    if (!st && has_handles(W, vr, n)) return rw_each(W, vr, n, v, 0, order);
    return st ? st : (fmi2Status)W->fn->GetOutputDerivatives(W->inst, vr, n, order, v, n);
}
/* fmi3DoStep: a request to terminate, or an early return before the end of the step while
 * the host stops at events (fmu_step_set_event_stop), comes back as FMI 2.0's fmi2Discard
 * with the time reached, which fmu_cs.c reads through the status queries below. An early
 * return while the host does not stop at events is carried on to the end of the step
 * (doc/fmu.md "FMI 3.0"). */
#define V3_MAX_EARLY 1000000 /* early returns carried on within one step */
static fmi2Status a_DoStep(fmi2Component c, fmi2Real t, fmi2Real h, fmi2Boolean no_set)
{
    const double t_end = t + h;
    if (W->terminated) return W->last_time = t, fmi2Discard; /* asked in an event iteration */
    for (long k = 0;; k++) {
        /* An input clock's tick inside the step ends a sub-step there (event mode). */
        double stop = t_end;
        int tick = 0;
        if (W->event_mode && W->n_ck && next_tick(W) <= t_end) stop = next_tick(W), tick = 1;
        bool event = false, term = false, early = false;
        double last = stop;
        fmi3Status st =
            W->fn->DoStep(W->inst, t, stop - t, no_set != 0, &event, &term, &early, &last);
        W->terminated = term;
        W->last_time = last;
        if (st > fmi3Warning) return (fmi2Status)st;
        if (term) return fmi2Discard;
        double at = early && last < stop ? last : stop;
        if (W->event_mode && (event || (tick && at == stop))) {
            /* The FMU returned at an event (early, or at the step's end) or a clock ticks:
             * the hook sees the values before it, then the event iteration runs (the clocks
             * due set first) and the FMU is back in step mode; the step goes on unless the
             * host stops at events. */
            fmu_step *s = W->step;
            if (s && s->on_event && s->on_event(s->on_event_ctx, s, at)) {
                fmu_load_log_line(W->sink, "", fmi2Error, "tempo", "the event hook failed");
                return fmi2Error;
            }
            if ((st = W->fn->EnterEventMode(W->inst)) > fmi3Warning ||
                (st = cs_event_iteration(W, at)) > fmi3Warning)
                return (fmi2Status)st;
            if (W->terminated) return fmi2Discard;
            W->last_time = at;
            if (!(at < t_end)) return fmi2OK;
            if ((W->event_stop && *W->event_stop) || !(at > t) || k >= V3_MAX_EARLY)
                return fmi2Discard;
            t = at;
            continue;
        }
        if (!(at < t_end)) return (fmi2Status)st;
        if (!(at < stop)) { /* a sub-step ended without an event: the next one */
            t = at;
            continue;
        }
        if ((W->event_stop && *W->event_stop) || !(last > t) || k >= V3_MAX_EARLY)
            return fmi2Discard;
        t = last;
    }
}
static fmi2Status a_GetRealStatus(fmi2Component c, const fmi2StatusKind k, fmi2Real *v)
{
    if (k != fmi2LastSuccessfulTime) return fmi2Discard;
    *v = W->last_time;
    return fmi2OK;
}
static fmi2Status a_GetBooleanStatus(fmi2Component c, const fmi2StatusKind k, fmi2Boolean *v)
{
    if (k != fmi2Terminated) return fmi2Discard;
    *v = W->terminated ? fmi2True : fmi2False;
    return fmi2OK;
}
#undef W

static void fill_adapters(fmu_file *f)
{
    fmu_fns *a = &f->fn;
    const fmu_fns3 *g = &f->fn3;
    memset(a, 0, sizeof *a);
    a->SetDebugLogging = a_SetDebugLogging;
    a->FreeInstance = a_FreeInstance;
    a->SetupExperiment = a_SetupExperiment;
    a->EnterInitializationMode = a_EnterInitializationMode;
    a->ExitInitializationMode = a_ExitInitializationMode;
    a->Terminate = a_Terminate;
    a->Reset = a_Reset;
    a->GetReal = a_GetReal;
    a->GetInteger = a_GetInteger;
    a->GetBoolean = a_GetBoolean;
    a->GetString = a_GetString;
    a->SetReal = a_SetReal;
    a->SetInteger = a_SetInteger;
    a->SetBoolean = a_SetBoolean;
    a->SetString = a_SetString;
    if (g->GetFMUState && g->SetFMUState && g->FreeFMUState) {
        a->GetFMUstate = a_GetFMUstate;
        a->SetFMUstate = a_SetFMUstate;
        a->FreeFMUstate = a_FreeFMUstate;
    }
    if (g->SerializedFMUStateSize && g->SerializeFMUState && g->DeserializeFMUState) {
        a->SerializedFMUstateSize = a_SerializedFMUstateSize;
        a->SerializeFMUstate = a_SerializeFMUstate;
        a->DeSerializeFMUstate = a_DeSerializeFMUstate;
    }
    if (g->GetDirectionalDerivative) a->GetDirectionalDerivative = a_GetDirectionalDerivative;
    if (f->kind == FMU_KIND_ME) {
        a->EnterEventMode = a_EnterEventMode;
        a->NewDiscreteStates = a_NewDiscreteStates;
        a->EnterContinuousTimeMode = a_EnterContinuousTimeMode;
        a->CompletedIntegratorStep = a_CompletedIntegratorStep;
        a->SetTime = a_SetTime;
        a->SetContinuousStates = a_SetContinuousStates;
        a->GetDerivatives = a_GetDerivatives;
        a->GetEventIndicators = a_GetEventIndicators;
        a->GetContinuousStates = a_GetContinuousStates;
        a->GetNominalsOfContinuousStates = a_GetNominalsOfContinuousStates;
    } else {
        a->DoStep = a_DoStep;
        a->GetRealStatus = a_GetRealStatus;
        a->GetBooleanStatus = a_GetBooleanStatus;
        if (g->GetOutputDerivatives) a->GetRealOutputDerivatives = a_GetRealOutputDerivatives;
    }
}

/* ---- typed access by variable ------------------------------------------------------------- */

/* One value of any FMI 3.0 type. */
typedef union {
    double f64;
    float f32;
    int8_t i8;
    uint8_t u8;
    int16_t i16;
    uint16_t u16;
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
    bool b;
    const char *str;
    const fmi3Byte *bin;
} v3_value;

/* Values of one variable, gathered in a packed array of its own type. */
typedef struct {
    size_t n;     /* values (elements) */
    void *vals;   /* n values of the variable's C type */
    size_t *size; /* Binary: n sizes */
} v3_vals;

static size_t type_size(fmu_vtype t)
{
    switch (t) {
    case FMU_T_REAL:
        return sizeof(double);
    case FMU_T_FLOAT32:
        return sizeof(float);
    case FMU_T_INT8:
    case FMU_T_UINT8:
        return 1;
    case FMU_T_INT16:
    case FMU_T_UINT16:
        return 2;
    case FMU_T_INTEGER:
    case FMU_T_UINT32:
        return 4;
    case FMU_T_BOOLEAN:
    case FMU_T_CLOCK:
        return sizeof(bool);
    case FMU_T_STRING:
        return sizeof(const char *);
    case FMU_T_BINARY:
        return sizeof(const fmi3Byte *);
    default:
        return 8; /* Int64, UInt64, Enumeration */
    }
}

/* Reads every element of v's variable. */
static int read_all(fmu_step *s, const fmu_var *v, v3_vals *out)
{
    v3_inst *w = s->c;
    const fmu_fns3 *g = w->fn;
    size_t n = v->n_elems ? v->n_elems : 1;
    fmi3ValueReference vr = v->vr;
    out->n = n;
    out->vals = calloc(n, type_size(v->type));
    out->size = calloc(n, sizeof *out->size);
    if (!out->vals || !out->size) return fmu_step_fail(s, FMU_STEP_ESYS, "out of memory");
    fmi3Status st;
    void *p = out->vals;
    switch (v->type) {
    case FMU_T_REAL:
        st = g->GetFloat64(w->inst, &vr, 1, p, n);
        break;
    case FMU_T_FLOAT32:
        st = g->GetFloat32(w->inst, &vr, 1, p, n);
        break;
    case FMU_T_INT8:
        st = g->GetInt8(w->inst, &vr, 1, p, n);
        break;
    case FMU_T_UINT8:
        st = g->GetUInt8(w->inst, &vr, 1, p, n);
        break;
    case FMU_T_INT16:
        st = g->GetInt16(w->inst, &vr, 1, p, n);
        break;
    case FMU_T_UINT16:
        st = g->GetUInt16(w->inst, &vr, 1, p, n);
        break;
    case FMU_T_INTEGER:
        st = g->GetInt32(w->inst, &vr, 1, p, n);
        break;
    case FMU_T_UINT32:
        st = g->GetUInt32(w->inst, &vr, 1, p, n);
        break;
    case FMU_T_INT64:
    case FMU_T_ENUM:
        st = g->GetInt64(w->inst, &vr, 1, p, n);
        break;
    case FMU_T_UINT64:
        st = g->GetUInt64(w->inst, &vr, 1, p, n);
        break;
    case FMU_T_BOOLEAN:
        st = g->GetBoolean(w->inst, &vr, 1, p, n);
        break;
    case FMU_T_STRING:
        st = g->GetString(w->inst, &vr, 1, p, n);
        break;
    case FMU_T_BINARY:
        st = g->GetBinary(w->inst, &vr, 1, out->size, p, n);
        break;
    default:
        return fmu_step_fail(s, FMU_STEP_EUSAGE, "%s \"%s\" cannot be read as a value",
                             fmu_md_type_name(v->type), v->name);
    }
    char what[64];
    snprintf(what, sizeof what, "fmi3Get%s", fmu_md_type_name_of(w->md, v->type));
    if (v->type == FMU_T_ENUM) snprintf(what, sizeof what, "fmi3GetInt64");
    int rc = fmu_step_check(s, (fmi2Status)st, what);
    return rc == FMU_STEP_EDISCARD ? FMU_STEP_EFMU : rc;
}

static void free_vals(v3_vals *x)
{
    free(x->vals);
    free(x->size);
}

/* Element e of the gathered values as a v3_value. */
static v3_value element(const fmu_var *v, const v3_vals *x, size_t e)
{
    v3_value u;
    memset(&u, 0, sizeof u);
    memcpy(&u, (const char *)x->vals + e * type_size(v->type), type_size(v->type));
    return u;
}

static const char *float32_text(float f, char *buf, size_t len)
{
    if (!isfinite(f)) return fmu_sim_format_double((double)f, buf, len);
    for (int p = 6; p <= 9; p++) {
        snprintf(buf, len, "%.*g", p, (double)f);
        if (strtof(buf, NULL) == f) break;
    }
    return buf;
}

int fmu_v3_get_text(fmu_step *s, const fmu_var *v, char *buf, size_t len)
{
    v3_vals x = {0};
    int rc = read_all(s, v, &x);
    if (rc) return free_vals(&x), rc;
    v3_value u = element(v, &x, v->elem);
    switch (v->type) {
    case FMU_T_REAL:
        fmu_sim_format_double(u.f64, buf, len);
        break;
    case FMU_T_FLOAT32:
        float32_text(u.f32, buf, len);
        break;
    case FMU_T_INT8:
        snprintf(buf, len, "%d", u.i8);
        break;
    case FMU_T_UINT8:
        snprintf(buf, len, "%u", u.u8);
        break;
    case FMU_T_INT16:
        snprintf(buf, len, "%d", u.i16);
        break;
    case FMU_T_UINT16:
        snprintf(buf, len, "%u", u.u16);
        break;
    case FMU_T_INTEGER:
        snprintf(buf, len, "%d", u.i32);
        break;
    case FMU_T_UINT32:
        snprintf(buf, len, "%u", u.u32);
        break;
    case FMU_T_UINT64:
        snprintf(buf, len, "%llu", (unsigned long long)u.u64);
        break;
    case FMU_T_BOOLEAN:
        snprintf(buf, len, "%d", u.b ? 1 : 0);
        break;
    case FMU_T_STRING:
        snprintf(buf, len, "%s", u.str ? u.str : "");
        break;
    case FMU_T_BINARY: {
        size_t n = x.size[v->elem], k = 0;
        buf[0] = '\0';
        for (size_t i = 0; i < n && u.bin && k + 3 <= len; i++, k += 2)
            snprintf(buf + k, len - k, "%02x", u.bin[i]);
        break;
    }
    default: /* Int64, Enumeration */
        snprintf(buf, len, "%lld", (long long)u.i64);
        break;
    }
    free_vals(&x);
    return 0;
}

int fmu_v3_get_number(fmu_step *s, const fmu_var *v, double *out)
{
    if (v->type == FMU_T_STRING || v->type == FMU_T_BINARY || v->type == FMU_T_CLOCK)
        return fmu_step_fail(s, FMU_STEP_EUSAGE, "variable \"%s\" is a %s, not a number", v->name,
                             fmu_md_type_name(v->type));
    char buf[64];
    int rc = fmu_v3_get_text(s, v, buf, sizeof buf);
    if (!rc) *out = strtod(buf, NULL);
    return rc;
}

/* The text as a value of v's type into u (ranges of the type and min/max checked). */
static int parse_value(fmu_step *s, const fmu_var *v, const char *text, v3_value *u, fmi3Byte **bin,
                       size_t *bin_len)
{
    char *end;
    errno = 0;
    double d = 0;
    switch (v->type) {
    case FMU_T_STRING:
        u->str = text;
        return 0;
    case FMU_T_BINARY: {
        size_t l = strlen(text);
        if (l % 2 || strspn(text, "0123456789abcdefABCDEF") != l)
            return fmu_step_fail(s, FMU_STEP_EUSAGE, "%s=%s: not hexadecimal bytes", v->name, text);
        *bin = malloc(l / 2 + 1);
        if (!*bin) return fmu_step_fail(s, FMU_STEP_ESYS, "out of memory");
        for (size_t i = 0; i < l / 2; i++) {
            unsigned b;
            sscanf(text + 2 * i, "%2x", &b);
            (*bin)[i] = (fmi3Byte)b;
        }
        *bin_len = l / 2;
        u->bin = *bin;
        return 0;
    }
    case FMU_T_BOOLEAN:
        if (!strcmp(text, "true") || !strcmp(text, "1"))
            u->b = true;
        else if (!strcmp(text, "false") || !strcmp(text, "0"))
            u->b = false;
        else
            return fmu_step_fail(s, FMU_STEP_EUSAGE, "%s=%s: not a boolean", v->name, text);
        return 0;
    case FMU_T_REAL:
    case FMU_T_FLOAT32:
        d = strtod(text, &end);
        if (end == text || *end || errno == ERANGE || !isfinite(d) ||
            (v->type == FMU_T_FLOAT32 && fabs(d) > FLT_MAX))
            return fmu_step_fail(s, FMU_STEP_EUSAGE, "%s=%s: not a %s number", v->name, text,
                                 fmu_md_type_name_of(fmu_step_md(s), v->type));
        if (v->type == FMU_T_REAL)
            u->f64 = d;
        else
            u->f32 = (float)d;
        break;
    case FMU_T_UINT8:
    case FMU_T_UINT16:
    case FMU_T_UINT32:
    case FMU_T_UINT64: {
        unsigned long long x = strtoull(text, &end, 10);
        unsigned long long hi = v->type == FMU_T_UINT8    ? UINT8_MAX
                                : v->type == FMU_T_UINT16 ? UINT16_MAX
                                : v->type == FMU_T_UINT32 ? UINT32_MAX
                                                          : UINT64_MAX;
        if (end == text || *end || errno == ERANGE || text[0] == '-' || x > hi)
            return fmu_step_fail(s, FMU_STEP_EUSAGE, "%s=%s: not a %s", v->name, text,
                                 fmu_md_type_name(v->type));
        u->u64 = x;
        if (v->type == FMU_T_UINT8) u->u8 = (uint8_t)x;
        if (v->type == FMU_T_UINT16) u->u16 = (uint16_t)x;
        if (v->type == FMU_T_UINT32) u->u32 = (uint32_t)x;
        d = (double)x;
        break;
    }
    default: {
        long long x = strtoll(text, &end, 10);
        long long lo = v->type == FMU_T_INT8      ? INT8_MIN
                       : v->type == FMU_T_INT16   ? INT16_MIN
                       : v->type == FMU_T_INTEGER ? INT32_MIN
                                                  : INT64_MIN;
        long long hi = v->type == FMU_T_INT8      ? INT8_MAX
                       : v->type == FMU_T_INT16   ? INT16_MAX
                       : v->type == FMU_T_INTEGER ? INT32_MAX
                                                  : INT64_MAX;
        if (end == text || *end || errno == ERANGE || x < lo || x > hi)
            return fmu_step_fail(s, FMU_STEP_EUSAGE, "%s=%s: not an %s", v->name, text,
                                 fmu_md_type_name_of(fmu_step_md(s), v->type));
        u->i64 = x;
        if (v->type == FMU_T_INT8) u->i8 = (int8_t)x;
        if (v->type == FMU_T_INT16) u->i16 = (int16_t)x;
        if (v->type == FMU_T_INTEGER) u->i32 = (int32_t)x;
        d = (double)x;
        break;
    }
    }
    if (v->has_min && d < v->min)
        return fmu_step_fail(s, FMU_STEP_EUSAGE, "%s=%s: below min %.17g of %s variable \"%s\"",
                             v->name, text, v->min, fmu_md_type_name_of(fmu_step_md(s), v->type),
                             v->name);
    if (v->has_max && d > v->max)
        return fmu_step_fail(s, FMU_STEP_EUSAGE, "%s=%s: above max %.17g of %s variable \"%s\"",
                             v->name, text, v->max, fmu_md_type_name_of(fmu_step_md(s), v->type),
                             v->name);
    return 0;
}

/* Writes every element of v's variable (FMI 3.0 sets an array whole). */
static fmi3Status write_all(v3_inst *w, const fmu_var *v, const v3_vals *x)
{
    const fmu_fns3 *g = w->fn;
    fmi3ValueReference vr = v->vr;
    size_t n = x->n;
    const void *p = x->vals;
    switch (v->type) {
    case FMU_T_REAL:
        return g->SetFloat64(w->inst, &vr, 1, p, n);
    case FMU_T_FLOAT32:
        return g->SetFloat32(w->inst, &vr, 1, p, n);
    case FMU_T_INT8:
        return g->SetInt8(w->inst, &vr, 1, p, n);
    case FMU_T_UINT8:
        return g->SetUInt8(w->inst, &vr, 1, p, n);
    case FMU_T_INT16:
        return g->SetInt16(w->inst, &vr, 1, p, n);
    case FMU_T_UINT16:
        return g->SetUInt16(w->inst, &vr, 1, p, n);
    case FMU_T_INTEGER:
        return g->SetInt32(w->inst, &vr, 1, p, n);
    case FMU_T_UINT32:
        return g->SetUInt32(w->inst, &vr, 1, p, n);
    case FMU_T_INT64:
    case FMU_T_ENUM:
        return g->SetInt64(w->inst, &vr, 1, p, n);
    case FMU_T_UINT64:
        return g->SetUInt64(w->inst, &vr, 1, p, n);
    case FMU_T_BOOLEAN:
        return g->SetBoolean(w->inst, &vr, 1, p, n);
    case FMU_T_STRING:
        return g->SetString(w->inst, &vr, 1, p, n);
    case FMU_T_BINARY:
        return g->SetBinary(w->inst, &vr, 1, x->size, p, n);
    default:
        return fmi3Error;
    }
}

/* Before initialization an FMU's values cannot be read (fmi3Get* is illegal in the
 * Instantiated state, FMI 3.0 §3.2), so an array element set then is written with the other
 * elements taken from what was set before, else from their start values. */
static int pre_init_array(fmu_step *s, const fmu_var *v, const char *text, v3_vals *x,
                          fmi3Byte **bins)
{
    v3_inst *w = s->c;
    const fmu_md *md = fmu_step_md(s);
    size_t base = (size_t)(v - md->vars) - v->elem, n = v->n_elems;
    if (!w->pre_text && !(w->pre_text = calloc(md->n_vars, sizeof *w->pre_text)))
        return fmu_step_fail(s, FMU_STEP_ESYS, "out of memory");
    char *copy = strdup(text);
    if (!copy) return fmu_step_fail(s, FMU_STEP_ESYS, "out of memory");
    free(w->pre_text[base + v->elem]);
    w->pre_text[base + v->elem] = copy;
    x->n = n;
    x->vals = calloc(n, type_size(v->type));
    x->size = calloc(n, sizeof *x->size);
    if (!x->vals || !x->size) return fmu_step_fail(s, FMU_STEP_ESYS, "out of memory");
    for (size_t j = 0; j < n; j++) {
        const fmu_var *e = &md->vars[base + j];
        if (base + j >= md->n_vars || e->vr != v->vr || e->elem != j)
            return fmu_step_fail(s, FMU_STEP_EUSAGE, "array \"%s\": elements out of order",
                                 v->name);
        const char *t = w->pre_text[base + j] ? w->pre_text[base + j] : e->start_str;
        v3_value u;
        memset(&u, 0, sizeof u);
        if (t) {
            int rc = parse_value(s, e, t, &u, &bins[j], &x->size[j]);
            if (rc) return rc;
        }
        if (v->type == FMU_T_BINARY) u.bin = bins[j];
        if (v->type == FMU_T_STRING && !u.str) u.str = "";
        memcpy((char *)x->vals + j * type_size(v->type), &u, type_size(v->type));
    }
    return 0;
}

/* A structural parameter is set in configuration mode (FMI 3.0 §3.2: from Instantiated,
 * fmi3EnterConfigurationMode, the sets, fmi3ExitConfigurationMode; settable() refuses it
 * after initialization). The arrays it sizes were resized in the instance's description
 * when it was opened (fmu_step_open). */
static int set_structural(fmu_step *s, const fmu_var *v, const v3_vals *x, const char *what)
{
    v3_inst *w = s->c;
    if (!w->fn->EnterConfigurationMode || !w->fn->ExitConfigurationMode)
        return fmu_step_fail(s, FMU_STEP_EFMU,
                             "structural parameter \"%s\": the binary has no "
                             "fmi3EnterConfigurationMode or fmi3ExitConfigurationMode",
                             v->name);
    int rc = fmu_step_check(s, (fmi2Status)w->fn->EnterConfigurationMode(w->inst),
                            "fmi3EnterConfigurationMode");
    if (rc) return rc;
    rc = fmu_step_check(s, (fmi2Status)write_all(w, v, x), what);
    int rc2 = fmu_step_check(s, (fmi2Status)w->fn->ExitConfigurationMode(w->inst),
                             "fmi3ExitConfigurationMode");
    return rc ? rc : rc2;
}

int fmu_v3_set_text(fmu_step *s, const fmu_var *v, const char *text)
{
    if (v->type == FMU_T_CLOCK)
        return fmu_step_fail(s, FMU_STEP_EUSAGE, "Clock \"%s\" cannot be set by --set", v->name);
    v3_value u;
    memset(&u, 0, sizeof u);
    fmi3Byte *bin = NULL;
    size_t bin_len = 0;
    int rc = parse_value(s, v, text, &u, &bin, &bin_len);
    if (rc) return free(bin), rc;
    /* A scalar is written alone; an array element by reading the array, changing the
     * element and writing the array back. Strings read are copied first: the FMU may reuse
     * their memory when it receives the new ones. */
    v3_vals x = {0};
    char **copies = NULL;
    fmi3Byte **bins = NULL;
    if (v->n_elems && !s->initialized) {
        bins = calloc(v->n_elems, sizeof *bins);
        rc = bins ? pre_init_array(s, v, text, &x, bins)
                  : fmu_step_fail(s, FMU_STEP_ESYS, "out of memory");
    } else if (v->n_elems) {
        rc = read_all(s, v, &x);
        if (!rc && v->type == FMU_T_STRING) {
            copies = calloc(x.n, sizeof *copies);
            const char **strs = x.vals;
            for (size_t i = 0; copies && i < x.n; i++)
                if (!(copies[i] = strdup(strs[i] ? strs[i] : ""))) rc = FMU_STEP_ESYS;
            if (!copies) rc = FMU_STEP_ESYS;
            for (size_t i = 0; !rc && i < x.n; i++)
                strs[i] = copies[i];
        }
    } else {
        x.n = 1;
        x.vals = calloc(1, type_size(v->type));
        x.size = calloc(1, sizeof *x.size);
        if (!x.vals || !x.size) rc = FMU_STEP_ESYS;
    }
    if (!rc) {
        if (v->type == FMU_T_BINARY) u.bin = bin;
        memcpy((char *)x.vals + v->elem * type_size(v->type), &u, type_size(v->type));
        x.size[v->elem] = bin_len;
        char what[64];
        snprintf(what, sizeof what, "fmi3Set%s",
                 v->type == FMU_T_ENUM ? "Int64" : fmu_md_type_name_of(fmu_step_md(s), v->type));
        rc = v->structural ? set_structural(s, v, &x, what)
                           : fmu_step_check(s, (fmi2Status)write_all(s->c, v, &x), what);
        if (rc == FMU_STEP_EDISCARD) rc = FMU_STEP_EUSAGE; /* a refused value: the caller's */
    } else if (rc == FMU_STEP_ESYS) {
        fmu_step_fail(s, rc, "out of memory");
    }
    for (size_t i = 0; copies && i < x.n; i++)
        free(copies[i]);
    free(copies);
    for (size_t i = 0; bins && i < v->n_elems; i++)
        free(bins[i]);
    free(bins);
    free_vals(&x);
    free(bin);
    return rc;
}
