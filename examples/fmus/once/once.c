/* x' = -x, output x, declaring canBeInstantiatedOnlyOncePerProcess="true": it stands for an
 * FMU that cannot share a process with another of its instances (one embedding an
 * interpreter, one with global state). Hosts must give each instance its own process or
 * refuse (doc/inproc.md). Both kinds. doc/example-fmus.md lists the models. */
#include "examples/fmus/framework/fw.h"

enum { X, DER_X, NV };

static const fw_var vars[NV] = {
    [X] = {"x", FW_OUTPUT, 0, -1, 0, NULL, "the state, x(0) = 1", NULL},
    [DER_X] = {"der(x)", FW_LOCAL, 0, X, 0, "1/s", "-x", NULL},
};

static void init(fw_ctx *c)
{
    c->r[X] = 1;
}

static void derivatives(fw_ctx *c)
{
    c->r[DER_X] = -c->r[X];
}

const fw_model fw_model_def = {
    .id = "once",
    .description = "x' = -x, one instance per process",
    .nvars = NV,
    .vars = vars,
    .has_me = 1,
    .has_cs = 1,
    .stop_time = 10.0,
    .step_size = 0.5,
    .tolerance = 1e-10,
    .init = init,
    .derivatives = derivatives,
    .once_per_process = 1,
};
