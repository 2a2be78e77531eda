/* The whole spring-mass oscillator of Scharff et al. (2017) and Moshagen (2017) (doc/references.md
 * (Scharff et al.)), the monolithic reference for spring + mass: x' = v, v' = (-c x - d v) / m;
 * outputs x, v, the spring force f and the total energy E = m v^2 / 2 + c x^2 / 2. doc/fmu.md. Read
 * doc/example-fmus.md for the closed-form solution used by the tests. */
#include "examples/fmus/framework/fw.h"

enum { M, C, D, X0, V0, X, V, F, E, DER_X, DER_V, NV };

static const fw_var vars[NV] = {
    [M] = {"m", FW_PARAM, 0, -1, 1.0, "kg", "mass", NULL},
    [C] = {"c", FW_PARAM, 0, -1, 1.0, "N/m", "spring stiffness", NULL},
    [D] = {"d", FW_PARAM, 0, -1, 0.0, "N.s/m", "damping", NULL},
    [X0] = {"x0", FW_PARAM, 0, -1, 1.0, "m", "initial position", NULL},
    [V0] = {"v0", FW_PARAM, 0, -1, 0.0, "m/s", "initial velocity", NULL},
    [X] = {"x", FW_OUTPUT, 0, -1, 0, "m", "position (state)", NULL},
    [V] = {"v", FW_OUTPUT, 0, -1, 0, "m/s", "velocity (state)", NULL},
    [F] = {"f", FW_OUTPUT, 0, -1, 0, "N", "spring and damper force -c x - d v", .depends = "x v"},
    [E] = {"E", FW_OUTPUT, 0, -1, 0, "J", "total energy", .depends = "x v"},
    [DER_X] = {"der(x)", FW_LOCAL, 0, X, 0, "m/s", "v", NULL},
    [DER_V] = {"der(v)", FW_LOCAL, 0, V, 0, "m/s2", "f / m", NULL},
};

static void init(fw_ctx *c)
{
    c->r[X] = c->r[X0];
    c->r[V] = c->r[V0];
}

static void outputs(fw_ctx *c)
{
    double *r = c->r;
    r[F] = -r[C] * r[X] - r[D] * r[V];
    r[E] = 0.5 * r[M] * r[V] * r[V] + 0.5 * r[C] * r[X] * r[X];
}

static void derivatives(fw_ctx *c)
{
    outputs(c);
    c->r[DER_X] = c->r[V];
    c->r[DER_V] = c->r[F] / c->r[M];
}

/* Linear: [x, v]^(n) = A^n [x, v]; f^(n) = -c x^(n) - d v^(n); E' = -d v^2,
 * E'' = -2 d v v'. */
static int output_der(fw_ctx *c, unsigned vr, int order, double *value)
{
    const double *r = c->r;
    double x = r[X], v = r[V];
    for (int n = 1; n <= order; n++) {
        double a = (-r[C] * x - r[D] * v) / r[M];
        x = v;
        v = a;
    }
    if (vr == X)
        *value = x;
    else if (vr == V)
        *value = v;
    else if (vr == F)
        *value = -r[C] * x - r[D] * v;
    else if (vr == E)
        *value = order == 1 ? -r[D] * r[V] * r[V] : -2 * r[D] * r[V] * r[DER_V];
    else
        return -1;
    return 0;
}

const fw_model fw_model_def = {
    .id = "springmass",
    .description = "Spring-mass oscillator, monolithic",
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
    .outputs = outputs,
    .output_der = output_der,
};
