/* Predator half of the Lotka-Volterra system of the Awais thesis §4.3.3 (doc/references.md
 * (Awais)): y' = -gamma y + delta x y with the prey x as input; output y. doc/fmu.md. Read
 * lv_prey.c for the other half and lv.c for the monolithic reference. */
#include "examples/fmus/framework/fw.h"

enum { GAMMA, DELTA, Y0, X, Y, DER_Y, NV };

static const fw_var vars[NV] = {
    [GAMMA] = {"gamma", FW_PARAM, 0, -1, 0.27, "1/s", "predator death rate", NULL},
    [DELTA] = {"delta", FW_PARAM, 0, -1, 0.6, "1/s", "predator growth per prey", NULL},
    [Y0] = {"y0", FW_PARAM, 0, -1, 1.0, NULL, "initial predator population", NULL},
    [X] = {"x", FW_INPUT, 0, -1, 1.0, NULL, "prey population (from lv_prey)", NULL},
    [Y] = {"y", FW_OUTPUT, 0, -1, 0, NULL, "predator population", NULL},
    [DER_Y] = {"der(y)", FW_LOCAL, 0, Y, 0, "1/s", "-gamma y + delta x y", NULL},
};

static void init(fw_ctx *c)
{
    c->r[Y] = c->r[Y0];
}

static void derivatives(fw_ctx *c)
{
    double *r = c->r;
    r[DER_Y] = -r[GAMMA] * r[Y] + r[DELTA] * r[X] * r[Y];
}

/* y' = y b, b = delta x - gamma; y'' = y' b + delta y x'; y''' = y'' b + 2 delta y' x' +
 * delta y x'' (x', x'' from the input derivatives). */
static int output_der(fw_ctx *c, unsigned vr, int order, double *value)
{
    const double *r = c->r;
    if (vr != Y) return -1;
    double b = r[DELTA] * r[X] - r[GAMMA], y = r[Y];
    double dx = fw_input_der(c, X, 1), ddx = fw_input_der(c, X, 2);
    double dy = y * b, ddy = dy * b + r[DELTA] * y * dx;
    *value = order == 1   ? dy
             : order == 2 ? ddy
                          : ddy * b + 2 * r[DELTA] * dy * dx + r[DELTA] * y * ddx;
    return 0;
}

const fw_model fw_model_def = {
    .id = "lv_predator",
    .description = "Lotka-Volterra predator half (state y, input x)",
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
