/* statespace3: an FMI 3.0 FMU written directly against federate/fmu/fmi3.h, the linear system
 * x' = A x + B u, y = C x + D u with its matrices and vectors as arrays sized by the
 * structural parameters m (inputs), n (states) and r (outputs), 3 each at the start and 1 to
 * 5 when set in configuration mode (fmi3EnterConfigurationMode), as the Modelica Association's
 * Reference FMU StateSpace has them: to test the host on array states, arrays resized by
 * structural parameters, array parameters set before initialization and array inputs and
 * outputs. A set of m, n or r outside configuration mode is an error, as in that FMU.
 * Co-simulation integrates with classical Runge-Kutta (4th order) in equal internal steps of
 * at most 1 ms (1 ms for a step of whole milliseconds: fixedInternalStepSize), and calls the
 * intermediate-update callback, when it has one, at the end of every internal step but the
 * last (the outputs may be read there). Both kinds (statespace3.xml beside this file).
 * doc/example-fmus.md. Read federate/fmu/fmu_v3.c (the host side) next. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "federate/fmu/fmi3.h"

#define TOKEN "{5a1e3b7c-0f3e-4c1a-9d2b-7e6f0000055a}"
#define NMAX  5    /* the largest m, n and r */
#define H_MAX 1e-3 /* s: the largest internal step of co-simulation */
#define VR_A  4    /* A[n,n], then B[n,m] 5, C[r,n] 6, D[r,m] 7 */
#define VR_X0 8    /* x0[n], then u[m] 9, y[r] 10, x[n] 11, der(x)[n] 12 */

typedef struct {
    fmi3InstanceEnvironment env;
    fmi3LogMessageCallback log;
    int cs;                                /* co-simulation */
    int configuring;                       /* between fmi3EnterConfigurationMode and its exit */
    fmi3IntermediateUpdateCallback update; /* CS: called after every internal step, or NULL */
    size_t m, n, r;                        /* inputs, states, outputs */
    double t;                              /* s */
    double M[4][NMAX][NMAX]; /* A, B, C, D (the leading rows and columns are in use) */
    double x0[NMAX], u[NMAX], x[NMAX];
} ss;

static void say(ss *f, const char *msg)
{
    if (f->log) f->log(f->env, fmi3Error, "logStatusError", msg);
}

/* dx = A x + B u at the given x. */
static void deriv(const ss *f, const double *x, double *dx)
{
    for (size_t i = 0; i < f->n; i++) {
        dx[i] = 0;
        for (size_t j = 0; j < f->n; j++)
            dx[i] += f->M[0][i][j] * x[j];
        for (size_t j = 0; j < f->m; j++)
            dx[i] += f->M[1][i][j] * f->u[j];
    }
}

/* Rows and columns of matrix k (A, B, C, D) at the current sizes. */
static void shape(const ss *f, int k, size_t *rows, size_t *cols)
{
    *rows = k < 2 ? f->n : f->r;
    *cols = k == 0 || k == 2 ? f->n : f->m;
}

/* Copies the w values of value reference vr between the instance and v (set: into the
 * instance); w receives their count. Returns 0, or -1 for a value reference without values
 * of that direction. */
static int transfer(ss *f, fmi3ValueReference vr, double *v, size_t nv, size_t *w, int set)
{
    if (vr >= VR_A && vr < VR_A + 4) {
        size_t rows, cols;
        shape(f, (int)(vr - VR_A), &rows, &cols);
        if ((*w = rows * cols) > nv) return -1;
        for (size_t i = 0; i < rows; i++)
            for (size_t j = 0; j < cols; j++)
                if (set)
                    f->M[vr - VR_A][i][j] = v[i * cols + j];
                else
                    v[i * cols + j] = f->M[vr - VR_A][i][j];
        return 0;
    }
    double tmp[NMAX], *p = NULL;
    *w = f->n;
    if (vr == VR_X0) p = f->x0;
    if (vr == 9) p = f->u, *w = f->m;
    if (vr == 11) p = f->x;
    if (vr == 0) p = &f->t, *w = 1;
    if (!set && vr == 12) p = tmp, deriv(f, f->x, tmp);
    if (!set && vr == 10) { /* y = C x + D u */
        p = tmp, *w = f->r;
        for (size_t i = 0; i < f->r; i++) {
            tmp[i] = 0;
            for (size_t j = 0; j < f->n; j++)
                tmp[i] += f->M[2][i][j] * f->x[j];
            for (size_t j = 0; j < f->m; j++)
                tmp[i] += f->M[3][i][j] * f->u[j];
        }
    }
    if (!p || *w > nv || (set && vr == 0)) return -1;
    memcpy(set ? p : v, set ? v : p, *w * sizeof *v);
    return 0;
}

static fmi3Instance make(fmi3String token, fmi3InstanceEnvironment env, fmi3LogMessageCallback log)
{
    if (!token || strcmp(token, TOKEN) != 0) return NULL;
    ss *f = calloc(1, sizeof *f);
    if (!f) return NULL;
    f->env = env, f->log = log;
    f->m = f->n = f->r = 3;
    for (int k = 0; k < 4; k++) /* the Reference model's starts: identity matrices */
        for (int i = 0; i < NMAX; i++)
            f->M[k][i][i] = 1;
    for (int i = 0; i < NMAX; i++)
        f->u[i] = i + 1;
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
    ss *f = make(token, env, log);
    if (f) f->cs = 1, f->update = update;
    return f;
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
    ((ss *)i)->t = start;
    return fmi3OK;
}
FMI3_EXPORT fmi3ExitInitializationModeTYPE fmi3ExitInitializationMode;
fmi3Status fmi3ExitInitializationMode(fmi3Instance i)
{
    ss *f = i;
    memcpy(f->x, f->x0, sizeof f->x);
    return f->configuring ? fmi3Error : fmi3OK;
}

#define NOTHING(name)                                                                              \
    FMI3_EXPORT fmi3##name##TYPE fmi3##name;                                                       \
    fmi3Status fmi3##name(fmi3Instance i)                                                          \
    {                                                                                              \
        return fmi3OK;                                                                             \
    }
NOTHING(EnterEventMode)
NOTHING(Terminate)
NOTHING(Reset)
NOTHING(EnterContinuousTimeMode)
#undef NOTHING

FMI3_EXPORT fmi3GetFloat64TYPE fmi3GetFloat64;
fmi3Status fmi3GetFloat64(fmi3Instance i, const fmi3ValueReference vr[], size_t nvr,
                          fmi3Float64 v[], size_t nv)
{
    size_t n = 0, w;
    for (size_t k = 0; k < nvr; k++, n += w)
        if (transfer(i, vr[k], v + n, nv - n, &w, 0))
            return say(i, "fmi3GetFloat64: bad value reference or size"), fmi3Error;
    return n == nv ? fmi3OK : (say(i, "fmi3GetFloat64: nValues is not the size"), fmi3Error);
}
FMI3_EXPORT fmi3SetFloat64TYPE fmi3SetFloat64;
fmi3Status fmi3SetFloat64(fmi3Instance i, const fmi3ValueReference vr[], size_t nvr,
                          const fmi3Float64 v[], size_t nv)
{
    size_t n = 0, w;
    for (size_t k = 0; k < nvr; k++, n += w)
        if (vr[k] == 10 || vr[k] == 12 || transfer(i, vr[k], (double *)(v + n), nv - n, &w, 1))
            return say(i, "fmi3SetFloat64: not settable, or bad size"), fmi3Error;
    return n == nv ? fmi3OK : (say(i, "fmi3SetFloat64: nValues is not the size"), fmi3Error);
}
FMI3_EXPORT fmi3GetUInt64TYPE fmi3GetUInt64;
fmi3Status fmi3GetUInt64(fmi3Instance i, const fmi3ValueReference vr[], size_t nvr, fmi3UInt64 v[],
                         size_t nv)
{
    ss *f = i;
    const size_t *size[] = {&f->m, &f->n, &f->r};
    for (size_t k = 0; k < nvr; k++)
        if (vr[k] < 1 || vr[k] > 3 || nv != nvr)
            return fmi3Error;
        else
            v[k] = *size[vr[k] - 1];
    return fmi3OK;
}
FMI3_EXPORT fmi3SetUInt64TYPE fmi3SetUInt64;
fmi3Status fmi3SetUInt64(fmi3Instance i, const fmi3ValueReference vr[], size_t nvr,
                         const fmi3UInt64 v[], size_t nv)
{
    ss *f = i;
    size_t *size[] = {&f->m, &f->n, &f->r};
    if (!f->configuring)
        return say(i, "m, n and r can only be set in configuration mode"), fmi3Error;
    for (size_t k = 0; k < nvr; k++)
        if (vr[k] < 1 || vr[k] > 3 || nv != nvr || v[k] < 1 || v[k] > NMAX)
            return say(i, "m, n and r are 1 to 5 in this FMU"), fmi3Error;
        else
            *size[vr[k] - 1] = (size_t)v[k];
    return fmi3OK;
}
FMI3_EXPORT fmi3EnterConfigurationModeTYPE fmi3EnterConfigurationMode;
fmi3Status fmi3EnterConfigurationMode(fmi3Instance i)
{
    ss *f = i;
    if (f->configuring) return say(i, "already in configuration mode"), fmi3Error;
    f->configuring = 1;
    return fmi3OK;
}
FMI3_EXPORT fmi3ExitConfigurationModeTYPE fmi3ExitConfigurationMode;
fmi3Status fmi3ExitConfigurationMode(fmi3Instance i)
{
    ss *f = i;
    if (!f->configuring) return say(i, "not in configuration mode"), fmi3Error;
    f->configuring = 0;
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
NONE(Int32)
NONE(UInt32)
NONE(Int64)
NONE(Boolean)
NONE(String)
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

/* FMU state: the whole instance (canGetAndSetFMUState, as the Reference FMU). */
FMI3_EXPORT fmi3GetFMUStateTYPE fmi3GetFMUState;
fmi3Status fmi3GetFMUState(fmi3Instance i, fmi3FMUState *s)
{
    if (!*s && !(*s = malloc(sizeof(ss)))) return fmi3Error;
    memcpy(*s, i, sizeof(ss));
    return fmi3OK;
}
FMI3_EXPORT fmi3SetFMUStateTYPE fmi3SetFMUState;
fmi3Status fmi3SetFMUState(fmi3Instance i, fmi3FMUState s)
{
    memcpy(i, s, sizeof(ss));
    return fmi3OK;
}
FMI3_EXPORT fmi3FreeFMUStateTYPE fmi3FreeFMUState;
fmi3Status fmi3FreeFMUState(fmi3Instance i, fmi3FMUState *s)
{
    free(*s);
    *s = NULL;
    return fmi3OK;
}

/* Model exchange. */
FMI3_EXPORT fmi3UpdateDiscreteStatesTYPE fmi3UpdateDiscreteStates;
fmi3Status fmi3UpdateDiscreteStates(fmi3Instance i, fmi3Boolean *again, fmi3Boolean *term,
                                    fmi3Boolean *nom, fmi3Boolean *val, fmi3Boolean *next_def,
                                    fmi3Float64 *next)
{
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
    ((ss *)i)->t = t;
    return fmi3OK;
}
FMI3_EXPORT fmi3SetContinuousStatesTYPE fmi3SetContinuousStates;
fmi3Status fmi3SetContinuousStates(fmi3Instance i, const fmi3Float64 x[], size_t n)
{
    if (n != ((ss *)i)->n) return say(i, "fmi3SetContinuousStates: n states"), fmi3Error;
    memcpy(((ss *)i)->x, x, n * sizeof *x);
    return fmi3OK;
}
FMI3_EXPORT fmi3GetContinuousStatesTYPE fmi3GetContinuousStates;
fmi3Status fmi3GetContinuousStates(fmi3Instance i, fmi3Float64 x[], size_t n)
{
    if (n != ((ss *)i)->n) return say(i, "fmi3GetContinuousStates: n states"), fmi3Error;
    memcpy(x, ((ss *)i)->x, n * sizeof *x);
    return fmi3OK;
}
FMI3_EXPORT fmi3GetContinuousStateDerivativesTYPE fmi3GetContinuousStateDerivatives;
fmi3Status fmi3GetContinuousStateDerivatives(fmi3Instance i, fmi3Float64 dx[], size_t n)
{
    if (n != ((ss *)i)->n) return say(i, "fmi3GetContinuousStateDerivatives: n states"), fmi3Error;
    deriv(i, ((ss *)i)->x, dx);
    return fmi3OK;
}
FMI3_EXPORT fmi3GetNominalsOfContinuousStatesTYPE fmi3GetNominalsOfContinuousStates;
fmi3Status fmi3GetNominalsOfContinuousStates(fmi3Instance i, fmi3Float64 x[], size_t n)
{
    if (n != ((ss *)i)->n) return fmi3Error;
    for (size_t k = 0; k < n; k++)
        x[k] = 1;
    return fmi3OK;
}
FMI3_EXPORT fmi3GetEventIndicatorsTYPE fmi3GetEventIndicators;
fmi3Status fmi3GetEventIndicators(fmi3Instance i, fmi3Float64 z[], size_t n)
{
    return n ? fmi3Error : fmi3OK;
}

/* Co-simulation: classical Runge-Kutta in equal internal steps of at most H_MAX. */
FMI3_EXPORT fmi3DoStepTYPE fmi3DoStep;
fmi3Status fmi3DoStep(fmi3Instance i, fmi3Float64 t, fmi3Float64 h, fmi3Boolean no_set,
                      fmi3Boolean *event, fmi3Boolean *term, fmi3Boolean *early, fmi3Float64 *last)
{
    ss *f = i;
    *event = *term = *early = false;
    double steps = ceil(h / H_MAX - 1e-9), dt = h / (steps > 0 ? steps : 1);
    for (double s = 0; s < steps; s++) {
        double k1[NMAX], k2[NMAX], k3[NMAX], k4[NMAX], y[NMAX];
        size_t nx = f->n;
        deriv(f, f->x, k1);
        for (size_t j = 0; j < nx; j++)
            y[j] = f->x[j] + dt / 2 * k1[j];
        deriv(f, y, k2);
        for (size_t j = 0; j < nx; j++)
            y[j] = f->x[j] + dt / 2 * k2[j];
        deriv(f, y, k3);
        for (size_t j = 0; j < nx; j++)
            y[j] = f->x[j] + dt * k3[j];
        deriv(f, y, k4);
        for (size_t j = 0; j < nx; j++)
            f->x[j] += dt / 6 * (k1[j] + 2 * k2[j] + 2 * k3[j] + k4[j]);
        f->t = t + (s + 1) * dt;
        if (f->update && s + 1 < steps) { /* the outputs may be read here, nothing set */
            bool ask = false;
            double when = f->t;
            f->update(f->env, f->t, false, true, true, false, &ask, &when);
        }
    }
    f->t = t + h;
    *last = f->t;
    return fmi3OK;
}
