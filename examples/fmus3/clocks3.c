/* clocks3: an FMI 3.0 FMU written directly against federate/fmu/fmi3.h, the test model of the
 * time-based input clocks whose ticks the FMU tells the host at run time (FMI 3.0 §2.2.9,
 * "Clock types"): `cd`, a countdown clock (first tick 0.3 s after the start, then, after its
 * n-th tick, 0.1 (n + 1) s later: 0.3, 0.5, 0.8, 1.2, 1.7 ...); `ch`, a changing clock
 * (0.2 s after the start, then 0.2 + 0.1 n s after its n-th tick: 0.2, 0.5, 0.9, 1.4 ...);
 * and `tu`, a tunable periodic clock without intervalDecimal (interval 0.25 s and shift
 * 0.05 s, told in initialization mode: 0.05, 0.3, 0.55 ...). Each clock's ticks are counted
 * (`cd_ticks`, `ch_ticks`, `tu_ticks`) and the time of its last tick kept (`cd_last`,
 * `ch_last`, `tu_last`). fmi3GetIntervalDecimal answers "changed" once after each tick of an
 * aperiodic clock and "unchanged" otherwise. fmi3SetClock, fmi3GetIntervalDecimal and
 * fmi3GetShiftDecimal outside the modes the standard allows them in answer fmi3Error, naming
 * the call. No continuous state; both kinds, co-simulation with event mode (clocks3.xml beside
 * this file). doc/example-fmus.md. Read federate/fmu/fmu_v3.c (the host side) next. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "federate/fmu/fmi3.h"

#define TOKEN "{5a1e3b7c-0f3e-4c1a-9d2b-7e6f000c10c3}"
#define NCK                                                                                        \
    3 /* clocks: cd, ch, tu; clock i has value reference 1 + 3 i, its count 2 + 3 i,               \
         the time of its last tick 3 + 3 i */

enum { M_INST, M_INIT, M_EVENT, M_CONT, M_STEP, M_TERM }; /* the instance's mode */

typedef struct {
    fmi3InstanceEnvironment env;
    fmi3LogMessageCallback log;
    int mode;         /* M_* */
    int cs;           /* co-simulation */
    double t;         /* s */
    int active[NCK];  /* set in this event mode */
    int told[NCK];    /* the next interval was told since the clock's last tick */
    int32_t n[NCK];   /* ticks so far */
    double last[NCK]; /* s: the time of the last tick, -1 before the first */
} ck3;

static fmi3Status refuse(ck3 *f, const char *call)
{
    char msg[96];
    snprintf(msg, sizeof msg, "%s is not allowed in mode %d", call, f->mode);
    if (f->log) f->log(f->env, fmi3Error, "logStatusError", msg);
    return fmi3Error;
}

/* The interval clock k tells now (s). */
static double interval_of(const ck3 *f, int k)
{
    if (k == 0) return f->n[0] ? 0.1 * (f->n[0] + 1) : 0.3;
    if (k == 1) return 0.2 + 0.1 * f->n[1];
    return 0.25;
}

static fmi3Instance make(fmi3String token, fmi3InstanceEnvironment env, fmi3LogMessageCallback log,
                         int cs)
{
    if (!token || strcmp(token, TOKEN) != 0) return NULL;
    ck3 *f = calloc(1, sizeof *f);
    if (!f) return NULL;
    f->env = env, f->log = log, f->cs = cs;
    for (int k = 0; k < NCK; k++)
        f->last[k] = -1;
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
    return make(token, env, log, 0);
}
FMI3_EXPORT fmi3InstantiateCoSimulationTYPE fmi3InstantiateCoSimulation;
fmi3Instance fmi3InstantiateCoSimulation(fmi3String name, fmi3String token, fmi3String res,
                                         fmi3Boolean visible, fmi3Boolean logging,
                                         fmi3Boolean event_mode, fmi3Boolean early,
                                         const fmi3ValueReference req[], size_t n_req,
                                         fmi3InstanceEnvironment env, fmi3LogMessageCallback log,
                                         fmi3IntermediateUpdateCallback update)
{
    /* Its clocks tick in event mode only: without it, it cannot run. */
    return event_mode ? make(token, env, log, 1) : NULL;
}
FMI3_EXPORT fmi3FreeInstanceTYPE fmi3FreeInstance;
void fmi3FreeInstance(fmi3Instance i)
{
    free(i);
}
FMI3_EXPORT fmi3EnterInitializationModeTYPE fmi3EnterInitializationMode;
fmi3Status fmi3EnterInitializationMode(fmi3Instance i, fmi3Boolean tol_defined, fmi3Float64 tol,
                                       fmi3Float64 start, fmi3Boolean stop_defined,
                                       fmi3Float64 stop)
{
    ck3 *f = i;
    if (f->mode != M_INST) return refuse(f, "fmi3EnterInitializationMode");
    f->t = start, f->mode = M_INIT;
    return fmi3OK;
}
FMI3_EXPORT fmi3ExitInitializationModeTYPE fmi3ExitInitializationMode;
fmi3Status fmi3ExitInitializationMode(fmi3Instance i)
{
    ck3 *f = i;
    if (f->mode != M_INIT) return refuse(f, "fmi3ExitInitializationMode");
    f->mode = M_EVENT; /* both kinds: event mode used */
    return fmi3OK;
}
FMI3_EXPORT fmi3EnterEventModeTYPE fmi3EnterEventMode;
fmi3Status fmi3EnterEventMode(fmi3Instance i)
{
    ((ck3 *)i)->mode = M_EVENT;
    return fmi3OK;
}
FMI3_EXPORT fmi3EnterContinuousTimeModeTYPE fmi3EnterContinuousTimeMode;
fmi3Status fmi3EnterContinuousTimeMode(fmi3Instance i)
{
    ((ck3 *)i)->mode = M_CONT;
    return fmi3OK;
}
FMI3_EXPORT fmi3EnterStepModeTYPE fmi3EnterStepMode;
fmi3Status fmi3EnterStepMode(fmi3Instance i)
{
    ((ck3 *)i)->mode = M_STEP;
    return fmi3OK;
}
FMI3_EXPORT fmi3TerminateTYPE fmi3Terminate;
fmi3Status fmi3Terminate(fmi3Instance i)
{
    ((ck3 *)i)->mode = M_TERM;
    return fmi3OK;
}
FMI3_EXPORT fmi3ResetTYPE fmi3Reset;
fmi3Status fmi3Reset(fmi3Instance i)
{
    return fmi3Error;
}

/* The clocks (FMI 3.0 §2.2.9). */
FMI3_EXPORT fmi3SetClockTYPE fmi3SetClock;
fmi3Status fmi3SetClock(fmi3Instance i, const fmi3ValueReference vr[], size_t nvr,
                        const fmi3Clock v[])
{
    ck3 *f = i;
    if (f->mode != M_EVENT) return refuse(f, "fmi3SetClock");
    for (size_t k = 0; k < nvr; k++) {
        if (vr[k] < 1 || vr[k] > 3 * NCK - 2 || (vr[k] - 1) % 3) return fmi3Error;
        if (v[k]) f->active[(vr[k] - 1) / 3] = 1;
    }
    return fmi3OK;
}
FMI3_EXPORT fmi3GetClockTYPE fmi3GetClock;
fmi3Status fmi3GetClock(fmi3Instance i, const fmi3ValueReference vr[], size_t nvr, fmi3Clock v[])
{
    return refuse(i, "fmi3GetClock (of an input clock)");
}
FMI3_EXPORT fmi3GetIntervalDecimalTYPE fmi3GetIntervalDecimal;
fmi3Status fmi3GetIntervalDecimal(fmi3Instance i, const fmi3ValueReference vr[], size_t nvr,
                                  fmi3Float64 iv[], fmi3IntervalQualifier q[])
{
    ck3 *f = i;
    if (f->mode != M_INIT && f->mode != M_EVENT) return refuse(f, "fmi3GetIntervalDecimal");
    for (size_t j = 0; j < nvr; j++) {
        if (vr[j] < 1 || vr[j] > 3 * NCK - 2 || (vr[j] - 1) % 3) return fmi3Error;
        int k = (int)(vr[j] - 1) / 3;
        iv[j] = interval_of(f, k);
        q[j] = f->told[k] ? fmi3IntervalUnchanged : fmi3IntervalChanged;
        f->told[k] = 1;
    }
    return fmi3OK;
}
FMI3_EXPORT fmi3GetShiftDecimalTYPE fmi3GetShiftDecimal;
fmi3Status fmi3GetShiftDecimal(fmi3Instance i, const fmi3ValueReference vr[], size_t nvr,
                               fmi3Float64 shifts[])
{
    ck3 *f = i;
    if (f->mode != M_INIT) return refuse(f, "fmi3GetShiftDecimal");
    for (size_t j = 0; j < nvr; j++) {
        if (vr[j] != 7) return refuse(f, "fmi3GetShiftDecimal (of an aperiodic clock)");
        shifts[j] = 0.05;
    }
    return fmi3OK;
}

/* Variables: the counts (Int32) and the last ticks' times (Float64). */
FMI3_EXPORT fmi3GetInt32TYPE fmi3GetInt32;
fmi3Status fmi3GetInt32(fmi3Instance i, const fmi3ValueReference vr[], size_t nvr, fmi3Int32 v[],
                        size_t nv)
{
    ck3 *f = i;
    if (nv != nvr) return fmi3Error;
    for (size_t j = 0; j < nvr; j++) {
        if (vr[j] < 2 || (vr[j] - 2) % 3 || vr[j] > 3 * NCK) return fmi3Error;
        v[j] = f->n[(vr[j] - 2) / 3];
    }
    return fmi3OK;
}
FMI3_EXPORT fmi3GetFloat64TYPE fmi3GetFloat64;
fmi3Status fmi3GetFloat64(fmi3Instance i, const fmi3ValueReference vr[], size_t nvr,
                          fmi3Float64 v[], size_t nv)
{
    ck3 *f = i;
    if (nv != nvr) return fmi3Error;
    for (size_t j = 0; j < nvr; j++) {
        if (vr[j] == 0)
            v[j] = f->t;
        else if (vr[j] >= 3 && !(vr[j] % 3) && vr[j] <= 3 * NCK)
            v[j] = f->last[vr[j] / 3 - 1];
        else
            return fmi3Error;
    }
    return fmi3OK;
}

/* The types this model has no variable of. */
#define NONE(T)                                                                                    \
    FMI3_EXPORT fmi3Get##T##TYPE fmi3Get##T;                                                       \
    fmi3Status fmi3Get##T(fmi3Instance i, const fmi3ValueReference vr[], size_t nvr, fmi3##T v[],  \
                          size_t nv)                                                               \
    {                                                                                              \
        return nvr ? fmi3Error : fmi3OK;                                                           \
    }                                                                                              \
    FMI3_EXPORT fmi3Set##T##TYPE fmi3Set##T;                                                       \
    fmi3Status fmi3Set##T(fmi3Instance i, const fmi3ValueReference vr[], size_t nvr,               \
                          const fmi3##T v[], size_t nv)                                            \
    {                                                                                              \
        return nvr ? fmi3Error : fmi3OK;                                                           \
    }
NONE(Float32)
NONE(Int8)
NONE(UInt8)
NONE(Int16)
NONE(UInt16)
NONE(UInt32)
NONE(Int64)
NONE(UInt64)
NONE(Boolean)
NONE(String)
#undef NONE
FMI3_EXPORT fmi3SetFloat64TYPE fmi3SetFloat64;
fmi3Status fmi3SetFloat64(fmi3Instance i, const fmi3ValueReference vr[], size_t nvr,
                          const fmi3Float64 v[], size_t nv)
{
    return nvr ? fmi3Error : fmi3OK;
}
FMI3_EXPORT fmi3SetInt32TYPE fmi3SetInt32;
fmi3Status fmi3SetInt32(fmi3Instance i, const fmi3ValueReference vr[], size_t nvr,
                        const fmi3Int32 v[], size_t nv)
{
    return nvr ? fmi3Error : fmi3OK;
}
FMI3_EXPORT fmi3GetBinaryTYPE fmi3GetBinary;
fmi3Status fmi3GetBinary(fmi3Instance i, const fmi3ValueReference vr[], size_t nvr, size_t sizes[],
                         fmi3Binary v[], size_t nv)
{
    return nvr ? fmi3Error : fmi3OK;
}
FMI3_EXPORT fmi3SetBinaryTYPE fmi3SetBinary;
fmi3Status fmi3SetBinary(fmi3Instance i, const fmi3ValueReference vr[], size_t nvr,
                         const size_t sizes[], const fmi3Binary v[], size_t nv)
{
    return nvr ? fmi3Error : fmi3OK;
}

/* FMU state: the whole instance (the clocks' counts and what they told included). */
FMI3_EXPORT fmi3GetFMUStateTYPE fmi3GetFMUState;
fmi3Status fmi3GetFMUState(fmi3Instance i, fmi3FMUState *s)
{
    if (!*s && !(*s = malloc(sizeof(ck3)))) return fmi3Error;
    memcpy(*s, i, sizeof(ck3));
    return fmi3OK;
}
FMI3_EXPORT fmi3SetFMUStateTYPE fmi3SetFMUState;
fmi3Status fmi3SetFMUState(fmi3Instance i, fmi3FMUState s)
{
    memcpy(i, s, sizeof(ck3));
    return fmi3OK;
}
FMI3_EXPORT fmi3FreeFMUStateTYPE fmi3FreeFMUState;
fmi3Status fmi3FreeFMUState(fmi3Instance i, fmi3FMUState *s)
{
    free(*s);
    *s = NULL;
    return fmi3OK;
}

/* Events: an active clock's partition runs once (its count and time), and it tells its next
 * interval from then on. */
FMI3_EXPORT fmi3UpdateDiscreteStatesTYPE fmi3UpdateDiscreteStates;
fmi3Status fmi3UpdateDiscreteStates(fmi3Instance i, fmi3Boolean *again, fmi3Boolean *term,
                                    fmi3Boolean *nom, fmi3Boolean *val, fmi3Boolean *next_def,
                                    fmi3Float64 *next)
{
    ck3 *f = i;
    if (f->mode != M_EVENT) return refuse(f, "fmi3UpdateDiscreteStates");
    for (int k = 0; k < NCK; k++)
        if (f->active[k]) {
            f->active[k] = 0, f->n[k]++, f->last[k] = f->t;
            if (k < 2) f->told[k] = 0; /* an aperiodic clock's next interval is new */
        }
    *again = *term = *nom = *val = *next_def = false;
    *next = 0;
    return fmi3OK;
}
FMI3_EXPORT fmi3CompletedIntegratorStepTYPE fmi3CompletedIntegratorStep;
fmi3Status fmi3CompletedIntegratorStep(fmi3Instance i, fmi3Boolean no_set, fmi3Boolean *enter,
                                       fmi3Boolean *term)
{
    *enter = *term = false;
    return fmi3OK;
}
FMI3_EXPORT fmi3SetTimeTYPE fmi3SetTime;
fmi3Status fmi3SetTime(fmi3Instance i, fmi3Float64 t)
{
    ((ck3 *)i)->t = t;
    return fmi3OK;
}
FMI3_EXPORT fmi3SetContinuousStatesTYPE fmi3SetContinuousStates;
fmi3Status fmi3SetContinuousStates(fmi3Instance i, const fmi3Float64 x[], size_t n)
{
    return n ? fmi3Error : fmi3OK;
}
FMI3_EXPORT fmi3GetContinuousStatesTYPE fmi3GetContinuousStates;
fmi3Status fmi3GetContinuousStates(fmi3Instance i, fmi3Float64 x[], size_t n)
{
    return n ? fmi3Error : fmi3OK;
}
FMI3_EXPORT fmi3GetContinuousStateDerivativesTYPE fmi3GetContinuousStateDerivatives;
fmi3Status fmi3GetContinuousStateDerivatives(fmi3Instance i, fmi3Float64 dx[], size_t n)
{
    return n ? fmi3Error : fmi3OK;
}
FMI3_EXPORT fmi3GetNominalsOfContinuousStatesTYPE fmi3GetNominalsOfContinuousStates;
fmi3Status fmi3GetNominalsOfContinuousStates(fmi3Instance i, fmi3Float64 x[], size_t n)
{
    return n ? fmi3Error : fmi3OK;
}
FMI3_EXPORT fmi3GetEventIndicatorsTYPE fmi3GetEventIndicators;
fmi3Status fmi3GetEventIndicators(fmi3Instance i, fmi3Float64 z[], size_t n)
{
    return n ? fmi3Error : fmi3OK;
}

/* Co-simulation in event mode: the host ends a step at each tick, so a step only moves on. */
FMI3_EXPORT fmi3DoStepTYPE fmi3DoStep;
fmi3Status fmi3DoStep(fmi3Instance i, fmi3Float64 t, fmi3Float64 h, fmi3Boolean no_set,
                      fmi3Boolean *event, fmi3Boolean *term, fmi3Boolean *early, fmi3Float64 *last)
{
    ck3 *f = i;
    if (f->mode != M_STEP) return refuse(f, "fmi3DoStep");
    *event = *term = *early = false;
    f->t = t + h;
    *last = f->t;
    return fmi3OK;
}
