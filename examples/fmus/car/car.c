/* The car of the speed-control case of F3ORNITS (Éguillon et al. (2021) §4.1; our parameters,
 * the paper's are lost): a point mass on a straight road, M x'' = F, input the force F, outputs
 * the position x and the speed v. doc/example-fmus.md. Read speedctl.c (its controller) next. */
#include "examples/fmus/framework/fw.h"

enum { M, X0, V0, F, X, V, DER_X, DER_V, NV };

static const fw_var vars[NV] = {
    [M] = {"M", FW_PARAM, 0, -1, 1000.0, "kg", "mass of the car", NULL},
    [X0] = {"x0", FW_PARAM, 0, -1, 0.0, "m", "initial position", NULL},
    [V0] = {"v0", FW_PARAM, 0, -1, 0.0, "m/s", "initial speed", NULL},
    [F] = {"F", FW_INPUT, 0, -1, 0.0, "N", "traction force (from the controller)", NULL},
    [X] = {"x", FW_OUTPUT, 0, -1, 0, "m", "position (state)", NULL},
    [V] = {"v", FW_OUTPUT, 0, -1, 0, "m/s", "speed (state)", NULL},
    [DER_X] = {"der(x)", FW_LOCAL, 0, X, 0, "m/s", "v; derivative of x", NULL},
    [DER_V] = {"der(v)", FW_LOCAL, 0, V, 0, "m/s2", "F / M; derivative of v", NULL},
};

static void init(fw_ctx *c)
{
    c->r[X] = c->r[X0];
    c->r[V] = c->r[V0];
}

static void derivatives(fw_ctx *c)
{
    c->r[DER_X] = c->r[V];
    c->r[DER_V] = c->r[F] / c->r[M];
}

/* x' = v, x'' = F / M, x''' = F' / M (the input's derivative); v^(n) = F^(n-1) / M. */
static int output_der(fw_ctx *c, unsigned vr, int order, double *value)
{
    if (vr != X && vr != V) return -1;
    int n = vr == X ? order - 1 : order; /* order of the derivative of v wanted */
    if (n == 0)
        *value = c->r[V];
    else
        *value = (n == 1 ? c->r[F] : fw_input_der(c, F, n - 1)) / c->r[M];
    return 0;
}

const fw_model fw_model_def = {
    .id = "car",
    .description = "Car on a straight road (F3ORNITS speed-control case): input F, outputs x, v",
    .nvars = NV,
    .vars = vars,
    .max_output_order = 2,
    .has_me = 1,
    .has_cs = 1,
    .stop_time = 60.0,
    .step_size = 0.1,
    .tolerance = 1e-10,
    .init = init,
    .derivatives = derivatives,
    .output_der = output_der,
};
