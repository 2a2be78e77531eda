/* A stair: no states; the output y jumps by `height` at every t_start + k period (time
 * events through nextEventTime); optionally the model asks to terminate after n_max jumps.
 * Both kinds. doc/fmu.md. Read doc/example-fmus.md for the list of models. */
#include "examples/fmus/framework/fw.h"

enum { PERIOD, HEIGHT, Y0, NMAX, Y, N, T0, NV };

static const fw_var vars[NV] = {
    [PERIOD] = {"period", FW_PARAM, 0, -1, 1.0, "s", "time between two jumps (> 0)", NULL},
    [HEIGHT] = {"height", FW_PARAM, 0, -1, 1.0, NULL, "size of each jump", NULL},
    [Y0] = {"y0", FW_PARAM, 0, -1, 0.0, NULL, "value before the first jump", NULL},
    [NMAX] = {"n_max", FW_PARAM, 0, -1, 0.0, NULL,
              "terminate the simulation at the n_max-th jump (0: never)", NULL},
    [Y] = {"y", FW_OUTPUT, 1, -1, 0, NULL, "y0 + n height", .depends = ""},
    [N] = {"n", FW_OUTPUT, 1, -1, 0, NULL, "number of jumps so far", .depends = ""},
    [T0] = {"t0", FW_LOCAL, 1, -1, 0, "s", "start time (origin of the jump times)", NULL},
};

static void init(fw_ctx *c)
{
    c->r[N] = 0;
    c->r[T0] = c->t;
}

static void outputs(fw_ctx *c)
{
    c->r[Y] = c->r[Y0] + c->r[N] * c->r[HEIGHT];
}

static void event(fw_ctx *c, fw_event *ev)
{
    double *r = c->r;
    if (!(r[PERIOD] > 0)) {
        ev->next_time = INFINITY; /* a non-positive period means no jumps */
        return;
    }
    if (ev->time_event) {
        r[N] += 1;
        if (r[NMAX] > 0.5 && r[N] >= r[NMAX] - 0.5) ev->terminate = 1;
    }
    /* Computed from the count, not accumulated, so the jump times do not drift. */
    ev->next_time = r[T0] + (r[N] + 1) * r[PERIOD];
}

/* y is piecewise constant: its derivatives are 0 between the jumps. */
static int output_der(fw_ctx *c, unsigned vr, int order, double *value)
{
    if (vr != Y && vr != N) return -1;
    *value = 0.0;
    return 0;
}

const fw_model fw_model_def = {
    .id = "stair",
    .description = "Stair: time events every period",
    .nvars = NV,
    .vars = vars,
    .max_output_order = 1,
    .has_me = 1,
    .has_cs = 1,
    .stop_time = 10.0,
    .step_size = 0.5,
    .tolerance = 1e-10,
    .init = init,
    .outputs = outputs,
    .event = event,
    .output_der = output_der,
};
