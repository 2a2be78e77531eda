/* An FMU that fails on demand, for the fault matrix of doc/robustness.md
 * (tests/integration/fault_matrix.sh): x' = u - x, output y = x, and at the first step that
 * reaches fault_t it does what parameter `fault` says: 1 segfault (a write through a null
 * pointer), 2 abort(), 3 exit(0), 4 exit(3), 5 fail the step (co-simulation: fmi2Error; model
 * exchange: a NaN derivative, which the host refuses), 6 hang (wait for ever, for the
 * watchdog); 0 never. Model exchange meets the fault
 * in the right-hand side at t >= fault_t (the host's CVODE never evaluates past the step's
 * end). With the environment variable TEMPO_FAULT_LOAD=exit0 (or exit3) its library calls
 * exit(0) (exit(3)) while it is being loaded (dlopen), before any FMI call. A power port for
 * method "energy": input p (the agreed power, unused) and output P = u y.
 * doc/example-fmus.md lists the models. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "examples/fmus/framework/fw.h"

enum { FAULT, FAULT_T, U, X, DER_X, Y, P_IN, P_OUT, NV };

static const fw_var vars[NV] = {
    [FAULT] = {"fault", FW_PARAM, 0, -1, 0, NULL,
               "0 none, 1 segfault, 2 abort, 3 exit(0), 4 exit(3), 5 fmi2Error, 6 hang", NULL},
    [FAULT_T] = {"fault_t", FW_PARAM, 0, -1, 1e300, "s", "the fault strikes the step reaching it",
                 NULL},
    [U] = {"u", FW_INPUT, 0, -1, 0, NULL, "input", NULL},
    [X] = {"x", FW_LOCAL, 0, -1, 0, NULL, "the state, x(0) = 1", NULL},
    [DER_X] = {"der(x)", FW_LOCAL, 0, X, 0, "1/s", "u - x", NULL},
    [Y] = {"y", FW_OUTPUT, 0, -1, 0, NULL, "output, y = x", .depends = "x"},
    [P_IN] = {"p", FW_INPUT, 0, -1, 0, "W", "the agreed power (method energy), unused", NULL},
    [P_OUT] = {"P", FW_OUTPUT, 0, -1, 0, "W", "the power through the port, u y", .depends = "u x"},
};

static const fw_bounds bounds[] = {{FAULT, 0, 6}};

/* The load-time fault: runs when the dynamic loader maps the library. */
__attribute__((constructor)) static void fault_at_load(void)
{
    const char *f = getenv("TEMPO_FAULT_LOAD");
    if (f && !strcmp(f, "exit0")) exit(0);
    if (f && !strcmp(f, "exit3")) exit(3);
}

static void init(fw_ctx *c)
{
    c->r[X] = 1;
}

/* The fault, if one is due at time t: returns -1 for "fail" (5), else 0 (or never returns). */
static int strike(fw_ctx *c, double t)
{
    if (t < c->r[FAULT_T] - 1e-9 * (1 + c->r[FAULT_T])) return 0;
    volatile int *volatile nowhere = NULL;
    switch ((int)c->r[FAULT]) {
    case 1:
        *nowhere = 1;
        break;
    case 2:
        abort();
    case 3:
        exit(0);
    case 4:
        exit(3);
    case 5:
        return -1;
    case 6:
        for (;;)
            pause(); /* a signal's handler returns here: still stuck */
    default:
        break;
    }
    return 0;
}

static void derivatives(fw_ctx *c)
{
    c->r[DER_X] = strike(c, c->t) ? NAN : c->r[U] - c->r[X];
}

static void outputs(fw_ctx *c)
{
    c->r[Y] = c->r[X];
    c->r[P_OUT] = c->r[U] * c->r[X];
}

/* Exact step for a held input: x(t + h) = u + (x - u) e^-h; the fault first. */
static int cs_step(fw_ctx *c, double h)
{
    if (strike(c, c->t + h)) return -1;
    double u = c->r[U];
    c->r[X] = u + (c->r[X] - u) * exp(-h);
    return 1;
}

const fw_model fw_model_def = {
    .id = "fault",
    .description = "x' = u - x that fails on demand (fault, fault_t)",
    .nvars = NV,
    .vars = vars,
    .has_me = 1,
    .has_cs = 1,
    .stop_time = 10.0,
    .step_size = 0.5,
    .tolerance = 1e-10,
    .nbounds = 1,
    .bounds = bounds,
    .init = init,
    .derivatives = derivatives,
    .outputs = outputs,
    .cs_step = cs_step,
};
