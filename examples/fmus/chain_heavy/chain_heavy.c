/* Heavy half of the two-mass chain of Scharff, Moshagen, Vondrejc (2017), eq. 14: a mass m1
 * on a spring k1 to the wall, pulled by the light mass's spring with the input force F
 * (doc/references.md (Scharff et al.)). State x1, v1 and the running integral xint of x1 (the
 * exact amount of the exchanged position for balance correction). With F unwired (held at 0)
 * and the defaults (m1 = 1, k1 = 4 pi^2, x10 = 1) it is the paper's moving ground of Test B,
 * x1 = cos(2 pi t). Rest lengths are 0 (the paper leaves them open). doc/example-fmus.md.
 * Read chain_light.c (the other half) next. */
#include "examples/fmus/framework/fw.h"

enum { M1, K1, X10, V10, F, X1, V1, XINT, A1, W, DER_X1, DER_V1, DER_XINT, NV };

static const fw_var vars[NV] = {
    [M1] = {"m1", FW_PARAM, 0, -1, 1.0, "kg", "heavy mass", NULL},
    [K1] = {"k1", FW_PARAM, 0, -1, 39.47841760435743, "N/m", "spring to the wall (4 pi^2)", NULL},
    [X10] = {"x10", FW_PARAM, 0, -1, 1.0, "m", "initial position", NULL},
    [V10] = {"v10", FW_PARAM, 0, -1, 0.0, "m/s", "initial velocity", NULL},
    [F] = {"F", FW_INPUT, 0, -1, 0.0, "N", "force of the light mass's spring on this mass", NULL},
    [X1] = {"x1", FW_OUTPUT, 0, -1, 0, "m", "position (state)", NULL},
    [V1] = {"v1", FW_OUTPUT, 0, -1, 0, "m/s", "velocity (state; the slope of x1)", NULL},
    [XINT] = {"xint", FW_OUTPUT, 0, -1, 0, "m.s", "integral of x1 since the start", NULL},
    [A1] = {"a1", FW_OUTPUT, 0, -1, 0, "m/s2", "acceleration (-k1 x1 + F) / m1 (slope of v1)",
            .depends = "x1 F"},
    [W] = {"W", FW_OUTPUT, 0, -1, 0, "J", "energy m1 v1^2 / 2 + k1 x1^2 / 2", .depends = "x1 v1"},
    [DER_X1] = {"der(x1)", FW_LOCAL, 0, X1, 0, "m/s", "v1", NULL},
    [DER_V1] = {"der(v1)", FW_LOCAL, 0, V1, 0, "m/s2", "a1", NULL},
    [DER_XINT] = {"der(xint)", FW_LOCAL, 0, XINT, 0, "m", "x1", NULL},
};

static void init(fw_ctx *c)
{
    c->r[X1] = c->r[X10];
    c->r[V1] = c->r[V10];
    c->r[XINT] = 0;
}

static void outputs(fw_ctx *c)
{
    double *r = c->r;
    r[A1] = (-r[K1] * r[X1] + r[F]) / r[M1];
    r[W] = 0.5 * r[M1] * r[V1] * r[V1] + 0.5 * r[K1] * r[X1] * r[X1];
}

static void derivatives(fw_ctx *c)
{
    outputs(c);
    c->r[DER_X1] = c->r[V1];
    c->r[DER_V1] = c->r[A1];
    c->r[DER_XINT] = c->r[X1];
}

const fw_model fw_model_def = {
    .id = "chain_heavy",
    .description = "Heavy mass of the two-mass chain (eq. 14 of Scharff et al.), input F",
    .nvars = NV,
    .vars = vars,
    .has_me = 1,
    .has_cs = 1,
    .stop_time = 10.0,
    .step_size = 0.02,
    .tolerance = 1e-10,
    .init = init,
    .derivatives = derivatives,
    .outputs = outputs,
};
