/* Mass half of the spring-mass oscillator of Scharff et al. (2017) and Moshagen (2017)
 * (doc/references.md (Scharff et al.), doc/references.md (Moshagen)): state v driven by the input
 * force f, v' = f / m (the physically right sign, as the notes decide); outputs v with v' = a = f /
 * m, the position x (x' = v, which is also the exact integral of the exchanged output v), the
 * acceleration a and the kinetic energy W = m v^2 / 2. doc/fmu.md. Read spring.c and springmass.c
 * next. */
#include "examples/fmus/framework/fw.h"

enum { M, V0, X0, F, V, X, A, W, DER_V, DER_X, PIN, POWER_IN, P_EPS, POWER, P_TURN, NV };

static const fw_var vars[NV] = {
    [M] = {"m", FW_PARAM, 0, -1, 1.0, "kg", "mass", NULL},
    [V0] = {"v0", FW_PARAM, 0, -1, 0.0, "m/s", "initial velocity", NULL},
    [X0] = {"x0", FW_PARAM, 0, -1, 1.0, "m", "initial position (= spring elongation s0)", NULL},
    [F] = {"f", FW_INPUT, 0, -1, -1.0, "N", "force on the mass (from spring)", NULL},
    [V] = {"v", FW_OUTPUT, 0, -1, 0, "m/s", "velocity (state)", NULL},
    [X] = {"x", FW_OUTPUT, 0, -1, 0, "m", "position (state, integral of v)", NULL},
    [A] = {"a", FW_OUTPUT, 0, -1, 0, "m/s2", "acceleration f / m", .depends = "f"},
    [W] = {"W", FW_OUTPUT, 0, -1, 0, "J", "kinetic energy m v^2 / 2", .depends = "v"},
    [DER_V] = {"der(v)", FW_LOCAL, 0, V, 0, "m/s2", "f / m", NULL},
    [DER_X] = {"der(x)", FW_LOCAL, 0, X, 0, "m/s", "v", NULL},
    /* Negotiated power exchange (Moshagen 2017): in power mode the force is rebuilt from the
     * agreed power p at every evaluation, f = p / v, so that the kinetic energy changes by
     * exactly p; near a zero of v (within 2 p_eps) it blends into the input f. */
    [PIN] = {"p", FW_INPUT, 0, -1, 0.0, "W", "agreed power into the mass (power mode)", NULL},
    [POWER_IN] = {"power_in", FW_PARAM, 0, -1, 0.0, "1", "1: force rebuilt from p", NULL},
    [P_EPS] = {"p_eps", FW_PARAM, 0, -1, 1e-3, "m/s",
               "|v| below which f is used (power law from 2 p_eps)", NULL},
    [POWER] = {"P", FW_OUTPUT, 0, -1, 0, "W", "power into the mass f v (input f)",
               .depends = "f v"},
    [P_TURN] = {"p_turn", FW_PARAM, 0, -1, 1e300, "m/s",
                "|v| below which a rebuilt input against the standard one's direction is "
                "replaced by it",
                NULL},
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
    r[POWER] = r[F] * r[V];
}

/* Weight of the power law near a zero of its divisor (see spring.c: the same choice). */
static double law_weight(double z, double eps)
{
    double x = fabs(z) / eps - 1;
    return x <= 0 ? 0 : x >= 1 ? 1 : x * x * (3 - 2 * x);
}

/* The force the mass feels: the input, or in power mode the one whose power equals the agreed
 * p (Moshagen 2017, eq. 22-23), blended with the input near v = 0. */
static double force(const double *r)
{
    if (r[POWER_IN] <= 0.5) return r[F];
    double w = law_weight(r[V], r[P_EPS]), f = w > 0 ? r[PIN] / r[V] : 0;
    if (f * r[F] < 0 && fabs(r[V]) < r[P_TURN]) return r[F]; /* the same rule as the spring's */
    return w * f + (1 - w) * r[F];
}

static void derivatives(fw_ctx *c)
{
    outputs(c);
    c->r[DER_V] = force(c->r) / c->r[M];
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
