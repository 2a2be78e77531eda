/* Slave 1 of the two-mass rotational oscillator of Glumac and Kovačić (2023) §4.1
 * ("OscillatorOmega2Tau", doc/references.md (Glumac and Kovačić)): input omega2, output the
 * coupling torque tau1 = ck (phi1 - phi2) + dk (omega1 - omega2), states x = [phi1, omega1, phi2]
 * where phi2 is this slave's own integral of its input. Value references 2..9 are the parameters in
 * the order of the paper's code. Output derivatives up to order 3 use the input derivatives.
 * Parameter solver = 1 makes the co-simulation FMU a forward-Euler slave (cs_step).
 * doc/fmu.md. Read osc_tau2omega.c (slave 2) and osc_twomass.c (the reference) next. */
#include "examples/fmus/framework/fw.h"

enum {
    OMEGA2,
    TAU1,
    J1,
    C1,
    D1,
    CK,
    DK,
    PHI10,
    OMEGA10,
    PHI20,
    PHI1,
    OMEGA1,
    PHI2,
    DER_PHI1,
    DER_OMEGA1,
    DER_PHI2,
    SOLVER,
    SLOPE_PHI1,
    SLOPE_OMEGA1,
    SLOPE_PHI2,
    EULER_STEPS,
    T_CHANGE,
    DK_AFTER,
    NV
};

static const fw_var vars[NV] = {
    [OMEGA2] = {"omega2", FW_INPUT, 0, -1, 0.1, "rad/s", "speed of mass 2 (from slave 2)", NULL},
    [TAU1] = {"tau1", FW_OUTPUT, 0, -1, 0, "N.m", "coupling torque on mass 2",
              .depends = "phi1 omega1 phi2 omega2"},
    [J1] = {"J1", FW_PARAM, 0, -1, 10.0, "kg.m2", "inertia of mass 1", NULL},
    [C1] = {"c1", FW_PARAM, 0, -1, 1.0, "N.m/rad", "stiffness of mass 1 to ground", NULL},
    [D1] = {"d1", FW_PARAM, 0, -1, 1.0, "N.m.s/rad", "damping of mass 1 to ground", NULL},
    [CK] = {"ck", FW_PARAM, 0, -1, 1.0, "N.m/rad", "coupling stiffness", NULL},
    [DK] = {"dk", FW_PARAM, 0, -1, 2.0, "N.m.s/rad", "coupling damping", NULL},
    [PHI10] = {"phi10", FW_PARAM, 0, -1, 0.1, "rad", "initial angle of mass 1", NULL},
    [OMEGA10] = {"omega10", FW_PARAM, 0, -1, 0.1, "rad/s", "initial speed of mass 1", NULL},
    [PHI20] = {"phi20", FW_PARAM, 0, -1, 0.2, "rad", "initial angle of mass 2", NULL},
    [PHI1] = {"phi1", FW_LOCAL, 0, -1, 0, "rad", "angle of mass 1", NULL},
    [OMEGA1] = {"omega1", FW_LOCAL, 0, -1, 0, "rad/s", "speed of mass 1", NULL},
    [PHI2] = {"phi2", FW_LOCAL, 0, -1, 0, "rad", "integral of the input omega2", NULL},
    [DER_PHI1] = {"der(phi1)", FW_LOCAL, 0, PHI1, 0, "rad/s", "omega1", NULL},
    [DER_OMEGA1] = {"der(omega1)", FW_LOCAL, 0, OMEGA1, 0, "rad/s2",
                    "(-(c1+ck) phi1 - (d1+dk) omega1 + ck phi2 + dk omega2) / J1", NULL},
    [DER_PHI2] = {"der(phi2)", FW_LOCAL, 0, PHI2, 0, "rad/s", "omega2", NULL},
    [SOLVER] = {"solver", FW_PARAM, 0, -1, 0, NULL,
                "co-simulation method: 0 the framework's Dormand-Prince (exact), 1 forward "
                "Euler, one step per fmi2DoStep",
                NULL},
    [SLOPE_PHI1] = {"euler_slope_phi1", FW_LOCAL, 0, -1, 0, "rad/s",
                    "Euler: phi1' of the last step", NULL},
    [SLOPE_OMEGA1] = {"euler_slope_omega1", FW_LOCAL, 0, -1, 0, "rad/s2",
                      "Euler: omega1' of the last step", NULL},
    [SLOPE_PHI2] = {"euler_slope_phi2", FW_LOCAL, 0, -1, 0, "rad/s",
                    "Euler: phi2' of the last step", NULL},
    [EULER_STEPS] = {"euler_steps", FW_LOCAL, 0, -1, 0, NULL, "Euler: steps taken", NULL},
    [T_CHANGE] = {"t_change", FW_PARAM, 0, -1, -1.0, "s",
                  "time the coupling damping changes to dk_after (a time event; < 0: never)", NULL},
    [DK_AFTER] = {"dk_after", FW_PARAM, 0, -1, 2.0, "N.m.s/rad",
                  "coupling damping from t_change on (the F3ORNITS mid-time change)", NULL},
};

static void init(fw_ctx *c)
{
    c->r[PHI1] = c->r[PHI10];
    c->r[OMEGA1] = c->r[OMEGA10];
    c->r[PHI2] = c->r[PHI20];
}

/* x' = A x + B u with the matrices of doc/references.md (Glumac and Kovačić) (u = omega2). */
static void slope(const double *r, const double x[3], double u, double dx[3])
{
    dx[0] = x[1];
    dx[1] = (-(r[C1] + r[CK]) * x[0] - (r[D1] + r[DK]) * x[1] + r[CK] * x[2] + r[DK] * u) / r[J1];
    dx[2] = u;
}

/* y = C x + D u = ck phi1 + dk omega1 - ck phi2 - dk u. */
static double out(const double *r, const double x[3], double u)
{
    return r[CK] * (x[0] - x[2]) + r[DK] * (x[1] - u);
}

static void derivatives(fw_ctx *c)
{
    double x[3] = {c->r[PHI1], c->r[OMEGA1], c->r[PHI2]}, dx[3];
    slope(c->r, x, c->r[OMEGA2], dx);
    c->r[DER_PHI1] = dx[0];
    c->r[DER_OMEGA1] = dx[1];
    c->r[DER_PHI2] = dx[2];
}

static void outputs(fw_ctx *c)
{
    double x[3] = {c->r[PHI1], c->r[OMEGA1], c->r[PHI2]};
    c->r[TAU1] = out(c->r, x, c->r[OMEGA2]);
}

/* x^(n) = A x^(n-1) + B u^(n-1), y^(n) = C x^(n) + D u^(n) (doc/references.md (Glumac and Kovačić),
 * the "analytic" slave), with u^(k) the input derivatives re-expanded at c->t. */
static int output_der(fw_ctx *c, unsigned vr, int order, double *value)
{
    if (vr != TAU1) return -1;
    double x[3] = {c->r[PHI1], c->r[OMEGA1], c->r[PHI2]}, dx[3];
    double u = c->r[OMEGA2];
    if (c->r[SOLVER] > 0.5 && c->r[EULER_STEPS] > 0.5) {
        /* Euler (the paper's eqs. 46-47): x' is the slope of the last step, x'' = 0 */
        double s1[3] = {c->r[SLOPE_PHI1], c->r[SLOPE_OMEGA1], c->r[SLOPE_PHI2]};
        double zero[3] = {0, 0, 0};
        *value = out(c->r, order == 1 ? s1 : zero, fw_input_der(c, OMEGA2, order));
        return 0;
    }
    for (int n = 1; n <= order; n++) {
        slope(c->r, x, u, dx);
        for (int i = 0; i < 3; i++)
            x[i] = dx[i];
        u = fw_input_der(c, OMEGA2, n);
        /* A x^(n-1) + B u^(n-1) computed; from here x holds x^(n) and u holds u^(n). */
    }
    *value = out(c->r, x, u);
    return 0;
}

/* solver = 1: one forward-Euler step x += h f(x, u(t)) per fmi2DoStep (the paper's eq. 45). */
static int cs_step(fw_ctx *c, double h)
{
    if (c->r[SOLVER] < 0.5) return 0;
    double x[3] = {c->r[PHI1], c->r[OMEGA1], c->r[PHI2]}, dx[3];
    slope(c->r, x, c->r[OMEGA2], dx);
    c->r[PHI1] += h * dx[0];
    c->r[OMEGA1] += h * dx[1];
    c->r[PHI2] += h * dx[2];
    c->r[SLOPE_PHI1] = dx[0];
    c->r[SLOPE_OMEGA1] = dx[1];
    c->r[SLOPE_PHI2] = dx[2];
    c->r[EULER_STEPS] += 1;
    return 1;
}

/* The parameter change at mid-time of the F3ORNITS two-mass case (doc/algorithms/f3ornits.md):
 * at the time event t_change the coupling damping dk becomes dk_after, so tau1 jumps. */
static void event(fw_ctx *c, fw_event *ev)
{
    double *r = c->r;
    if (r[T_CHANGE] >= 0 && c->t >= r[T_CHANGE]) r[DK] = r[DK_AFTER];
    ev->next_time = r[T_CHANGE] >= 0 && c->t < r[T_CHANGE] ? r[T_CHANGE] : INFINITY;
}

const fw_model fw_model_def = {
    .id = "osc_omega2tau",
    .description =
        "Two-mass oscillator, slave 1: input omega2, output tau1 (Glumac and Kovačić (2023))",
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
    .outputs = outputs,
    .output_der = output_der,
    .event = event,
    .cs_step = cs_step,
};
