/* Velocity half of the Van der Pol oscillator split in two (the Awais thesis's case, mu = 1.53):
 * y' = mu (1 - x^2) y - x with the position x as input; output y. doc/fmu.md.
 * Read vdp_x.c for the other half and vanderpol.c for the monolithic reference. */
#include "examples/fmus/framework/fw.h"

enum { MU, Y0, X, Y, DER_Y, FORM, NV }; /* FORM last: the references above stay */

static const fw_var vars[NV] = {
    [MU] = {"mu", FW_PARAM, 0, -1, 1.0, NULL, "damping parameter", NULL},
    [Y0] = {"y0", FW_PARAM, 0, -1, 0.0, NULL, "initial y", NULL},
    [X] = {"x", FW_INPUT, 0, -1, 2.0, NULL, "position-like state (from vdp_x)", NULL},
    [Y] = {"y", FW_OUTPUT, 0, -1, 0, NULL, "velocity-like state", NULL},
    [DER_Y] = {"der(y)", FW_LOCAL, 0, Y, 0, NULL, "mu (1 - x^2) y - x (form 1: x / mu)", NULL},
    [FORM] = {"form", FW_PARAM, 0, -1, 0.0, NULL,
              "0: y' = mu (1 - x^2) y - x; 1: the Lienard form y' = x / mu", NULL},
};

static void init(fw_ctx *c)
{
    c->r[Y] = c->r[Y0];
}

static void derivatives(fw_ctx *c)
{
    double *r = c->r;
    r[DER_Y] = r[FORM] > 0.5 ? r[X] / r[MU] : r[MU] * (1 - r[X] * r[X]) * r[Y] - r[X];
}

/* y' = f(x, y); y'' = mu (-2 x x' y + (1 - x^2) y') - x' with x' from the input derivatives. */
static int output_der(fw_ctx *c, unsigned vr, int order, double *value)
{
    const double *r = c->r;
    if (vr != Y) return -1;
    double x = r[X], y = r[Y], dy = r[DER_Y], dx = fw_input_der(c, X, 1);
    if (r[FORM] > 0.5)
        *value = order == 1 ? dy : dx / r[MU];
    else
        *value = order == 1 ? dy : r[MU] * (-2 * x * dx * y + (1 - x * x) * dy) - dx;
    return 0;
}

const fw_model fw_model_def = {
    .id = "vdp_y",
    .description = "Van der Pol velocity half (state y, input x)",
    .nvars = NV,
    .vars = vars,
    .max_output_order = 2,
    .has_me = 1,
    .has_cs = 1,
    .stop_time = 20.0,
    .step_size = 0.3,
    .tolerance = 1e-10,
    .init = init,
    .derivatives = derivatives,
    .output_der = output_der,
};
