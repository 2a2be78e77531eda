/* The whole Lotka-Volterra system of the Awais thesis §4.3.3 (doc/references.md (Awais)), the
 * monolithic reference for lv_prey + lv_predator: x' = alpha x - beta x y,
 * y' = -gamma y + delta x y. doc/fmu.md. Read doc/example-fmus.md for the list. */
#include "examples/fmus/framework/fw.h"

enum { ALPHA, BETA, GAMMA, DELTA, X0, Y0, X, Y, DER_X, DER_Y, NV };

static const fw_var vars[NV] = {
    [ALPHA] = {"alpha", FW_PARAM, 0, -1, 0.5, "1/s", "prey growth rate", NULL},
    [BETA] = {"beta", FW_PARAM, 0, -1, 0.7, "1/s", "predation rate", NULL},
    [GAMMA] = {"gamma", FW_PARAM, 0, -1, 0.27, "1/s", "predator death rate", NULL},
    [DELTA] = {"delta", FW_PARAM, 0, -1, 0.6, "1/s", "predator growth per prey", NULL},
    [X0] = {"x0", FW_PARAM, 0, -1, 1.0, NULL, "initial prey population", NULL},
    [Y0] = {"y0", FW_PARAM, 0, -1, 1.0, NULL, "initial predator population", NULL},
    [X] = {"x", FW_OUTPUT, 0, -1, 0, NULL, "prey population", NULL},
    [Y] = {"y", FW_OUTPUT, 0, -1, 0, NULL, "predator population", NULL},
    [DER_X] = {"der(x)", FW_LOCAL, 0, X, 0, "1/s", "alpha x - beta x y", NULL},
    [DER_Y] = {"der(y)", FW_LOCAL, 0, Y, 0, "1/s", "-gamma y + delta x y", NULL},
};

static void init(fw_ctx *c)
{
    c->r[X] = c->r[X0];
    c->r[Y] = c->r[Y0];
}

static void derivatives(fw_ctx *c)
{
    double *r = c->r;
    r[DER_X] = r[ALPHA] * r[X] - r[BETA] * r[X] * r[Y];
    r[DER_Y] = -r[GAMMA] * r[Y] + r[DELTA] * r[X] * r[Y];
}

/* Orders 1 and 2: x'' = x' (alpha - beta y) - beta x y', y'' = y' (delta x - gamma) +
 * delta y x'. */
static int output_der(fw_ctx *c, unsigned vr, int order, double *value)
{
    const double *r = c->r;
    double x = r[X], y = r[Y], dx = r[DER_X], dy = r[DER_Y];
    if (vr == X)
        *value = order == 1 ? dx : dx * (r[ALPHA] - r[BETA] * y) - r[BETA] * x * dy;
    else if (vr == Y)
        *value = order == 1 ? dy : dy * (r[DELTA] * x - r[GAMMA]) + r[DELTA] * y * dx;
    else
        return -1;
    return 0;
}

const fw_model fw_model_def = {
    .id = "lv",
    .description = "Lotka-Volterra system, monolithic",
    .nvars = NV,
    .vars = vars,
    .max_output_order = 2,
    .has_me = 1,
    .has_cs = 1,
    .stop_time = 60.0,
    .step_size = 0.5,
    .tolerance = 1e-10,
    .init = init,
    .derivatives = derivatives,
    .output_der = output_der,
};
