/* Position half of the Van der Pol oscillator split in two (the Awais thesis's case, mu = 1.53):
 * x' = y with the velocity y as input; output x. doc/fmu.md.
 * Read vdp_y.c for the other half and vanderpol.c for the monolithic reference. */
#include "examples/fmus/framework/fw.h"

enum { X0, Y, X, DER_X, MU, FORM, NV }; /* MU, FORM last: the references above stay */

static const fw_var vars[NV] = {
    [X0] = {"x0", FW_PARAM, 0, -1, 2.0, NULL, "initial x", NULL},
    [Y] = {"y", FW_INPUT, 0, -1, 0.0, NULL, "velocity-like state (from vdp_y)", NULL},
    [X] = {"x", FW_OUTPUT, 0, -1, 0, NULL, "position-like state", NULL},
    [DER_X] = {"der(x)", FW_LOCAL, 0, X, 0, NULL, "y (form 1: mu (x - x^3/3 - y))", NULL},
    [MU] = {"mu", FW_PARAM, 0, -1, 1.0, NULL, "damping parameter (form 1 only)", NULL},
    [FORM] = {"form", FW_PARAM, 0, -1, 0.0, NULL,
              "0: x' = y; 1: the Lienard form x' = mu (x - x^3/3 - y)", NULL},
};

static void init(fw_ctx *c)
{
    c->r[X] = c->r[X0];
}

static void derivatives(fw_ctx *c)
{
    double *r = c->r;
    r[DER_X] = r[FORM] > 0.5 ? r[MU] * (r[X] - r[X] * r[X] * r[X] / 3 - r[Y]) : r[Y];
}

/* x' = y, x'' = y' (from the input derivatives). */
static int output_der(fw_ctx *c, unsigned vr, int order, double *value)
{
    const double *r = c->r;
    if (vr != X) return -1;
    if (r[FORM] > 0.5) /* x'' = mu ((1 - x^2) x' - y') */
        *value =
            order == 1 ? r[DER_X] : r[MU] * ((1 - r[X] * r[X]) * r[DER_X] - fw_input_der(c, Y, 1));
    else
        *value = order == 1 ? r[Y] : fw_input_der(c, Y, order - 1);
    return 0;
}

const fw_model fw_model_def = {
    .id = "vdp_x",
    .description = "Van der Pol position half (state x, input y)",
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
