/* Test fixture (not a test): a complete FMI 2.0 FMU (ME and CS) for x' = -x, x(0) = 1, that
 * fails on demand, so that tests/unit/fmu_fault_test.c can check how the host turns fmi2Discard
 * and fmi2Error into recoverable and unrecoverable step results. Value references:
 * 0 x (output state), 1 der(x), 2 discard_t, 3 error_t (tunable parameters: calls that reach
 * a time past them return fmi2Discard / fmi2Error). Non-Real outputs, so that recording every
 * type can be checked (tests/unit/fmu_fault_test.c): Integer 0 "tenths" = floor(10 t),
 * Boolean 0 "late" = t > 0.5, String 0 "phase" = "early" or `late, "x"` (a comma and quotes).
 * Built by mk/50-fmu.mk, never sanitized. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "federate/fmu/fmi2.h"

typedef struct {
    fmi2CallbackFunctions cb;  /* copy of the host's callbacks */
    char name[64];             /* instance name for log lines */
    double t, x;               /* time (s), state */
    double discard_t, error_t; /* fault thresholds (s) */
} inst;

static fmi2Status fault(inst *m, double t)
{
    if (t > m->error_t) {
        if (m->cb.logger)
            m->cb.logger(m->cb.componentEnvironment, m->name, fmi2Error, "logStatusError",
                         "injected error at t=%g", t);
        return fmi2Error;
    }
    if (t > m->discard_t) {
        if (m->cb.logger)
            m->cb.logger(m->cb.componentEnvironment, m->name, fmi2Discard, "logStatusWarning",
                         "injected discard at t=%g", t);
        return fmi2Discard;
    }
    return fmi2OK;
}

const char *fmi2GetTypesPlatform(void)
{
    return fmi2TypesPlatform;
}
const char *fmi2GetVersion(void)
{
    return fmi2Version;
}
fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean on, size_t n, const fmi2String k[])
{
    (void)c, (void)on, (void)n, (void)k;
    return fmi2OK;
}

fmi2Component fmi2Instantiate(fmi2String name, fmi2Type type, fmi2String guid, fmi2String res,
                              const fmi2CallbackFunctions *cb, fmi2Boolean vis, fmi2Boolean log)
{
    (void)type, (void)guid, (void)res, (void)vis, (void)log;
    inst *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->cb = *cb;
    strncpy(m->name, name ? name : "", sizeof m->name - 1);
    m->x = 1;
    m->discard_t = m->error_t = 1e300;
    return m;
}

void fmi2FreeInstance(fmi2Component c)
{
    free(c);
}

fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean td, fmi2Real tol, fmi2Real t0,
                               fmi2Boolean sd, fmi2Real t1)
{
    (void)td, (void)tol, (void)sd, (void)t1;
    ((inst *)c)->t = t0;
    return fmi2OK;
}

#define TRIVIAL(name)                                                                              \
    fmi2Status name(fmi2Component c)                                                               \
    {                                                                                              \
        (void)c;                                                                                   \
        return fmi2OK;                                                                             \
    }
TRIVIAL(fmi2EnterInitializationMode)
TRIVIAL(fmi2ExitInitializationMode)
TRIVIAL(fmi2Terminate)
TRIVIAL(fmi2EnterEventMode)
TRIVIAL(fmi2EnterContinuousTimeMode)
TRIVIAL(fmi2CancelStep)

fmi2Status fmi2Reset(fmi2Component c)
{
    inst *m = c;
    m->x = 1;
    return fmi2OK;
}

fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t n, fmi2Real v[])
{
    inst *m = c;
    for (size_t i = 0; i < n; i++) {
        switch (vr[i]) {
        case 0:
            v[i] = m->x;
            break;
        case 1:
            v[i] = -m->x;
            break;
        case 2:
            v[i] = m->discard_t;
            break;
        case 3:
            v[i] = m->error_t;
            break;
        default:
            return fmi2Error;
        }
    }
    return fmi2OK;
}

fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t n, const fmi2Real v[])
{
    inst *m = c;
    for (size_t i = 0; i < n; i++) {
        if (vr[i] == 2)
            m->discard_t = v[i];
        else if (vr[i] == 3)
            m->error_t = v[i];
        else
            return fmi2Error;
    }
    return fmi2OK;
}

#define UNSUPPORTED(name, ...)                                                                     \
    fmi2Status name(fmi2Component c, __VA_ARGS__)                                                  \
    {                                                                                              \
        (void)c;                                                                                   \
        return fmi2Error;                                                                          \
    }

fmi2Status fmi2GetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t n, fmi2Integer v[])
{
    inst *m = c;
    for (size_t i = 0; i < n; i++) {
        if (vr[i] != 0) return fmi2Error;
        v[i] = (fmi2Integer)floor(10 * m->t + 1e-9);
    }
    return fmi2OK;
}

fmi2Status fmi2GetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t n, fmi2Boolean v[])
{
    inst *m = c;
    for (size_t i = 0; i < n; i++) {
        if (vr[i] != 0) return fmi2Error;
        v[i] = m->t > 0.5 + 1e-9;
    }
    return fmi2OK;
}

fmi2Status fmi2GetString(fmi2Component c, const fmi2ValueReference vr[], size_t n, fmi2String v[])
{
    inst *m = c;
    for (size_t i = 0; i < n; i++) {
        if (vr[i] != 0) return fmi2Error;
        v[i] = m->t > 0.5 + 1e-9 ? "late, \"x\"" : "early";
    }
    return fmi2OK;
}
UNSUPPORTED(fmi2SetInteger, const fmi2ValueReference vr[], size_t n, const fmi2Integer v[])
UNSUPPORTED(fmi2SetBoolean, const fmi2ValueReference vr[], size_t n, const fmi2Boolean v[])
UNSUPPORTED(fmi2SetString, const fmi2ValueReference vr[], size_t n, const fmi2String v[])
UNSUPPORTED(fmi2SerializedFMUstateSize, fmi2FMUstate s, size_t *n)
UNSUPPORTED(fmi2SerializeFMUstate, fmi2FMUstate s, fmi2Byte b[], size_t n)
UNSUPPORTED(fmi2DeSerializeFMUstate, const fmi2Byte b[], size_t n, fmi2FMUstate *s)
UNSUPPORTED(fmi2GetDirectionalDerivative, const fmi2ValueReference u[], size_t nu,
            const fmi2ValueReference k[], size_t nk, const fmi2Real dk[], fmi2Real du[])
UNSUPPORTED(fmi2SetRealInputDerivatives, const fmi2ValueReference vr[], size_t n,
            const fmi2Integer o[], const fmi2Real v[])
UNSUPPORTED(fmi2GetRealOutputDerivatives, const fmi2ValueReference vr[], size_t n,
            const fmi2Integer o[], fmi2Real v[])
UNSUPPORTED(fmi2GetStatus, const fmi2StatusKind s, fmi2Status *v)
UNSUPPORTED(fmi2GetIntegerStatus, const fmi2StatusKind s, fmi2Integer *v)
UNSUPPORTED(fmi2GetStringStatus, const fmi2StatusKind s, fmi2String *v)

fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate *s)
{
    inst *copy = *s ? *s : malloc(sizeof *copy);
    if (!copy) return fmi2Error;
    *copy = *(inst *)c;
    *s = copy;
    return fmi2OK;
}

fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate s)
{
    if (!s) return fmi2Error;
    *(inst *)c = *(const inst *)s;
    return fmi2OK;
}

fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate *s)
{
    (void)c;
    free(*s);
    *s = NULL;
    return fmi2OK;
}

/* ---- Model exchange ---- */
fmi2Status fmi2NewDiscreteStates(fmi2Component c, fmi2EventInfo *e)
{
    (void)c;
    memset(e, 0, sizeof *e);
    return fmi2OK;
}

fmi2Status fmi2CompletedIntegratorStep(fmi2Component c, fmi2Boolean nsp, fmi2Boolean *enter,
                                       fmi2Boolean *term)
{
    (void)c, (void)nsp;
    *enter = *term = fmi2False;
    return fmi2OK;
}

fmi2Status fmi2SetTime(fmi2Component c, fmi2Real t)
{
    ((inst *)c)->t = t;
    return fmi2OK;
}

fmi2Status fmi2SetContinuousStates(fmi2Component c, const fmi2Real x[], size_t n)
{
    if (n != 1) return fmi2Error;
    ((inst *)c)->x = x[0];
    return fmi2OK;
}

fmi2Status fmi2GetDerivatives(fmi2Component c, fmi2Real d[], size_t n)
{
    inst *m = c;
    if (n != 1) return fmi2Error;
    fmi2Status st = fault(m, m->t);
    d[0] = -m->x;
    return st;
}

fmi2Status fmi2GetEventIndicators(fmi2Component c, fmi2Real z[], size_t n)
{
    (void)c, (void)z;
    return n == 0 ? fmi2OK : fmi2Error;
}

fmi2Status fmi2GetContinuousStates(fmi2Component c, fmi2Real x[], size_t n)
{
    if (n != 1) return fmi2Error;
    x[0] = ((inst *)c)->x;
    return fmi2OK;
}

fmi2Status fmi2GetNominalsOfContinuousStates(fmi2Component c, fmi2Real x[], size_t n)
{
    (void)c;
    if (n != 1) return fmi2Error;
    x[0] = 1;
    return fmi2OK;
}

/* ---- Co-simulation: exact solution over the step ---- */
fmi2Status fmi2DoStep(fmi2Component c, fmi2Real t, fmi2Real h, fmi2Boolean nsp)
{
    inst *m = c;
    (void)nsp;
    fmi2Status st = fault(m, t + h);
    if (st != fmi2OK) return st;
    m->x *= exp(-h);
    m->t = t + h;
    return fmi2OK;
}

fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind s, fmi2Real *v)
{
    if (s != fmi2LastSuccessfulTime) return fmi2Error;
    *v = ((inst *)c)->t;
    return fmi2OK;
}

fmi2Status fmi2GetBooleanStatus(fmi2Component c, const fmi2StatusKind s, fmi2Boolean *v)
{
    (void)c;
    if (s != fmi2Terminated) return fmi2Error;
    *v = fmi2False;
    return fmi2OK;
}
