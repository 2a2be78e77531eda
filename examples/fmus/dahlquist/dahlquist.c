/* Dahlquist's test equation x' = k x, x(0) = x0, as an example FMU (both kinds); the exact
 * solution x0 exp(k t) makes it the first numerical check of any host. doc/fmu.md.
 * Read examples/fmus/framework/fw.h for the table below, doc/example-fmus.md for the list. */
#include "examples/fmus/framework/fw.h"

enum { K, X0, X, DER_X, NV };

static const fw_var vars[NV] = {
    [K] = {"k", FW_PARAM, 0, -1, -1.0, "1/s", "rate constant", NULL},
    [X0] = {"x0", FW_PARAM, 0, -1, 1.0, NULL, "initial value x(t_start)", NULL},
    [X] = {"x", FW_OUTPUT, 0, -1, 0, NULL, "the state", NULL},
    [DER_X] = {"der(x)", FW_LOCAL, 0, X, 0, "1/s", "k x", NULL},
};

static void init(fw_ctx *c)
{
    c->r[X] = c->r[X0];
}

static void derivatives(fw_ctx *c)
{
    c->r[DER_X] = c->r[K] * c->r[X];
}

/* d^n x / dt^n = k^n x. */
static int output_der(fw_ctx *c, unsigned vr, int order, double *value)
{
    if (vr != X) return -1;
    *value = pow(c->r[K], order) * c->r[X];
    return 0;
}

const fw_model fw_model_def = {
    .id = "dahlquist",
    .description = "Dahlquist test equation x' = k x",
    .nvars = NV,
    .vars = vars,
    .max_output_order = 3,
    .has_me = 1,
    .has_cs = 1,
    .stop_time = 1.0,
    .step_size = 0.1,
    .tolerance = 1e-10,
    .init = init,
    .derivatives = derivatives,
    .output_der = output_der,
};
