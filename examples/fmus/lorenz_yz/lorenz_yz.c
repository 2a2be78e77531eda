/* (y, z)-part of the Lorenz system split into two FMUs: y' = x (rho - z) - y,
 * z' = x y - beta z with x as input; outputs y and z. doc/fmu.md.
 * Read lorenz_x.c (the other part) and lorenz.c (the whole). */
#include "examples/fmus/framework/fw.h"

enum { RHO, BETA, Y0, Z0, X, Y, Z, DER_Y, DER_Z, NV };

static const fw_var vars[NV] = {
    [RHO] = {"rho", FW_PARAM, 0, -1, 28.0, NULL, "Rayleigh number", NULL},
    [BETA] = {"beta", FW_PARAM, 0, -1, 8.0 / 3.0, NULL, "geometric factor", NULL},
    [Y0] = {"y0", FW_PARAM, 0, -1, 1.0, NULL, "initial y", NULL},
    [Z0] = {"z0", FW_PARAM, 0, -1, 1.0, NULL, "initial z", NULL},
    [X] = {"x", FW_INPUT, 0, -1, 1.0, NULL, "x (from lorenz_x)", NULL},
    [Y] = {"y", FW_OUTPUT, 0, -1, 0, NULL, "y (state)", NULL},
    [Z] = {"z", FW_OUTPUT, 0, -1, 0, NULL, "z (state)", NULL},
    [DER_Y] = {"der(y)", FW_LOCAL, 0, Y, 0, NULL, "x (rho - z) - y", NULL},
    [DER_Z] = {"der(z)", FW_LOCAL, 0, Z, 0, NULL, "x y - beta z", NULL},
};

static void init(fw_ctx *c)
{
    c->r[Y] = c->r[Y0];
    c->r[Z] = c->r[Z0];
}

static void derivatives(fw_ctx *c)
{
    double *r = c->r;
    r[DER_Y] = r[X] * (r[RHO] - r[Z]) - r[Y];
    r[DER_Z] = r[X] * r[Y] - r[BETA] * r[Z];
}

/* Orders 1 and 2: y'' = x' (rho - z) - x z' - y', z'' = x' y + x y' - beta z'. */
static int output_der(fw_ctx *c, unsigned vr, int order, double *value)
{
    const double *r = c->r;
    double x = r[X], y = r[Y], z = r[Z], dy = r[DER_Y], dz = r[DER_Z];
    double dx = fw_input_der(c, X, 1);
    if (vr == Y)
        *value = order == 1 ? dy : dx * (r[RHO] - z) - x * dz - dy;
    else if (vr == Z)
        *value = order == 1 ? dz : dx * y + x * dy - r[BETA] * dz;
    else
        return -1;
    return 0;
}

const fw_model fw_model_def = {
    .id = "lorenz_yz",
    .description = "Lorenz system, (y, z) part (input x)",
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
