/* The ball of the bouncing-ball-on-stairs case split in two: x, vx, y, vy with the stair
 * height as input (from bball_steps); outputs x and y. Same equations and constants as
 * bball_stairs.c (the monolithic reference). doc/fmu.md. Read bball_steps.c next. */
#include "examples/fmus/framework/fw.h"

enum {
    G,
    C0,
    C1,
    C2,
    C3,
    X0,
    VX0,
    Y0,
    STAIR,
    X,
    VX,
    Y,
    VY,
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
    [X0] = {"x0", FW_PARAM, 0, -1, 0.575, "m", "initial horizontal position", NULL},
    [VX0] = {"vx0", FW_PARAM, 0, -1, 0.5, "m/s", "initial horizontal velocity", NULL},
    [Y0] = {"y0", FW_PARAM, 0, -1, 10.5, "m", "initial height", NULL},
    [STAIR] = {"stair", FW_INPUT, 0, -1, 10, "m", "height of the stair under the ball", NULL},
    [X] = {"x", FW_OUTPUT, 0, -1, 0, "m", "horizontal position", NULL},
    [VX] = {"vx", FW_LOCAL, 0, -1, 0, "m/s", "horizontal velocity", NULL},
    [Y] = {"y", FW_OUTPUT, 0, -1, 0, "m", "height", NULL},
    [VY] = {"vy", FW_LOCAL, 0, -1, 0, "m/s", "vertical velocity", NULL},
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
}

/* Contact follows the state and the input at once, so a stair that drops between two
 * communication points releases the ball at the next derivative evaluation. */
static void derivatives(fw_ctx *c)
{
    double *r = c->r;
    r[CONTACT] = r[Y] < r[STAIR];
    r[DER_X] = r[VX];
    r[DER_VX] = -r[C0] * r[VX];
    r[DER_Y] = r[VY];
    r[DER_VY] = -r[G] - r[C1] * r[VY] - r[CONTACT] * ((r[Y] - r[STAIR]) * r[C2] + r[C3] * r[VY]);
}

/* The integrator stops where the force law changes. */
static void indicators(fw_ctx *c, double *z)
{
    z[0] = c->r[Y] - c->r[STAIR];
}

const fw_model fw_model_def = {
    .id = "bball_ball",
    .description = "Bouncing ball on stairs: the ball (input stair)",
    .nvars = NV,
    .vars = vars,
    .nz = 1,
    .has_me = 1,
    .has_cs = 0, /* ME only: the stiff contact (1e6) needs CVODE BDF, see doc/example-fmus.md */
    .stop_time = 30.0,
    .step_size = 0.01,
    .tolerance = 1e-8,
    .init = init,
    .derivatives = derivatives,
    .indicators = indicators,
};
