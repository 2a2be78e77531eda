/* Defect control over FMUs (algorithms/defect_master.h through federate/fmu/fmu_slave.h): the
 * example FMUs osc_omega2tau and osc_tau2omega (co-simulation, Dormand-Prince at rtol 1e-10,
 * or their forward-Euler variant, parameter solver = 1) run in one process. Checks: the same
 * numbers as the closed-form C fakes of tests/unit/dc_osc.h with the same conventions (exact
 * slaves: 1e-6 relative; Euler: 1e-9), so the FMU route inherits the reproduced tables of
 * defect_test; and the convergence slopes over the FMUs themselves.
 * doc/algorithms/defect-control.md. */
#include <math.h>
#include <stdio.h>

#include "federate/fmu/fmu_slave.h"
#include "tests/check.h"
#include "tests/unit/dc_run.h"

typedef struct osc_fmu {
    fmu_step *fmu[2];
    fmu_slave *fs[2];
    port_slave ps[2];
} osc_fmu;

static void osc_close(osc_fmu *o)
{
    for (int j = 0; j < 2; j++) {
        fmu_slave_free(o->fs[j]);
        fmu_step_close(o->fmu[j]);
    }
}

/* Open slave 1 (omega2tau) and slave 2 (tau2omega) as port slaves at t = 0. */
static int osc_open(osc_fmu *o, int euler)
{
    static const char *const model[2] = {"osc_omega2tau", "osc_tau2omega"};
    static const char *const in[2] = {"omega2", "tau1"}, *const out[2] = {"tau1", "omega2"};
    *o = (osc_fmu){0};
    for (int j = 0; j < 2; j++) {
        char path[256], err[FMU_ERR_LEN] = "";
        snprintf(path, sizeof path, "build/fmus/%s_cs.fmu", model[j]);
        const char *names[] = {"solver"}, *values[] = {euler ? "1" : "0"};
        fmu_step_opts opt = {.kind = FMU_KIND_CS,
                             .rtol = 1e-10,
                             .n_params = 1,
                             .param_names = names,
                             .param_values = values};
        int rc = fmu_step_open(path, &opt, &o->fmu[j], err, sizeof err);
        CHECK(rc == FMU_STEP_OK, "open %s: %s", path, err);
        if (rc) return -1;
        const fmu_md *md = fmu_step_md(o->fmu[j]);
        fmi2ValueReference ivr = md->vars[fmu_md_find(md, in[j])].vr;
        fmi2ValueReference ovr = md->vars[fmu_md_find(md, out[j])].vr;
        fmu_slave_opts so = {.name = model[j],
                             .fmu = o->fmu[j],
                             .n_in = 1,
                             .in_vr = &ivr,
                             .n_out = 1,
                             .out_vr = &ovr,
                             .t_now = 0,
                             .tick = DC_TICK};
        CHECK_INT_EQ(fmu_slave_new(&so, &o->fs[j], &o->ps[j]), PORT_OK);
        if (!o->fs[j]) return -1;
    }
    return 0;
}

static int fmu_case_run(dc_case *c)
{
    osc_fmu o;
    if (osc_open(&o, c->solver == DC_OSC_EULER)) {
        osc_close(&o);
        return PORT_EFAIL;
    }
    int rc = dc_case_run_on(c, o.ps);
    if (rc) fprintf(stderr, "dc_run: %s\n", c->res.err);
    osc_close(&o);
    return rc;
}

static double rel(double a, double b)
{
    return fabs(a / b - 1);
}

/* The FMU run and the fake with the same conventions agree. */
static void same_as_fake(int solver, int order, double H, double tol)
{
    dc_case f = {.solver = solver, .order = order, .h1 = H, .t_end = 1, .euler_sub = 1};
    dc_case c = f;
    CHECK_INT_EQ(fmu_case_run(&c), PORT_OK);
    CHECK_INT_EQ(dc_case_run(&f), PORT_OK);
    CHECK_INT_EQ(c.res.N, f.res.N);
    for (int q = 0; q < 2; q++) {
        CHECK(rel(c.err[q], f.err[q]) <= tol, "%s order %d H %g: error %d %.6e vs fake %.6e",
              solver ? "Euler" : "exact", order, H, q, c.err[q], f.err[q]);
        CHECK(rel(c.cdef[q], f.cdef[q]) <= tol, "connection defect %d %.6e vs fake %.6e", q,
              c.cdef[q], f.cdef[q]);
        if (f.odef[q] > 1e-12)
            CHECK(rel(c.odef[q], f.odef[q]) <= tol, "output defect %d %.6e vs fake %.6e", q,
                  c.odef[q], f.odef[q]);
        else
            CHECK(c.odef[q] < 1e-12, "output defect %d %.3e (want 0)", q, c.odef[q]);
    }
}

/* Slopes of error and connection defect over H = 10^-2.6 .. 10^-1 (9 points). */
static void slopes(int solver, int order, double want_err, double want_conn)
{
    enum { N = 9 };
    double H[N], e[2][N], cd[2][N];
    for (int i = 0; i < N; i++) {
        dc_case c = {.solver = solver, .order = order, .h1 = pow(10, -2.6 + 0.2 * i), .t_end = 1};
        H[i] = c.h1;
        CHECK_INT_EQ(fmu_case_run(&c), PORT_OK);
        for (int q = 0; q < 2; q++)
            e[q][i] = c.err[q], cd[q][i] = c.cdef[q];
    }
    for (int q = 0; q < 2; q++) {
        double se = dc_slope(H, e[q], N), sc = dc_slope(H, cd[q], N);
        CHECK(fabs(se - want_err) <= 0.1, "%s order %d: error slope %.3f, want %.1f",
              solver ? "Euler FMUs" : "FMUs", order, se, want_err);
        CHECK(fabs(sc - want_conn) <= 0.1, "%s order %d: connection slope %.3f, want %.1f",
              solver ? "Euler FMUs" : "FMUs", order, sc, want_conn);
    }
}

int main(void)
{
    for (int order = 0; order <= 2; order++) {
        same_as_fake(DC_OSC_EXACT, order, 0.01, order == 2 ? 1e-4 : 1e-6);
        same_as_fake(DC_OSC_EXACT, order, 0.1, 1e-6);
        same_as_fake(DC_OSC_EULER, order, 0.01, 1e-9);
        same_as_fake(DC_OSC_EULER, order, 0.1, 1e-9);
    }
    slopes(DC_OSC_EXACT, 0, 1, 1);
    slopes(DC_OSC_EXACT, 1, 2, 2);
    slopes(DC_OSC_EXACT, 2, 3, 3);
    slopes(DC_OSC_EULER, 0, 1, 1);
    slopes(DC_OSC_EULER, 1, 1, 2);
    return check_summary();
}
