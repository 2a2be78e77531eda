/* Mass half of the spring-mass oscillator of Scharff et al. (2017) and Moshagen (2017)
 * (doc/references.md (Scharff et al.), doc/references.md (Moshagen)): state v driven by the input
 * force f, v' = f / m (the physically right sign, as the notes decide); outputs v with v' = a = f /
 * m, the position x (x' = v, which is also the exact integral of the exchanged output v), the
 * acceleration a and the kinetic energy W = m v^2 / 2. doc/fmu.md. Read spring.c and springmass.c
 * next. */
#include "examples/fmus/framework/fw.h"

enum { M, V0, X0, F, V, X, A, W, DER_V, DER_X, NV };

static const fw_var vars[NV] = {
    [M] = {"m", FW_PARAM, 0, -1, 1.0, "kg", "mass"},
    [V0] = {"v0", FW_PARAM, 0, -1, 0.0, "m/s", "initial velocity"},
    [X0] = {"x0", FW_PARAM, 0, -1, 1.0, "m", "initial position (= spring elongation s0)"},
    [F] = {"f", FW_INPUT, 0, -1, -1.0, "N", "force on the mass (from spring)"},
    [V] = {"v", FW_OUTPUT, 0, -1, 0, "m/s", "velocity (state)"},
    [X] = {"x", FW_OUTPUT, 0, -1, 0, "m", "position (state, integral of v)"},
    [A] = {"a", FW_OUTPUT, 0, -1, 0, "m/s2", "acceleration f / m"},
    [W] = {"W", FW_OUTPUT, 0, -1, 0, "J", "kinetic energy m v^2 / 2"},
    [DER_V] = {"der(v)", FW_LOCAL, 0, V, 0, "m/s2", "f / m"},
    [DER_X] = {"der(x)", FW_LOCAL, 0, X, 0, "m/s", "v"},
};

static void init(fw_ctx *c)
{
    c->r[V] = c->r[V0];
    c->r[X] = c->r[X0];
}

static void outputs(fw_ctx *c)
{
    double *r = c->r;
    r[A] = r[F] / r[M];
    r[W] = 0.5 * r[M] * r[V] * r[V];
}

static void derivatives(fw_ctx *c)
{
    outputs(c);
    c->r[DER_V] = c->r[A];
    c->r[DER_X] = c->r[V];
}

/* v^(n) = f^(n-1) / m, x^(n) = v^(n-1), a^(n) = f^(n) / m, W' = m v v' = v f,
 * W'' = v' f + v f'. */
static int output_der(fw_ctx *c, unsigned vr, int order, double *value)
{
    const double *r = c->r;
    double f[4] = {r[F], fw_input_der(c, F, 1), fw_input_der(c, F, 2), fw_input_der(c, F, 3)};
    double vn[4] = {r[V], f[0] / r[M], f[1] / r[M], f[2] / r[M]};
    if (vr == V)
        *value = vn[order];
    else if (vr == X)
        *value = vn[order - 1];
    else if (vr == A)
        *value = f[order] / r[M];
    else if (vr == W && order <= 2)
        *value = order == 1 ? vn[0] * f[0] : vn[1] * f[0] + vn[0] * f[1];
    else
        return -1;
    return 0;
}

const fw_model fw_model_def = {
    .id = "mass",
    .description = "Mass half of the spring-mass oscillator (state v, input f, output v)",
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
