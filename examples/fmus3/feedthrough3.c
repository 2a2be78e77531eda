/* feedthrough3: an FMI 3.0 FMU written directly against federate/fmu/fmi3.h (no framework),
 * the test model of Tempo's FMI 3.0 host: an input and an output of every type (Float32,
 * Float64, Int8 ... UInt64, Boolean, String, Binary, Enumeration), each output equal to its
 * input; a Float64 array parameter gain[n] sized by the structural parameter n, the array
 * output y[i] = gain[i] * Float64_in, and the 2x3 Int32 output m[i,j] = 10 i + j + Int32_in;
 * and a time event every `period` seconds that counts the output `ticks` (ME: a time event;
 * CS: inside fmi3DoStep, or, with event mode used, in event mode after fmi3DoStep returned
 * at the tick; an intermediate update in the middle of every step when the host asks for
 * them); and the input clock `clk` (constant interval 0.4 s, shift 0.1 s), whose ticks the
 * host drives (fmi3SetClock in event mode), counted by `clk_ticks`. No continuous state; both
 * kinds (modelDescription.xml beside this file).
 * Every function checks that the FMI 3.0 state machine allows it in the instance's state
 * (the standard's tables, as the Reference FMUs check them) and answers fmi3Error naming the
 * call and the state otherwise, so every test that runs it checks the host's call sequence.
 * doc/example-fmus.md. Read federate/fmu/fmu_v3.c (the host side) next. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "federate/fmu/fmi3.h"

#define TOKEN   "{5a1e3b7c-0f3e-4c1a-9d2b-7e6f00000003}"
#define N       3   /* the structural parameter n (its start; the FMU does not resize) */
#define BIN_MAX 256 /* bytes of the Binary input */
#define VR_TIME 100
#define VR_PER  32 /* period (s) */
#define VR_TICK 33 /* ticks */
#define VR_CLK  34 /* clk, an input clock */
#define VR_CLKN 35 /* clk_ticks */

/* The states of an FMI 3.0 instance (FMI 3.0 §3.2 and §4.2 state machines), as bits. */
enum {
    S_INST = 1,  /* Instantiated */
    S_INIT = 2,  /* Initialization Mode */
    S_EVENT = 4, /* Event Mode */
    S_CONT = 8,  /* Continuous-Time Mode (ME) */
    S_STEP = 16, /* Step Mode (CS) */
    S_TERM = 32, /* Terminated */
    S_IU = 64    /* Intermediate Update Mode (CS, inside fmi3DoStep's callback) */
};
#define S_ANY    (S_INST | S_INIT | S_EVENT | S_CONT | S_STEP | S_TERM | S_IU)
#define S_GET    (S_INIT | S_EVENT | S_CONT | S_STEP | S_TERM | S_IU)
#define S_SETF   (S_INST | S_INIT | S_EVENT | S_CONT | S_STEP | S_TERM) /* Float32/Float64 */
#define S_SET    (S_INST | S_INIT | S_EVENT | S_STEP | S_TERM)          /* the other types */
#define S_MODELS (S_INIT | S_EVENT | S_CONT | S_TERM) /* states, derivatives, indicators */

typedef struct {
    fmi3InstanceEnvironment env;
    fmi3LogMessageCallback log;
    int state;                             /* one of S_* */
    int cs;                                /* instantiated for co-simulation */
    int event_mode;                        /* CS: eventModeUsed */
    int early;                             /* CS: earlyReturnAllowed */
    fmi3IntermediateUpdateCallback update; /* CS: called at each tick inside a step, or NULL */
    double t;                              /* s */
    double period;                         /* s, > 0: the time between two ticks */
    int32_t ticks;                         /* ticks at or before t */
    bool clk;                              /* clk is active (set in this event iteration) */
    int32_t clk_n;                         /* clk_ticks: the ticks of clk so far */
    float f32;
    double f64;
    int8_t i8;
    uint8_t u8;
    int16_t i16;
    uint16_t u16;
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
    bool b;
    int64_t e;
    double gain[N];
    size_t bin_n;
    uint8_t bin[BIN_MAX];
    char *str; /* owned */
} ft;

static void say(ft *f, fmi3Status st, const char *msg)
{
    if (f->log) f->log(f->env, st, "logStatusError", msg);
}

static const char *state_name(int st)
{
    switch (st) {
    case S_INST:
        return "Instantiated";
    case S_INIT:
        return "Initialization Mode";
    case S_EVENT:
        return "Event Mode";
    case S_CONT:
        return "Continuous-Time Mode";
    case S_STEP:
        return "Step Mode";
    default:
        return "Terminated";
    }
}

/* The call is legal in the instance's state; otherwise an error message naming both. */
static int allowed(ft *f, int states, const char *call)
{
    if (!f) return 0;
    if (f->state & states) return 1;
    char msg[160];
    snprintf(msg, sizeof msg, "%s: illegal call in %s (FMI 3.0 state machine)", call,
             state_name(f->state));
    say(f, fmi3Error, msg);
    return 0;
}
#define GUARD(states, call)                                                                        \
    do {                                                                                           \
        if (!allowed((ft *)i, (states), (call))) return fmi3Error;                                 \
    } while (0)

/* Ticks at or before time t: k * period <= t for k = 1, 2, ... */
static void count_ticks(ft *f)
{
    while ((f->ticks + 1) * f->period <= f->t)
        f->ticks++;
}

static fmi3Instance make(fmi3String token, fmi3InstanceEnvironment env, fmi3LogMessageCallback log)
{
    if (!token || strcmp(token, TOKEN) != 0) {
        if (log) log(env, fmi3Error, "logStatusError", "instantiationToken does not match");
        return NULL;
    }
    ft *f = calloc(1, sizeof *f);
    if (!f) return NULL;
    *f = (ft){.env = env,
              .log = log,
              .state = S_INST,
              .period = 0.75,
              .f32 = 0.5f,
              .f64 = 1,
              .i8 = -8,
              .u8 = 8,
              .i16 = -16,
              .u16 = 16,
              .i32 = -32,
              .u32 = 32,
              .i64 = -64,
              .u64 = 64,
              .b = true,
              .e = 1,
              .gain = {1, 2, 3},
              .bin_n = 3,
              .bin = {'f', 'o', 'o'}};
    f->str = strdup("hello, world");
    if (!f->str) return free(f), NULL;
    return f;
}

FMI3_EXPORT fmi3GetVersionTYPE fmi3GetVersion;
const char *fmi3GetVersion(void)
{
    return fmi3Version;
}

FMI3_EXPORT fmi3SetDebugLoggingTYPE fmi3SetDebugLogging;
fmi3Status fmi3SetDebugLogging(fmi3Instance i, fmi3Boolean on, size_t n, const fmi3String c[])
{
    return fmi3OK;
}

FMI3_EXPORT fmi3InstantiateModelExchangeTYPE fmi3InstantiateModelExchange;
fmi3Instance fmi3InstantiateModelExchange(fmi3String name, fmi3String token, fmi3String res,
                                          fmi3Boolean visible, fmi3Boolean logging,
                                          fmi3InstanceEnvironment env, fmi3LogMessageCallback log)
{
    return make(token, env, log);
}

FMI3_EXPORT fmi3InstantiateCoSimulationTYPE fmi3InstantiateCoSimulation;
fmi3Instance fmi3InstantiateCoSimulation(fmi3String name, fmi3String token, fmi3String res,
                                         fmi3Boolean visible, fmi3Boolean logging,
                                         fmi3Boolean event_mode, fmi3Boolean early,
                                         const fmi3ValueReference req[], size_t n_req,
                                         fmi3InstanceEnvironment env, fmi3LogMessageCallback log,
                                         fmi3IntermediateUpdateCallback update)
{
    ft *f = make(token, env, log);
    if (f) f->cs = 1, f->event_mode = event_mode, f->early = early, f->update = update;
    return f;
}

FMI3_EXPORT fmi3FreeInstanceTYPE fmi3FreeInstance;
void fmi3FreeInstance(fmi3Instance i)
{
    ft *f = i;
    if (!f) return;
    free(f->str);
    free(f);
}

FMI3_EXPORT fmi3EnterInitializationModeTYPE fmi3EnterInitializationMode;
fmi3Status fmi3EnterInitializationMode(fmi3Instance i, fmi3Boolean tol_defined, fmi3Float64 tol,
                                       fmi3Float64 start, fmi3Boolean stop_defined,
                                       fmi3Float64 stop)
{
    GUARD(S_INST, "fmi3EnterInitializationMode");
    ft *f = i;
    f->t = start;
    f->ticks = 0;
    count_ticks(f);
    f->state = S_INIT;
    return fmi3OK;
}

/* A state change: the states it may come from, the one it goes to. */
#define MOVE(name, from, to)                                                                       \
    FMI3_EXPORT fmi3##name##TYPE fmi3##name;                                                       \
    fmi3Status fmi3##name(fmi3Instance i)                                                          \
    {                                                                                              \
        GUARD((from), "fmi3" #name);                                                               \
        ((ft *)i)->state = (to);                                                                   \
        return fmi3OK;                                                                             \
    }
MOVE(Terminate, S_CONT | S_STEP | S_EVENT, S_TERM)
MOVE(Reset, S_ANY, S_INST)
MOVE(EnterContinuousTimeMode, S_EVENT, S_CONT)
#undef MOVE

FMI3_EXPORT fmi3ExitInitializationModeTYPE fmi3ExitInitializationMode;
fmi3Status fmi3ExitInitializationMode(fmi3Instance i)
{
    GUARD(S_INIT, "fmi3ExitInitializationMode");
    ft *f = i;
    f->state = f->cs && !f->event_mode ? S_STEP : S_EVENT;
    return fmi3OK;
}

FMI3_EXPORT fmi3EnterEventModeTYPE fmi3EnterEventMode;
fmi3Status fmi3EnterEventMode(fmi3Instance i)
{
    ft *f = i;
    GUARD(f->cs ? (f->event_mode ? S_STEP : 0) : S_CONT, "fmi3EnterEventMode");
    f->state = S_EVENT;
    return fmi3OK;
}

FMI3_EXPORT fmi3EnterStepModeTYPE fmi3EnterStepMode;
fmi3Status fmi3EnterStepMode(fmi3Instance i)
{
    ft *f = i;
    GUARD(f->cs && f->event_mode ? S_INIT | S_EVENT : 0, "fmi3EnterStepMode");
    f->state = S_STEP;
    return fmi3OK;
}

/* One scalar type: the input and the output both read the input's value. */
#define SCALAR(T, field, vin, vout, sets)                                                          \
    FMI3_EXPORT fmi3Get##T##TYPE fmi3Get##T;                                                       \
    fmi3Status fmi3Get##T(fmi3Instance i, const fmi3ValueReference vr[], size_t nvr, fmi3##T v[],  \
                          size_t nv)                                                               \
    {                                                                                              \
        GUARD(S_GET, "fmi3Get" #T);                                                                \
        ft *f = i;                                                                                 \
        if (nv != nvr) return fmi3Error;                                                           \
        for (size_t k = 0; k < nvr; k++) {                                                         \
            if (vr[k] != vin && vr[k] != vout) return fmi3Error;                                   \
            v[k] = f->field;                                                                       \
        }                                                                                          \
        return fmi3OK;                                                                             \
    }                                                                                              \
    FMI3_EXPORT fmi3Set##T##TYPE fmi3Set##T;                                                       \
    fmi3Status fmi3Set##T(fmi3Instance i, const fmi3ValueReference vr[], size_t nvr,               \
                          const fmi3##T v[], size_t nv)                                            \
    {                                                                                              \
        GUARD(sets, "fmi3Set" #T);                                                                 \
        ft *f = i;                                                                                 \
        if (nv != nvr) return fmi3Error;                                                           \
        for (size_t k = 0; k < nvr; k++) {                                                         \
            if (vr[k] != vin) {                                                                    \
                say(f, fmi3Error, "only the input of this type can be set");                       \
                return fmi3Error;                                                                  \
            }                                                                                      \
            f->field = v[k];                                                                       \
        }                                                                                          \
        return fmi3OK;                                                                             \
    }
SCALAR(Float32, f32, 0, 1, S_SETF)
SCALAR(Int8, i8, 4, 5, S_SET)
SCALAR(UInt8, u8, 6, 7, S_SET)
SCALAR(Int16, i16, 8, 9, S_SET)
SCALAR(UInt16, u16, 10, 11, S_SET)
SCALAR(UInt32, u32, 14, 15, S_SET)
SCALAR(Boolean, b, 20, 21, S_SET)
#undef SCALAR

/* Int64 holds Int64_in/out and the Enumeration (FMI 3.0 passes enumerations as Int64). */
FMI3_EXPORT fmi3GetInt64TYPE fmi3GetInt64;
fmi3Status fmi3GetInt64(fmi3Instance i, const fmi3ValueReference vr[], size_t nvr, fmi3Int64 v[],
                        size_t nv)
{
    GUARD(S_GET, "fmi3GetInt64");
    ft *f = i;
    if (nv != nvr) return fmi3Error;
    for (size_t k = 0; k < nvr; k++)
        if (vr[k] == 16 || vr[k] == 17)
            v[k] = f->i64;
        else if (vr[k] == 26 || vr[k] == 27)
            v[k] = f->e;
        else
            return fmi3Error;
    return fmi3OK;
}
FMI3_EXPORT fmi3SetInt64TYPE fmi3SetInt64;
fmi3Status fmi3SetInt64(fmi3Instance i, const fmi3ValueReference vr[], size_t nvr,
                        const fmi3Int64 v[], size_t nv)
{
    GUARD(S_SET, "fmi3SetInt64");
    ft *f = i;
    if (nv != nvr) return fmi3Error;
    for (size_t k = 0; k < nvr; k++)
        if (vr[k] == 16)
            f->i64 = v[k];
        else if (vr[k] == 26 && (v[k] == 1 || v[k] == 2))
            f->e = v[k];
        else
            return fmi3Error;
    return fmi3OK;
}

FMI3_EXPORT fmi3GetUInt64TYPE fmi3GetUInt64;
fmi3Status fmi3GetUInt64(fmi3Instance i, const fmi3ValueReference vr[], size_t nvr, fmi3UInt64 v[],
                         size_t nv)
{
    GUARD(S_GET, "fmi3GetUInt64");
    ft *f = i;
    if (nv != nvr) return fmi3Error;
    for (size_t k = 0; k < nvr; k++)
        if (vr[k] == 18 || vr[k] == 19)
            v[k] = f->u64;
        else if (vr[k] == 28)
            v[k] = N;
        else
            return fmi3Error;
    return fmi3OK;
}
FMI3_EXPORT fmi3SetUInt64TYPE fmi3SetUInt64;
fmi3Status fmi3SetUInt64(fmi3Instance i, const fmi3ValueReference vr[], size_t nvr,
                         const fmi3UInt64 v[], size_t nv)
{
    GUARD(S_SET, "fmi3SetUInt64");
    ft *f = i;
    if (nv != nvr) return fmi3Error;
    for (size_t k = 0; k < nvr; k++)
        if (vr[k] == 18)
            f->u64 = v[k];
        else if (!(vr[k] == 28 && v[k] == N))
            return fmi3Error;
    return fmi3OK;
}

/* Float64: scalars, gain[3] and y[3]; nv counts the array elements. */
FMI3_EXPORT fmi3GetFloat64TYPE fmi3GetFloat64;
fmi3Status fmi3GetFloat64(fmi3Instance i, const fmi3ValueReference vr[], size_t nvr,
                          fmi3Float64 v[], size_t nv)
{
    GUARD(S_GET, "fmi3GetFloat64");
    ft *f = i;
    size_t n = 0;
    for (size_t k = 0; k < nvr; k++) {
        size_t w = vr[k] == 29 || vr[k] == 30 ? N : 1;
        if (n + w > nv) return fmi3Error;
        if (vr[k] == 2 || vr[k] == 3)
            v[n] = f->f64;
        else if (vr[k] == VR_PER)
            v[n] = f->period;
        else if (vr[k] == VR_TIME)
            v[n] = f->t;
        else if (vr[k] == 29 || vr[k] == 30)
            for (size_t e = 0; e < N; e++)
                v[n + e] = vr[k] == 29 ? f->gain[e] : f->gain[e] * f->f64;
        else
            return fmi3Error;
        n += w;
    }
    return n == nv ? fmi3OK : fmi3Error;
}
FMI3_EXPORT fmi3SetFloat64TYPE fmi3SetFloat64;
fmi3Status fmi3SetFloat64(fmi3Instance i, const fmi3ValueReference vr[], size_t nvr,
                          const fmi3Float64 v[], size_t nv)
{
    GUARD(S_SETF, "fmi3SetFloat64");
    ft *f = i;
    size_t n = 0;
    for (size_t k = 0; k < nvr; k++) {
        size_t w = vr[k] == 29 ? N : 1;
        if (n + w > nv) return fmi3Error;
        if (vr[k] == 2)
            f->f64 = v[n];
        else if (vr[k] == VR_PER && f->state == S_INST && v[n] > 0)
            f->period = v[n];
        else if (vr[k] == 29)
            memcpy(f->gain, v + n, sizeof f->gain);
        else
            return fmi3Error;
        n += w;
    }
    return n == nv ? fmi3OK : fmi3Error;
}

/* Int32: Int32_in/out and m[2,3]. */
FMI3_EXPORT fmi3GetInt32TYPE fmi3GetInt32;
fmi3Status fmi3GetInt32(fmi3Instance i, const fmi3ValueReference vr[], size_t nvr, fmi3Int32 v[],
                        size_t nv)
{
    GUARD(S_GET, "fmi3GetInt32");
    ft *f = i;
    size_t n = 0;
    for (size_t k = 0; k < nvr; k++) {
        size_t w = vr[k] == 31 ? 6 : 1;
        if (n + w > nv) return fmi3Error;
        if (vr[k] == 12 || vr[k] == 13)
            v[n] = f->i32;
        else if (vr[k] == VR_TICK)
            v[n] = f->ticks;
        else if (vr[k] == VR_CLKN)
            v[n] = f->clk_n;
        else if (vr[k] == 31)
            for (int r = 0; r < 2; r++)
                for (int c = 0; c < 3; c++)
                    v[n + (size_t)(3 * r + c)] = 10 * (r + 1) + c + 1 + f->i32;
        else
            return fmi3Error;
        n += w;
    }
    return n == nv ? fmi3OK : fmi3Error;
}
FMI3_EXPORT fmi3SetInt32TYPE fmi3SetInt32;
fmi3Status fmi3SetInt32(fmi3Instance i, const fmi3ValueReference vr[], size_t nvr,
                        const fmi3Int32 v[], size_t nv)
{
    GUARD(S_SET, "fmi3SetInt32");
    ft *f = i;
    if (nv != nvr) return fmi3Error;
    for (size_t k = 0; k < nvr; k++) {
        if (vr[k] != 12) return fmi3Error;
        f->i32 = v[k];
    }
    return fmi3OK;
}

FMI3_EXPORT fmi3GetStringTYPE fmi3GetString;
fmi3Status fmi3GetString(fmi3Instance i, const fmi3ValueReference vr[], size_t nvr, fmi3String v[],
                         size_t nv)
{
    GUARD(S_GET, "fmi3GetString");
    ft *f = i;
    if (nv != nvr) return fmi3Error;
    for (size_t k = 0; k < nvr; k++) {
        if (vr[k] != 22 && vr[k] != 23) return fmi3Error;
        v[k] = f->str;
    }
    return fmi3OK;
}
FMI3_EXPORT fmi3SetStringTYPE fmi3SetString;
fmi3Status fmi3SetString(fmi3Instance i, const fmi3ValueReference vr[], size_t nvr,
                         const fmi3String v[], size_t nv)
{
    GUARD(S_SET, "fmi3SetString");
    ft *f = i;
    if (nv != nvr) return fmi3Error;
    for (size_t k = 0; k < nvr; k++) {
        if (vr[k] != 22 || !v[k]) return fmi3Error;
        char *s = strdup(v[k]);
        if (!s) return fmi3Error;
        free(f->str);
        f->str = s;
    }
    return fmi3OK;
}

FMI3_EXPORT fmi3GetBinaryTYPE fmi3GetBinary;
fmi3Status fmi3GetBinary(fmi3Instance i, const fmi3ValueReference vr[], size_t nvr, size_t sizes[],
                         fmi3Binary v[], size_t nv)
{
    GUARD(S_GET, "fmi3GetBinary");
    ft *f = i;
    if (nv != nvr) return fmi3Error;
    for (size_t k = 0; k < nvr; k++) {
        if (vr[k] != 24 && vr[k] != 25) return fmi3Error;
        v[k] = f->bin;
        sizes[k] = f->bin_n;
    }
    return fmi3OK;
}
FMI3_EXPORT fmi3SetBinaryTYPE fmi3SetBinary;
fmi3Status fmi3SetBinary(fmi3Instance i, const fmi3ValueReference vr[], size_t nvr,
                         const size_t sizes[], const fmi3Binary v[], size_t nv)
{
    GUARD(S_SET, "fmi3SetBinary");
    ft *f = i;
    if (nv != nvr) return fmi3Error;
    for (size_t k = 0; k < nvr; k++) {
        if (vr[k] != 24 || sizes[k] > BIN_MAX || (sizes[k] && !v[k])) return fmi3Error;
        memmove(f->bin, v[k], sizes[k]);
        f->bin_n = sizes[k];
    }
    return fmi3OK;
}

/* FMU state: a copy of the instance (its string duplicated). */
FMI3_EXPORT fmi3GetFMUStateTYPE fmi3GetFMUState;
fmi3Status fmi3GetFMUState(fmi3Instance i, fmi3FMUState *s)
{
    ft *f = i, *c = *s ? *s : malloc(sizeof *c);
    if (!c) return fmi3Error;
    if (*s) free(c->str);
    *c = *f;
    c->str = strdup(f->str);
    if (!c->str) return free(c), *s = NULL, fmi3Error;
    *s = c;
    return fmi3OK;
}
FMI3_EXPORT fmi3SetFMUStateTYPE fmi3SetFMUState;
fmi3Status fmi3SetFMUState(fmi3Instance i, fmi3FMUState s)
{
    ft *f = i;
    const ft *c = s;
    char *str = c ? strdup(c->str) : NULL;
    if (!str) return fmi3Error;
    free(f->str);
    fmi3InstanceEnvironment env = f->env;
    fmi3LogMessageCallback log = f->log;
    *f = *c;
    f->env = env, f->log = log, f->str = str;
    return fmi3OK;
}
FMI3_EXPORT fmi3FreeFMUStateTYPE fmi3FreeFMUState;
fmi3Status fmi3FreeFMUState(fmi3Instance i, fmi3FMUState *s)
{
    if (s && *s) {
        free(((ft *)*s)->str);
        free(*s);
        *s = NULL;
    }
    return fmi3OK;
}

FMI3_EXPORT fmi3UpdateDiscreteStatesTYPE fmi3UpdateDiscreteStates;
fmi3Status fmi3UpdateDiscreteStates(fmi3Instance i, fmi3Boolean *again, fmi3Boolean *term,
                                    fmi3Boolean *nom, fmi3Boolean *val, fmi3Boolean *next_def,
                                    fmi3Float64 *next)
{
    GUARD(S_EVENT, "fmi3UpdateDiscreteStates");
    ft *f = i;
    count_ticks(f);                         /* the tick at the event time counts now */
    if (f->clk) f->clk_n++, f->clk = false; /* an active clock: its partition runs once */
    *again = *term = *nom = *val = false;
    *next_def = true;
    *next = (f->ticks + 1) * f->period;
    return fmi3OK;
}

FMI3_EXPORT fmi3CompletedIntegratorStepTYPE fmi3CompletedIntegratorStep;
fmi3Status fmi3CompletedIntegratorStep(fmi3Instance i, fmi3Boolean no_set, fmi3Boolean *enter,
                                       fmi3Boolean *term)
{
    GUARD(S_CONT, "fmi3CompletedIntegratorStep");
    *enter = *term = false;
    return fmi3OK;
}

FMI3_EXPORT fmi3SetTimeTYPE fmi3SetTime;
fmi3Status fmi3SetTime(fmi3Instance i, fmi3Float64 t)
{
    GUARD(S_EVENT | S_CONT, "fmi3SetTime");
    ((ft *)i)->t = t; /* the ticks move in event mode (fmi3UpdateDiscreteStates) only */
    return fmi3OK;
}

/* No continuous state and no event indicator: the array calls take zero values. */
#define EMPTY(name, CONST, states)                                                                 \
    FMI3_EXPORT fmi3##name##TYPE fmi3##name;                                                       \
    fmi3Status fmi3##name(fmi3Instance i, CONST fmi3Float64 x[], size_t n)                         \
    {                                                                                              \
        GUARD(states, "fmi3" #name);                                                               \
        return n ? fmi3Error : fmi3OK;                                                             \
    }
EMPTY(SetContinuousStates, const, S_CONT)
EMPTY(GetContinuousStateDerivatives, , S_MODELS)
EMPTY(GetEventIndicators, , S_MODELS)
EMPTY(GetContinuousStates, , S_MODELS)
EMPTY(GetNominalsOfContinuousStates, , S_MODELS)
#undef EMPTY

FMI3_EXPORT fmi3DoStepTYPE fmi3DoStep;
fmi3Status fmi3DoStep(fmi3Instance i, fmi3Float64 t, fmi3Float64 h, fmi3Boolean no_set,
                      fmi3Boolean *event, fmi3Boolean *term, fmi3Boolean *early, fmi3Float64 *last)
{
    GUARD(S_STEP, "fmi3DoStep");
    ft *f = i;
    *event = *term = *early = false;
    double next = (f->ticks + 1) * f->period, end = t + h, mid = t + h / 2;
    /* The middle of the step is an intermediate update (as an internal step of a solver
     * would be): the outputs may be read there, in Intermediate Update Mode, unless an event
     * comes first in event mode. */
    if (f->update && !(f->event_mode && next <= mid)) {
        bool want = false;
        double when = mid;
        f->t = mid;
        if (!f->event_mode) count_ticks(f);
        f->state = S_IU;
        f->update(f->env, mid, false, true, false, false, &want, &when);
        f->state = S_STEP;
        next = (f->ticks + 1) * f->period;
    }
    if (f->event_mode && next <= end) {
        /* The tick is handled in event mode: return at it (early, when allowed). */
        *event = true;
        *early = f->early && next < end;
        f->t = *early ? next : end;
    } else {
        f->t = end;
        count_ticks(f);
    }
    *last = f->t;
    return fmi3OK;
}

/* The input clock: set active by the host in event mode (FMI 3.0 §2.2.9). */
FMI3_EXPORT fmi3SetClockTYPE fmi3SetClock;
fmi3Status fmi3SetClock(fmi3Instance i, const fmi3ValueReference vr[], size_t nvr,
                        const fmi3Clock v[])
{
    GUARD(S_EVENT, "fmi3SetClock");
    ft *f = i;
    for (size_t k = 0; k < nvr; k++) {
        if (vr[k] != VR_CLK) return fmi3Error;
        if (v[k]) f->clk = true;
    }
    return fmi3OK;
}
