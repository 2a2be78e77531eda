/* Spring half of the spring-mass oscillator of Scharff et al. (2017) and Moshagen (2017)
 * (doc/references.md (Scharff et al.), doc/references.md (Moshagen)): state s (elongation) driven
 * by the input velocity v, s' = v; output the force f = -c s - d v with f' = -c v - d v'. Also the
 * cumulative impulse I_f = integral of f dt (an extra quadrature state: the exact integral of the
 * exchanged output that balance correction needs) and the stored energy W = c s^2 / 2. doc/fmu.md.
 * Read mass.c (the other half) and springmass.c (the reference) next. */
#include "examples/fmus/framework/fw.h"

enum { C, D, S0, V, F, W, IMPULSE, S, DER_S, DER_IMPULSE, FDOT, PIN, POWER_IN, P_EPS, POWER };
enum { P_TURN = POWER + 1, NV }; /* later additions: the value references above stay */

static const fw_var vars[NV] = {
    [C] = {"c", FW_PARAM, 0, -1, 1.0, "N/m", "spring stiffness", NULL},
    [D] = {"d", FW_PARAM, 0, -1, 0.0, "N.s/m", "damper in parallel (0 in the seeds)", NULL},
    [S0] = {"s0", FW_PARAM, 0, -1, 1.0, "m", "initial elongation (= mass position x0)", NULL},
    [V] = {"v", FW_INPUT, 0, -1, 0.0, "m/s", "velocity of the mass (from mass)", NULL},
    [F] = {"f", FW_OUTPUT, 0, -1, 0, "N", "force on the mass, -c s - d v", .depends = "s v"},
    [W] = {"W", FW_OUTPUT, 0, -1, 0, "J", "energy stored in the spring, c s^2 / 2", .depends = "s"},
    [IMPULSE] = {"impulse", FW_OUTPUT, 0, -1, 0, "N.s", "integral of f since the start", NULL},
    [S] = {"s", FW_OUTPUT, 0, -1, 0, "m", "elongation (state)", NULL},
    [DER_S] = {"der(s)", FW_LOCAL, 0, S, 0, "m/s", "v", NULL},
    [DER_IMPULSE] = {"der(impulse)", FW_LOCAL, 0, IMPULSE, 0, "N", "f", NULL},
    /* Last, so that the value references above stay as they were. */
    [FDOT] = {"fdot", FW_OUTPUT, 0, -1, 0, "N/s", "df/dt = -c v - d v' (v' 0 when not given)",
              .depends = "v"},
    /* Negotiated power exchange (Moshagen 2017): in power mode the velocity is rebuilt from
     * the agreed power p at every evaluation, v = p / (c s), so that the spring's energy
     * changes by exactly p; near a zero of c s (within 2 p_eps) it blends into the input v. */
    [PIN] = {"p", FW_INPUT, 0, -1, 0.0, "W", "agreed power into the spring (power mode)", NULL},
    [POWER_IN] = {"power_in", FW_PARAM, 0, -1, 0.0, "1", "1: velocity rebuilt from p", NULL},
    [P_EPS] = {"p_eps", FW_PARAM, 0, -1, 1e-3, "N",
               "|c s| below which v is used (power law from 2 p_eps)", NULL},
    [POWER] = {"P", FW_OUTPUT, 0, -1, 0, "W", "power into the spring c s v (input v)",
               .depends = "s v"},
    [P_TURN] = {"p_turn", FW_PARAM, 0, -1, 1e300, "N",
                "|c s| below which a rebuilt input against the standard one's direction is "
                "replaced by it",
                NULL},
};

static void init(fw_ctx *c)
{
    c->r[S] = c->r[S0];
    c->r[IMPULSE] = 0;
}

static void outputs(fw_ctx *c)
{
    double *r = c->r;
    r[F] = -r[C] * r[S] - r[D] * r[V];
    r[W] = 0.5 * r[C] * r[S] * r[S];
    /* The force's slope as an output, for a model-exchange host, which has no output
     * derivatives of non-states: what Hermite (linear) extrapolation of f needs. */
    r[FDOT] = -r[C] * r[V] - r[D] * fw_input_der(c, V, 1);
    r[POWER] = r[C] * r[S] * r[V];
}

/* Weight of the power law near a zero of its divisor z: 1 for |z| >= 2 eps, 0 for |z| <= eps,
 * a C1 smoothstep between (our choice where Moshagen 2017 only says "d'Hopital's rule"): the
 * inverted law is exact away from the band and bounded inside it, and the right-hand side
 * stays smooth enough for CVODE. */
static double law_weight(double z, double eps)
{
    double x = fabs(z) / eps - 1;
    return x <= 0 ? 0 : x >= 1 ? 1 : x * x * (3 - 2 * x);
}

/* The velocity the spring integrates: the input, or in power mode the one whose power equals
 * the agreed p (Moshagen 2017, eq. 22-23), blended with the input near s = 0. */
static double velocity(const double *r)
{
    if (r[POWER_IN] <= 0.5) return r[V];
    double cs = r[C] * r[S], w = law_weight(cs, r[P_EPS]), v = w > 0 ? r[PIN] / cs : 0;
    /* Near a crossing the agreed power may not yet have changed sign: the law would turn the
     * motion back. Keep the input's direction there (within p_turn of the zero: a master
     * that lands the crossings makes the rule needless far from it, where it would only
     * follow the partner's extrapolated zero instead of the agreed power's). */
    if (v * r[V] < 0 && fabs(cs) < r[P_TURN]) return r[V];
    return w * v + (1 - w) * r[V];
}

static void derivatives(fw_ctx *c)
{
    outputs(c);
    c->r[DER_S] = velocity(c->r);
    c->r[DER_IMPULSE] = c->r[F];
}

/* f^(n) = -c v^(n-1) - d v^(n); s^(n) = v^(n-1); W' = c s v, W'' = c (v^2 + s v');
 * impulse^(n) = f^(n-1). */
static int output_der(fw_ctx *c, unsigned vr, int order, double *value)
{
    const double *r = c->r;
    double v[4] = {r[V], fw_input_der(c, V, 1), fw_input_der(c, V, 2), fw_input_der(c, V, 3)};
    double fn[4];
    fn[0] = r[F];
    for (int n = 1; n <= 3; n++)
        fn[n] = -r[C] * v[n - 1] - r[D] * v[n];
    if (vr == F)
        *value = fn[order];
    else if (vr == S)
        *value = v[order - 1];
    else if (vr == IMPULSE)
        *value = fn[order - 1];
    else if (vr == W && order <= 2)
        *value = order == 1 ? r[C] * r[S] * v[0] : r[C] * (v[0] * v[0] + r[S] * v[1]);
    else
        return -1;
    return 0;
}

const fw_model fw_model_def = {
    .id = "spring",
    .description = "Spring half of the spring-mass oscillator (state s, input v, output f)",
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
