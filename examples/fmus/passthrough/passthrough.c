/* A direct feedthrough: no states, the output y equals the input u at every instant. Both
 * kinds. It shows the order at a communication point (set the inputs of t, read the outputs
 * of t, then step): a host that reads y before setting u(t) records u(t - h) instead
 * (tests/integration/inproc_same_test.c). doc/fmu.md; doc/example-fmus.md lists the models. */
#include "examples/fmus/framework/fw.h"

enum { U, Y, NV };

static const fw_var vars[NV] = {
    [U] = {"u", FW_INPUT, 0, -1, 0.0, NULL, "input", NULL},
    [Y] = {"y", FW_OUTPUT, 0, -1, 0, NULL, "output, y = u", .depends = "u"},
};

static void outputs(fw_ctx *c)
{
    c->r[Y] = c->r[U];
}

const fw_model fw_model_def = {
    .id = "passthrough",
    .description = "Passthrough: y = u (direct feedthrough)",
    .nvars = NV,
    .vars = vars,
    .has_me = 1,
    .has_cs = 1,
    .stop_time = 10.0,
    .step_size = 0.5,
    .tolerance = 1e-10,
    .outputs = outputs,
};
