/* The whole two-mass rotational oscillator of Glumac and Kovačić (2023) §4.1 (doc/references.md
 * (Glumac and Kovačić)), the monolithic reference for osc_omega2tau + osc_tau2omega: x = [phi1,
 * omega1, phi2, omega2], outputs omega2 and tau1 = ck (phi1 - phi2) + dk (omega1 - omega2) with
 * their derivatives. doc/fmu.md. Read doc/example-fmus.md for the reference values of the notes. */
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
    J2,
    C2,
    D2,
    PHI20,
    OMEGA20,
    PHI1,
    OMEGA1,
    PHI2,
    DER_PHI1,
    DER_OMEGA1,
    DER_PHI2,
    DER_OMEGA2,
    T_CHANGE,
    DK_AFTER,
    NV
};

static const fw_var vars[NV] = {
    [OMEGA2] = {"omega2", FW_OUTPUT, 0, -1, 0, "rad/s", "speed of mass 2 (a state)", NULL},
    [TAU1] = {"tau1", FW_OUTPUT, 0, -1, 0, "N.m", "coupling torque on mass 2",
              .depends = "phi1 omega1 phi2 omega2"},
    [J1] = {"J1", FW_PARAM, 0, -1, 10.0, "kg.m2", "inertia of mass 1", NULL},
    [C1] = {"c1", FW_PARAM, 0, -1, 1.0, "N.m/rad", "stiffness of mass 1 to ground", NULL},
    [D1] = {"d1", FW_PARAM, 0, -1, 1.0, "N.m.s/rad", "damping of mass 1 to ground", NULL},
    [CK] = {"ck", FW_PARAM, 0, -1, 1.0, "N.m/rad", "coupling stiffness", NULL},
    [DK] = {"dk", FW_PARAM, 0, -1, 2.0, "N.m.s/rad", "coupling damping", NULL},
    [PHI10] = {"phi10", FW_PARAM, 0, -1, 0.1, "rad", "initial angle of mass 1", NULL},
    [OMEGA10] = {"omega10", FW_PARAM, 0, -1, 0.1, "rad/s", "initial speed of mass 1", NULL},
    [J2] = {"J2", FW_PARAM, 0, -1, 10.0, "kg.m2", "inertia of mass 2", NULL},
    [C2] = {"c2", FW_PARAM, 0, -1, 1.0, "N.m/rad", "stiffness of mass 2 to ground", NULL},
    [D2] = {"d2", FW_PARAM, 0, -1, 2.0, "N.m.s/rad", "damping of mass 2 to ground", NULL},
    [PHI20] = {"phi20", FW_PARAM, 0, -1, 0.2, "rad", "initial angle of mass 2", NULL},
    [OMEGA20] = {"omega20", FW_PARAM, 0, -1, 0.1, "rad/s", "initial speed of mass 2", NULL},
    [PHI1] = {"phi1", FW_LOCAL, 0, -1, 0, "rad", "angle of mass 1", NULL},
    [OMEGA1] = {"omega1", FW_LOCAL, 0, -1, 0, "rad/s", "speed of mass 1", NULL},
    [PHI2] = {"phi2", FW_LOCAL, 0, -1, 0, "rad", "angle of mass 2", NULL},
    [DER_PHI1] = {"der(phi1)", FW_LOCAL, 0, PHI1, 0, "rad/s", "omega1", NULL},
    [DER_OMEGA1] = {"der(omega1)", FW_LOCAL, 0, OMEGA1, 0, "rad/s2",
                    "(-(c1+ck) phi1 - (d1+dk) omega1 + ck phi2 + dk omega2) / J1", NULL},
    [DER_PHI2] = {"der(phi2)", FW_LOCAL, 0, PHI2, 0, "rad/s", "omega2", NULL},
    [DER_OMEGA2] = {"der(omega2)", FW_LOCAL, 0, OMEGA2, 0, "rad/s2",
                    "(ck phi1 + dk omega1 - (c2+ck) phi2 - (d2+dk) omega2) / J2", NULL},
    [T_CHANGE] = {"t_change", FW_PARAM, 0, -1, -1.0, "s",
                  "time the coupling damping changes to dk_after (a time event; < 0: never)", NULL},
    [DK_AFTER] = {"dk_after", FW_PARAM, 0, -1, 2.0, "N.m.s/rad",
                  "coupling damping from t_change on (the F3ORNITS mid-time change)", NULL},
};

static void init(fw_ctx *c)
{
    double *r = c->r;
    r[PHI1] = r[PHI10];
    r[OMEGA1] = r[OMEGA10];
    r[PHI2] = r[PHI20];
    r[OMEGA2] = r[OMEGA20];
}

/* The monolithic system of doc/references.md (Glumac and Kovačić) */
static void slope(const double *r, const double x[4], double dx[4])
{
    dx[0] = x[1];
    dx[1] =
        (-(r[C1] + r[CK]) * x[0] - (r[D1] + r[DK]) * x[1] + r[CK] * x[2] + r[DK] * x[3]) / r[J1];
    dx[2] = x[3];
    dx[3] = (r[CK] * x[0] + r[DK] * x[1] - (r[C2] + r[CK]) * x[2] - (r[D2] + r[DK]) * x[3]) / r[J2];
}

static void state(const double *r, double x[4])
{
    x[0] = r[PHI1];
    x[1] = r[OMEGA1];
    x[2] = r[PHI2];
    x[3] = r[OMEGA2];
}

static void derivatives(fw_ctx *c)
{
    double x[4], dx[4];
    state(c->r, x);
    slope(c->r, x, dx);
    c->r[DER_PHI1] = dx[0];
    c->r[DER_OMEGA1] = dx[1];
    c->r[DER_PHI2] = dx[2];
    c->r[DER_OMEGA2] = dx[3];
}

static void outputs(fw_ctx *c)
{
    double *r = c->r;
    r[TAU1] = r[CK] * (r[PHI1] - r[PHI2]) + r[DK] * (r[OMEGA1] - r[OMEGA2]);
}

/* x^(n) = A^n x; the outputs are linear in x. */
static int output_der(fw_ctx *c, unsigned vr, int order, double *value)
{
    const double *r = c->r;
    double x[4], dx[4];
    state(r, x);
    for (int n = 1; n <= order; n++) {
        slope(r, x, dx);
        for (int i = 0; i < 4; i++)
            x[i] = dx[i];
    }
    if (vr == OMEGA2)
        *value = x[3];
    else if (vr == TAU1)
        *value = r[CK] * (x[0] - x[2]) + r[DK] * (x[1] - x[3]);
    else
        return -1;
    return 0;
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
    .id = "osc_twomass",
    .description = "Two-mass rotational oscillator of Glumac and Kovačić (2023), monolithic",
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
};
