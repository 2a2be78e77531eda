/* A bouncing ball: h' = v, v' = -g while flying; when h falls through 0 the velocity is
 * re-initialised to -e v (a state event); below v_min after a bounce the ball rests on the
 * ground. Both kinds: ME exposes the indicator, CS locates the bounce inside its step.
 * doc/fmu.md. Read doc/example-fmus.md for the analytic bounce times. */
#include <float.h>

#include "examples/fmus/framework/fw.h"

enum { G, E, H0, VMIN, H, V, DER_H, DER_V, NBOUNCE, RESTING, EARLY, NV };

static const fw_var vars[NV] = {
    [G] = {"g", FW_PARAM, 0, -1, 9.81, "m/s2", "gravity acceleration", NULL},
    [E] = {"e", FW_PARAM, 0, -1, 0.7, NULL, "coefficient of restitution", NULL},
    [H0] = {"h0", FW_PARAM, 0, -1, 1.0, "m", "initial height (initial velocity is 0)", NULL},
    [VMIN] = {"v_min", FW_PARAM, 0, -1, 0.01, "m/s",
              "rebound speed below which the ball comes to rest", NULL},
    [H] = {"h", FW_OUTPUT, 0, -1, 0, "m", "height", NULL},
    [V] = {"v", FW_OUTPUT, 0, -1, 0, "m/s", "velocity (up is positive)", NULL},
    [DER_H] = {"der(h)", FW_LOCAL, 0, H, 0, "m/s", "v", NULL},
    [DER_V] = {"der(v)", FW_LOCAL, 0, V, 0, "m/s2", "-g, or 0 at rest", NULL},
    [NBOUNCE] = {"bounces", FW_OUTPUT, 1, -1, 0, NULL, "number of bounces so far",
                 .depends = "h v"},
    [RESTING] = {"resting", FW_LOCAL, 1, -1, 0, NULL, "1 once the ball rests on the ground", NULL},
    [EARLY] = {"early_return", FW_PARAM, 0, -1, 0, NULL,
               "CS: 1 ends a communication step at each bounce (fmi2Discard at the bounce, "
               "which is handled; a later step goes on from there)",
               NULL},
};

static void init(fw_ctx *c)
{
    c->r[H] = c->r[H0];
    c->r[V] = 0;
    c->r[NBOUNCE] = 0;
    /* Starting on (or below) the ground means resting: the indicator would otherwise start
     * at h <= 0 and never see a crossing. */
    c->r[RESTING] = c->r[H0] <= 0;
    if (c->r[H0] <= 0) c->r[H] = 0;
}

static void derivatives(fw_ctx *c)
{
    double *r = c->r;
    int resting = r[RESTING] > 0.5;
    r[DER_H] = resting ? 0 : r[V];
    r[DER_V] = resting ? 0 : -r[G];
}

/* The height while flying; a constant 1 at rest so that no further event fires. */
static void indicators(fw_ctx *c, double *z)
{
    z[0] = c->r[RESTING] > 0.5 ? 1.0 : c->r[H];
}

static void event(fw_ctx *c, fw_event *ev)
{
    double *r = c->r;
    if (r[RESTING] > 0.5 || !(r[H] <= 0 && r[V] < 0)) return;
    double v1 = -r[E] * r[V];
    r[NBOUNCE] += 1;
    if (v1 < r[VMIN]) {
        r[RESTING] = 1;
        r[H] = 0;
        r[V] = 0;
    } else {
        /* Put the ball just above the ground so that the indicator starts positive and the
         * bounce does not fire again (the located h is <= 0 by a few ulps). */
        r[H] = DBL_MIN;
        r[V] = v1;
    }
    ev->states_changed = 1;
    ev->early_return = r[EARLY] > 0.5;
}

/* h' = v, h'' = v' = -g (0 at rest), v'' = 0. */
static int output_der(fw_ctx *c, unsigned vr, int order, double *value)
{
    const double *r = c->r;
    if (vr == H)
        *value = order == 1 ? r[DER_H] : r[DER_V];
    else if (vr == V)
        *value = order == 1 ? r[DER_V] : 0.0;
    else if (vr == NBOUNCE)
        *value = 0.0;
    else
        return -1;
    return 0;
}

const fw_model fw_model_def = {
    .id = "bouncingball",
    .description = "Bouncing ball with a state event on the height",
    .nvars = NV,
    .vars = vars,
    .nz = 1,
    .max_output_order = 2,
    .has_me = 1,
    .has_cs = 1,
    .stop_time = 3.0,
    .step_size = 0.01,
    .tolerance = 1e-10,
    .nbounds = 1,
    .bounds = (const fw_bounds[]){{E, 0.0, 1.0}},
    .init = init,
    .derivatives = derivatives,
    .indicators = indicators,
    .event = event,
    .output_der = output_der,
};
