/* A first-order lag x' = (u - x) / tau that also outputs its own time: the output `clock` is
 * the time the FMU holds, as the host's calls set it (fmi2DoStep's currentCommunicationPoint
 * plus communicationStepSize, fmi2SetTime). Recorded beside the host's time column it shows
 * whether the host hands the FMU the grid points exactly (tests/integration/ticks_end.sh,
 * doc/fmu.md "Where the FMU's time comes from"). Both kinds; doc/example-fmus.md. */
#include "examples/fmus/framework/fw.h"

enum { TAU, X0, U, Y, CLOCK, DER_X, NV };

static const fw_var vars[NV] = {
    [TAU] = {"tau", FW_PARAM, 0, -1, 1.0, "s", "time constant", NULL},
    [X0] = {"x0", FW_PARAM, 0, -1, 0.0, NULL, "initial value x(t_start)", NULL},
    [U] = {"u", FW_INPUT, 0, -1, 0.0, NULL, "input", NULL},
    [Y] = {"y", FW_OUTPUT, 0, -1, 0, NULL, "the state x", NULL},
    [CLOCK] = {"clock", FW_OUTPUT, 0, -1, 0, "s", "the FMU's own time", .depends = ""},
    [DER_X] = {"der(x)", FW_LOCAL, 0, Y, 0, "1/s", "(u - x) / tau", NULL},
};

static const fw_bounds bounds[] = {{TAU, 1e-6, 1e6}};

static void init(fw_ctx *c)
{
    c->r[Y] = c->r[X0];
}

static void derivatives(fw_ctx *c)
{
    c->r[DER_X] = (c->r[U] - c->r[Y]) / c->r[TAU];
}

static void outputs(fw_ctx *c)
{
    c->r[CLOCK] = c->t;
}

/* y' = (u - y) / tau; y'' = (u' - y') / tau (u' from the input derivatives). */
static int output_der(fw_ctx *c, unsigned vr, int order, double *value)
{
    const double *r = c->r;
    if (vr == CLOCK) {
        *value = order == 1 ? 1.0 : 0.0;
        return 0;
    }
    if (vr != Y) return -1;
    double dy = (r[U] - r[Y]) / r[TAU];
    *value = order == 1 ? dy : (fw_input_der(c, U, 1) - dy) / r[TAU];
    return 0;
}

const fw_model fw_model_def = {
    .id = "clock",
    .description = "First-order lag that outputs its own time",
    .nvars = NV,
    .vars = vars,
    .max_output_order = 2,
    .has_me = 1,
    .has_cs = 1,
    .stop_time = 10.0,
    .step_size = 0.1,
    .tolerance = 1e-8,
    .nbounds = 1,
    .bounds = bounds,
    .init = init,
    .derivatives = derivatives,
    .outputs = outputs,
    .output_der = output_der,
};
