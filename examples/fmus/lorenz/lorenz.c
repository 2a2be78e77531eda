/* The whole Lorenz system x' = sigma (y - x), y' = x (rho - z) - y, z' = x y - beta z
 * (sigma = 10, rho = 28, beta = 8/3), the monolithic reference for lorenz_x + lorenz_yz.
 * doc/fmu.md. Read doc/example-fmus.md for the list of models. */
#include "examples/fmus/framework/fw.h"

enum { SIGMA, RHO, BETA, X0, Y0, Z0, X, Y, Z, DER_X, DER_Y, DER_Z, NV };

static const fw_var vars[NV] = {
    [SIGMA] = {"sigma", FW_PARAM, 0, -1, 10.0, NULL, "Prandtl number", NULL},
    [RHO] = {"rho", FW_PARAM, 0, -1, 28.0, NULL, "Rayleigh number", NULL},
    [BETA] = {"beta", FW_PARAM, 0, -1, 8.0 / 3.0, NULL, "geometric factor", NULL},
    [X0] = {"x0", FW_PARAM, 0, -1, 1.0, NULL, "initial x", NULL},
    [Y0] = {"y0", FW_PARAM, 0, -1, 1.0, NULL, "initial y", NULL},
    [Z0] = {"z0", FW_PARAM, 0, -1, 1.0, NULL, "initial z", NULL},
    [X] = {"x", FW_OUTPUT, 0, -1, 0, NULL, "x (state)", NULL},
    [Y] = {"y", FW_OUTPUT, 0, -1, 0, NULL, "y (state)", NULL},
    [Z] = {"z", FW_OUTPUT, 0, -1, 0, NULL, "z (state)", NULL},
    [DER_X] = {"der(x)", FW_LOCAL, 0, X, 0, NULL, "sigma (y - x)", NULL},
    [DER_Y] = {"der(y)", FW_LOCAL, 0, Y, 0, NULL, "x (rho - z) - y", NULL},
    [DER_Z] = {"der(z)", FW_LOCAL, 0, Z, 0, NULL, "x y - beta z", NULL},
};

static void init(fw_ctx *c)
{
    c->r[X] = c->r[X0];
    c->r[Y] = c->r[Y0];
    c->r[Z] = c->r[Z0];
}

static void derivatives(fw_ctx *c)
{
    double *r = c->r;
    r[DER_X] = r[SIGMA] * (r[Y] - r[X]);
    r[DER_Y] = r[X] * (r[RHO] - r[Z]) - r[Y];
    r[DER_Z] = r[X] * r[Y] - r[BETA] * r[Z];
}

/* Orders 1 and 2 by differentiating the right-hand side once more. */
static int output_der(fw_ctx *c, unsigned vr, int order, double *value)
{
    const double *r = c->r;
    double x = r[X], y = r[Y], z = r[Z], dx = r[DER_X], dy = r[DER_Y], dz = r[DER_Z];
    if (vr == X)
        *value = order == 1 ? dx : r[SIGMA] * (dy - dx);
    else if (vr == Y)
        *value = order == 1 ? dy : dx * (r[RHO] - z) - x * dz - dy;
    else if (vr == Z)
        *value = order == 1 ? dz : dx * y + x * dy - r[BETA] * dz;
    else
        return -1;
    return 0;
}

const fw_model fw_model_def = {
    .id = "lorenz",
    .description = "Lorenz system, monolithic",
    .nvars = NV,
    .vars = vars,
    .max_output_order = 2,
    .has_me = 1,
    .has_cs = 1,
    .stop_time = 10.0,
    .step_size = 0.01,
    .tolerance = 1e-10,
    .init = init,
    .derivatives = derivatives,
    .output_der = output_der,
};
