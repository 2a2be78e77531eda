/* The stepping interface, common parts: open (instantiate, setup, parameters, initialize),
 * close, variable access, output derivatives, save/restore, status names.
 * Serves doc/fmu.md. Kind-specific stepping: federate/fmu/fmu_cs.c and federate/fmu/fmu_me.c. */
#include "federate/fmu/fmu_guard.h"
#include "federate/fmu/fmu_sim.h"
#include "federate/fmu/fmu_step_impl.h"
#include "federate/fmu/fmu_v3.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fmu_step_fail(fmu_step *s, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->err, sizeof s->err, fmt, ap);
    va_end(ap);
    return code;
}

int fmu_step_check(fmu_step *s, fmi2Status st, const char *what)
{
    if (st == fmi2OK || st == fmi2Warning) return FMU_STEP_OK;
    char why[300];
    snprintf(why, sizeof why, "%s%s", s->sink.last_error[0] ? ": " : "", s->sink.last_error);
    s->sink.last_error[0] = '\0';
    int code = FMU_STEP_EFMU;
    if (st == fmi2Discard)
        code = FMU_STEP_EDISCARD;
    else if (st == fmi2Fatal)
        s->broken = 2; /* no FMI call is allowed any more, not even fmi2FreeInstance */
    else if (!s->broken)
        s->broken = 1;
    return fmu_step_fail(s, code, "%s: %s returned %s%s", s->md->model_name, what,
                         fmu_load_status_name(st), why);
}

const char *fmu_step_strerror(int code)
{
    switch (code) {
    case FMU_STEP_OK:
        return "ok";
    case FMU_STEP_TERMINATED:
        return "terminated";
    case FMU_STEP_EVENT:
        return "stopped at an event";
    case FMU_STEP_EDISCARD:
        return "discarded";
    case FMU_STEP_EUSAGE:
        return "usage error";
    case FMU_STEP_EFMU:
        return "FMU error";
    case FMU_STEP_ELOAD:
        return "bad FMU";
    case FMU_STEP_ESYS:
        return "system error";
    default:
        return "unknown status";
    }
}

static int check_opts(const fmu_step_opts *o, char *err, size_t errlen)
{
    const char *bad = NULL;
    if (!(o->rtol >= 0) || !isfinite(o->rtol))
        bad = "rtol";
    else if (!(o->atol >= 0) || !isfinite(o->atol))
        bad = "atol";
    else if (!(o->max_step >= 0) || !isfinite(o->max_step))
        bad = "max_step";
    else if (o->has_start && !isfinite(o->start_time))
        bad = "start_time";
    else if (o->has_stop && !isfinite(o->stop_time))
        bad = "stop_time";
    else if (o->solver != FMU_SOLVER_BDF && o->solver != FMU_SOLVER_ADAMS)
        bad = "solver";
    else if (o->kind != FMU_KIND_AUTO && o->kind != FMU_KIND_ME && o->kind != FMU_KIND_CS)
        bad = "kind";
    if (bad) return snprintf(err, errlen, "option %s is out of range", bad), -1;
    if (o->n_params && (!o->param_names || !o->param_values))
        return snprintf(err, errlen, "option n_params without names or values"), -1;
    return 0;
}

/* FMI 3.0 structural parameters among the caller's parameters (doc/fmu.md "FMI 3.0"): one
 * set to another value than its start resizes the arrays it sizes (as the FMU does once it
 * is set in configuration mode), so the instance gets a description of its own, read again
 * with those sizes. A value that is no unsigned integer is left to fmu_step_set_text's
 * message. */
#define STEP_MAX_STRUCTURAL 64 /* structural parameters one open may set */
static int resize_md(fmu_step *s, const fmu_step_opts *o, char *err, size_t errlen)
{
    const fmu_md *md = s->f->md;
    fmu_md_size sz[STEP_MAX_STRUCTURAL];
    size_t n = 0;
    int differs = 0;
    for (size_t i = 0; md->fmi3 && i < o->n_params; i++) {
        long k = fmu_md_find(md, o->param_names[i]);
        if (k < 0 || !md->vars[k].structural || md->vars[k].n_elems) continue;
        const char *t = o->param_values[i];
        char *end;
        errno = 0;
        unsigned long long x = strtoull(t, &end, 10);
        if (end == t || *end || errno || t[0] == '-' || x > ULONG_MAX) continue;
        size_t j = 0;
        while (j < n && sz[j].vr != md->vars[k].vr)
            j++;
        if (j == STEP_MAX_STRUCTURAL)
            return snprintf(err, errlen, "more than %d structural parameters set",
                            STEP_MAX_STRUCTURAL),
                   FMU_STEP_EUSAGE;
        n += j == n;
        sz[j] = (fmu_md_size){md->vars[k].vr, (unsigned long)x};
        differs |= !md->vars[k].has_start || md->vars[k].start_real != (double)x;
    }
    if (!differs) return 0;
    int rc = fmu_load_md_sized(s->f, sz, n, &s->own_md, err, errlen);
    if (rc) return rc == -2 ? FMU_STEP_ESYS : FMU_STEP_EUSAGE;
    s->md = s->own_md;
    return 0;
}

/* Whether parameter i of o is a structural one (set first, in configuration mode). */
static int is_structural(const fmu_step *s, const fmu_step_opts *o, size_t i)
{
    long k = s->md->fmi3 ? fmu_md_find(s->md, o->param_names[i]) : -1;
    return k >= 0 && s->md->vars[k].structural;
}

/* Instantiate, setup, parameters, initialization mode (both kinds). */
static int start_instance(fmu_step *s, const fmu_step_opts *o)
{
    const fmu_md *md = s->md;
    fmu_fns *fn = &s->f->fn;
    s->sink.fn = o->log;
    s->sink.ctx = o->log_ctx;
    s->cb.logger = fmu_load_logger;
    s->cb.allocateMemory = calloc;
    s->cb.freeMemory = free;
    s->cb.componentEnvironment = &s->sink;
    const char *name = o->instance_name ? o->instance_name : md->model_name;
    if (md->fmi3) {
        fmu_v3_opts vo = {.early_return = o->early_return,
                          .event_mode = o->event_mode,
                          .intermediate_update = o->intermediate_update,
                          .step = s,
                          .md = s->md,
                          .logging = o->log != NULL,
                          .event_stop = &s->event_stop};
        s->c = fmu_v3_instantiate(s->f, name, &s->sink, &vo);
        s->updates = s->f->kind == FMU_KIND_CS && o->intermediate_update &&
                     s->f->caps->provides_intermediate_update;
    } else {
        s->c = fn->Instantiate(
            name, s->f->kind == FMU_KIND_CS ? fmi2CoSimulation : fmi2ModelExchange, md->guid,
            s->f->resource_uri, &s->cb, fmi2False, o->log ? fmi2True : fmi2False);
    }
    if (!s->c)
        return fmu_step_fail(s, FMU_STEP_EFMU, "%s: %s failed%s%s", md->model_name,
                             !md->fmi3                   ? "fmi2Instantiate"
                             : s->f->kind == FMU_KIND_CS ? "fmi3InstantiateCoSimulation"
                                                         : "fmi3InstantiateModelExchange",
                             s->sink.last_error[0] ? ": " : "", s->sink.last_error);
    double rtol = o->rtol > 0 ? o->rtol : md->has_tolerance ? md->tolerance : 1e-6;
    int tol_defined = o->rtol > 0 || md->has_tolerance;
    s->t = o->has_start ? o->start_time : md->has_start ? md->start_time : 0.0;
    /* Only the caller's stop time binds the FMU: a federate may run past DefaultExperiment. */
    int stop_defined = o->has_stop;
    double stop = o->has_stop ? o->stop_time : 0.0;
    if (stop_defined && stop < s->t)
        return fmu_step_fail(s, FMU_STEP_EUSAGE, "stop time %g is before start time %g", stop,
                             s->t);
    int rc =
        fmu_step_check(s, fn->SetupExperiment(s->c, tol_defined, rtol, s->t, stop_defined, stop),
                       "fmi2SetupExperiment");
    /* Structural parameters first: the other parameters' arrays have their sizes. */
    for (int pass = 1; pass >= 0; pass--)
        for (size_t i = 0; !rc && i < o->n_params; i++)
            if (is_structural(s, o, i) == pass)
                rc = fmu_step_set_text(s, o->param_names[i], o->param_values[i]);
    if (!rc)
        rc = fmu_step_check(s, fn->EnterInitializationMode(s->c), "fmi2EnterInitializationMode");
    if (!rc) rc = fmu_step_check(s, fn->ExitInitializationMode(s->c), "fmi2ExitInitializationMode");
    s->initialized = !rc;
    return rc == FMU_STEP_EDISCARD ? FMU_STEP_EFMU : rc;
}

int fmu_step_open(const char *path, const fmu_step_opts *opts, fmu_step **out, char *err,
                  size_t errlen)
{
    static const fmu_step_opts defaults;
    const fmu_step_opts *o = opts ? opts : &defaults;
    *out = NULL;
    if (check_opts(o, err, errlen)) return FMU_STEP_EUSAGE;
    fmu_step *s = calloc(1, sizeof *s);
    if (!s) return snprintf(err, errlen, "%s: out of memory", path), FMU_STEP_ESYS;
    snprintf(s->who, sizeof s->who, "%s", o->instance_name ? o->instance_name : path);
    /* an exit() or a crash while the library loads or the instance starts names it */
    int depth = fmu_guard_enter(s->who, "loading and instantiating the FMU");
    int rc = fmu_load(path, o->kind, o->limits, &s->f, err, errlen);
    if (rc) {
        fmu_guard_leave(depth);
        free(s);
        return rc == -1 ? FMU_STEP_ELOAD : FMU_STEP_ESYS;
    }
    s->md = s->f->md;
    char msg[FMU_ERR_LEN] = "";
    rc = resize_md(s, o, msg, sizeof msg);
    if (rc) {
        fmu_guard_leave(depth);
        snprintf(err, errlen, "%s: %s", path, msg);
        fmu_unload(s->f);
        free(s);
        return rc;
    }
    rc = start_instance(s, o);
    if (!rc && s->f->kind == FMU_KIND_ME) rc = fmu_me_new(s, o);
    fmu_guard_leave(depth);
    if (rc) {
        snprintf(err, errlen, "%s: %s", path, s->err);
        fmu_step_close(s);
        return rc;
    }
    *out = s;
    return FMU_STEP_OK;
}

void fmu_step_close(fmu_step *s)
{
    if (!s) return;
    fmu_me_free(s->me);
    if (s->c && s->broken != 2) {
        /* fmi2Terminate only after initialization and never after fmi2Error (FMI 2.0 state
         * machine); fmi2FreeInstance always, unless the FMU reported fmi2Fatal. */
        if (!s->broken && s->initialized) s->f->fn.Terminate(s->c);
        s->f->fn.FreeInstance(s->c);
    }
    fmu_unload(s->f);
    fmu_md_free(s->own_md);
    free(s);
}

double fmu_step_time(const fmu_step *s)
{
    return s->t;
}
fmu_kind fmu_step_kind(const fmu_step *s)
{
    return s->f->kind;
}
const fmu_md *fmu_step_md(const fmu_step *s)
{
    return s->md;
}
const char *fmu_step_errmsg(const fmu_step *s)
{
    return s->err;
}

/* Check the inputs argument of a step, once for both kinds (fmu_step_to). */
static int fmu_step_check_inputs(fmu_step *s, const fmu_inputs *in)
{
    if (!in) return 0;
    if (in->n && (!in->vr || !in->u))
        return fmu_step_fail(s, FMU_STEP_EUSAGE, "inputs: NULL vr or u");
    if (in->order < 0 || in->order > 8 || (in->order && in->n && !in->du))
        return fmu_step_fail(s, FMU_STEP_EUSAGE, "inputs: order %d out of [0, 8] or du NULL",
                             in->order);
    for (size_t i = 0; i < in->n; i++) {
        long k = fmu_md_find_vr(s->md, FMU_T_REAL, in->vr[i]);
        if (k < 0 || s->md->vars[k].causality != FMU_C_INPUT)
            return fmu_step_fail(s, FMU_STEP_EUSAGE,
                                 "inputs: value reference %u is not a Real "
                                 "input of %s",
                                 in->vr[i], s->md->model_name);
        if (!isfinite(in->u[i]))
            return fmu_step_fail(s, FMU_STEP_EUSAGE, "inputs: value of %s is not finite",
                                 s->md->vars[k].name);
    }
    return 0;
}

int fmu_step_to(fmu_step *s, double t_end, const fmu_inputs *in, double *t_reached)
{
    if (t_reached) *t_reached = s->t;
    if (s->broken) return fmu_step_fail(s, FMU_STEP_EUSAGE, "the FMU failed earlier; close it");
    if (s->terminated) return fmu_step_fail(s, FMU_STEP_EUSAGE, "the model has terminated");
    if (s->need_restore)
        return fmu_step_fail(s, FMU_STEP_EUSAGE, "a step was discarded: restore a state first");
    if (!(t_end > s->t) || !isfinite(t_end))
        return fmu_step_fail(s, FMU_STEP_EUSAGE, "step to t=%.17g from t=%.17g: not ahead", t_end,
                             s->t);
    int rc = fmu_step_check_inputs(s, in);
    if (rc) return rc;
    double reached = s->t;
    int depth = fmu_guard_enter(s->who, s->me ? "a model-exchange step" : "fmi2DoStep");
    rc = s->me ? fmu_me_step(s, t_end, in, &reached) : fmu_cs_step(s, t_end, in, &reached);
    fmu_guard_leave(depth);
    if (t_reached) *t_reached = reached;
    return rc;
}

int fmu_step_do(fmu_step *s, double h, const fmu_inputs *in, double *t_reached)
{
    if (!(h > 0) || !isfinite(h)) {
        if (t_reached) *t_reached = s->t;
        return fmu_step_fail(s, FMU_STEP_EUSAGE, "step size %g is not positive", h);
    }
    return fmu_step_to(s, s->t + h, in, t_reached);
}

int fmu_step_set_inputs(fmu_step *s, const fmu_inputs *in)
{
    if (s->broken) return fmu_step_fail(s, FMU_STEP_EUSAGE, "the FMU failed earlier; close it");
    if (s->terminated) return fmu_step_fail(s, FMU_STEP_EUSAGE, "the model has terminated");
    if (s->need_restore)
        return fmu_step_fail(s, FMU_STEP_EUSAGE, "a step was discarded: restore a state first");
    int rc = fmu_step_check_inputs(s, in);
    if (rc || !in) return rc;
    int depth = fmu_guard_enter(s->who, "setting the inputs");
    rc = s->me ? fmu_me_set_inputs(s, in) : fmu_cs_set_inputs(s, in);
    fmu_guard_leave(depth);
    return rc;
}

/* ---- variables ----------------------------------------------------------------------------- */

static int usable(fmu_step *s)
{
    if (s->broken) return fmu_step_fail(s, FMU_STEP_EUSAGE, "the FMU failed earlier; close it");
    return 0;
}

int fmu_step_get_real(fmu_step *s, size_t n, const fmi2ValueReference vr[], double out[])
{
    int rc = usable(s);
    if (rc) return rc;
    int depth = fmu_guard_enter(s->who, "fmi2GetReal");
    fmi2Status st = s->f->fn.GetReal(s->c, vr, n, out);
    fmu_guard_leave(depth);
    return fmu_step_check(s, st, "fmi2GetReal");
}

/* Whether v may be set now (standard §2.2.7: after initialization only inputs and tunable
 * parameters). Checked here because an FMU answers a forbidden set with fmi2Error, which
 * would end the instance. */
static int settable(fmu_step *s, const fmu_var *v)
{
    /* The initial attribute in effect: an output or local without one is calculated. */
    fmu_initial ini = fmu_md_initial(v);
    if (v->variability == FMU_V_CONSTANT || v->causality == FMU_C_CALCULATED_PARAMETER ||
        v->causality == FMU_C_INDEPENDENT || ini == FMU_I_CALCULATED ||
        (s->initialized && v->causality != FMU_C_INPUT &&
         (v->variability != FMU_V_TUNABLE || v->structural)))
        return fmu_step_fail(
            s, FMU_STEP_EUSAGE, "variable \"%s\" (%s%s, %s%s) cannot be set%s", v->name,
            fmu_md_causality_name(v->causality), v->structural ? " structural" : "",
            fmu_md_variability_name(v->variability), ini == FMU_I_CALCULATED ? ", calculated" : "",
            s->initialized ? " after initialization" : "");
    return 0;
}

/* The bounds of the modelDescription (min/max of Real, Integer, Enumeration), checked before
 * the FMU sees the value: an FMU may accept it silently or end with fmi2Error. */
static int in_bounds(fmu_step *s, const fmu_var *v, const char *value, double d)
{
    if (v->has_min && d < v->min)
        return fmu_step_fail(s, FMU_STEP_EUSAGE, "%s=%s: below min %.17g of %s variable \"%s\"",
                             v->name, value, v->min, fmu_md_type_name(v->type), v->name);
    if (v->has_max && d > v->max)
        return fmu_step_fail(s, FMU_STEP_EUSAGE, "%s=%s: above max %.17g of %s variable \"%s\"",
                             v->name, value, v->max, fmu_md_type_name(v->type), v->name);
    return 0;
}

int fmu_step_set_real(fmu_step *s, size_t n, const fmi2ValueReference vr[], const double v[])
{
    int rc = usable(s);
    if (rc) return rc;
    for (size_t i = 0; i < n; i++) {
        long k = fmu_md_find_vr(s->md, FMU_T_REAL, vr[i]);
        if (k < 0) k = fmu_md_elem_of_vr(s->md, vr[i]); /* an FMI 3.0 element handle */
        if (k < 0 || s->md->vars[k].type != FMU_T_REAL)
            return fmu_step_fail(s, FMU_STEP_EUSAGE, "no Real variable has value reference %u",
                                 vr[i]);
        if ((rc = settable(s, &s->md->vars[k]))) return rc;
    }
    if (s->me && s->initialized && (rc = fmu_me_note_set(s->me, n, vr, v))) return rc;
    int depth = fmu_guard_enter(s->who, "fmi2SetReal");
    fmi2Status st = s->f->fn.SetReal(s->c, vr, n, v);
    fmu_guard_leave(depth);
    rc = fmu_step_check(s, st, "fmi2SetReal");
    return rc == FMU_STEP_EDISCARD ? FMU_STEP_EUSAGE : rc; /* refused value: caller's fault */
}

int fmu_step_get_by_name(fmu_step *s, const char *name, double *out)
{
    int rc = usable(s);
    if (rc) return rc;
    long k = fmu_md_find(s->md, name);
    if (k < 0) return fmu_step_fail(s, FMU_STEP_EUSAGE, "no variable named \"%s\"", name);
    const fmu_var *v = &s->md->vars[k];
    if (s->md->fmi3) return fmu_v3_get_number(s, v, out);
    fmi2ValueReference vr = v->vr;
    fmu_fns *fn = &s->f->fn;
    if (v->type == FMU_T_REAL)
        return fmu_step_check(s, fn->GetReal(s->c, &vr, 1, out), "fmi2GetReal");
    int i = 0;
    if (v->type == FMU_T_STRING)
        return fmu_step_fail(s, FMU_STEP_EUSAGE, "variable \"%s\" is a String", name);
    rc = v->type == FMU_T_BOOLEAN
             ? fmu_step_check(s, fn->GetBoolean(s->c, &vr, 1, &i), "fmi2GetBoolean")
             : fmu_step_check(s, fn->GetInteger(s->c, &vr, 1, &i), "fmi2GetInteger");
    if (!rc) *out = v->type == FMU_T_BOOLEAN ? (i != 0) : (double)i;
    return rc;
}

int fmu_step_get_string(fmu_step *s, const char *name, const char **out)
{
    int rc = usable(s);
    if (rc) return rc;
    long k = fmu_md_find(s->md, name);
    if (k < 0) return fmu_step_fail(s, FMU_STEP_EUSAGE, "no variable named \"%s\"", name);
    const fmu_var *v = &s->md->vars[k];
    if (v->type != FMU_T_STRING)
        return fmu_step_fail(s, FMU_STEP_EUSAGE, "variable \"%s\" is a %s, not a String", name,
                             fmu_md_type_name(v->type));
    if (s->md->fmi3) {
        rc = fmu_v3_get_text(s, v, s->text, sizeof s->text);
        if (!rc) *out = s->text;
        return rc;
    }
    fmi2ValueReference vr = v->vr;
    fmi2String str = NULL;
    rc = fmu_step_check(s, s->f->fn.GetString(s->c, &vr, 1, &str), "fmi2GetString");
    if (!rc) *out = str ? str : "";
    return rc;
}

/* A whole array from a space-separated list, one value per element in row-major order or
 * one for all (fmusim's --start-value A "1 0 0 1"; doc/fmu.md §8), element by element. */
static int set_array_text(fmu_step *s, long k, const char *name, const char *value)
{
    const fmu_var *v = &s->md->vars[k];
    size_t n = v->n_elems, count = 0;
    if (v->type == FMU_T_STRING)
        return fmu_step_fail(s, FMU_STEP_EUSAGE,
                             "%s: a String array is set element by element (\"%s=...\")", name,
                             v->name);
    for (const char *p = value; *p;) {
        p += strspn(p, " \t");
        if (*p) count++;
        p += strcspn(p, " \t");
    }
    if (count != n && count != 1)
        return fmu_step_fail(s, FMU_STEP_EUSAGE,
                             "%s=\"%s\": %zu values for an array of %zu elements (give one "
                             "for each, or one for all)",
                             name, value, count, n);
    const char *p = value;
    for (size_t e = 0; e < n; e++) {
        char tok[128];
        if (e == 0 || count > 1) {
            p += strspn(p, " \t");
            size_t l = strcspn(p, " \t");
            if (l >= sizeof tok)
                return fmu_step_fail(s, FMU_STEP_EUSAGE, "%s: a value of %zu characters", name, l);
            memcpy(tok, p, l);
            tok[l] = '\0';
            p += l;
        }
        int rc = fmu_step_set_text(s, s->md->vars[k + (long)e].name, tok);
        if (rc) return rc;
    }
    return 0;
}

int fmu_step_set_text(fmu_step *s, const char *name, const char *value)
{
    int rc = usable(s);
    if (rc) return rc;
    long k = fmu_md_find(s->md, name);
    if (k < 0 && (k = fmu_md_find_array(s->md, name)) >= 0)
        return set_array_text(s, k, name, value);
    if (k < 0) return fmu_step_fail(s, FMU_STEP_EUSAGE, "no variable named \"%s\"", name);
    const fmu_var *v = &s->md->vars[k];
    if ((rc = settable(s, v))) return rc;
    if (s->md->fmi3) {
        /* Model exchange after initialization: a discrete variable changes in event mode (an
         * input event, FMI 3.0 §3.2), a continuous one restarts the integrator. */
        if (!s->me || !s->initialized) return fmu_v3_set_text(s, v, value);
        if (v->variability == FMU_V_CONTINUOUS) {
            fmu_me_mark_restart(s->me, FMU_RESTART_SET);
            return fmu_v3_set_text(s, v, value);
        }
        if (s->terminated || s->need_restore)
            return fmu_step_fail(s, FMU_STEP_EUSAGE, "%s=%s: %s", name, value,
                                 s->terminated ? "the model has terminated"
                                               : "a step was discarded: restore a state first");
        if ((rc = fmu_me_input_event_begin(s))) return rc;
        int set = fmu_v3_set_text(s, v, value);
        if (set && s->broken) return set;
        rc = fmu_me_input_event_end(s);
        return set ? set : rc;
    }
    fmi2ValueReference vr = v->vr;
    fmu_fns *fn = &s->f->fn;
    char *end;
    errno = 0;
    if (v->type == FMU_T_REAL) {
        double d = strtod(value, &end);
        if (end == value || *end || errno == ERANGE || !isfinite(d))
            return fmu_step_fail(s, FMU_STEP_EUSAGE, "%s=%s: not a real number", name, value);
        if ((rc = in_bounds(s, v, value, d))) return rc;
        if (s->me && (rc = fmu_me_note_set(s->me, 1, &vr, &d))) return rc;
        rc = fmu_step_check(s, fn->SetReal(s->c, &vr, 1, &d), "fmi2SetReal");
    } else if (v->type == FMU_T_INTEGER || v->type == FMU_T_ENUM) {
        long l = strtol(value, &end, 10);
        if (end == value || *end || errno == ERANGE || l < INT_MIN || l > INT_MAX)
            return fmu_step_fail(s, FMU_STEP_EUSAGE, "%s=%s: not an integer", name, value);
        if ((rc = in_bounds(s, v, value, (double)l))) return rc;
        int i = (int)l;
        rc = fmu_step_check(s, fn->SetInteger(s->c, &vr, 1, &i), "fmi2SetInteger");
    } else if (v->type == FMU_T_BOOLEAN) {
        int b;
        if (!strcmp(value, "true") || !strcmp(value, "1"))
            b = fmi2True;
        else if (!strcmp(value, "false") || !strcmp(value, "0"))
            b = fmi2False;
        else
            return fmu_step_fail(s, FMU_STEP_EUSAGE, "%s=%s: not a boolean", name, value);
        rc = fmu_step_check(s, fn->SetBoolean(s->c, &vr, 1, &b), "fmi2SetBoolean");
    } else {
        fmi2String str = value;
        rc = fmu_step_check(s, fn->SetString(s->c, &vr, 1, &str), "fmi2SetString");
    }
    /* A discrete variable set from outside: the RHS may jump (a Real one was compared). */
    if (s->me && v->type != FMU_T_REAL) fmu_me_mark_restart(s->me, FMU_RESTART_SET);
    return rc == FMU_STEP_EDISCARD ? FMU_STEP_EUSAGE : rc;
}

int fmu_step_get_text(fmu_step *s, const char *name, const char **out)
{
    int rc = usable(s);
    if (rc) return rc;
    long k = fmu_md_find(s->md, name);
    if (k < 0) return fmu_step_fail(s, FMU_STEP_EUSAGE, "no variable named \"%s\"", name);
    const fmu_var *v = &s->md->vars[k];
    if (s->md->fmi3) {
        rc = fmu_v3_get_text(s, v, s->text, sizeof s->text);
    } else if (v->type == FMU_T_STRING) {
        const char *str;
        rc = fmu_step_get_string(s, name, &str);
        if (!rc) snprintf(s->text, sizeof s->text, "%s", str);
    } else {
        double d;
        rc = fmu_step_get_by_name(s, name, &d);
        if (!rc && v->type == FMU_T_REAL)
            fmu_sim_format_double(d, s->text, sizeof s->text);
        else if (!rc)
            snprintf(s->text, sizeof s->text, "%.17g", d);
    }
    if (!rc) *out = s->text;
    return rc;
}

int fmu_step_deriv_order(const fmu_step *s, fmi2ValueReference vr)
{
    long k = fmu_md_find_vr(s->md, FMU_T_REAL, vr);
    if (k < 0) return 0;
    if (s->me) return fmu_me_state_of(s->me, vr) >= 0 ? 1 : 0;
    return s->md->vars[k].causality == FMU_C_OUTPUT ? s->f->caps->max_output_derivative_order : 0;
}

int fmu_step_get_output_derivs(fmu_step *s, size_t n, const fmi2ValueReference vr[], int order,
                               double out[])
{
    int rc = usable(s);
    if (rc) return rc;
    for (size_t i = 0; i < n; i++)
        if (order < 1 || order > fmu_step_deriv_order(s, vr[i]))
            return fmu_step_fail(s, FMU_STEP_EUSAGE,
                                 "derivative of order %d of value reference "
                                 "%u is not available",
                                 order, vr[i]);
    if (!s->me) {
        fmi2Integer ord[64];
        for (size_t i0 = 0; i0 < n; i0 += 64) {
            size_t m = n - i0 < 64 ? n - i0 : 64;
            for (size_t i = 0; i < m; i++)
                ord[i] = order;
            int depth = fmu_guard_enter(s->who, "fmi2GetRealOutputDerivatives");
            fmi2Status st = s->f->fn.GetRealOutputDerivatives(s->c, vr + i0, m, ord, out + i0);
            fmu_guard_leave(depth);
            rc = fmu_step_check(s, st, "fmi2GetRealOutputDerivatives");
            if (rc) return rc;
        }
        return 0;
    }
    size_t nx = s->md->n_states;
    double *dx = malloc((nx ? nx : 1) * sizeof *dx);
    if (!dx) return fmu_step_fail(s, FMU_STEP_ESYS, "out of memory");
    int depth = fmu_guard_enter(s->who, "fmi2GetDerivatives");
    rc = fmu_me_derivatives(s, dx);
    fmu_guard_leave(depth);
    for (size_t i = 0; !rc && i < n; i++)
        out[i] = dx[fmu_me_state_of(s->me, vr[i])];
    free(dx);
    return rc;
}

int fmu_step_has_directional(const fmu_step *s)
{
    return s->f->caps->provides_directional_derivative && s->f->fn.GetDirectionalDerivative;
}

int fmu_step_get_directional(fmu_step *s, size_t n_unknown, const fmi2ValueReference unknown[],
                             size_t n_known, const fmi2ValueReference known[],
                             const double dv_known[], double dv_unknown[])
{
    int rc = usable(s);
    if (rc) return rc;
    if (!fmu_step_has_directional(s))
        return fmu_step_fail(s, FMU_STEP_EUSAGE,
                             "%s provides no directional derivatives "
                             "(providesDirectionalDerivative is false)",
                             s->md->model_name);
    int depth = fmu_guard_enter(s->who, "fmi2GetDirectionalDerivative");
    fmi2Status st = s->f->fn.GetDirectionalDerivative(s->c, unknown, n_unknown, known, n_known,
                                                      dv_known, dv_unknown);
    fmu_guard_leave(depth);
    rc = fmu_step_check(s, st, "fmi2GetDirectionalDerivative");
    return rc == FMU_STEP_EDISCARD ? FMU_STEP_EFMU : rc;
}

/* ---- save / restore ------------------------------------------------------------------------ */

int fmu_step_can_save(const fmu_step *s)
{
    return s->f->caps->can_get_and_set_fmu_state;
}

int fmu_step_save(fmu_step *s, fmu_step_state **out)
{
    *out = NULL;
    int rc = usable(s);
    if (rc) return rc;
    if (!fmu_step_can_save(s))
        return fmu_step_fail(s, FMU_STEP_EUSAGE,
                             "%s cannot save its state (canGetAndSetFMUstate "
                             "is false)",
                             s->md->model_name);
    if (s->need_restore)
        return fmu_step_fail(s, FMU_STEP_EUSAGE, "a step was discarded: restore a state first");
    fmu_step_state *st = calloc(1, sizeof *st);
    if (!st) return fmu_step_fail(s, FMU_STEP_ESYS, "out of memory");
    int depth = fmu_guard_enter(s->who, "fmi2GetFMUstate");
    fmi2Status fst = s->f->fn.GetFMUstate(s->c, &st->fs);
    fmu_guard_leave(depth);
    rc = fmu_step_check(s, fst, "fmi2GetFMUstate");
    if (rc) {
        free(st);
        return rc == FMU_STEP_EDISCARD ? FMU_STEP_EFMU : rc;
    }
    /* CVODE's history cannot be saved: a restored step restarts it, so the straight path
     * restarts here too and both run the same instructions (doc/fmu.md §7). */
    if (s->me) fmu_me_mark_restart(s->me, FMU_RESTART_STATE);
    st->owner = s;
    st->t = s->t;
    st->terminated = s->terminated;
    if (s->me) fmu_me_get_event(s->me, &st->me_next_defined, &st->me_next_time);
    *out = st;
    return 0;
}

int fmu_step_restore(fmu_step *s, const fmu_step_state *st)
{
    int rc = usable(s);
    if (rc) return rc;
    if (!st || st->owner != s)
        return fmu_step_fail(s, FMU_STEP_EUSAGE, "snapshot belongs to another FMU handle");
    int depth = fmu_guard_enter(s->who, "fmi2SetFMUstate");
    fmi2Status fst = s->f->fn.SetFMUstate(s->c, st->fs);
    fmu_guard_leave(depth);
    rc = fmu_step_check(s, fst, "fmi2SetFMUstate");
    if (rc) return rc == FMU_STEP_EDISCARD ? FMU_STEP_EFMU : rc;
    s->t = st->t;
    s->terminated = st->terminated;
    s->need_restore = 0;
    /* The ME integrator restarts from the restored FMU states, as it did on the straight
     * path after the save (doc/fmu.md §7). */
    if (s->me) {
        fmu_me_set_event(s->me, st->me_next_defined, st->me_next_time);
        fmu_me_mark_restart(s->me, FMU_RESTART_STATE);
    }
    return 0;
}

void fmu_step_state_free(fmu_step *s, fmu_step_state *st)
{
    if (!st) return;
    if (st->fs && s && s->c && s->broken != 2) s->f->fn.FreeFMUstate(s->c, &st->fs);
    free(st);
}

/* ---- serialized state (doc/checkpoint.md, "FMU state") ------------------------------------ */

/* Bytes, little-endian: "TFMS", u32 version, u32 guid length + guid, u8 me, u64 bits of t,
 * u8 terminated, u8 me_next_defined, u64 bits of me_next_time, u64 n + n bytes of the FMU's
 * own serialized state. */
#define SER_MAGIC   "TFMS"
#define SER_VERSION 1u

int fmu_step_can_serialize(const fmu_step *s)
{
    return s->f->caps->can_get_and_set_fmu_state && s->f->caps->can_serialize_fmu_state &&
           s->f->fn.SerializedFMUstateSize && s->f->fn.SerializeFMUstate &&
           s->f->fn.DeSerializeFMUstate;
}

static void put_le(unsigned char **w, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        *(*w)++ = (unsigned char)(v >> (8 * i));
}

static uint64_t dbits(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

int fmu_step_serialize(fmu_step *s, unsigned char **out, size_t *len)
{
    *out = NULL;
    *len = 0;
    int rc = usable(s);
    if (rc) return rc;
    if (!fmu_step_can_serialize(s))
        return fmu_step_fail(s, FMU_STEP_EUSAGE,
                             "%s cannot write its state to bytes (canGetAndSetFMUstate and "
                             "canSerializeFMUstate must both be true)",
                             s->md->model_name);
    if (s->need_restore)
        return fmu_step_fail(s, FMU_STEP_EUSAGE, "a step was discarded: restore a state first");
    fmi2FMUstate fs = NULL;
    rc = fmu_step_check(s, s->f->fn.GetFMUstate(s->c, &fs), "fmi2GetFMUstate");
    if (rc) return rc == FMU_STEP_EDISCARD ? FMU_STEP_EFMU : rc;
    size_t n = 0;
    rc = fmu_step_check(s, s->f->fn.SerializedFMUstateSize(s->c, fs, &n),
                        "fmi2SerializedFMUstateSize");
    const char *guid = s->md->guid ? s->md->guid : "";
    size_t glen = strlen(guid);
    size_t total = 4 + 4 + 4 + glen + 1 + 8 + 1 + 1 + 8 + 8 + n;
    unsigned char *buf = NULL;
    if (!rc && (glen > UINT32_MAX || n > SIZE_MAX - 64 - glen || !(buf = malloc(total))))
        rc = fmu_step_fail(s, FMU_STEP_ESYS, "out of memory for a state of %zu bytes", n);
    if (!rc) {
        unsigned char *w = buf;
        memcpy(w, SER_MAGIC, 4);
        w += 4;
        put_le(&w, SER_VERSION, 4);
        put_le(&w, glen, 4);
        memcpy(w, guid, glen);
        w += glen;
        int defined = 0;
        double next = 0;
        if (s->me) fmu_me_get_event(s->me, &defined, &next);
        put_le(&w, s->me ? 1 : 0, 1);
        put_le(&w, dbits(s->t), 8);
        put_le(&w, s->terminated ? 1 : 0, 1);
        put_le(&w, defined ? 1 : 0, 1);
        put_le(&w, dbits(next), 8);
        put_le(&w, n, 8);
        rc = fmu_step_check(s, s->f->fn.SerializeFMUstate(s->c, fs, (fmi2Byte *)w, n),
                            "fmi2SerializeFMUstate");
    }
    s->f->fn.FreeFMUstate(s->c, &fs);
    if (rc) {
        free(buf);
        return rc == FMU_STEP_EDISCARD ? FMU_STEP_EFMU : rc;
    }
    /* As fmu_step_save: the straight path restarts CVODE here too (doc/fmu.md §7). */
    if (s->me) fmu_me_mark_restart(s->me, FMU_RESTART_STATE);
    *out = buf;
    *len = total;
    return 0;
}

/* Bounds-checked little-endian reader over the serialized bytes. */
struct ser_rd {
    const unsigned char *p;
    size_t n, off;
    int bad;
};

static uint64_t get_le(struct ser_rd *r, size_t k)
{
    if (r->bad || r->n - r->off < k) {
        r->bad = 1;
        return 0;
    }
    uint64_t v = 0;
    for (size_t i = 0; i < k; i++)
        v |= (uint64_t)r->p[r->off + i] << (8 * i);
    r->off += k;
    return v;
}

static double get_double(struct ser_rd *r)
{
    uint64_t u = get_le(r, 8);
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

int fmu_step_deserialize(fmu_step *s, const unsigned char *p, size_t len)
{
    int rc = usable(s);
    if (rc) return rc;
    if (!fmu_step_can_serialize(s))
        return fmu_step_fail(s, FMU_STEP_EUSAGE,
                             "%s cannot read its state from bytes (canGetAndSetFMUstate and "
                             "canSerializeFMUstate must both be true)",
                             s->md->model_name);
    const char *model = s->md->model_name;
    if (!p || len < 8 || memcmp(p, SER_MAGIC, 4) != 0)
        return fmu_step_fail(s, FMU_STEP_EUSAGE, "%s: not a serialized FMU state", model);
    struct ser_rd r = {p, len, 4, 0};
    uint32_t version = (uint32_t)get_le(&r, 4);
    if (version != SER_VERSION)
        return fmu_step_fail(s, FMU_STEP_EUSAGE,
                             "%s: serialized state version %u, this build reads %u", model,
                             (unsigned)version, SER_VERSION);
    uint64_t glen = get_le(&r, 4);
    const char *guid = s->md->guid ? s->md->guid : "";
    if (r.bad || glen > r.n - r.off || glen != strlen(guid) ||
        memcmp(p + r.off, guid, (size_t)glen) != 0)
        return fmu_step_fail(s, FMU_STEP_EUSAGE,
                             "%s: the state belongs to another FMU (guid differs from %s)", model,
                             guid);
    r.off += (size_t)glen;
    int me = (int)get_le(&r, 1);
    double t = get_double(&r);
    int terminated = (int)get_le(&r, 1);
    int defined = (int)get_le(&r, 1);
    double next = get_double(&r);
    uint64_t n = get_le(&r, 8);
    if (r.bad || n != r.n - r.off || me > 1 || terminated > 1 || defined > 1 || !isfinite(t))
        return fmu_step_fail(s, FMU_STEP_EUSAGE,
                             "%s: serialized state truncated or malformed (%zu bytes)", model, len);
    if (me != (s->me != NULL))
        return fmu_step_fail(
            s, FMU_STEP_EUSAGE, "%s: the state was saved as %s, this instance runs as %s", model,
            me ? "model exchange" : "co-simulation", s->me ? "model exchange" : "co-simulation");
    fmi2FMUstate fs = NULL;
    rc = fmu_step_check(
        s, s->f->fn.DeSerializeFMUstate(s->c, (const fmi2Byte *)(p + r.off), (size_t)n, &fs),
        "fmi2DeSerializeFMUstate");
    if (!rc) rc = fmu_step_check(s, s->f->fn.SetFMUstate(s->c, fs), "fmi2SetFMUstate");
    if (fs) s->f->fn.FreeFMUstate(s->c, &fs);
    if (rc) return rc == FMU_STEP_EDISCARD ? FMU_STEP_EFMU : rc;
    s->t = t;
    s->terminated = terminated;
    s->need_restore = 0;
    if (s->me) {
        fmu_me_set_event(s->me, defined, next);
        fmu_me_mark_restart(s->me, FMU_RESTART_STATE);
    }
    return 0;
}

/* ---- solver restarts and continuous states ----------------------------------------------- */

void fmu_step_set_event_stop(fmu_step *s, int on)
{
    s->event_stop = on != 0;
}

int fmu_step_updates(const fmu_step *s)
{
    return s->updates;
}

void fmu_step_set_update_hook(fmu_step *s, fmu_event_hook *fn, void *ctx)
{
    s->on_update = fn;
    s->on_update_ctx = ctx;
}

void fmu_step_set_event_hook(fmu_step *s, fmu_event_hook *fn, void *ctx)
{
    s->on_event = fn;
    s->on_event_ctx = ctx;
}

long fmu_step_restarts(const fmu_step *s, fmu_restart_cause cause)
{
    if (!s->me || cause < 0 || cause >= FMU_RESTART_NCAUSES) return 0;
    return fmu_me_restarts(s->me, cause);
}

size_t fmu_step_n_states(const fmu_step *s)
{
    return s->me ? s->md->n_states : 0;
}

/* Common checks of the state functions: ME, n matches, not failed. */
static int states_usable(fmu_step *s, size_t n, const char *what)
{
    int rc = usable(s);
    if (rc) return rc;
    if (!s->me)
        return fmu_step_fail(s, FMU_STEP_EUSAGE, "%s: %s is not run as model exchange", what,
                             s->md->model_name);
    if (n != s->md->n_states)
        return fmu_step_fail(s, FMU_STEP_EUSAGE, "%s: %zu values, %s has %zu continuous states",
                             what, n, s->md->model_name, s->md->n_states);
    return 0;
}

int fmu_step_get_states(fmu_step *s, size_t n, double x[])
{
    int rc = states_usable(s, n, "fmu_step_get_states");
    if (rc || !n) return rc;
    int depth = fmu_guard_enter(s->who, "fmi2GetContinuousStates");
    fmi2Status st = s->f->fn.GetContinuousStates(s->c, x, n);
    fmu_guard_leave(depth);
    rc = fmu_step_check(s, st, "fmi2GetContinuousStates");
    return rc == FMU_STEP_EDISCARD ? FMU_STEP_EFMU : rc;
}

int fmu_step_set_states(fmu_step *s, size_t n, const double x[])
{
    int rc = states_usable(s, n, "fmu_step_set_states");
    if (rc || !n) return rc;
    if (s->terminated || s->need_restore)
        return fmu_step_fail(s, FMU_STEP_EUSAGE, "fmu_step_set_states: %s",
                             s->terminated ? "the model has terminated"
                                           : "a step was discarded: restore a state first");
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return fmu_step_fail(s, FMU_STEP_EUSAGE, "fmu_step_set_states: state %zu is not finite",
                                 i);
    int depth = fmu_guard_enter(s->who, "fmi2SetContinuousStates");
    fmi2Status st = s->f->fn.SetContinuousStates(s->c, x, n);
    fmu_guard_leave(depth);
    rc = fmu_step_check(s, st, "fmi2SetContinuousStates");
    if (rc != FMU_STEP_EFMU) fmu_me_mark_restart(s->me, FMU_RESTART_SET);
    return rc == FMU_STEP_EDISCARD ? FMU_STEP_EUSAGE : rc;
}

int fmu_step_get_derivatives(fmu_step *s, size_t n, double dx[])
{
    int rc = states_usable(s, n, "fmu_step_get_derivatives");
    if (rc || !n) return rc;
    int depth = fmu_guard_enter(s->who, "fmi2GetDerivatives");
    rc = fmu_me_derivatives(s, dx);
    fmu_guard_leave(depth);
    return rc == FMU_STEP_EDISCARD ? FMU_STEP_EFMU : rc;
}

int fmu_step_set_time(fmu_step *s, double t)
{
    int rc = states_usable(s, fmu_step_n_states(s), "fmu_step_set_time");
    if (rc) return rc;
    if (!isfinite(t) || s->terminated || s->need_restore)
        return fmu_step_fail(s, FMU_STEP_EUSAGE, "fmu_step_set_time(%g): %s", t,
                             !isfinite(t)    ? "not a finite time"
                             : s->terminated ? "the model has terminated"
                                             : "a step was discarded: restore a state first");
    int depth = fmu_guard_enter(s->who, "fmi2SetTime");
    fmi2Status st = s->f->fn.SetTime(s->c, t);
    fmu_guard_leave(depth);
    rc = fmu_step_check(s, st, "fmi2SetTime");
    if (rc) return rc == FMU_STEP_EDISCARD ? FMU_STEP_EFMU : rc;
    s->t = t;
    fmu_me_mark_restart(s->me, FMU_RESTART_SET);
    return 0;
}
