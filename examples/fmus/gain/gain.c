/* A static gain with direct feedthrough, y = k u + c + s t, the one example FMU that provides
 * directional derivatives (dy/du = k): two of them wired in a loop are a linear algebraic
 * coupling on which the semi-implicit coupling's Newton with the Jacobian of eq. 5.12 from
 * fmi2GetDirectionalDerivative converges in one update (doc/algorithms/semi-implicit.md).
 * doc/example-fmus.md lists the models; examples/fmus/framework/fw.h the table below. */
#include "examples/fmus/framework/fw.h"

enum { K, C, S, U, Y, NV };

static const fw_var vars[NV] = {
    [K] = {"k", FW_PARAM, 0, -1, 1.0, NULL, "gain", NULL},
    [C] = {"c", FW_PARAM, 0, -1, 0.0, NULL, "offset", NULL},
    [S] = {"s", FW_PARAM, 0, -1, 0.0, "1/s", "slope of the offset in time", NULL},
    [U] = {"u", FW_INPUT, 0, -1, 0.0, NULL, "input", NULL},
    [Y] = {"y", FW_OUTPUT, 0, -1, 0, NULL, "k u + c + s t", .depends = "u"},
};

static void outputs(fw_ctx *c)
{
    c->r[Y] = c->r[K] * c->r[U] + c->r[C] + c->r[S] * c->t;
}

static int partial(fw_ctx *c, unsigned unknown, unsigned known, double *value)
{
    if (unknown != Y || known != U) return -1;
    *value = c->r[K];
    return 0;
}

const fw_model fw_model_def = {
    .id = "gain",
    .description = "Static gain y = k u + c + s t (directional derivatives)",
    .nvars = NV,
    .vars = vars,
    .has_me = 1,
    .has_cs = 1,
    .stop_time = 1.0,
    .step_size = 0.1,
    .tolerance = 1e-10,
    .outputs = outputs,
    .partial = partial,
};
