/* x-part of the Lorenz system split into two FMUs: x' = sigma (y - x) with y as input;
 * output x. doc/fmu.md. Read lorenz_yz.c (the other part) and lorenz.c (the whole). */
#include "examples/fmus/framework/fw.h"

enum { SIGMA, X0, Y, X, DER_X, NV };

static const fw_var vars[NV] = {
    [SIGMA] = {"sigma", FW_PARAM, 0, -1, 10.0, NULL, "Prandtl number", NULL},
    [X0] = {"x0", FW_PARAM, 0, -1, 1.0, NULL, "initial x", NULL},
    [Y] = {"y", FW_INPUT, 0, -1, 1.0, NULL, "y (from lorenz_yz)", NULL},
    [X] = {"x", FW_OUTPUT, 0, -1, 0, NULL, "x (state)", NULL},
    [DER_X] = {"der(x)", FW_LOCAL, 0, X, 0, NULL, "sigma (y - x)", NULL},
};

static void init(fw_ctx *c)
{
    c->r[X] = c->r[X0];
}

static void derivatives(fw_ctx *c)
{
    c->r[DER_X] = c->r[SIGMA] * (c->r[Y] - c->r[X]);
}

/* x^(n) = sigma (y^(n-1) - x^(n-1)). */
static int output_der(fw_ctx *c, unsigned vr, int order, double *value)
{
    if (vr != X) return -1;
    double x = c->r[X];
    for (int n = 1; n <= order; n++)
        x = c->r[SIGMA] * ((n == 1 ? c->r[Y] : fw_input_der(c, Y, n - 1)) - x);
    *value = x;
    return 0;
}

const fw_model fw_model_def = {
    .id = "lorenz_x",
    .description = "Lorenz system, x part (input y)",
    .nvars = NV,
    .vars = vars,
    .max_output_order = 3,
    .has_me = 1,
    .has_cs = 1,
    .stop_time = 10.0,
    .step_size = 0.01,
    .tolerance = 1e-10,
    .init = init,
    .derivatives = derivatives,
    .output_der = output_der,
};
