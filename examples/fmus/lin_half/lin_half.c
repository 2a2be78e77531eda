/* One half of a 2-D linear system x' = A x split in two (Moshagen (2017) Test 1, eq. 14-15,
 * doc/references.md (Moshagen)): x' = a x + b u, the partner's state as input u. Outputs x, its
 * slope xdot = a x + b u (what linear extrapolation needs) and the running integral xint of x
 * (the amount for balance correction). doc/example-fmus.md. */
#include "examples/fmus/framework/fw.h"

enum { A, B, X0, U, X, XDOT, XINT, DER_X, DER_XINT, NV };

static const fw_var vars[NV] = {
    [A] = {"a", FW_PARAM, 0, -1, -1.0, "1/s", "own coefficient (a11 or a22)", NULL},
    [B] = {"b", FW_PARAM, 0, -1, 0.0, "1/s", "coupling coefficient (a12 or a21)", NULL},
    [X0] = {"x0", FW_PARAM, 0, -1, 1.0, "1", "initial value", NULL},
    [U] = {"u", FW_INPUT, 0, -1, 0.0, "1", "the partner's state", NULL},
    [X] = {"x", FW_OUTPUT, 0, -1, 0, "1", "state", NULL},
    [XDOT] = {"xdot", FW_OUTPUT, 0, -1, 0, "1/s", "a x + b u: the slope of x", .depends = "x u"},
    [XINT] = {"xint", FW_OUTPUT, 0, -1, 0, "s", "integral of x since the start", NULL},
    [DER_X] = {"der(x)", FW_LOCAL, 0, X, 0, "1/s", "a x + b u", NULL},
    [DER_XINT] = {"der(xint)", FW_LOCAL, 0, XINT, 0, "1", "x", NULL},
};

static void init(fw_ctx *c)
{
    c->r[X] = c->r[X0];
    c->r[XINT] = 0;
}

static void outputs(fw_ctx *c)
{
    c->r[XDOT] = c->r[A] * c->r[X] + c->r[B] * c->r[U];
}

static void derivatives(fw_ctx *c)
{
    outputs(c);
    c->r[DER_X] = c->r[XDOT];
    c->r[DER_XINT] = c->r[X];
}

const fw_model fw_model_def = {
    .id = "lin_half",
    .description = "One half of a split 2-D linear system, x' = a x + b u",
    .nvars = NV,
    .vars = vars,
    .has_me = 1,
    .has_cs = 1,
    .stop_time = 20.0,
    .step_size = 0.1,
    .tolerance = 1e-10,
    .init = init,
    .derivatives = derivatives,
    .outputs = outputs,
};
