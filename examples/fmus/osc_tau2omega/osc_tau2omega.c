/* Slave 2 of the two-mass rotational oscillator of Glumac and Kovačić (2023) §4.1
 * ("OscillatorTau2Omega", doc/references.md (Glumac and Kovačić)): input the coupling torque tau1,
 * output omega2, states [phi2, omega2]; phi2' = omega2, omega2' = (-c2 phi2 - d2 omega2 + tau1) /
 * J2. Value references 2..6 are the parameters in the order of the paper's code. Parameter solver =
 * 1 makes the co-simulation FMU a forward-Euler slave (cs_step). doc/fmu.md. Read osc_omega2tau.c
 * (slave 1) and osc_twomass.c (the reference) next. */
#include "examples/fmus/framework/fw.h"

enum {
    TAU1,
    OMEGA2,
    J2,
    C2,
    D2,
    PHI20,
    OMEGA20,
    PHI2,
    DER_PHI2,
    DER_OMEGA2,
    SOLVER,
    SLOPE_PHI2,
    SLOPE_OMEGA2,
    EULER_STEPS,
    NV
};

static const fw_var vars[NV] = {
    [TAU1] = {"tau1", FW_INPUT, 0, -1, -0.1, "N.m", "coupling torque (from slave 1)", NULL},
    [OMEGA2] = {"omega2", FW_OUTPUT, 0, -1, 0, "rad/s", "speed of mass 2 (a state)", NULL},
    [J2] = {"J2", FW_PARAM, 0, -1, 10.0, "kg.m2", "inertia of mass 2", NULL},
    [C2] = {"c2", FW_PARAM, 0, -1, 1.0, "N.m/rad", "stiffness of mass 2 to ground", NULL},
    [D2] = {"d2", FW_PARAM, 0, -1, 2.0, "N.m.s/rad", "damping of mass 2 to ground", NULL},
    [PHI20] = {"phi20", FW_PARAM, 0, -1, 0.2, "rad", "initial angle of mass 2", NULL},
    [OMEGA20] = {"omega20", FW_PARAM, 0, -1, 0.1, "rad/s", "initial speed of mass 2", NULL},
    [PHI2] = {"phi2", FW_LOCAL, 0, -1, 0, "rad", "angle of mass 2", NULL},
    [DER_PHI2] = {"der(phi2)", FW_LOCAL, 0, PHI2, 0, "rad/s", "omega2", NULL},
    [DER_OMEGA2] = {"der(omega2)", FW_LOCAL, 0, OMEGA2, 0, "rad/s2",
                    "(-c2 phi2 - d2 omega2 + tau1) / J2", NULL},
    [SOLVER] = {"solver", FW_PARAM, 0, -1, 0, NULL,
                "co-simulation method: 0 the framework's Dormand-Prince (exact), 1 forward "
                "Euler, one step per fmi2DoStep",
                NULL},
    [SLOPE_PHI2] = {"euler_slope_phi2", FW_LOCAL, 0, -1, 0, "rad/s",
                    "Euler: phi2' of the last step", NULL},
    [SLOPE_OMEGA2] = {"euler_slope_omega2", FW_LOCAL, 0, -1, 0, "rad/s2",
                      "Euler: omega2' of the last step", NULL},
    [EULER_STEPS] = {"euler_steps", FW_LOCAL, 0, -1, 0, NULL, "Euler: steps taken", NULL},
};

static void init(fw_ctx *c)
{
    c->r[PHI2] = c->r[PHI20];
    c->r[OMEGA2] = c->r[OMEGA20];
}

static void slope(const double *r, const double x[2], double u, double dx[2])
{
    dx[0] = x[1];
    dx[1] = (-r[C2] * x[0] - r[D2] * x[1] + u) / r[J2];
}

static void derivatives(fw_ctx *c)
{
    double x[2] = {c->r[PHI2], c->r[OMEGA2]}, dx[2];
    slope(c->r, x, c->r[TAU1], dx);
    c->r[DER_PHI2] = dx[0];
    c->r[DER_OMEGA2] = dx[1];
}

/* x^(n) = A x^(n-1) + B u^(n-1); y^(n) = omega2^(n) (C = [0 1], D = 0). */
static int output_der(fw_ctx *c, unsigned vr, int order, double *value)
{
    if (vr != OMEGA2) return -1;
    double x[2] = {c->r[PHI2], c->r[OMEGA2]}, dx[2];
    double u = c->r[TAU1];
    if (c->r[SOLVER] > 0.5 && c->r[EULER_STEPS] > 0.5) {
        /* Euler (the paper's eqs. 46-47): omega2' is the slope of the last step, higher 0 */
        *value = order == 1 ? c->r[SLOPE_OMEGA2] : 0;
        return 0;
    }
    for (int n = 1; n <= order; n++) {
        slope(c->r, x, u, dx);
        x[0] = dx[0];
        x[1] = dx[1];
        u = fw_input_der(c, TAU1, n);
    }
    *value = x[1];
    return 0;
}

/* solver = 1: one forward-Euler step x += h f(x, u(t)) per fmi2DoStep (the paper's eq. 45). */
static int cs_step(fw_ctx *c, double h)
{
    if (c->r[SOLVER] < 0.5) return 0;
    double x[2] = {c->r[PHI2], c->r[OMEGA2]}, dx[2];
    slope(c->r, x, c->r[TAU1], dx);
    c->r[PHI2] += h * dx[0];
    c->r[OMEGA2] += h * dx[1];
    c->r[SLOPE_PHI2] = dx[0];
    c->r[SLOPE_OMEGA2] = dx[1];
    c->r[EULER_STEPS] += 1;
    return 1;
}

const fw_model fw_model_def = {
    .id = "osc_tau2omega",
    .description =
        "Two-mass oscillator, slave 2: input tau1, output omega2 (Glumac and Kovačić (2023))",
    .nvars = NV,
    .vars = vars,
    .max_output_order = 3,
    .has_me = 1,
    .has_cs = 1,
    .stop_time = 50.0,
    .step_size = 0.01,
    .tolerance = 1e-10,
    .init = init,
    .derivatives = derivatives,
    .output_der = output_der,
    .cs_step = cs_step,
};
