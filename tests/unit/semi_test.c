/* Tests of the semi-implicit coupling (algorithms/semi.h) over fake slaves with closed-form
 * solutions (tests/unit/wr_fake.h): the LINEAR system x1' = -a1 x1 + b1 x2, x2' = -a2 x2 + b2 x1
 * split in two slaves. Independent references: (1) the discrete scheme in closed form (advance
 * with the inputs of T_n held, last step with the inputs of T_n+1 held: a 2x2 linear solve per
 * step), which every solver must reproduce to within its tolerance; (2) the exact solution
 * exp(M t) x(0), against which the scheme is first order in H. Newton converges in one update
 * (the finite-difference Jacobian of an affine map is exact), Broyden from B0 = -I within 2n
 * updates (Gay 1979: good Broyden on an n-dimensional linear system), fixed point when the
 * coupling contracts; no convergence, a failing slave and bad settings are reported.
 * The figures the page quotes go into doc/cases/figures/semi_fakes.md (tests/figures.h).
 * doc/algorithms/semi-implicit.md. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "algorithms/semi.h"
#include "tests/check.h"
#include "tests/figures.h"
#include "tests/unit/wr_fake.h"

static FILE *g_fig;   /* doc/cases/figures/semi_fakes.md */
static double g_e[2]; /* the weak pair's error against exp(Mt) x(0) at H 0.1 and 0.05 */

#define TICK   1e-9
#define SEC(s) ((int64_t)llround((s) / TICK))

typedef fake_pair sys;

/* (1 - e^{-a s}) / a: the response of x' = -a x + u to a unit input held over s seconds. */
static double phi(double a, double s)
{
    return -expm1(-a * s) / a;
}

/* One step of the discrete semi-implicit scheme: from (x1, x2) at T_n over h with n_sub
 * internal steps; the advance holds the inputs of T_n, the last step those of T_n+1. */
static void scheme_step(const sys *y, double h, int n_sub, double *x1, double *x2)
{
    double hr = h / n_sub, ha = h - hr;
    double r1 = exp(-y->a1 * ha) * *x1 + y->b1 * phi(y->a1, ha) * *x2;
    double r2 = exp(-y->a2 * ha) * *x2 + y->b2 * phi(y->a2, ha) * *x1;
    double e1 = exp(-y->a1 * hr), e2 = exp(-y->a2 * hr);
    double p1 = y->b1 * phi(y->a1, hr), p2 = y->b2 * phi(y->a2, hr);
    /* x1' = e1 r1 + p1 x2',  x2' = e2 r2 + p2 x1' */
    double n1 = (e1 * r1 + p1 * e2 * r2) / (1 - p1 * p2);
    *x2 = e2 * r2 + p2 * n1;
    *x1 = n1;
}

typedef struct run {
    fake_rig g;
    semi_result res;
    char err[1024];
    int st;
} run;

static void run_semi(run *r, const sys *y, const semi_opts *o, double end)
{
    memset(r, 0, sizeof *r);
    fake_rig_init(&r->g, y, TICK, SEC(end));
    r->st = semi_run(&r->g.m, r->g.links, 2, o, &r->res, r->err, sizeof r->err);
}

/* Largest difference of the recorded rows from the discrete scheme (h, n_sub). */
static double err_scheme(const run *r, const sys *y, double h, int n_sub)
{
    double x1 = y->x10, x2 = y->x20, worst = 0;
    for (size_t k = 0; k < r->g.f[0].n_rec; k++) {
        if (k > 0) scheme_step(y, h, n_sub, &x1, &x2);
        worst = fmax(worst, fmax(fabs(r->g.f[0].rec_x[k] - x1), fabs(r->g.f[1].rec_x[k] - x2)));
    }
    return worst;
}

/* Largest difference of the recorded rows from exp(M t) x(0). */
static double err_exact(const run *r, const sys *y)
{
    return fake_pair_max_err(&r->g.f[0], &r->g.f[1], y);
}

static run R; /* large (recorded rows): static */

static const sys WEAK = {.a1 = 1, .b1 = 1.5, .a2 = 2, .b2 = -2, .x10 = 1, .x20 = 0.5};
/* p1 p2 = b1 b2 phi1 phi2 = -64 * 0.393 * 0.316 = -7.96 at H = 0.5: the fixed-point map's
 * eigenvalues have modulus sqrt(7.96) = 2.82, so it expands. */
static const sys STRONG = {.a1 = 1, .b1 = 8, .a2 = 2, .b2 = -8, .x10 = 1, .x20 = 0.5};

/* One row of the generated table: the case, the solver, steps, most updates per step, rounds,
 * and the largest distance from the discrete scheme. */
static void row(const char *what, const char *solver, const run *r, double e)
{
    fprintf(g_fig, "| %s | %s | %zu | %d | %zu | %.2g |\n", what, solver, r->res.n_accepted,
            r->res.iter_max, r->res.eval_total, e);
}

static void test_fixed_point(void)
{
    semi_opts o;
    semi_opts_default(&o, SEC(0.1));
    o.tol = 1e-13;
    run_semi(&R, &WEAK, &o, 2);
    CHECK_INT_EQ(R.st, PORT_OK);
    CHECK_INT_EQ((long)R.res.n_accepted, 20);
    CHECK_INT_EQ((long)R.g.f[0].n_rec, 21);
    /* The fixed-point map's Jacobian [[0, p1], [p2, 0]] (p = b phi) has eigenvalues
     * +-sqrt(p1 p2): |lambda| = sqrt(0.026) = 0.16, so 1e-13 takes about 15 updates. */
    printf("semi fixed point: most updates per step %d\n", R.res.iter_max);
    CHECK(R.res.iter_max >= 10 && R.res.iter_max <= 20, "see the values printed above; err: %s",
          R.err);
    CHECK(err_scheme(&R, &WEAK, 0.1, 1) < 1e-12, "see the values printed above; err: %s", R.err);
    row("weak (H 0.1, tol 1e-13)", "fixed point", &R, err_scheme(&R, &WEAK, 0.1, 1));
    double e1 = err_exact(&R, &WEAK);
    semi_result_fini(&R.res);
    /* First order in H: the error halves with the step. */
    semi_opts_default(&o, SEC(0.05));
    o.tol = 1e-13;
    run_semi(&R, &WEAK, &o, 2);
    CHECK_INT_EQ(R.st, PORT_OK);
    double e2 = err_exact(&R, &WEAK);
    printf("semi fixed point: error vs exp(Mt) %.3g at H 0.1, %.3g at H 0.05 (ratio %.3f)\n", e1,
           e2, e2 / e1);
    CHECK(e1 < 0.1 && e2 / e1 > 0.4 && e2 / e1 < 0.6, "see the values printed above; err: %s",
          R.err);
    g_e[0] = e1, g_e[1] = e2;
    /* Messages: 2 per slave at the start (get_outputs, record), 4 per slave and step outside the
     * iterations (save, set_inputs, step, record), 3 per slave and recalculation; a reply to
     * get_outputs and to every step. The fakes count what they received. */
    size_t E = R.res.eval_total, ns = R.res.n_accepted;
    CHECK_INT_EQ((long)R.res.msg_commands, (long)(2 * 2 + 2 * 4 * ns + 2 * 3 * E));
    CHECK_INT_EQ((long)R.res.msg_replies, (long)(2 + 2 * ns + 2 * E));
    CHECK_INT_EQ(R.g.f[0].n_cmd + R.g.f[1].n_cmd, (long)R.res.msg_commands);
    CHECK_INT_EQ(R.g.f[0].n_reply + R.g.f[1].n_reply, (long)R.res.msg_replies);
    /* The histogram and the step records agree with the totals. */
    size_t hsum = 0, isum = 0;
    for (int k = 0; k < SEMI_HIST_MAX; k++)
        hsum += R.res.hist[k];
    for (size_t k = 0; k < R.res.n_steps; k++)
        isum += (size_t)R.res.steps[k].iters;
    CHECK_INT_EQ((long)hsum, (long)ns);
    CHECK_INT_EQ((long)isum, (long)R.res.iter_total);
    CHECK_INT_EQ((long)R.res.n_residuals, (long)(R.res.iter_total + ns));
    semi_result_fini(&R.res);
}

static void test_fixed_point_diverges(void)
{
    semi_opts o;
    semi_opts_default(&o, SEC(0.5));
    o.max_iter = 20;
    run_semi(&R, &STRONG, &o, 2);
    CHECK_INT_EQ(R.st, PORT_ENOCONV);
    CHECK_INT_EQ((long)R.res.n_accepted, 0);
    CHECK_STR_HAS(R.err, "no convergence at 0.5 s after 20 updates");
    CHECK_STR_HAS(R.err, "max_iter reached");
    CHECK_STR_HAS(R.err, "fixed-point");
    CHECK(R.res.failed_slave == 0 || R.res.failed_slave == 1,
          "see the values printed above; err: %s", R.err);
    /* The residual grows by about 2.82 per update: 2.82^20 = 1e9. */
    CHECK(R.res.n_residuals == 21 && R.res.residuals[20] > 1e8 * R.res.residuals[0],
          "see the values printed above; err: %s", R.err);
    if (R.res.n_residuals == 21)
        fprintf(g_fig,
                "| strong (H 0.5, max_iter 20) | fixed point | diverges: the residual grows "
                "%.3g times per update, reported | | | |\n",
                pow(R.res.residuals[20] / R.res.residuals[0], 1.0 / 20));
    semi_result_fini(&R.res);
}

static void test_newton_one_update(void)
{
    semi_opts o;
    semi_opts_default(&o, SEC(0.5));
    o.iter = SEMI_NEWTON;
    o.tol = 1e-10;
    o.fd_rel = 1e-2; /* F is affine: any perturbation gives the exact Jacobian */
    run_semi(&R, &STRONG, &o, 5);
    CHECK_INT_EQ(R.st, PORT_OK);
    CHECK_INT_EQ((long)R.res.n_accepted, 10);
    CHECK_INT_EQ(R.res.iter_max, 1);
    CHECK_INT_EQ((long)R.res.hist[1], 10);
    /* Per step: 1 residual, 2 probes (both outputs feed an input), 1 residual. */
    CHECK_INT_EQ(R.res.steps[3].evals, 4);
    double e = err_scheme(&R, &STRONG, 0.5, 1);
    printf("semi newton: %zu steps, max |x - scheme| %.3g\n", R.res.n_accepted, e);
    row("strong (H 0.5, tol 1e-10)", "Newton", &R, e);
    CHECK(e < 1e-9, "see the values printed above; err: %s", R.err);
    semi_result_fini(&R.res);
    /* With internal steps: only the last quarter is redone; the advance is explicit. */
    o.n_sub = 4;
    run_semi(&R, &STRONG, &o, 5);
    CHECK_INT_EQ(R.st, PORT_OK);
    CHECK_INT_EQ(R.res.iter_max, 1);
    CHECK(err_scheme(&R, &STRONG, 0.5, 4) < 1e-9, "see the values printed above; err: %s", R.err);
    semi_result_fini(&R.res);
}

static void test_broyden(void)
{
    semi_opts o;
    semi_opts_default(&o, SEC(0.5));
    o.iter = SEMI_BROYDEN;
    o.tol = 1e-10;
    run_semi(&R, &STRONG, &o, 5);
    CHECK_INT_EQ(R.st, PORT_OK);
    /* Gay (1979): at most 2n = 4 updates on a linear system in exact arithmetic. */
    printf("semi broyden (B0 = -I): most updates per step %d, total %zu\n", R.res.iter_max,
           R.res.iter_total);
    CHECK(R.res.iter_max >= 2 && R.res.iter_max <= 4, "see the values printed above; err: %s",
          R.err);
    CHECK(err_scheme(&R, &STRONG, 0.5, 1) < 1e-9, "see the values printed above; err: %s", R.err);
    row("strong (H 0.5, tol 1e-10)", "Broyden, B0 = -I", &R, err_scheme(&R, &STRONG, 0.5, 1));
    semi_result_fini(&R.res);
    o.jac0 = SEMI_JAC0_FD;
    o.fd_rel = 1e-2;
    run_semi(&R, &STRONG, &o, 5);
    CHECK_INT_EQ(R.st, PORT_OK);
    CHECK_INT_EQ(R.res.iter_max, 1);
    CHECK(err_scheme(&R, &STRONG, 0.5, 1) < 1e-9, "see the values printed above; err: %s", R.err);
    row("strong (H 0.5, tol 1e-10)", "Broyden, B0 by finite differences", &R,
        err_scheme(&R, &STRONG, 0.5, 1));
    semi_result_fini(&R.res);
    /* On the weak coupling all three agree with the scheme, to within their tolerance. */
    o.jac0 = SEMI_JAC0_IDENTITY;
    o.step = SEC(0.1);
    run_semi(&R, &WEAK, &o, 2);
    CHECK_INT_EQ(R.st, PORT_OK);
    CHECK(err_scheme(&R, &WEAK, 0.1, 1) < 1e-9, "see the values printed above; err: %s", R.err);
    semi_result_fini(&R.res);
}

/* Jacobian-free Newton-Krylov (KINSOL, GMRES): on the affine map GMRES with n = 2 directions
 * solves the Newton system exactly (J v by difference quotients is exact up to rounding), so one
 * Newton iteration per step; the result is the scheme's. */
static void test_newton_krylov(void)
{
    semi_opts o;
    semi_opts_default(&o, SEC(0.5));
    o.iter = SEMI_NEWTON_KRYLOV;
    o.tol = 1e-10;
    run_semi(&R, &STRONG, &o, 5);
    CHECK_INT_EQ(R.st, PORT_OK);
    CHECK_INT_EQ((long)R.res.n_accepted, 10);
    printf("semi newton-krylov: most Newton iterations per step %d, %zu rounds\n", R.res.iter_max,
           R.res.eval_total);
    CHECK(R.res.iter_max >= 1 && R.res.iter_max <= 2, "newton-krylov: %d iterations",
          R.res.iter_max);
    CHECK(err_scheme(&R, &STRONG, 0.5, 1) < 1e-9, "newton-krylov: %g from the scheme",
          err_scheme(&R, &STRONG, 0.5, 1));
    row("strong (H 0.5, tol 1e-10)", "Newton-Krylov (KINSOL)", &R, err_scheme(&R, &STRONG, 0.5, 1));
    semi_result_fini(&R.res);
    /* max_iter 1 on the expanding fixed-point map with a tolerance it cannot meet in one
     * iteration: reported with KINSOL's flag. */
    o.tol = 1e-300;
    o.max_iter = 1;
    run_semi(&R, &STRONG, &o, 5);
    CHECK_INT_EQ(R.st, PORT_ENOCONV);
    CHECK_STR_HAS(R.err, "KINSOL returned");
    semi_result_fini(&R.res);
}

static void test_failures(void)
{
    semi_opts o;
    semi_opts_default(&o, SEC(0.1));
    o.tol = 0;
    run_semi(&R, &WEAK, &o, 1);
    CHECK_INT_EQ(R.st, PORT_EUSAGE);
    CHECK_STR_HAS(R.err, "bad settings");
    semi_opts_default(&o, SEC(0.1));
    o.n_sub = 0;
    run_semi(&R, &WEAK, &o, 1);
    CHECK_INT_EQ(R.st, PORT_EUSAGE);
    /* The second slave's 5th step fails: reported with its name and the time. */
    semi_opts_default(&o, SEC(0.1));
    memset(&R, 0, sizeof R);
    sys from_ones = WEAK;
    from_ones.x10 = from_ones.x20 = 1;
    fake_rig_init(&R.g, &from_ones, TICK, SEC(1));
    fake_rig_faults(&R.g);
    port_fault_arm(&R.g.pf[1], PF_STEP, 5, PORT_EFAIL);
    R.st = semi_run(&R.g.m, R.g.links, 2, &o, &R.res, R.err, sizeof R.err);
    CHECK_INT_EQ(R.st, PORT_EFAIL);
    CHECK_INT_EQ(R.res.failed_slave, 1);
    CHECK_STR_HAS(R.err, "slave 'two'");
    semi_result_fini(&R.res);
    /* A slave that cannot save is refused before anything runs. */
    R.g.s[0].info.can_save = 0;
    R.st = semi_run(&R.g.m, R.g.links, 2, &o, &R.res, R.err, sizeof R.err);
    CHECK_INT_EQ(R.st, PORT_EUNSUPPORTED);
    CHECK_STR_HAS(R.err, "'one' cannot save");
    semi_result_fini(&R.res);
    semi_result_fini(NULL);
}

/* Checkpoints (port_ckpt, doc/checkpoint.md "Master methods"): what the uninterrupted run
 * offered at instant `at`, and both fakes (their slot 0 included) as they were then. */
typedef struct keep {
    int64_t at;
    unsigned char bytes[1024];
    size_t n;
    int offers;
    fake *f, saved[2];
} keep;

static int keep_offer(void *ctx, int64_t t, const void *state, size_t n)
{
    keep *k = ctx;
    k->offers++;
    if (t != k->at || n > sizeof k->bytes) return PORT_OK;
    memcpy(k->bytes, state, n);
    k->n = n;
    k->saved[0] = k->f[0], k->saved[1] = k->f[1];
    return PORT_OK;
}

/* A run cut after an instant and resumed from the offered state with the slaves as they were
 * records exactly the uninterrupted run's rows and ends with its counters, for every
 * iteration; every proper prefix of the bytes, a trailing byte and an instant at the end are
 * refused before any command. */
static void test_resume(void)
{
    static run a, b; /* large: the fakes' records */
    static const int iters[] = {SEMI_FIXED_POINT, SEMI_BROYDEN, SEMI_NEWTON, SEMI_NEWTON_KRYLOV};
    int64_t ats[] = {0, SEC(0.5), SEC(1.5)};
    for (size_t i = 0; i < sizeof iters / sizeof iters[0]; i++)
        for (size_t c = 0; c < sizeof ats / sizeof ats[0]; c++) {
            semi_opts o;
            semi_opts_default(&o, SEC(0.25));
            o.iter = iters[i];
            o.tol = 1e-10;
            memset(&a, 0, sizeof a);
            fake_rig_init(&a.g, &WEAK, TICK, SEC(2));
            keep k = {.at = ats[c], .f = a.g.f};
            port_ckpt ck = {.offer = keep_offer, .ctx = &k};
            a.g.m.ckpt = &ck;
            a.st = semi_run(&a.g.m, a.g.links, 2, &o, &a.res, a.err, sizeof a.err);
            CHECK(a.st == PORT_OK, "iteration %d: run: %s", iters[i], a.err);
            CHECK_INT_EQ(k.offers, 9); /* the start and eight instants */
            CHECK(k.n > 0, "nothing offered at %lld", (long long)ats[c]);
            memset(&b, 0, sizeof b);
            fake_rig_init(&b.g, &WEAK, TICK, SEC(2));
            b.g.f[0] = k.saved[0], b.g.f[1] = k.saved[1];
            port_ckpt rk = {.resume = k.bytes, .n_resume = k.n};
            b.g.m.ckpt = &rk;
            b.st = semi_run(&b.g.m, b.g.links, 2, &o, &b.res, b.err, sizeof b.err);
            CHECK(b.st == PORT_OK, "iteration %d, resume after %lld: %s", iters[i],
                  (long long)ats[c], b.err);
            for (int j = 0; j < 2; j++) {
                CHECK_INT_EQ(b.g.f[j].n_rec, a.g.f[j].n_rec);
                CHECK(memcmp(b.g.f[j].rec_x, a.g.f[j].rec_x, sizeof a.g.f[j].rec_x) == 0 &&
                          memcmp(b.g.f[j].rec_t, a.g.f[j].rec_t, sizeof a.g.f[j].rec_t) == 0,
                      "iteration %d, resume after %lld: slave %d's rows differ", iters[i],
                      (long long)ats[c], j);
                CHECK_INT_EQ(b.g.f[j].n_step, a.g.f[j].n_step);
            }
            CHECK_INT_EQ(b.res.t_reached, a.res.t_reached);
            CHECK_INT_EQ(b.res.n_accepted, a.res.n_accepted);
            CHECK_INT_EQ(b.res.iter_total, a.res.iter_total);
            CHECK_INT_EQ(b.res.eval_total, a.res.eval_total);
            CHECK_INT_EQ(b.res.iter_max, a.res.iter_max);
            CHECK_INT_EQ(b.res.msg_commands, a.res.msg_commands);
            CHECK_INT_EQ(b.res.msg_replies, a.res.msg_replies);
            CHECK(memcmp(b.res.hist, a.res.hist, sizeof a.res.hist) == 0, "histogram");
            unsigned char bad[1025];
            for (size_t n = 0; i == 2 && c == 1 && n <= k.n + 1; n++) {
                if (n == k.n) continue;
                memcpy(bad, k.bytes, k.n);
                bad[k.n] = 0;
                semi_result_fini(&b.res);
                memset(&b, 0, sizeof b);
                fake_rig_init(&b.g, &WEAK, TICK, SEC(2));
                port_ckpt bk = {.resume = bad, .n_resume = n};
                b.g.m.ckpt = &bk;
                CHECK_INT_EQ(semi_run(&b.g.m, b.g.links, 2, &o, &b.res, b.err, sizeof b.err),
                             PORT_EUSAGE);
                CHECK_STR_HAS(b.err, "not one it wrote");
                CHECK_INT_EQ(b.g.f[0].n_cmd + b.g.f[1].n_cmd, 0);
            }
            if (i == 2 && c == 1) { /* the instant rewritten to the end of the run */
                memcpy(bad, k.bytes, k.n);
                int64_t end = SEC(2);
                for (int q = 0; q < 8; q++)
                    bad[8 + q] = (unsigned char)((uint64_t)end >> (8 * q));
                semi_result_fini(&b.res);
                memset(&b, 0, sizeof b);
                fake_rig_init(&b.g, &WEAK, TICK, SEC(2));
                port_ckpt bk = {.resume = bad, .n_resume = k.n};
                b.g.m.ckpt = &bk;
                CHECK_INT_EQ(semi_run(&b.g.m, b.g.links, 2, &o, &b.res, b.err, sizeof b.err),
                             PORT_EUSAGE);
                CHECK_STR_HAS(b.err, "outside the run");
            }
            semi_result_fini(&a.res);
            semi_result_fini(&b.res);
        }
}

int main(void)
{
    figures_table g;
    g_fig = figures_open(&g, "semi_fakes.md", "tests/unit/semi_test.c");
    fprintf(g_fig, "The linear pair x1' = -a1 x1 + b1 x2, x2' = -a2 x2 + b2 x1 in two fakes whose "
                   "steps are exact: weak a 1, 2, b 1.5, -2; strong a 1, 2, b 8, -8. Against the "
                   "discrete scheme in closed form.\n\n"
                   "| case | solver | steps | most updates per step | rounds | max \\|x - "
                   "scheme\\| |\n|---|---|---|---|---|---|\n");
    test_fixed_point();
    test_fixed_point_diverges();
    test_newton_one_update();
    test_broyden();
    test_newton_krylov();
    test_failures();
    test_resume();
    fprintf(g_fig,
            "\n### The weak pair against exp(Mt) x(0): first order\n\n"
            "| step | 0.1 | 0.05 | ratio |\n|---|---|---|---|\n"
            "| max error, fixed point | %.3g | %.3g | %.2f |\n",
            g_e[0], g_e[1], g_e[1] / g_e[0]);
    figures_close(&g);
    return check_summary();
}
