/* Light half of the two-mass chain of Scharff, Moshagen, Vondrejc (2017), eq. 14, and the
 * spring-mass on moving ground of their eq. 15 (Test B): a mass m2 on a spring k2 whose other
 * end is the anchor at xa (the heavy mass, or the ground), d = 0 (doc/references.md (Scharff et
 * al.)). State x2, v2 and the running integral of the force it sends back, F = k2 (x2 - xa)
 * (the pull on the anchor). Its slope Fdot = k2 (v2 - va) needs the anchor's velocity va as a
 * second input (model exchange gives an FMU no input derivatives). Defaults m2 = 0.0005,
 * k2 = 5 (eigenfrequency 100 rad/s), relaxed at x2 = 1. doc/example-fmus.md. */
#include "examples/fmus/framework/fw.h"

enum { M2, K2, X20, V20, XA, VA, X2, V2, F, FDOT, IMPULSE, W, DER_X2, DER_V2, DER_IMP, NV };

static const fw_var vars[NV] = {
    [M2] = {"m2", FW_PARAM, 0, -1, 0.0005, "kg", "light mass", NULL},
    [K2] = {"k2", FW_PARAM, 0, -1, 5.0, "N/m", "spring to the anchor", NULL},
    [X20] = {"x20", FW_PARAM, 0, -1, 1.0, "m", "initial position (relaxed: = anchor's)", NULL},
    [V20] = {"v20", FW_PARAM, 0, -1, 0.0, "m/s", "initial velocity", NULL},
    [XA] = {"xa", FW_INPUT, 0, -1, 1.0, "m", "anchor position (heavy mass or ground)", NULL},
    [VA] = {"va", FW_INPUT, 0, -1, 0.0, "m/s", "anchor velocity (only for Fdot)", NULL},
    [X2] = {"x2", FW_OUTPUT, 0, -1, 0, "m", "position (state)", NULL},
    [V2] = {"v2", FW_OUTPUT, 0, -1, 0, "m/s", "velocity (state)", NULL},
    [F] = {"F", FW_OUTPUT, 0, -1, 0, "N", "pull on the anchor k2 (x2 - xa)", .depends = "x2 xa"},
    [FDOT] = {"Fdot", FW_OUTPUT, 0, -1, 0, "N/s", "k2 (v2 - va): the slope of F",
              .depends = "v2 va"},
    [IMPULSE] = {"impulse", FW_OUTPUT, 0, -1, 0, "N.s", "integral of F since the start", NULL},
    [W] = {"W", FW_OUTPUT, 0, -1, 0, "J", "energy m2 v2^2 / 2 + k2 (x2 - xa)^2 / 2",
           .depends = "x2 v2 xa"},
    [DER_X2] = {"der(x2)", FW_LOCAL, 0, X2, 0, "m/s", "v2", NULL},
    [DER_V2] = {"der(v2)", FW_LOCAL, 0, V2, 0, "m/s2", "-F / m2", NULL},
    [DER_IMP] = {"der(impulse)", FW_LOCAL, 0, IMPULSE, 0, "N", "F", NULL},
};

static void init(fw_ctx *c)
{
    c->r[X2] = c->r[X20];
    c->r[V2] = c->r[V20];
    c->r[IMPULSE] = 0;
}

static void outputs(fw_ctx *c)
{
    double *r = c->r, e = r[X2] - r[XA];
    r[F] = r[K2] * e;
    r[FDOT] = r[K2] * (r[V2] - r[VA]);
    r[W] = 0.5 * r[M2] * r[V2] * r[V2] + 0.5 * r[K2] * e * e;
}

static void derivatives(fw_ctx *c)
{
    outputs(c);
    c->r[DER_X2] = c->r[V2];
    c->r[DER_V2] = -c->r[F] / c->r[M2];
    c->r[DER_IMP] = c->r[F];
}

const fw_model fw_model_def = {
    .id = "chain_light",
    .description = "Light mass of the two-mass chain (eq. 14 and 15 of Scharff et al.)",
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
