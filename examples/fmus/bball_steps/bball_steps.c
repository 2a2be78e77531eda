/* The stairs of the bouncing-ball-on-stairs case split in two: no state; the stair height
 * drops by one each time the ball's x (input, from bball_ball) passes the edge of the
 * current stair (Alg. 6 with the erratum E9: x - (N + 1) + stair > 0), so the event that
 * starts in this federate changes the ball's equations in the other one.
 * doc/fmu.md. Read bball_stairs.c for the monolithic reference. */
#include "examples/fmus/framework/fw.h"

enum { NSTAIRS, X, STAIR, NV };

static const fw_var vars[NV] = {
    [NSTAIRS] = {"n", FW_PARAM, 0, -1, 10, NULL, "number of stairs (height of the top one)", NULL},
    [X] = {"x", FW_INPUT, 0, -1, 0.575, "m", "horizontal position of the ball", NULL},
    [STAIR] = {"stair", FW_OUTPUT, 1, -1, 0, "m", "height of the stair under the ball",
               .depends = "x"},
};

/* Edges are at x = 1, 2, 3, ...: the stair under x is N - (number of edges passed), the
 * closed form of Alg. 6's "stair <- stair - 1" applied once per edge. The ball only moves
 * forward (vx > 0 decays but never changes sign), so the form needs no memory. */
static void outputs(fw_ctx *c)
{
    double *r = c->r;
    double passed = r[X] > 1 ? ceil(r[X]) - 1 : 0;
    r[STAIR] = r[NSTAIRS] - passed;
}

/* Zero at every edge x = 1, 2, 3, ...: an ME host's root finding locates the instant the stair
 * drops (the hybrid master asks its slaves for the time of their events,
 * doc/algorithms/hybrid.md). The output itself stays the closed form above. */
static void indicators(fw_ctx *c, double *z)
{
    z[0] = sin(3.14159265358979323846 * c->r[X]);
}

const fw_model fw_model_def = {
    .id = "bball_steps",
    .description = "Bouncing ball on stairs: the stairs (input x)",
    .nvars = NV,
    .vars = vars,
    .has_me = 1,
    .has_cs = 0, /* ME only: the stiff contact (1e6) needs CVODE BDF, see doc/example-fmus.md */
    .stop_time = 30.0,
    .step_size = 0.01,
    .tolerance = 1e-8,
    .nz = 1,
    .outputs = outputs,
    .indicators = indicators,
};
