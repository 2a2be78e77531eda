/* The FMI 2.0 functions common to both kinds and the model-exchange ones, implemented once
 * for every example model from its fw_model table (fw.h). doc/fmu.md.
 * Divisions: helpers (logging, mode checks, refresh) | creation | variable access |
 * FMU state | model exchange. Read fw_cs.c next for fmi2DoStep and the CS functions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "examples/fmus/framework/fw_impl.h"

const char *const fw_log_names[FW_NLOG] = {"logEvents", "logStatusWarning", "logStatusError",
                                           "logCalls", "logSolver"};

static const char *const mode_names[] = {"?",
                                         "Instantiated",
                                         "InitializationMode",
                                         "EventMode",
                                         "ContinuousTimeMode",
                                         "StepComplete",
                                         "Terminated",
                                         "Error"};

/* Bytes of the saved state header written before the fw_data block (fmi2FMUstate). */
typedef struct {
    unsigned magic;    /* FW_STATE_MAGIC */
    const fw_model *m; /* model the state belongs to */
    fmi2Type kind;     /* kind of the instance that saved it */
    size_t bytes;      /* size of the fw_data block that follows */
} fw_state_hdr;
#define FW_STATE_MAGIC 0x46575331u /* "FWS1" */

/* ================================ helpers ================================================ */

double fw_time_tol(double t)
{
    return 1e-12 * fmax(1.0, fabs(t));
}

void fw_log(fw_inst *in, fmi2Status st, int category, const char *fmt, ...)
{
    if (!in || !in->cb.logger) return;
    int always = st >= fmi2Error;
    if (!always && !(in->logging_on && (in->log_mask & (1u << category)))) return;
    char msg[512], esc[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* The logger treats its message as a printf format: double every '%'. */
    size_t j = 0;
    for (size_t i = 0; msg[i] && j + 2 < sizeof esc; i++) {
        esc[j++] = msg[i];
        if (msg[i] == '%') esc[j++] = '%';
    }
    esc[j] = '\0';
    in->cb.logger(in->cb.componentEnvironment, in->name, st, fw_log_names[category], esc);
}

int fw_check_mode(fw_inst *in, const char *fn, unsigned mask)
{
    if (mask & FW_BIT(in->d->mode)) return 1;
    fw_log(in, fmi2Error, FW_LOG_ERROR, "%s: not allowed in %s", fn, mode_names[in->d->mode]);
    /* A host that breaks the state machine is a bug the test suite must not miss: every run
     * of an example FMU checks the calling sequence (doc/example-fmus.md). Tests that make
     * illegal calls on purpose set TEMPO_FMU_LENIENT. */
    const char *lenient = getenv("TEMPO_FMU_LENIENT");
    if (!lenient || !lenient[0]) {
        fprintf(stderr,
                "%s (%s): FMI 2.0 calling-sequence violation: %s is not allowed in %s; "
                "aborting (TEMPO_FMU_LENIENT=1 refuses it with fmi2Error instead)\n",
                in->name, in->m->id, fn, mode_names[in->d->mode]);
        abort();
    }
    return 0;
}

/* Check the instance pointer and the kind, then the mode. */
static fw_inst *enter(fmi2Component c, const char *fn, unsigned mask)
{
    fw_inst *in = c;
    if (!in) return NULL;
    fw_log(in, fmi2OK, FW_LOG_CALLS, "%s", fn);
    return fw_check_mode(in, fn, mask) ? in : NULL;
}

static int is_input(const fw_model *m, unsigned vr)
{
    return vr < (unsigned)m->nvars && m->vars[vr].causality == FW_INPUT;
}

void fw_eval_inputs(fw_inst *in, double t)
{
    const fw_model *m = in->m;
    for (int vr = 0; vr < m->nvars; vr++) {
        if (m->vars[vr].causality != FW_INPUT) continue;
        /* Horner on u0 + sum_k du_k s^k / k!, s = t - ut0. O(order) per input. */
        double s = t - in->ut0[vr], acc = 0;
        for (int k = FW_MAX_INPUT_ORDER; k >= 1; k--)
            acc = (acc + in->du[(size_t)(k - 1) * m->nvars + vr]) * s / k;
        in->r[vr] = in->u0[vr] + acc;
    }
}

void fw_input_restart(fw_inst *in, unsigned vr, double u0)
{
    size_t nv = (size_t)in->m->nvars;
    if ((long long)in->uep[vr] != in->d->steps) {
        /* First setting at this communication point: a new polynomial, no derivatives. */
        for (int k = 0; k < FW_MAX_INPUT_ORDER; k++)
            in->du[(size_t)k * nv + vr] = 0;
        in->ut0[vr] = in->d->t;
        in->uep[vr] = (double)in->d->steps;
    }
    in->u0[vr] = u0;
}

double fw_input_der(const fw_ctx *c, unsigned vr, int order)
{
    const fw_inst *in = c->inst;
    if (!in || !is_input(in->m, vr) || order < 1 || order > FW_MAX_INPUT_ORDER) return 0;
    /* d^order/dt^order of the input polynomial at c->t. */
    double s = c->t - in->ut0[vr], acc = 0;
    for (int k = FW_MAX_INPUT_ORDER; k >= order; k--)
        acc = acc * s / (k - order + 1) + in->du[(size_t)(k - 1) * in->m->nvars + vr];
    return acc;
}

static fw_ctx ctx_of(fw_inst *in)
{
    return (fw_ctx){.t = in->d->t, .r = in->r, .inst = in};
}

void fw_refresh(fw_inst *in)
{
    fw_ctx c = ctx_of(in);
    fw_eval_inputs(in, c.t);
    if (in->m->derivatives) in->m->derivatives(&c);
    if (in->m->outputs) in->m->outputs(&c);
}

void fw_indicators(fw_inst *in, double *z)
{
    fw_ctx c = ctx_of(in);
    if (in->m->nz > 0 && in->m->indicators) in->m->indicators(&c, z);
}

void fw_handle_event(fw_inst *in, int time_event, const int *crossed, fw_event *ev)
{
    fw_ctx c = ctx_of(in);
    *ev = (fw_event){.initial = in->d->initial_pending,
                     .time_event = time_event,
                     .crossed = crossed,
                     .next_time = in->d->next_time};
    fw_refresh(in);
    if (in->m->event) in->m->event(&c, ev);
    in->d->initial_pending = 0;
    /* A time event that the handler did not move must not fire again at once. */
    if (time_event && !(ev->next_time > in->d->t + fw_time_tol(in->d->t))) ev->next_time = INFINITY;
    in->d->next_time = ev->next_time;
    if (ev->terminate) in->d->model_terminated = 1;
    if (ev->early_return) in->d->early_return = 1;
    fw_refresh(in);
    fw_indicators(in, in->z_prev);
    fw_log(in, fmi2OK, FW_LOG_EVENTS,
           "event at t=%.17g (time event %d, initial %d): states changed %d, iterate %d, "
           "terminate %d, next time %.17g",
           in->d->t, time_event, ev->initial, ev->states_changed, ev->iterate, ev->terminate,
           ev->next_time);
}

/* ================================ creation ================================================ */

const char *fmi2GetTypesPlatform(void)
{
    return fmi2TypesPlatform;
}

const char *fmi2GetVersion(void)
{
    return fmi2Version;
}

fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean loggingOn, size_t nCategories,
                               const fmi2String categories[])
{
    fw_inst *in = c;
    if (!in) return fmi2Error;
    unsigned mask = 0;
    if (nCategories == 0) {
        mask = (1u << FW_NLOG) - 1;
    } else if (!categories) {
        fw_log(in, fmi2Error, FW_LOG_ERROR, "fmi2SetDebugLogging: categories is NULL");
        return fmi2Error;
    }
    for (size_t i = 0; i < nCategories; i++) {
        int found = -1;
        for (int k = 0; k < FW_NLOG && categories[i]; k++)
            if (strcmp(categories[i], fw_log_names[k]) == 0) found = k;
        if (found < 0) {
            fw_log(in, fmi2Error, FW_LOG_ERROR, "fmi2SetDebugLogging: unknown category \"%s\"",
                   categories[i] ? categories[i] : "(null)");
            return fmi2Error;
        }
        mask |= 1u << found;
    }
    in->logging_on = loggingOn ? 1 : 0;
    in->log_mask = loggingOn ? mask : 0;
    return fmi2OK;
}

/* Put the block back to the state right after instantiation: start values, no time. */
static void reset_data(fw_inst *in)
{
    const fw_model *m = in->m;
    memset(in->d, 0, in->d_bytes);
    in->d->mode = FW_INSTANTIATED;
    in->d->initial_pending = 1;
    in->d->t_stop = INFINITY;
    in->d->next_time = INFINITY;
    in->d->rtol = m->tolerance > 0 ? m->tolerance : 1e-10;
    for (int vr = 0; vr < m->nvars; vr++) {
        in->r[vr] = m->vars[vr].start;
        in->u0[vr] = m->vars[vr].start;
    }
}

static void free_inst(fw_inst *in)
{
    if (!in) return;
    fmi2CallbackFreeMemory release = in->cb.freeMemory;
    fw_rk_fini(&in->rk, release);
    release(in->name);
    release(in->xvr);
    release(in->d);
    release(in->x);
    release(in->crossed);
    release(in);
}

/* Allocate the arrays of a new instance; 0 or -1 (out of memory). */
static int alloc_inst(fw_inst *in)
{
    const fw_model *m = in->m;
    fmi2CallbackAllocateMemory alloc = in->cb.allocateMemory;
    size_t nv = (size_t)m->nvars, nz = (size_t)m->nz, nx = 0;
    for (size_t vr = 0; vr < nv; vr++)
        nx += m->vars[vr].derivative_of >= 0;
    in->nx = (int)nx;
    in->xvr = alloc(2 * nx + 1, sizeof(unsigned));
    size_t ndoubles = 4 * nv + nz + nv * FW_MAX_INPUT_ORDER;
    in->d_bytes = sizeof(fw_data) + ndoubles * sizeof(double);
    in->d = alloc(1, in->d_bytes);
    in->x = alloc(4 * nx + nz + 1, sizeof(double));
    in->crossed = alloc(nz + 1, sizeof(int));
    if (!in->xvr || !in->d || !in->x || !in->crossed || fw_rk_init(&in->rk, (int)nx, alloc) != 0)
        return -1;
    in->dvr = in->xvr + nx;
    size_t i = 0;
    for (size_t vr = 0; vr < nv; vr++)
        if (m->vars[vr].derivative_of >= 0) {
            in->xvr[i] = (unsigned)m->vars[vr].derivative_of;
            in->dvr[i++] = (unsigned)vr;
        }
    in->r = in->d->v;
    in->z_prev = in->r + nv;
    in->u0 = in->z_prev + nz;
    in->ut0 = in->u0 + nv;
    in->uep = in->ut0 + nv;
    in->du = in->uep + nv;
    in->x1 = in->x + nx;
    in->xs = in->x1 + nx;
    in->k1 = in->xs + nx;
    in->z = in->k1 + nx;
    return 0;
}

fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType, fmi2String fmuGUID,
                              fmi2String fmuResourceLocation,
                              const fmi2CallbackFunctions *functions, fmi2Boolean visible,
                              fmi2Boolean loggingOn)
{
    const fw_model *m = &fw_model_def;
    if (!functions || !functions->allocateMemory || !functions->freeMemory)
        return NULL; /* no way to allocate, nor (without a logger) to say why */
    /* tmp only carries the logger and the name for messages; its name is never freed. */
    fw_inst tmp = {.m = m, .cb = *functions, .name = (char *)(instanceName ? instanceName : "?")};
    const char *why = NULL;
    char guid[39];
    fw_guid(m, guid);
    if (!instanceName || !instanceName[0])
        why = "instanceName is empty";
    else if (fmuType == fmi2ModelExchange && !m->has_me)
        why = "this FMU has no model-exchange interface";
    else if (fmuType == fmi2CoSimulation && !m->has_cs)
        why = "this FMU has no co-simulation interface";
    else if (fmuType != fmi2ModelExchange && fmuType != fmi2CoSimulation)
        why = "unknown fmuType";
    else if (!fmuGUID || strcmp(fmuGUID, guid) != 0)
        why = "GUID does not match this binary's modelDescription.xml";
    if (why) {
        fw_log(&tmp, fmi2Error, FW_LOG_ERROR, "fmi2Instantiate(%s): %s (expected GUID %s)", m->id,
               why, guid);
        return NULL;
    }
    fw_inst *in = functions->allocateMemory(1, sizeof *in);
    if (!in) return NULL;
    *in = tmp;
    in->kind = fmuType;
    in->name = functions->allocateMemory(strlen(instanceName) + 1, 1);
    if (!in->name || alloc_inst(in) != 0) {
        fw_log(&tmp, fmi2Error, FW_LOG_ERROR, "fmi2Instantiate(%s): out of memory", m->id);
        free_inst(in);
        return NULL;
    }
    memcpy(in->name, instanceName, strlen(instanceName) + 1);
    in->logging_on = loggingOn ? 1 : 0;
    in->log_mask = loggingOn ? (1u << FW_NLOG) - 1 : 0;
    reset_data(in);
    fw_log(in, fmi2OK, FW_LOG_CALLS, "fmi2Instantiate(%s, %s)", instanceName,
           fmuType == fmi2ModelExchange ? "ModelExchange" : "CoSimulation");
    return in;
}

void fmi2FreeInstance(fmi2Component c)
{
    free_inst(c);
}

#define ALL_MODES 0xFFu

fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean toleranceDefined, fmi2Real tolerance,
                               fmi2Real startTime, fmi2Boolean stopTimeDefined, fmi2Real stopTime)
{
    fw_inst *in = enter(c, "fmi2SetupExperiment", FW_BIT(FW_INSTANTIATED));
    if (!in) return fmi2Error;
    if (!isfinite(startTime) || (stopTimeDefined && !(stopTime >= startTime))) {
        fw_log(in, fmi2Error, FW_LOG_ERROR,
               "fmi2SetupExperiment: bad times (start %g, stop %g): need finite start <= stop",
               startTime, stopTime);
        return fmi2Error;
    }
    if (toleranceDefined && !(tolerance > 0 && tolerance < 1)) {
        fw_log(in, fmi2Error, FW_LOG_ERROR, "fmi2SetupExperiment: tolerance %g is not in (0, 1)",
               tolerance);
        return fmi2Error;
    }
    in->d->t = in->d->t_start = startTime;
    in->d->t_stop = stopTimeDefined ? stopTime : INFINITY;
    if (toleranceDefined) in->d->rtol = tolerance;
    for (int vr = 0; vr < in->m->nvars; vr++)
        in->ut0[vr] = startTime;
    return fmi2OK;
}

static void call_init(fw_inst *in)
{
    fw_ctx c = ctx_of(in);
    fw_eval_inputs(in, c.t);
    if (in->m->init) in->m->init(&c);
    fw_refresh(in);
}

fmi2Status fmi2EnterInitializationMode(fmi2Component c)
{
    fw_inst *in = enter(c, "fmi2EnterInitializationMode", FW_BIT(FW_INSTANTIATED));
    if (!in) return fmi2Error;
    in->d->mode = FW_INIT;
    call_init(in);
    return fmi2OK;
}

fmi2Status fmi2ExitInitializationMode(fmi2Component c)
{
    fw_inst *in = enter(c, "fmi2ExitInitializationMode", FW_BIT(FW_INIT));
    if (!in) return fmi2Error;
    call_init(in);
    fw_indicators(in, in->z_prev);
    if (in->kind == fmi2ModelExchange) {
        in->d->mode = FW_EVENT;
        return fmi2OK;
    }
    in->d->mode = FW_STEP;
    return fw_cs_after_init(in);
}

fmi2Status fmi2Terminate(fmi2Component c)
{
    /* FMI 2.0 §3.2.1, §4.2.3: Event and Continuous-Time Mode (ME), stepComplete (CS); not
     * before initialization has ended and not after an error. */
    fw_inst *in = enter(c, "fmi2Terminate", FW_BIT(FW_EVENT) | FW_BIT(FW_CONT) | FW_BIT(FW_STEP));
    if (!in) return fmi2Error;
    in->d->mode = FW_TERMINATED;
    return fmi2OK;
}

fmi2Status fmi2Reset(fmi2Component c)
{
    fw_inst *in = enter(c, "fmi2Reset", ALL_MODES);
    if (!in) return fmi2Error;
    reset_data(in);
    return fmi2OK;
}

/* ================================ variable access ======================================== */

#define GET_MODES                                                                                  \
    (FW_BIT(FW_INIT) | FW_BIT(FW_EVENT) | FW_BIT(FW_CONT) | FW_BIT(FW_STEP) |                      \
     FW_BIT(FW_TERMINATED) | FW_BIT(FW_ERROR))

fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Real value[])
{
    fw_inst *in = enter(c, "fmi2GetReal", GET_MODES);
    if (!in) return fmi2Error;
    if (nvr > 0 && (!vr || !value)) {
        fw_log(in, fmi2Error, FW_LOG_ERROR, "fmi2GetReal: NULL array");
        return fmi2Error;
    }
    fw_refresh(in);
    for (size_t i = 0; i < nvr; i++) {
        if (vr[i] >= (unsigned)in->m->nvars) {
            fw_log(in, fmi2Error, FW_LOG_ERROR, "fmi2GetReal: no Real variable with vr %u", vr[i]);
            return fmi2Error;
        }
        value[i] = in->r[vr[i]];
    }
    return fmi2OK;
}

fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                       const fmi2Real value[])
{
    fw_inst *in = enter(c, "fmi2SetReal",
                        FW_BIT(FW_INSTANTIATED) | FW_BIT(FW_INIT) | FW_BIT(FW_EVENT) |
                            FW_BIT(FW_CONT) | FW_BIT(FW_STEP));
    if (!in) return fmi2Error;
    const fw_model *m = in->m;
    if (nvr > 0 && (!vr || !value)) {
        fw_log(in, fmi2Error, FW_LOG_ERROR, "fmi2SetReal: NULL array");
        return fmi2Error;
    }
    int before_init = in->d->mode == FW_INSTANTIATED || in->d->mode == FW_INIT;
    /* Check everything first so that a refused call changes nothing. */
    for (size_t i = 0; i < nvr; i++) {
        const char *why = NULL;
        if (vr[i] >= (unsigned)m->nvars)
            why = "no Real variable with this vr";
        else if (m->vars[vr[i]].causality == FW_PARAM && !before_init)
            why = "a fixed parameter can only be set before initialisation ends";
        else if (m->vars[vr[i]].causality == FW_OUTPUT || m->vars[vr[i]].causality == FW_LOCAL)
            why = "it is calculated by the model and cannot be set";
        else if (!isfinite(value[i]))
            why = "the value is not finite";
        if (why) {
            fw_log(in, fmi2Error, FW_LOG_ERROR, "fmi2SetReal: vr %u (%s): %s", vr[i],
                   vr[i] < (unsigned)m->nvars ? m->vars[vr[i]].name : "?", why);
            return fmi2Error;
        }
    }
    int param_changed = 0;
    for (size_t i = 0; i < nvr; i++) {
        unsigned v = vr[i];
        in->r[v] = value[i];
        if (m->vars[v].causality == FW_INPUT)
            fw_input_restart(in, v, value[i]);
        else
            param_changed = 1;
    }
    if (param_changed && in->d->mode == FW_INIT) call_init(in);
    return fmi2OK;
}

/* The example models only have Real variables: any other vr is unknown. */
static fmi2Status no_vars(fmi2Component c, const char *fn, size_t nvr,
                          const fmi2ValueReference vr[], unsigned modes)
{
    fw_inst *in = enter(c, fn, modes);
    if (!in) return fmi2Error;
    if (nvr == 0) return fmi2OK;
    fw_log(in, fmi2Error, FW_LOG_ERROR, "%s: no variable of this type with vr %u", fn,
           vr ? vr[0] : 0);
    return fmi2Error;
}

#define SET_MODES (FW_BIT(FW_INSTANTIATED) | FW_BIT(FW_INIT) | FW_BIT(FW_EVENT) | FW_BIT(FW_STEP))

fmi2Status fmi2GetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                          fmi2Integer value[])
{
    return no_vars(c, "fmi2GetInteger", nvr, vr, GET_MODES);
}
fmi2Status fmi2GetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                          fmi2Boolean value[])
{
    return no_vars(c, "fmi2GetBoolean", nvr, vr, GET_MODES);
}
fmi2Status fmi2GetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                         fmi2String value[])
{
    return no_vars(c, "fmi2GetString", nvr, vr, GET_MODES);
}
fmi2Status fmi2SetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                          const fmi2Integer value[])
{
    return no_vars(c, "fmi2SetInteger", nvr, vr, SET_MODES);
}
fmi2Status fmi2SetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                          const fmi2Boolean value[])
{
    return no_vars(c, "fmi2SetBoolean", nvr, vr, SET_MODES);
}
fmi2Status fmi2SetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                         const fmi2String value[])
{
    return no_vars(c, "fmi2SetString", nvr, vr, SET_MODES);
}

/* ================================ FMU state ============================================== */

/* The state object: header then a copy of the fw_data block. O(size of the block). */
fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate *state)
{
    fw_inst *in = enter(c, "fmi2GetFMUstate", ALL_MODES);
    if (!in) return fmi2Error;
    if (!state) {
        fw_log(in, fmi2Error, FW_LOG_ERROR, "fmi2GetFMUstate: state pointer is NULL");
        return fmi2Error;
    }
    fw_state_hdr *h = *state;
    if (h && (h->magic != FW_STATE_MAGIC || h->m != in->m || h->bytes != in->d_bytes)) {
        fw_log(in, fmi2Error, FW_LOG_ERROR, "fmi2GetFMUstate: *state is not a state of %s",
               in->m->id);
        return fmi2Error;
    }
    if (!h) {
        h = in->cb.allocateMemory(1, sizeof *h + in->d_bytes);
        if (!h) {
            fw_log(in, fmi2Error, FW_LOG_ERROR, "fmi2GetFMUstate: out of memory");
            return fmi2Error;
        }
    }
    *h = (fw_state_hdr){FW_STATE_MAGIC, in->m, in->kind, in->d_bytes};
    memcpy(h + 1, in->d, in->d_bytes);
    *state = h;
    return fmi2OK;
}

static int valid_state(fw_inst *in, const fw_state_hdr *h, const char *fn)
{
    if (!h || h->magic != FW_STATE_MAGIC || h->m != in->m || h->bytes != in->d_bytes ||
        h->kind != in->kind) {
        fw_log(in, fmi2Error, FW_LOG_ERROR, "%s: not a state saved by a %s instance of %s", fn,
               in->kind == fmi2ModelExchange ? "model-exchange" : "co-simulation", in->m->id);
        return 0;
    }
    return 1;
}

fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate state)
{
    fw_inst *in = enter(c, "fmi2SetFMUstate", ALL_MODES);
    if (!in || !valid_state(in, state, "fmi2SetFMUstate")) return fmi2Error;
    memcpy(in->d, (const fw_state_hdr *)state + 1, in->d_bytes);
    return fmi2OK;
}

fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate *state)
{
    fw_inst *in = enter(c, "fmi2FreeFMUstate", ALL_MODES);
    if (!in) return fmi2Error;
    if (!state || !*state) return fmi2OK;
    if (!valid_state(in, *state, "fmi2FreeFMUstate")) return fmi2Error;
    ((fw_state_hdr *)*state)->magic = 0;
    in->cb.freeMemory(*state);
    *state = NULL;
    return fmi2OK;
}

/* Serialized form: the magic, the block size, then the fw_data block. Only valid for the
 * same binary (the block holds doubles and ints in this platform's layout). */
fmi2Status fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate state, size_t *size)
{
    fw_inst *in = enter(c, "fmi2SerializedFMUstateSize", ALL_MODES);
    if (!in || !valid_state(in, state, "fmi2SerializedFMUstateSize") || !size) return fmi2Error;
    *size = 2 * sizeof(unsigned long long) + in->d_bytes;
    return fmi2OK;
}

fmi2Status fmi2SerializeFMUstate(fmi2Component c, fmi2FMUstate state, fmi2Byte bytes[], size_t size)
{
    fw_inst *in = enter(c, "fmi2SerializeFMUstate", ALL_MODES);
    if (!in || !valid_state(in, state, "fmi2SerializeFMUstate")) return fmi2Error;
    unsigned long long head[2] = {FW_STATE_MAGIC, in->d_bytes};
    if (!bytes || size != sizeof head + in->d_bytes) {
        fw_log(in, fmi2Error, FW_LOG_ERROR, "fmi2SerializeFMUstate: buffer of %zu bytes, need %zu",
               size, sizeof head + in->d_bytes);
        return fmi2Error;
    }
    memcpy(bytes, head, sizeof head);
    memcpy(bytes + sizeof head, (const fw_state_hdr *)state + 1, in->d_bytes);
    return fmi2OK;
}

fmi2Status fmi2DeSerializeFMUstate(fmi2Component c, const fmi2Byte bytes[], size_t size,
                                   fmi2FMUstate *state)
{
    fw_inst *in = enter(c, "fmi2DeSerializeFMUstate", ALL_MODES);
    if (!in) return fmi2Error;
    unsigned long long head[2];
    if (!bytes || !state || size != sizeof head + in->d_bytes) {
        fw_log(in, fmi2Error, FW_LOG_ERROR,
               "fmi2DeSerializeFMUstate: %zu bytes, a state of %s has %zu", size, in->m->id,
               sizeof head + in->d_bytes);
        return fmi2Error;
    }
    memcpy(head, bytes, sizeof head);
    fw_data probe;
    memcpy(&probe, bytes + sizeof head, sizeof probe);
    if (head[0] != FW_STATE_MAGIC || head[1] != in->d_bytes || probe.mode < FW_INSTANTIATED ||
        probe.mode > FW_ERROR) {
        fw_log(in, fmi2Error, FW_LOG_ERROR, "fmi2DeSerializeFMUstate: not a state of %s",
               in->m->id);
        return fmi2Error;
    }
    fw_state_hdr *h = *state;
    if (h && !valid_state(in, h, "fmi2DeSerializeFMUstate")) return fmi2Error;
    if (!h && !(h = in->cb.allocateMemory(1, sizeof *h + in->d_bytes))) {
        fw_log(in, fmi2Error, FW_LOG_ERROR, "fmi2DeSerializeFMUstate: out of memory");
        return fmi2Error;
    }
    *h = (fw_state_hdr){FW_STATE_MAGIC, in->m, in->kind, in->d_bytes};
    memcpy(h + 1, bytes + sizeof head, in->d_bytes);
    *state = h;
    return fmi2OK;
}

fmi2Status fmi2GetDirectionalDerivative(fmi2Component c, const fmi2ValueReference vUnknown_ref[],
                                        size_t nUnknown, const fmi2ValueReference vKnown_ref[],
                                        size_t nKnown, const fmi2Real dvKnown[],
                                        fmi2Real dvUnknown[])
{
    fw_inst *in = enter(c, "fmi2GetDirectionalDerivative", ALL_MODES);
    if (!in) return fmi2Error;
    if (!in->m->partial) {
        fw_log(in, fmi2Error, FW_LOG_ERROR,
               "fmi2GetDirectionalDerivative: not provided (providesDirectionalDerivative is "
               "false)");
        return fmi2Error;
    }
    if ((nUnknown && (!vUnknown_ref || !dvUnknown)) || (nKnown && (!vKnown_ref || !dvKnown))) {
        fw_log(in, fmi2Error, FW_LOG_ERROR, "fmi2GetDirectionalDerivative: NULL array");
        return fmi2Error;
    }
    fw_refresh(in);
    fw_ctx x = ctx_of(in);
    /* dv_unknown = J dv_known, J the partial derivatives the model gives. */
    for (size_t i = 0; i < nUnknown; i++) {
        double sum = 0;
        for (size_t j = 0; j < nKnown; j++) {
            double d = 0;
            if (in->m->partial(&x, vUnknown_ref[i], vKnown_ref[j], &d)) {
                fw_log(in, fmi2Error, FW_LOG_ERROR,
                       "fmi2GetDirectionalDerivative: no derivative of value reference %u "
                       "with respect to %u",
                       vUnknown_ref[i], vKnown_ref[j]);
                return fmi2Error;
            }
            sum += d * dvKnown[j];
        }
        dvUnknown[i] = sum;
    }
    return fmi2OK;
}

/* ================================ model exchange ========================================= */

static fw_inst *enter_me(fmi2Component c, const char *fn, unsigned mask)
{
    fw_inst *in = c;
    if (in && in->kind != fmi2ModelExchange) {
        fw_log(in, fmi2Error, FW_LOG_ERROR, "%s: this is a co-simulation instance", fn);
        return NULL;
    }
    return enter(c, fn, mask);
}

static int check_n(fw_inst *in, const char *fn, const void *arr, size_t n, size_t want)
{
    if (n != want || (n > 0 && !arr)) {
        fw_log(in, fmi2Error, FW_LOG_ERROR, "%s: got %zu values%s, the model has %zu", fn, n,
               arr ? "" : " (NULL array)", want);
        return 0;
    }
    return 1;
}

fmi2Status fmi2EnterEventMode(fmi2Component c)
{
    fw_inst *in = enter_me(c, "fmi2EnterEventMode", FW_BIT(FW_CONT) | FW_BIT(FW_EVENT));
    if (!in) return fmi2Error;
    in->d->mode = FW_EVENT;
    return fmi2OK;
}

fmi2Status fmi2NewDiscreteStates(fmi2Component c, fmi2EventInfo *info)
{
    fw_inst *in = enter_me(c, "fmi2NewDiscreteStates", FW_BIT(FW_EVENT));
    if (!in) return fmi2Error;
    if (!info) {
        fw_log(in, fmi2Error, FW_LOG_ERROR, "fmi2NewDiscreteStates: eventInfo is NULL");
        return fmi2Error;
    }
    int nz = in->m->nz;
    fw_refresh(in);
    fw_indicators(in, in->z);
    for (int i = 0; i < nz; i++) {
        int was = in->z_prev[i] > 0, now = in->z[i] > 0;
        in->crossed[i] = was == now ? 0 : now ? 1 : -1;
    }
    double t = in->d->t;
    int time_event = isfinite(in->d->next_time) && t >= in->d->next_time - fw_time_tol(t);
    fw_event ev;
    fw_handle_event(in, time_event, in->crossed, &ev);
    info->newDiscreteStatesNeeded = ev.iterate ? fmi2True : fmi2False;
    info->terminateSimulation = ev.terminate ? fmi2True : fmi2False;
    info->nominalsOfContinuousStatesChanged = fmi2False;
    info->valuesOfContinuousStatesChanged = ev.states_changed ? fmi2True : fmi2False;
    info->nextEventTimeDefined = isfinite(ev.next_time) ? fmi2True : fmi2False;
    info->nextEventTime = isfinite(ev.next_time) ? ev.next_time : 0.0;
    return fmi2OK;
}

fmi2Status fmi2EnterContinuousTimeMode(fmi2Component c)
{
    fw_inst *in = enter_me(c, "fmi2EnterContinuousTimeMode", FW_BIT(FW_EVENT));
    if (!in) return fmi2Error;
    in->d->mode = FW_CONT;
    return fmi2OK;
}

fmi2Status fmi2CompletedIntegratorStep(fmi2Component c,
                                       fmi2Boolean noSetFMUStatePriorToCurrentPoint,
                                       fmi2Boolean *enterEventMode,
                                       fmi2Boolean *terminateSimulation)
{
    fw_inst *in = enter_me(c, "fmi2CompletedIntegratorStep", FW_BIT(FW_CONT));
    if (!in) return fmi2Error;
    if (!enterEventMode || !terminateSimulation) {
        fw_log(in, fmi2Error, FW_LOG_ERROR, "fmi2CompletedIntegratorStep: NULL output pointer");
        return fmi2Error;
    }
    fw_refresh(in);
    fw_indicators(in, in->z_prev);
    *enterEventMode = fmi2False; /* the models have no step events */
    *terminateSimulation = fmi2False;
    return fmi2OK;
}

fmi2Status fmi2SetTime(fmi2Component c, fmi2Real time)
{
    fw_inst *in = enter_me(c, "fmi2SetTime", FW_BIT(FW_EVENT) | FW_BIT(FW_CONT));
    if (!in) return fmi2Error;
    if (!isfinite(time)) {
        fw_log(in, fmi2Error, FW_LOG_ERROR, "fmi2SetTime: time is not finite");
        return fmi2Error;
    }
    in->d->t = time;
    return fmi2OK;
}

fmi2Status fmi2SetContinuousStates(fmi2Component c, const fmi2Real x[], size_t nx)
{
    fw_inst *in = enter_me(c, "fmi2SetContinuousStates", FW_BIT(FW_CONT));
    if (!in || !check_n(in, "fmi2SetContinuousStates", x, nx, (size_t)in->nx)) return fmi2Error;
    for (size_t i = 0; i < nx; i++) {
        if (!isfinite(x[i])) {
            fw_log(in, fmi2Error, FW_LOG_ERROR,
                   "fmi2SetContinuousStates: x[%zu] (%s) is not "
                   "finite",
                   i, in->m->vars[in->xvr[i]].name);
            return fmi2Error;
        }
    }
    for (size_t i = 0; i < nx; i++)
        in->r[in->xvr[i]] = x[i];
    return fmi2OK;
}

#define ME_GET_MODES                                                                               \
    (FW_BIT(FW_INIT) | FW_BIT(FW_EVENT) | FW_BIT(FW_CONT) | FW_BIT(FW_TERMINATED) |                \
     FW_BIT(FW_ERROR))

fmi2Status fmi2GetDerivatives(fmi2Component c, fmi2Real dx[], size_t nx)
{
    fw_inst *in = enter_me(c, "fmi2GetDerivatives", ME_GET_MODES);
    if (!in || !check_n(in, "fmi2GetDerivatives", dx, nx, (size_t)in->nx)) return fmi2Error;
    fw_refresh(in);
    for (size_t i = 0; i < nx; i++)
        dx[i] = in->r[in->dvr[i]];
    return fmi2OK;
}

fmi2Status fmi2GetEventIndicators(fmi2Component c, fmi2Real z[], size_t ni)
{
    fw_inst *in = enter_me(c, "fmi2GetEventIndicators", ME_GET_MODES);
    if (!in || !check_n(in, "fmi2GetEventIndicators", z, ni, (size_t)in->m->nz)) return fmi2Error;
    fw_refresh(in);
    fw_indicators(in, z);
    return fmi2OK;
}

fmi2Status fmi2GetContinuousStates(fmi2Component c, fmi2Real x[], size_t nx)
{
    fw_inst *in = enter_me(c, "fmi2GetContinuousStates", ME_GET_MODES);
    if (!in || !check_n(in, "fmi2GetContinuousStates", x, nx, (size_t)in->nx)) return fmi2Error;
    for (size_t i = 0; i < nx; i++)
        x[i] = in->r[in->xvr[i]];
    return fmi2OK;
}

fmi2Status fmi2GetNominalsOfContinuousStates(fmi2Component c, fmi2Real x_nominal[], size_t nx)
{
    fw_inst *in =
        enter_me(c, "fmi2GetNominalsOfContinuousStates", ME_GET_MODES | FW_BIT(FW_INSTANTIATED));
    if (!in || !check_n(in, "fmi2GetNominalsOfContinuousStates", x_nominal, nx, (size_t)in->nx))
        return fmi2Error;
    for (size_t i = 0; i < nx; i++)
        x_nominal[i] = 1.0;
    return fmi2OK;
}
