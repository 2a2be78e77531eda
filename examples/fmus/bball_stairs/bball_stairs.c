/* Bouncing ball going down stairs, the whole system in one FMU: the monolithic reference of
 * the split pair bball_ball + bball_steps (the Awais thesis eq. 5.23 and Alg. 6 with the constants
 * of doc/references.md (Awais): g 9.8, c0 = c1 = 0.1, c2 1e6, c3 30, N 10, x0 0.575, vx0 0.5,
 * y0 10.5). doc/fmu.md. Read bball_ball.c and bball_steps.c for the split. */
#include "examples/fmus/framework/fw.h"

enum {
    G,
    C0,
    C1,
    C2,
    C3,
    NSTAIRS,
    X0,
    VX0,
    Y0,
    X,
    VX,
    Y,
    VY,
    STAIR,
    CONTACT,
    DER_X,
    DER_VX,
    DER_Y,
    DER_VY,
    NV
};

static const fw_var vars[NV] = {
    [G] = {"g", FW_PARAM, 0, -1, 9.8, "m/s2", "gravity acceleration", NULL},
    [C0] = {"c0", FW_PARAM, 0, -1, 0.1, "1/s", "horizontal air friction", NULL},
    [C1] = {"c1", FW_PARAM, 0, -1, 0.1, "1/s", "vertical air friction", NULL},
    [C2] = {"c2", FW_PARAM, 0, -1, 1e6, "1/s2", "contact stiffness per unit mass", NULL},
    [C3] = {"c3", FW_PARAM, 0, -1, 30, "1/s", "contact damping per unit mass", NULL},
    [NSTAIRS] = {"n", FW_PARAM, 0, -1, 10, NULL, "number of stairs (height of the top one)", NULL},
    [X0] = {"x0", FW_PARAM, 0, -1, 0.575, "m", "initial horizontal position", NULL},
    [VX0] = {"vx0", FW_PARAM, 0, -1, 0.5, "m/s", "initial horizontal velocity", NULL},
    [Y0] = {"y0", FW_PARAM, 0, -1, 10.5, "m", "initial height", NULL},
    [X] = {"x", FW_OUTPUT, 0, -1, 0, "m", "horizontal position", NULL},
    [VX] = {"vx", FW_LOCAL, 0, -1, 0, "m/s", "horizontal velocity", NULL},
    [Y] = {"y", FW_OUTPUT, 0, -1, 0, "m", "height", NULL},
    [VY] = {"vy", FW_LOCAL, 0, -1, 0, "m/s", "vertical velocity", NULL},
    [STAIR] = {"stair", FW_OUTPUT, 1, -1, 0, "m", "height of the stair under the ball",
               .depends = "x"},
    [CONTACT] = {"contact", FW_LOCAL, 0, -1, 0, NULL, "1 while the ball is below the stair", NULL},
    [DER_X] = {"der(x)", FW_LOCAL, 0, X, 0, "m/s", "vx", NULL},
    [DER_VX] = {"der(vx)", FW_LOCAL, 0, VX, 0, "m/s2", "-c0 vx", NULL},
    [DER_Y] = {"der(y)", FW_LOCAL, 0, Y, 0, "m/s", "vy", NULL},
    [DER_VY] = {"der(vy)", FW_LOCAL, 0, VY, 0, "m/s2",
                "-g - c1 vy - contact ((y - stair) c2 + c3 vy)", NULL},
};

static void init(fw_ctx *c)
{
    double *r = c->r;
    r[X] = r[X0], r[VX] = r[VX0], r[Y] = r[Y0], r[VY] = 0;
    r[STAIR] = r[NSTAIRS];
}

/* Contact is a function of the state (y below the stair), not a discrete memory: the
 * indicator y - stair only makes the integrator stop where the force law changes. */
static void derivatives(fw_ctx *c)
{
    double *r = c->r;
    r[CONTACT] = r[Y] < r[STAIR];
    r[DER_X] = r[VX];
    r[DER_VX] = -r[C0] * r[VX];
    r[DER_Y] = r[VY];
    r[DER_VY] = -r[G] - r[C1] * r[VY] - r[CONTACT] * ((r[Y] - r[STAIR]) * r[C2] + r[C3] * r[VY]);
}

/* z0: contact switch; z1: the ball passes the edge of the current stair (Alg. 6 with the
 * erratum of doc/references.md (Awais): x - (N + 1) + stair > 0). */
static void indicators(fw_ctx *c, double *z)
{
    const double *r = c->r;
    z[0] = r[Y] - r[STAIR];
    z[1] = r[X] - (r[NSTAIRS] + 1) + r[STAIR];
}

static void event(fw_ctx *c, fw_event *ev)
{
    double *r = c->r;
    /* One stair per edge passed; a loop guards against a step that crosses two edges. */
    while (r[X] - (r[NSTAIRS] + 1) + r[STAIR] > 0 && r[STAIR] > -1e9)
        r[STAIR] -= 1;
    (void)ev;
}

const fw_model fw_model_def = {
    .id = "bball_stairs",
    .description = "Bouncing ball going down stairs (monolithic)",
    .nvars = NV,
    .vars = vars,
    .nz = 2,
    .has_me = 1,
    .has_cs = 0, /* ME only: the stiff contact (1e6) needs CVODE BDF, see doc/example-fmus.md */
    .stop_time = 30.0,
    .step_size = 0.01,
    .tolerance = 1e-8,
    .init = init,
    .derivatives = derivatives,
    .indicators = indicators,
    .event = event,
};
