/* Van der Pol oscillator x' = y, y' = mu (1 - x^2) y - x as an example FMU (both kinds), or
 * with form = 1 the Lienard form of the Awais thesis's eq. 6.9, x' = mu (x - x^3/3 - y),
 * y' = x / mu;
 * checked against a tight CVODE run by the loader's tests. doc/fmu.md.
 * Read examples/fmus/framework/fw.h for the table below, doc/example-fmus.md for the list. */
#include "examples/fmus/framework/fw.h"

enum { MU, X0, Y0, X, Y, DER_X, DER_Y, FORM, NV }; /* FORM last: the references above stay */

static const fw_var vars[NV] = {
    [MU] = {"mu", FW_PARAM, 0, -1, 1.0, NULL, "damping parameter", NULL},
    [X0] = {"x0", FW_PARAM, 0, -1, 2.0, NULL, "initial x", NULL},
    [Y0] = {"y0", FW_PARAM, 0, -1, 0.0, NULL, "initial y", NULL},
    [X] = {"x", FW_OUTPUT, 0, -1, 0, NULL, "position-like state", NULL},
    [Y] = {"y", FW_OUTPUT, 0, -1, 0, NULL, "velocity-like state", NULL},
    [DER_X] = {"der(x)", FW_LOCAL, 0, X, 0, NULL, "y", NULL},
    [DER_Y] = {"der(y)", FW_LOCAL, 0, Y, 0, NULL, "mu (1 - x^2) y - x (form 1: x / mu)", NULL},
    [FORM] = {"form", FW_PARAM, 0, -1, 0.0, NULL,
              "0: x' = y, y' = mu (1 - x^2) y - x; 1: the Lienard form x' = mu (x - x^3/3 - y), "
              "y' = x / mu",
              NULL},
};

static void init(fw_ctx *c)
{
    c->r[X] = c->r[X0];
    c->r[Y] = c->r[Y0];
}

static void derivatives(fw_ctx *c)
{
    double *r = c->r;
    if (r[FORM] > 0.5) {
        r[DER_X] = r[MU] * (r[X] - r[X] * r[X] * r[X] / 3 - r[Y]);
        r[DER_Y] = r[X] / r[MU];
        return;
    }
    r[DER_X] = r[Y];
    r[DER_Y] = r[MU] * (1 - r[X] * r[X]) * r[Y] - r[X];
}

/* Orders 1 and 2: x' = y, y' = f; x'' = y', y'' = mu (-2 x x' y + (1 - x^2) y') - x'.
 * Form 1: x'' = mu ((1 - x^2) x' - y'), y'' = x' / mu. */
static int output_der(fw_ctx *c, unsigned vr, int order, double *value)
{
    const double *r = c->r;
    double x = r[X], y = r[Y], dx = r[DER_X], dy = r[DER_Y];
    int lienard = r[FORM] > 0.5;
    double ddx = lienard ? r[MU] * ((1 - x * x) * dx - dy) : dy;
    double ddy = lienard ? dx / r[MU] : r[MU] * (-2 * x * dx * y + (1 - x * x) * dy) - dx;
    if (vr == X)
        *value = order == 1 ? dx : ddx;
    else if (vr == Y)
        *value = order == 1 ? dy : ddy;
    else
        return -1;
    return 0;
}

const fw_model fw_model_def = {
    .id = "vanderpol",
    .description = "Van der Pol oscillator",
    .nvars = NV,
    .vars = vars,
    .max_output_order = 2,
    .has_me = 1,
    .has_cs = 1,
    .stop_time = 20.0,
    .step_size = 0.1,
    .tolerance = 1e-10,
    .init = init,
    .derivatives = derivatives,
    .output_der = output_der,
};
