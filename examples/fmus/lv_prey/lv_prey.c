/* Prey half of the Lotka-Volterra system of the Awais thesis §4.3.3 (doc/references.md (Awais)):
 * x' = alpha x - beta x y with the predator y as input; output x. doc/fmu.md.
 * Read lv_predator.c for the other half and lv.c for the monolithic reference. */
#include "examples/fmus/framework/fw.h"

enum { ALPHA, BETA, X0, Y, X, DER_X, NV };

static const fw_var vars[NV] = {
    [ALPHA] = {"alpha", FW_PARAM, 0, -1, 0.5, "1/s", "prey growth rate", NULL},
    [BETA] = {"beta", FW_PARAM, 0, -1, 0.7, "1/s", "predation rate", NULL},
    [X0] = {"x0", FW_PARAM, 0, -1, 1.0, NULL, "initial prey population", NULL},
    [Y] = {"y", FW_INPUT, 0, -1, 1.0, NULL, "predator population (from lv_predator)", NULL},
    [X] = {"x", FW_OUTPUT, 0, -1, 0, NULL, "prey population", NULL},
    [DER_X] = {"der(x)", FW_LOCAL, 0, X, 0, "1/s", "alpha x - beta x y", NULL},
};

static void init(fw_ctx *c)
{
    c->r[X] = c->r[X0];
}

static void derivatives(fw_ctx *c)
{
    double *r = c->r;
    r[DER_X] = r[ALPHA] * r[X] - r[BETA] * r[X] * r[Y];
}

/* x' = x (alpha - beta y); x'' = x' (alpha - beta y) - beta x y' (y' from the input
 * derivatives); x''' = x'' (alpha - beta y) - 2 beta x' y' - beta x y''. */
static int output_der(fw_ctx *c, unsigned vr, int order, double *value)
{
    const double *r = c->r;
    if (vr != X) return -1;
    double a = r[ALPHA] - r[BETA] * r[Y], x = r[X];
    double dy = fw_input_der(c, Y, 1), ddy = fw_input_der(c, Y, 2);
    double dx = x * a, ddx = dx * a - r[BETA] * x * dy;
    *value = order == 1   ? dx
             : order == 2 ? ddx
                          : ddx * a - 2 * r[BETA] * dx * dy - r[BETA] * x * ddy;
    return 0;
}

const fw_model fw_model_def = {
    .id = "lv_prey",
    .description = "Lotka-Volterra prey half (state x, input y)",
    .nvars = NV,
    .vars = vars,
    .max_output_order = 3,
    .has_me = 1,
    .has_cs = 1,
    .stop_time = 60.0,
    .step_size = 0.5,
    .tolerance = 1e-10,
    .init = init,
    .derivatives = derivatives,
    .output_der = output_der,
};
