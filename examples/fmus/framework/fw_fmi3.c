/* The FMI 3.0 face of the example-FMU framework: every fmi3* function an FMI 3.0 host calls,
 * over the framework's FMI 2.0 implementation in the same shared object (fw_fmi.c, fw_cs.c),
 * so that each example model ships in both versions from one source and the two compute the
 * same numbers. The instance is the framework's own (an fw_inst); the FMI 3.0 logger is
 * reached through a small bridge kept as the FMI 2.0 component environment. The event
 * indicators are the Float64 array variable of value reference nvars (FMI 3.0 lists them as
 * variables; fw_mdgen.c declares it). doc/example-fmus.md, doc/fmu.md ("FMI 3.0").
 * Read fw_mdgen.c (the FMI 3.0 modelDescription.xml) next. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "examples/fmus/framework/fw_impl.h"
#include "federate/fmu/fmi3.h"

/* Carries the FMI 3.0 logger behind the FMI 2.0 callbacks of one instance. */
typedef struct {
    fmi3InstanceEnvironment env;
    fmi3LogMessageCallback log;
    int early_return_allowed; /* CS: fmi3InstantiateCoSimulation's earlyReturnAllowed */
} fw3_bridge;

static void bridge_log(fmi2ComponentEnvironment env, fmi2String instance, fmi2Status status,
                       fmi2String category, fmi2String message, ...)
{
    fw3_bridge *b = env;
    if (!b || !b->log || !message) return;
    char line[1024];
    va_list ap;
    va_start(ap, message);
    vsnprintf(line, sizeof line, message, ap);
    va_end(ap);
    b->log(b->env, (fmi3Status)(status > fmi2Fatal ? fmi2Error : status), category, line);
}

static fw3_bridge *bridge_of(fmi3Instance i)
{
    return ((fw_inst *)i)->cb.componentEnvironment;
}

static fmi3Instance instantiate(fmi3String name, fmi3String token, fmi2Type kind,
                                fmi3Boolean logging, fmi3InstanceEnvironment env,
                                fmi3LogMessageCallback log, int early)
{
    fw3_bridge *b = calloc(1, sizeof *b);
    if (!b) return NULL;
    *b = (fw3_bridge){env, log, early};
    fmi2CallbackFunctions cb = {.logger = bridge_log,
                                .allocateMemory = calloc,
                                .freeMemory = free,
                                .componentEnvironment = b};
    fmi2Component c = fmi2Instantiate(name, kind, token, NULL, &cb, fmi2False, logging);
    if (!c) free(b);
    return c;
}

FMI3_EXPORT fmi3GetVersionTYPE fmi3GetVersion;
const char *fmi3GetVersion(void)
{
    return fmi3Version;
}

FMI3_EXPORT fmi3SetDebugLoggingTYPE fmi3SetDebugLogging;
fmi3Status fmi3SetDebugLogging(fmi3Instance i, fmi3Boolean on, size_t n, const fmi3String cat[])
{
    return (fmi3Status)fmi2SetDebugLogging(i, on, n, cat);
}

FMI3_EXPORT fmi3InstantiateModelExchangeTYPE fmi3InstantiateModelExchange;
fmi3Instance fmi3InstantiateModelExchange(fmi3String name, fmi3String token, fmi3String res,
                                          fmi3Boolean visible, fmi3Boolean logging,
                                          fmi3InstanceEnvironment env, fmi3LogMessageCallback log)
{
    return instantiate(name, token, fmi2ModelExchange, logging, env, log, 0);
}

FMI3_EXPORT fmi3InstantiateCoSimulationTYPE fmi3InstantiateCoSimulation;
fmi3Instance fmi3InstantiateCoSimulation(fmi3String name, fmi3String token, fmi3String res,
                                         fmi3Boolean visible, fmi3Boolean logging,
                                         fmi3Boolean event_mode, fmi3Boolean early,
                                         const fmi3ValueReference required[], size_t n_required,
                                         fmi3InstanceEnvironment env, fmi3LogMessageCallback log,
                                         fmi3IntermediateUpdateCallback update)
{
    if (event_mode) return NULL; /* hasEventMode is false in the description */
    return instantiate(name, token, fmi2CoSimulation, logging, env, log, early);
}

FMI3_EXPORT fmi3FreeInstanceTYPE fmi3FreeInstance;
void fmi3FreeInstance(fmi3Instance i)
{
    if (!i) return;
    fw3_bridge *b = bridge_of(i);
    fmi2FreeInstance(i);
    free(b);
}

FMI3_EXPORT fmi3EnterInitializationModeTYPE fmi3EnterInitializationMode;
fmi3Status fmi3EnterInitializationMode(fmi3Instance i, fmi3Boolean tol_defined, fmi3Float64 tol,
                                       fmi3Float64 start, fmi3Boolean stop_defined,
                                       fmi3Float64 stop)
{
    fmi2Status st = fmi2SetupExperiment(i, tol_defined, tol, start, stop_defined, stop);
    return (fmi3Status)(st > fmi2Warning ? st : fmi2EnterInitializationMode(i));
}

#define SIMPLE(name)                                                                               \
    FMI3_EXPORT fmi3##name##TYPE fmi3##name;                                                       \
    fmi3Status fmi3##name(fmi3Instance i)                                                          \
    {                                                                                              \
        return (fmi3Status)fmi2##name(i);                                                          \
    }
SIMPLE(ExitInitializationMode)
SIMPLE(EnterEventMode)
SIMPLE(Terminate)
SIMPLE(Reset)
SIMPLE(EnterContinuousTimeMode)
#undef SIMPLE

/* Float64: the model's variables, and the event-indicator array at value reference nvars. */
FMI3_EXPORT fmi3GetFloat64TYPE fmi3GetFloat64;
fmi3Status fmi3GetFloat64(fmi3Instance i, const fmi3ValueReference vr[], size_t nvr,
                          fmi3Float64 v[], size_t nv)
{
    const fw_inst *in = i;
    size_t k = 0, nz = (size_t)in->m->nz;
    for (size_t j = 0; j < nvr; j++) {
        size_t need = vr[j] == (unsigned)in->m->nvars ? nz : 1;
        if (k + need > nv) return fmi3Error;
        fmi2Status st = need == 1 && vr[j] != (unsigned)in->m->nvars
                            ? fmi2GetReal(i, &vr[j], 1, &v[k])
                            : fmi2GetEventIndicators(i, &v[k], nz);
        if (st > fmi2Warning) return (fmi3Status)st;
        k += need;
    }
    return k == nv ? fmi3OK : fmi3Error;
}

FMI3_EXPORT fmi3SetFloat64TYPE fmi3SetFloat64;
fmi3Status fmi3SetFloat64(fmi3Instance i, const fmi3ValueReference vr[], size_t nvr,
                          const fmi3Float64 v[], size_t nv)
{
    return nv == nvr ? (fmi3Status)fmi2SetReal(i, vr, nvr, v) : fmi3Error;
}

/* The models have Float64 variables only: every other type names no variable. */
#define NONE(T, CONST)                                                                             \
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
NONE(Float32, )
NONE(Int8, )
NONE(UInt8, )
NONE(Int16, )
NONE(UInt16, )
NONE(Int32, )
NONE(UInt32, )
NONE(Int64, )
NONE(UInt64, )
NONE(Boolean, )
NONE(String, )
#undef NONE

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

FMI3_EXPORT fmi3GetFMUStateTYPE fmi3GetFMUState;
fmi3Status fmi3GetFMUState(fmi3Instance i, fmi3FMUState *s)
{
    return (fmi3Status)fmi2GetFMUstate(i, s);
}
FMI3_EXPORT fmi3SetFMUStateTYPE fmi3SetFMUState;
fmi3Status fmi3SetFMUState(fmi3Instance i, fmi3FMUState s)
{
    return (fmi3Status)fmi2SetFMUstate(i, s);
}
FMI3_EXPORT fmi3FreeFMUStateTYPE fmi3FreeFMUState;
fmi3Status fmi3FreeFMUState(fmi3Instance i, fmi3FMUState *s)
{
    return (fmi3Status)fmi2FreeFMUstate(i, s);
}
FMI3_EXPORT fmi3SerializedFMUStateSizeTYPE fmi3SerializedFMUStateSize;
fmi3Status fmi3SerializedFMUStateSize(fmi3Instance i, fmi3FMUState s, size_t *size)
{
    return (fmi3Status)fmi2SerializedFMUstateSize(i, s, size);
}
FMI3_EXPORT fmi3SerializeFMUStateTYPE fmi3SerializeFMUState;
fmi3Status fmi3SerializeFMUState(fmi3Instance i, fmi3FMUState s, fmi3Byte b[], size_t n)
{
    return (fmi3Status)fmi2SerializeFMUstate(i, s, (fmi2Byte *)b, n);
}
FMI3_EXPORT fmi3DeserializeFMUStateTYPE fmi3DeserializeFMUState;
fmi3Status fmi3DeserializeFMUState(fmi3Instance i, const fmi3Byte b[], size_t n, fmi3FMUState *s)
{
    return (fmi3Status)fmi2DeSerializeFMUstate(i, (const fmi2Byte *)b, n, s);
}

FMI3_EXPORT fmi3GetDirectionalDerivativeTYPE fmi3GetDirectionalDerivative;
fmi3Status fmi3GetDirectionalDerivative(fmi3Instance i, const fmi3ValueReference u[], size_t nu,
                                        const fmi3ValueReference k[], size_t nk,
                                        const fmi3Float64 seed[], size_t nseed, fmi3Float64 sens[],
                                        size_t nsens)
{
    if (nseed != nk || nsens != nu) return fmi3Error;
    return (fmi3Status)fmi2GetDirectionalDerivative(i, u, nu, k, nk, seed, sens);
}

FMI3_EXPORT fmi3UpdateDiscreteStatesTYPE fmi3UpdateDiscreteStates;
fmi3Status fmi3UpdateDiscreteStates(fmi3Instance i, fmi3Boolean *again, fmi3Boolean *term,
                                    fmi3Boolean *nominals, fmi3Boolean *values,
                                    fmi3Boolean *next_defined, fmi3Float64 *next)
{
    fmi2EventInfo ev = {0};
    fmi2Status st = fmi2NewDiscreteStates(i, &ev);
    *again = ev.newDiscreteStatesNeeded;
    *term = ev.terminateSimulation;
    *nominals = ev.nominalsOfContinuousStatesChanged;
    *values = ev.valuesOfContinuousStatesChanged;
    *next_defined = ev.nextEventTimeDefined;
    *next = ev.nextEventTime;
    return (fmi3Status)st;
}

FMI3_EXPORT fmi3CompletedIntegratorStepTYPE fmi3CompletedIntegratorStep;
fmi3Status fmi3CompletedIntegratorStep(fmi3Instance i, fmi3Boolean no_set, fmi3Boolean *enter,
                                       fmi3Boolean *term)
{
    fmi2Boolean e = fmi2False, t = fmi2False;
    fmi2Status st = fmi2CompletedIntegratorStep(i, no_set, &e, &t);
    *enter = e, *term = t;
    return (fmi3Status)st;
}

FMI3_EXPORT fmi3SetTimeTYPE fmi3SetTime;
fmi3Status fmi3SetTime(fmi3Instance i, fmi3Float64 t)
{
    return (fmi3Status)fmi2SetTime(i, t);
}

#define STATES(name3, name2, CONST)                                                                \
    FMI3_EXPORT fmi3##name3##TYPE fmi3##name3;                                                     \
    fmi3Status fmi3##name3(fmi3Instance i, CONST fmi3Float64 x[], size_t n)                        \
    {                                                                                              \
        return (fmi3Status)fmi2##name2(i, x, n);                                                   \
    }
STATES(SetContinuousStates, SetContinuousStates, const)
STATES(GetContinuousStateDerivatives, GetDerivatives, )
STATES(GetEventIndicators, GetEventIndicators, )
STATES(GetContinuousStates, GetContinuousStates, )
STATES(GetNominalsOfContinuousStates, GetNominalsOfContinuousStates, )
#undef STATES

FMI3_EXPORT fmi3GetNumberOfEventIndicatorsTYPE fmi3GetNumberOfEventIndicators;
fmi3Status fmi3GetNumberOfEventIndicators(fmi3Instance i, size_t *n)
{
    *n = (size_t)((fw_inst *)i)->m->nz;
    return fmi3OK;
}
FMI3_EXPORT fmi3GetNumberOfContinuousStatesTYPE fmi3GetNumberOfContinuousStates;
fmi3Status fmi3GetNumberOfContinuousStates(fmi3Instance i, size_t *n)
{
    *n = (size_t)((fw_inst *)i)->nx;
    return fmi3OK;
}

FMI3_EXPORT fmi3GetOutputDerivativesTYPE fmi3GetOutputDerivatives;
fmi3Status fmi3GetOutputDerivatives(fmi3Instance i, const fmi3ValueReference vr[], size_t nvr,
                                    const fmi3Int32 orders[], fmi3Float64 v[], size_t nv)
{
    return nv == nvr ? (fmi3Status)fmi2GetRealOutputDerivatives(i, vr, nvr, orders, v) : fmi3Error;
}

FMI3_EXPORT fmi3EnterStepModeTYPE fmi3EnterStepMode;
fmi3Status fmi3EnterStepMode(fmi3Instance i)
{
    return fmi3Error; /* no event mode in co-simulation (hasEventMode is false) */
}

/* fmi3DoStep over fmi2DoStep: the framework's early return (fmi2Discard with the time reached
 * inside the step) becomes earlyReturn when the host allowed it, a request to stop becomes
 * terminateSimulation. */
FMI3_EXPORT fmi3DoStepTYPE fmi3DoStep;
fmi3Status fmi3DoStep(fmi3Instance i, fmi3Float64 t, fmi3Float64 h, fmi3Boolean no_set,
                      fmi3Boolean *event, fmi3Boolean *term, fmi3Boolean *early, fmi3Float64 *last)
{
    *event = fmi3False, *term = fmi3False, *early = fmi3False, *last = t + h;
    fmi2Status st = fmi2DoStep(i, t, h, no_set);
    if (st != fmi2Discard) return (fmi3Status)st;
    fmi2Boolean stop = fmi2False;
    fmi2Real reached = t;
    fmi2GetBooleanStatus(i, fmi2Terminated, &stop);
    fmi2GetRealStatus(i, fmi2LastSuccessfulTime, &reached);
    *last = reached;
    if (stop) {
        *term = fmi3True;
        return fmi3OK;
    }
    if (bridge_of(i)->early_return_allowed && reached > t && reached < t + h) {
        *early = fmi3True;
        return fmi3OK;
    }
    return fmi3Discard;
}
