/* Tests of the in-process port slave over an FMU (federate/fmu/fmu_slave.h) and of the port's
 * generic sync (algorithms/port.h), on the example FMU "mass" (v' = f/m, x' = v, a = f/m),
 * both kinds, at rtol 1e-10 against the exact integrals of polynomial inputs; rollback
 * bit-identical; every error path reported with the slave's name. doc/algorithms/port.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "federate/fmu/fmu_slave.h"
#include "tests/check.h"

#define TICK   1e-9 /* seconds per tick */
#define SEC(s) ((int64_t)llround((s) / TICK))

typedef struct one {
    fmu_step *fmu;
    fmu_slave *fs;
    port_slave ps;
} one;

static int open_one(one *o, fmu_kind kind, const char *name)
{
    char path[256], err[FMU_ERR_LEN] = "";
    snprintf(path, sizeof path, "build/fmus/mass_%s.fmu", kind == FMU_KIND_ME ? "me" : "cs");
    const char *names[] = {"m", "v0", "x0"}, *values[] = {"2", "0.5", "1"};
    fmu_step_opts opt = {
        .kind = kind, .rtol = 1e-10, .n_params = 3, .param_names = names, .param_values = values};
    if (kind == FMU_KIND_ME) opt.atol = 1e-12;
    int rc = fmu_step_open(path, &opt, &o->fmu, err, sizeof err);
    CHECK(rc == FMU_STEP_OK, "open %s: %s", path, err);
    if (rc) return -1;
    const fmu_md *md = fmu_step_md(o->fmu);
    fmi2ValueReference in[1], out[3];
    in[0] = md->vars[fmu_md_find(md, "f")].vr;
    out[0] = md->vars[fmu_md_find(md, "v")].vr;
    out[1] = md->vars[fmu_md_find(md, "x")].vr;
    out[2] = md->vars[fmu_md_find(md, "a")].vr;
    fmu_slave_opts so = {.name = name,
                         .fmu = o->fmu,
                         .n_in = 1,
                         .in_vr = in,
                         .n_out = 3,
                         .out_vr = out,
                         .t_now = 0,
                         .tick = TICK};
    rc = fmu_slave_new(&so, &o->fs, &o->ps);
    CHECK_INT_EQ(rc, PORT_OK);
    return rc;
}

static void close_one(one *o)
{
    fmu_slave_free(o->fs);
    fmu_step_close(o->fmu);
}

/* f(t) = c0 + c1 (t - t0) + c2 (t - t0)^2 / 2 about t0 = -0.5 s (before the slave's time, so
 * the slave must re-expand it); v(t) = v0 + (F(t) - F(0)) / m, F the antiderivative. */
static const double c[3] = {0.7, -1.3, 2.1}, t0s = -0.5, m = 2, v0 = 0.5, x0 = 1;
static double F1(double t) /* integral of f from t0 */
{
    double s = t - t0s;
    return c[0] * s + c[1] * s * s / 2 + c[2] * s * s * s / 6;
}
static double F2(double t) /* integral of F1 from t0 */
{
    double s = t - t0s;
    return c[0] * s * s / 2 + c[1] * s * s * s / 6 + c[2] * s * s * s * s / 24;
}
static double v_at(double t)
{
    return v0 + (F1(t) - F1(0)) / m;
}
static double x_at(double t)
{
    return x0 + v0 * t + (F2(t) - F2(0) - F1(0) * t) / m;
}
static double f_at(double t)
{
    return c[0] + c[1] * (t - t0s) + c[2] * (t - t0s) * (t - t0s) / 2;
}

static void test_polynomial_inputs(fmu_kind kind)
{
    one o;
    if (open_one(&o, kind, "mass") != 0) return;
    port_poly u = {.t0 = SEC(t0s), .order = 2, .n = 1, .c = c};
    double y[3], ysub[4 * 3];
    port_step_result r;
    CHECK_INT_EQ(port_set_inputs(&o.ps, &u), PORT_OK);
    /* Direct feedthrough: a = f(0) / m is seen before any step. */
    CHECK_INT_EQ(port_get_outputs(&o.ps, y), PORT_OK);
    CHECK_NEAR(y[2], f_at(0) / m, 1e-12);
    CHECK_INT_EQ(port_step(&o.ps, SEC(1.0), 4, ysub, &r), PORT_OK);
    CHECK_INT_EQ(port_collect(&o.ps), PORT_OK);
    CHECK_INT_EQ(r.t_reached, SEC(1.0));
    CHECK_INT_EQ(r.n_sub_done, 4);
    double worst = 0;
    for (int k = 1; k <= 4; k++) {
        double t = 0.25 * k;
        worst = fmax(worst, fabs(ysub[(k - 1) * 3 + 0] - v_at(t)));
        worst = fmax(worst, fabs(ysub[(k - 1) * 3 + 1] - x_at(t)));
    }
    /* rtol 1e-10 over values of order 1: 1e-8 leaves room for the integrator's error. */
    CHECK(worst <= 1e-8, "%s: sub-step outputs off by %g (> 1e-8)",
          kind == FMU_KIND_ME ? "ME" : "CS", worst);
    CHECK_INT_EQ(fmu_slave_time(o.fs), SEC(1.0));
    close_one(&o);
}

/* The input transformation (fmu_slave_opts in_factor, in_offset; doc/federation.md "Input
 * transformations"): the FMU takes g(t) = 2 f(t) + 3, so v(t) = v0 + (2 (F1(t) - F1(0)) +
 * 3 t) / m and a(0) = g(0) / m; the derivatives of the polynomial scaled by 2. */
static void test_transform(fmu_kind kind)
{
    char path[256], err[FMU_ERR_LEN] = "";
    snprintf(path, sizeof path, "build/fmus/mass_%s.fmu", kind == FMU_KIND_ME ? "me" : "cs");
    const char *names[] = {"m", "v0", "x0"}, *values[] = {"2", "0.5", "1"};
    fmu_step_opts opt = {
        .kind = kind, .rtol = 1e-10, .n_params = 3, .param_names = names, .param_values = values};
    if (kind == FMU_KIND_ME) opt.atol = 1e-12;
    fmu_step *fmu = NULL;
    if (fmu_step_open(path, &opt, &fmu, err, sizeof err) != FMU_STEP_OK) {
        CHECK(0, "open %s: %s", path, err);
        return;
    }
    const fmu_md *md = fmu_step_md(fmu);
    fmi2ValueReference in[1] = {md->vars[fmu_md_find(md, "f")].vr},
                       out[2] = {md->vars[fmu_md_find(md, "v")].vr,
                                 md->vars[fmu_md_find(md, "a")].vr};
    const double f[1] = {2}, o[1] = {3};
    fmu_slave_opts so = {.name = "tf",
                         .fmu = fmu,
                         .n_in = 1,
                         .in_vr = in,
                         .n_out = 2,
                         .out_vr = out,
                         .tick = TICK,
                         .in_factor = f,
                         .in_offset = o};
    fmu_slave *fs = NULL;
    port_slave ps;
    CHECK_INT_EQ(fmu_slave_new(&so, &fs, &ps), PORT_OK);
    port_poly u = {.t0 = SEC(t0s), .order = 2, .n = 1, .c = c};
    double y[2];
    CHECK_INT_EQ(port_set_inputs(&ps, &u), PORT_OK);
    CHECK_INT_EQ(port_get_outputs(&ps, y), PORT_OK);
    CHECK_NEAR(y[1], (2 * f_at(0) + 3) / m, 1e-12);
    CHECK_INT_EQ(port_step(&ps, SEC(1.0), 1, NULL, NULL), PORT_OK);
    CHECK_INT_EQ(port_get_outputs(&ps, y), PORT_OK);
    CHECK_INT_EQ(port_collect(&ps), PORT_OK);
    double want = v0 + (2 * (F1(1.0) - F1(0)) + 3 * 1.0) / m;
    CHECK(fabs(y[0] - want) <= 1e-8, "%s: v(1) = %.12g, want %.12g",
          kind == FMU_KIND_ME ? "ME" : "CS", y[0], want);
    fmu_slave_free(fs);
    /* a factor 0 is refused */
    const double zero[1] = {0};
    so.in_factor = zero;
    CHECK_INT_EQ(fmu_slave_new(&so, &fs, &ps), PORT_EUSAGE);
    fmu_step_close(fmu);
}

/* Directional derivatives are with respect to the value before the transformation: the
 * example FMU gain (y = k u + c, dy/du = k) behind a factor 2 gives 2 k. */
static void test_transform_directional(void)
{
    char err[FMU_ERR_LEN] = "";
    const char *names[] = {"k", "c"}, *values[] = {"1.5", "0.25"};
    fmu_step_opts opt = {
        .kind = FMU_KIND_CS, .n_params = 2, .param_names = names, .param_values = values};
    fmu_step *fmu = NULL;
    if (fmu_step_open("build/fmus/gain_cs.fmu", &opt, &fmu, err, sizeof err) != FMU_STEP_OK) {
        CHECK(0, "open gain: %s", err);
        return;
    }
    const fmu_md *md = fmu_step_md(fmu);
    fmi2ValueReference in[1] = {md->vars[fmu_md_find(md, "u")].vr},
                       out[1] = {md->vars[fmu_md_find(md, "y")].vr};
    const double f[1] = {2}, o[1] = {3};
    fmu_slave_opts so = {.name = "gain",
                         .fmu = fmu,
                         .n_in = 1,
                         .in_vr = in,
                         .n_out = 1,
                         .out_vr = out,
                         .tick = TICK,
                         .in_factor = f,
                         .in_offset = o};
    fmu_slave *fs = NULL;
    port_slave ps;
    CHECK_INT_EQ(fmu_slave_new(&so, &fs, &ps), PORT_OK);
    const double c0[1] = {0.5};
    port_poly u = {.t0 = 0, .order = 0, .n = 1, .c = c0};
    double y[1], du[1] = {1}, dy[1] = {0};
    CHECK_INT_EQ(port_set_inputs(&ps, &u), PORT_OK);
    CHECK_INT_EQ(port_get_outputs(&ps, y), PORT_OK);
    CHECK_NEAR(y[0], 1.5 * (2 * 0.5 + 3) + 0.25, 0); /* 6.25, exact in binary */
    CHECK_INT_EQ(port_get_directional(&ps, du, dy), PORT_OK);
    CHECK_INT_EQ(port_collect(&ps), PORT_OK);
    CHECK_NEAR(dy[0], 3, 1e-12);
    fmu_slave_free(fs);
    fmu_step_close(fmu);
}

static void test_rollback(fmu_kind kind)
{
    one o;
    if (open_one(&o, kind, "mass") != 0) return;
    port_poly u = {.t0 = 0, .order = 2, .n = 1, .c = c};
    double y1[3], y2[3];
    port_set_inputs(&o.ps, &u);
    port_step(&o.ps, SEC(0.5), 1, NULL, NULL);
    CHECK_INT_EQ(port_save(&o.ps, 0), PORT_OK);
    port_step(&o.ps, SEC(1.5), 3, NULL, NULL);
    port_get_outputs(&o.ps, y1);
    CHECK_INT_EQ(port_collect(&o.ps), PORT_OK);
    CHECK_INT_EQ(port_restore(&o.ps, 0), PORT_OK);
    CHECK_INT_EQ(fmu_slave_time(o.fs), SEC(0.5));
    port_step(&o.ps, SEC(1.5), 3, NULL, NULL);
    port_get_outputs(&o.ps, y2);
    CHECK_INT_EQ(port_collect(&o.ps), PORT_OK);
    CHECK(memcmp(y1, y2, sizeof y1) == 0, "repeating a step after restore: %.17g vs %.17g", y1[0],
          y2[0]);
    close_one(&o);
}

static void test_errors(void)
{
    one o;
    if (open_one(&o, FMU_KIND_CS, "massA") != 0) return;
    port_poly bad = {.t0 = 0, .order = 0, .n = 2, .c = c};
    CHECK_INT_EQ(port_set_inputs(&o.ps, &bad), PORT_EUSAGE);
    CHECK_INT_EQ(port_collect(&o.ps), PORT_EUSAGE);
    CHECK_STR_HAS(fmu_slave_errmsg(o.fs), "set_inputs: 2 inputs");
    /* not named by itself: whoever reports it names the slave, once (port_add_cause) */
    CHECK(strstr(fmu_slave_errmsg(o.fs), "massA") == NULL, "%s", fmu_slave_errmsg(o.fs));
    CHECK_INT_EQ(port_collect(&o.ps), PORT_OK); /* collect forgets */
    CHECK_INT_EQ(port_step(&o.ps, 0, 1, NULL, NULL), PORT_EUSAGE);
    CHECK_STR_HAS(fmu_slave_errmsg(o.fs), "not ahead");
    port_collect(&o.ps);
    CHECK_INT_EQ(port_restore(&o.ps, 2), PORT_EUSAGE);
    CHECK_INT_EQ(port_save(&o.ps, PORT_SLOTS), PORT_EUSAGE);
    port_collect(&o.ps);
    double dx[2];
    CHECK_INT_EQ(port_get_directional(&o.ps, dx, dx), PORT_EUNSUPPORTED);
    CHECK_STR_HAS(fmu_slave_errmsg(o.fs), "directional");

    /* port_sync over two slaves: per-slave status, the worst one returned. */
    one b;
    if (open_one(&b, FMU_KIND_ME, "massB") == 0) {
        port_slave both[2] = {o.ps, b.ps};
        port_local_clock clk = {INT64_MIN};
        port_master mm = {.ops = &port_local_master_ops,
                          .ctx = &clk,
                          .slaves = both,
                          .n_slaves = 2,
                          .tick = TICK,
                          .t_start = 0,
                          .t_end = SEC(1)};
        int st[2];
        port_step(&b.ps, SEC(0.1), 1, NULL, NULL); /* fine */
        CHECK_INT_EQ(port_sync(&mm, st), PORT_EUNSUPPORTED);
        CHECK_INT_EQ(st[0], PORT_EUNSUPPORTED);
        CHECK_INT_EQ(st[1], PORT_OK);
        CHECK_INT_EQ(port_sync(&mm, st), PORT_OK);
        CHECK_INT_EQ(port_open(&mm, SEC(0.2)), PORT_OK);
        CHECK_INT_EQ(port_close(&mm, SEC(0.2)), PORT_OK);
        CHECK_INT_EQ(port_open(&mm, SEC(0.1)), PORT_EUSAGE); /* time never goes back */
        close_one(&b);
    }
    close_one(&o);
}

/* The contract of algorithms/port.h ("Post and collect", "Save and restore") on real slaves. */
static void test_contract(void)
{
    one o;
    if (open_one(&o, FMU_KIND_ME, "massC") != 0) return;
    /* A refusal of the port_* call itself: an empty slot is "unsupported" and the slave never
     * sees it (its collect stays PORT_OK); a table of another version is refused. */
    port_slave_ops no_save = *o.ps.ops;
    no_save.save = NULL;
    port_slave s2 = o.ps;
    s2.ops = &no_save;
    CHECK_INT_EQ(port_has(&s2, PORT_OP_SAVE), 0);
    CHECK_INT_EQ(port_has(&o.ps, PORT_OP_SAVE), 1);
    CHECK_INT_EQ(port_save(&s2, 0), PORT_EUNSUPPORTED);
    CHECK_INT_EQ(port_collect(&s2), PORT_OK);
    CHECK_INT_EQ(port_record(&s2), PORT_OK); /* no recorder: nothing to do */
    no_save.version = PORT_OPS_VERSION + 1;
    CHECK_INT_EQ(port_step(&s2, SEC(0.1), 1, NULL, NULL), PORT_EUSAGE);
    CHECK_INT_EQ(port_has(&s2, PORT_OP_RECORD), 0);
    CHECK_INT_EQ(port_step(NULL, SEC(0.1), 1, NULL, NULL), PORT_EUSAGE);
    /* A refusal by the slave comes back from the post and from the next collect, once. */
    CHECK_INT_EQ(port_step(&o.ps, 0, 1, NULL, NULL), PORT_EUSAGE);
    CHECK_INT_EQ(port_collect(&o.ps), PORT_EUSAGE);
    CHECK_INT_EQ(port_collect(&o.ps), PORT_OK);
    /* save keeps the state and the time, not the inputs: after a restore the inputs last set
     * stay in force, and the step repeated from the restored state gives the same bits. */
    const double f1 = 1.0, f5 = 5.0;
    port_poly u1 = {.t0 = 0, .order = 0, .n = 1, .c = &f1},
              u5 = {.t0 = 0, .order = 0, .n = 1, .c = &f5};
    double ya[3], yb[3];
    port_set_inputs(&o.ps, &u1);
    port_step(&o.ps, SEC(0.5), 1, NULL, NULL);
    port_save(&o.ps, 0);
    port_set_inputs(&o.ps, &u5);
    port_step(&o.ps, SEC(1), 1, NULL, NULL);
    port_get_outputs(&o.ps, ya);
    CHECK_INT_EQ(port_collect(&o.ps), PORT_OK);
    CHECK_INT_EQ(port_restore(&o.ps, 0), PORT_OK);
    CHECK_INT_EQ(fmu_slave_time(o.fs), SEC(0.5));
    port_step(&o.ps, SEC(1), 1, NULL, NULL); /* no set_inputs: f = 5 still */
    port_get_outputs(&o.ps, yb);
    CHECK_INT_EQ(port_collect(&o.ps), PORT_OK);
    CHECK(memcmp(ya, yb, sizeof ya) == 0, "after restore the inputs last set stay: %.17g vs %.17g",
          ya[2], yb[2]);
    CHECK_NEAR(yb[2], 5.0 / 2, 1e-12); /* a = f/m with f = 5, not 1 */
    close_one(&o);
}

/* Van der Pol (mu 1) as a model-exchange slave without inputs. */
static int open_vdp(one *o, const char *name)
{
    char err[FMU_ERR_LEN] = "";
    fmu_step_opts opt = {.kind = FMU_KIND_ME, .rtol = 1e-8, .atol = 1e-10};
    int rc = fmu_step_open("build/fmus/vanderpol_me.fmu", &opt, &o->fmu, err, sizeof err);
    CHECK(rc == FMU_STEP_OK, "open vanderpol_me: %s", err);
    if (rc) return -1;
    const fmu_md *md = fmu_step_md(o->fmu);
    fmi2ValueReference out[2] = {md->vars[fmu_md_find(md, "x")].vr,
                                 md->vars[fmu_md_find(md, "y")].vr};
    fmu_slave_opts so = {
        .name = name, .fmu = o->fmu, .n_out = 2, .out_vr = out, .t_now = 0, .tick = TICK};
    rc = fmu_slave_new(&so, &o->fs, &o->ps);
    CHECK_INT_EQ(rc, PORT_OK);
    return rc;
}

/* "save restarts CVODE" (port.h): 100 steps of 0.1 s with a save at every commit, against the
 * same steps without: close (the tolerances), not the same bits; and a second run with saves
 * gives the first one's bits (the restarts are deterministic). */
static void test_save_restarts_cvode(void)
{
    one a, b, a2;
    if (open_vdp(&a, "saving") || open_vdp(&b, "plain") || open_vdp(&a2, "saving2")) return;
    double ya[2], yb[2], yc[2];
    for (int k = 1; k <= 100; k++) {
        port_save(&a.ps, 0);
        port_save(&a2.ps, 0);
        port_step(&a.ps, SEC(0.1 * k), 1, NULL, NULL);
        port_step(&b.ps, SEC(0.1 * k), 1, NULL, NULL);
        port_step(&a2.ps, SEC(0.1 * k), 1, NULL, NULL);
    }
    port_get_outputs(&a.ps, ya);
    port_get_outputs(&b.ps, yb);
    port_get_outputs(&a2.ps, yc);
    CHECK_INT_EQ(port_collect(&a.ps), PORT_OK);
    CHECK_INT_EQ(port_collect(&b.ps), PORT_OK);
    CHECK_INT_EQ(port_collect(&a2.ps), PORT_OK);
    CHECK(memcmp(ya, yc, sizeof ya) == 0, "two runs with saves differ");
    CHECK(memcmp(ya, yb, sizeof ya) != 0, "saving did not restart CVODE (port.h says it does)");
    for (int i = 0; i < 2; i++)
        CHECK(fabs(ya[i] - yb[i]) <= 1e-5 * (1 + fabs(yb[i])), "output %d: %.17g vs %.17g", i,
              ya[i], yb[i]);
    printf("  save at every commit vs none, van der Pol at 10 s: x %.3g, y %.3g apart\n",
           fabs(ya[0] - yb[0]), fabs(ya[1] - yb[1]));
    close_one(&a);
    close_one(&b);
    close_one(&a2);
}

/* The slave's state for a checkpoint (fmu_slave_ckpt_save, doc/checkpoint.md "The slave role's
 * part"): a slave with a saved slot and inputs held for its next step, written to bytes and
 * restored into a fresh slave over a freshly opened FMU, then goes on exactly as the original:
 * the next step, and a rollback to the slot and the same step again, bit for bit. Every proper
 * prefix of the bytes is refused; a trailing byte is left unread for the caller to refuse (the
 * slave role does: "bytes after the slave's state"). */
static void test_ckpt(fmu_kind kind)
{
    one a, b;
    if (open_one(&a, kind, "mass") != 0) return;
    port_poly u = {.t0 = 0, .order = 2, .n = 1, .c = c};
    static const double c2[3] = {-0.4, 0.9, 0.3};
    port_poly u2 = {.t0 = SEC(1.0), .order = 2, .n = 1, .c = c2};
    double ya1[3], ya2[3], yb1[3], yb2[3];
    port_set_inputs(&a.ps, &u);
    port_step(&a.ps, SEC(0.5), 1, NULL, NULL);
    port_save(&a.ps, 0);
    port_step(&a.ps, SEC(1.0), 2, NULL, NULL);
    port_set_inputs(&a.ps, &u2); /* held over the next step */
    CHECK_INT_EQ(port_collect(&a.ps), PORT_OK);
    pstate_buf bytes = {0};
    CHECK_INT_EQ(fmu_slave_ckpt_save(a.fs, &bytes), PORT_OK);
    CHECK(bytes.n > 0 && !bytes.bad, "nothing written");
    port_step(&a.ps, SEC(1.5), 3, NULL, NULL);
    port_get_outputs(&a.ps, ya1);
    port_restore(&a.ps, 0);
    port_step(&a.ps, SEC(1.5), 1, NULL, NULL);
    port_get_outputs(&a.ps, ya2);
    CHECK_INT_EQ(port_collect(&a.ps), PORT_OK);
    if (open_one(&b, kind, "mass") == 0) {
        pstate_rd d = {.p = bytes.p, .n = bytes.n};
        CHECK_INT_EQ(fmu_slave_ckpt_restore(b.fs, &d), PORT_OK);
        CHECK_INT_EQ(d.at, d.n);
        CHECK_INT_EQ(fmu_slave_time(b.fs), SEC(1.0));
        port_step(&b.ps, SEC(1.5), 3, NULL, NULL);
        port_get_outputs(&b.ps, yb1);
        port_restore(&b.ps, 0);
        CHECK_INT_EQ(fmu_slave_time(b.fs), SEC(0.5));
        port_step(&b.ps, SEC(1.5), 1, NULL, NULL);
        port_get_outputs(&b.ps, yb2);
        CHECK_INT_EQ(port_collect(&b.ps), PORT_OK);
        CHECK(memcmp(ya1, yb1, sizeof ya1) == 0, "the next step: %.17g vs %.17g", ya1[1], yb1[1]);
        CHECK(memcmp(ya2, yb2, sizeof ya2) == 0, "after the rollback: %.17g vs %.17g", ya2[1],
              yb2[1]);
        close_one(&b);
    }
    unsigned char *bad = malloc(bytes.n + 1);
    for (size_t n = 0; bad && n <= bytes.n + 1; n += n < 64 || n + 64 > bytes.n ? 1 : 61) {
        if (n == bytes.n) continue;
        memcpy(bad, bytes.p, bytes.n);
        bad[bytes.n] = 0;
        if (open_one(&b, kind, "mass") != 0) break;
        pstate_rd d = {.p = bad, .n = n};
        int rc = fmu_slave_ckpt_restore(b.fs, &d);
        /* a trailing byte is the caller's to see (d.at short of d.n) */
        if (n == bytes.n + 1)
            CHECK(rc == PORT_OK && d.at == bytes.n, "a trailing byte: %d", rc);
        else
            CHECK(rc == PORT_EUSAGE, "%zu of %zu bytes accepted", n, bytes.n);
        close_one(&b);
    }
    free(bad);
    free(bytes.p);
    close_one(&a);
}

/* Typed ports (fmu_slave_opts kind_in / kind_out) on FMI 3.0's feedthrough3, whose outputs
 * repeat its inputs: a whole-number input held at the value given (the polynomial's c0, not
 * its ramp), rounded to the nearest integer and then mapped, a Boolean true when not 0, a
 * Float32 rounded to single precision, a Float64 beside them by value reference; typed
 * outputs read by name with derivatives 0; a value that is no integer refused naming the
 * input; no directional derivatives. */
static void test_typed(void)
{
    fmu_step *fmu = NULL;
    char err[FMU_ERR_LEN] = "";
    fmu_step_opts opt = {.kind = FMU_KIND_CS};
    int rc = fmu_step_open("build/fmus/fmi3/feedthrough3.fmu", &opt, &fmu, err, sizeof err);
    CHECK(rc == FMU_STEP_OK, "open feedthrough3: %s", err);
    if (rc) return;
    const fmu_md *md = fmu_step_md(fmu);
    const char *in_names[] = {"Int8_in", "Boolean_in", "Float32_in", "Float64_in"};
    const char *out_names[] = {"Int8_out", "Boolean_out", "Float32_out", "Float64_out"};
    fmi2ValueReference in[4], out[4];
    for (int k = 0; k < 4; k++) {
        in[k] = md->vars[fmu_md_find(md, in_names[k])].vr;
        out[k] = md->vars[fmu_md_find(md, out_names[k])].vr;
    }
    const unsigned char kinds[] = {FMU_SLAVE_WHOLE, FMU_SLAVE_WHOLE, FMU_SLAVE_FLOAT32,
                                   FMU_SLAVE_REAL};
    const long long map0[] = {3, 7, 7, 3}; /* 3 -> 7, 7 -> 3: the first matching pair only */
    const long long *maps[] = {map0, NULL, NULL, NULL};
    const size_t n_maps[] = {2, 0, 0, 0};
    fmu_slave_opts so = {.name = "ft",
                         .fmu = fmu,
                         .n_in = 4,
                         .in_vr = in,
                         .n_out = 3,
                         .out_vr = out,
                         .tick = TICK,
                         .kind_in = kinds,
                         .kind_out = kinds,
                         .in_name = in_names,
                         .out_name = out_names,
                         .in_map = maps,
                         .in_n_map = n_maps};
    fmu_slave *fs = NULL;
    port_slave ps;
    CHECK_INT_EQ(fmu_slave_new(&so, &fs, &ps), PORT_OK);
    if (!fs) {
        fmu_step_close(fmu);
        return;
    }
    CHECK(!ps.info.has_directional, "typed ports: no directional derivatives");
    /* order 1: the typed inputs take the value at the step start, the Float64 its ramp */
    const double u[8] = {2.6, 100, 0.2, 5, 1.23456789, 0, 5.5, 2};
    port_poly p = {.t0 = 0, .order = 1, .n = 4, .c = u};
    CHECK_INT_EQ(port_set_inputs(&ps, &p), PORT_OK);
    CHECK_INT_EQ(port_step(&ps, SEC(0.5), 1, NULL, NULL), PORT_OK);
    double y[3], dy[3];
    CHECK_INT_EQ(port_get_outputs(&ps, y), PORT_OK);
    CHECK_NEAR(y[0], 7, 0);         /* 2.6 -> 3 -> 7 */
    CHECK_NEAR(y[1], 0, 0);         /* 0.2 -> 0 -> false */
    CHECK_NEAR(y[2], 1.2345679, 0); /* the float nearest, read back in its shortest form */
    CHECK_INT_EQ(port_get_output_derivs(&ps, 1, dy), PORT_OK);
    CHECK_NEAR(dy[0], 0, 0);
    CHECK_NEAR(dy[1], 0, 0);
    CHECK_NEAR(dy[2], 0, 0);
    const double u2[4] = {-0.6, -3, 0, 0};
    port_poly p2 = {.t0 = SEC(0.5), .order = 0, .n = 4, .c = u2};
    CHECK_INT_EQ(port_set_inputs(&ps, &p2), PORT_OK);
    CHECK_INT_EQ(port_step(&ps, SEC(1), 1, NULL, NULL), PORT_OK);
    CHECK_INT_EQ(port_get_outputs(&ps, y), PORT_OK);
    CHECK_NEAR(y[0], -1, 0); /* -0.6 -> -1, no pair */
    CHECK_NEAR(y[1], 1, 0);  /* -3: true */
    const double bad[4] = {NAN, 0, 0, 0};
    port_poly p3 = {.t0 = SEC(1), .order = 0, .n = 4, .c = bad};
    CHECK_INT_EQ(port_set_inputs(&ps, &p3), PORT_OK);
    CHECK(port_step(&ps, SEC(1.5), 1, NULL, NULL) < 0, "NaN into an Int8 refused");
    CHECK_STR_HAS(fmu_slave_errmsg(fs), "setting input \"Int8_in\": nan is no integer");
    fmu_slave_free(fs);
    fmu_step_close(fmu);
}

/* Sub-step outputs from intermediate updates (doc/fmu.md "FMI 3.0"): statespace3 in
 * co-simulation (x' = x + u, y = x + u from x = 0, u = (1, 2, 3): y_i = u_i e^t) integrates in
 * internal steps of 1 ms and calls back after each; a slave opened with intermediate_update
 * takes a step of 0.1 s in 4 sub-steps as one fmi3DoStep, reading y[1] and y[2] where the FMU
 * calls back at 0.025, 0.05, 0.075 s, and gives what 4 fmi3DoStep calls give (1e-12 relative:
 * the internal steps are the same but for the last bits of their sizes) and the exact outputs
 * within 1e-10. 3 sub-steps of 0.1 s do not end on the 1 ms grid: those are taken one by
 * one. */
static void test_sub_updates(void)
{
    fmu_step *f[2] = {NULL, NULL};
    fmu_slave *sl[2] = {NULL, NULL};
    port_slave ps[2];
    for (int k = 0; k < 2; k++) {
        fmu_step_opts o = {.kind = FMU_KIND_CS, .intermediate_update = k == 0};
        char err[FMU_ERR_LEN] = "";
        CHECK(fmu_step_open("build/fmus/fmi3/statespace3.fmu", &o, &f[k], err, sizeof err) == 0,
              "%s", err);
        if (!f[k]) goto out;
        const fmu_md *md = fmu_step_md(f[k]);
        fmi2ValueReference out[2];
        CHECK(fmu_md_wire_vr(md, fmu_md_find(md, "y[1]"), &out[0]) == 0 &&
                  fmu_md_wire_vr(md, fmu_md_find(md, "y[2]"), &out[1]) == 0,
              "element handles");
        fmu_slave_opts so = {.name = "ss", .fmu = f[k], .n_out = 2, .out_vr = out, .tick = TICK};
        CHECK_INT_EQ(fmu_slave_new(&so, &sl[k], &ps[k]), PORT_OK);
        if (!sl[k]) goto out;
    }
    CHECK(fmu_step_updates(f[0]) && !fmu_step_updates(f[1]), "callback given to the first only");
    double y[2][8];
    for (int n = 1; n <= 3; n++) {
        for (int k = 0; k < 2; k++) {
            port_step_result res;
            CHECK_INT_EQ(ps[k].ops->step(ps[k].ctx, SEC(0.1 * n), 4, y[k], &res), PORT_OK);
            CHECK_INT_EQ(res.n_sub_done, 4);
        }
        for (int j = 0; j < 8; j++) {
            double t = 0.1 * (n - 1) + 0.025 * (j / 2 + 1), want = (j % 2 + 1) * exp(t);
            CHECK(fabs(y[0][j] - y[1][j]) <= 1e-12 * fabs(y[1][j]) && fabs(y[0][j] - want) <= 1e-10,
                  "step %d value %d: %.17g (updates), %.17g (sub-steps), exact %.17g", n, j,
                  y[0][j], y[1][j], want);
        }
    }
    CHECK(fmu_slave_sub_updates(sl[0]) == 3 && fmu_slave_sub_updates(sl[1]) == 0,
          "steps read through intermediate updates: %ld and %ld", fmu_slave_sub_updates(sl[0]),
          fmu_slave_sub_updates(sl[1]));
    port_step_result res;
    CHECK_INT_EQ(ps[0].ops->step(ps[0].ctx, SEC(0.4), 3, y[0], &res), PORT_OK);
    CHECK_INT_EQ(fmu_slave_sub_updates(sl[0]), 3);    /* 1/30 s is off the 1 ms grid */
    double t13 = 0.3 + (double)(SEC(0.1) / 3) * TICK; /* the sub-step's end, a whole tick */
    CHECK(fabs(y[0][0] - exp(t13)) <= 1e-10, "y[1] at 1/3 of the step: %.17g, exact %.17g", y[0][0],
          exp(t13));
out:
    for (int k = 0; k < 2; k++) {
        fmu_slave_free(sl[k]);
        fmu_step_close(f[k]);
    }
}

int main(void)
{
    test_polynomial_inputs(FMU_KIND_ME);
    test_polynomial_inputs(FMU_KIND_CS);
    test_rollback(FMU_KIND_ME);
    test_rollback(FMU_KIND_CS);
    test_transform(FMU_KIND_ME);
    test_transform(FMU_KIND_CS);
    test_transform_directional();
    test_errors();
    test_contract();
    test_save_restarts_cvode();
    test_ckpt(FMU_KIND_ME);
    test_ckpt(FMU_KIND_CS);
    test_typed();
    test_sub_updates();
    return check_summary();
}
