/* The speed controller of the F3ORNITS speed-control case (Éguillon et al. (2021) §4.1; our
 * parameters): input the car's position x_in, output the force F. Until t_switch it pushes a
 * constant F0; from then on F = K (v_target - v) with v the time derivative of its position
 * input: the derivative of the input polynomial the host set (fmi2SetRealInputDerivatives),
 * so 0 when inputs are held constant over a step (ZOH), which is what makes ZOH Jacobi fail.
 * Co-simulation only (a model-exchange host gives no input derivatives). doc/example-fmus.md. */
#include "examples/fmus/framework/fw.h"

enum { F0, TSW, VT, K, X_IN, F, V_SEEN, NV };

static const fw_var vars[NV] = {
    [F0] = {"F0", FW_PARAM, 0, -1, 1500.0, "N", "force pushed before t_switch", NULL},
    [TSW] = {"t_switch", FW_PARAM, 0, -1, 10.0, "s", "time the speed control starts", NULL},
    [VT] = {"v_target", FW_PARAM, 0, -1, 20.0, "m/s", "target speed", NULL},
    [K] = {"K", FW_PARAM, 0, -1, 500.0, "N.s/m", "proportional gain on the speed", NULL},
    [X_IN] = {"x_in", FW_INPUT, 0, -1, 0.0, "m", "position of the car", NULL},
    [F] = {"F", FW_OUTPUT, 0, -1, 0, "N", "traction force", .depends = "x_in"},
    [V_SEEN] = {"v_seen", FW_OUTPUT, 0, -1, 0, "m/s",
                "the speed the controller sees: d x_in / dt of the input polynomial",
                .depends = "x_in"},
};

static void outputs(fw_ctx *c)
{
    double v = fw_input_der(c, X_IN, 1);
    c->r[V_SEEN] = v;
    c->r[F] = c->t < c->r[TSW] ? c->r[F0] : c->r[K] * (c->r[VT] - v);
}

const fw_model fw_model_def = {
    .id = "speedctl",
    .description = "Speed controller (F3ORNITS speed-control case): input x_in, output F",
    .nvars = NV,
    .vars = vars,
    .has_me = 0,
    .has_cs = 1,
    .stop_time = 60.0,
    .step_size = 0.1,
    .tolerance = 1e-10,
    .outputs = outputs,
};
