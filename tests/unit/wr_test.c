/* Tests of waveform relaxation (algorithms/wr.h) over fake slaves with closed-form solutions
 * (tests/unit/wr_fake.h): x1' = -a1 x1 + b1 x2 and x2' = -a2 x2 + b2 x1 split in two slaves,
 * against the exact solution exp(M t) x(0) (2x2 matrix exponential, scaling and squaring).
 * Error shrinks with tol; the run advances after convergence (the errata of the printed
 * Algorithm 2); no convergence is reported; the message-count identity of eq. 5.5; halving.
 * Writes the figures the page quotes into doc/cases/figures/wr_fakes.md (tests/figures.h).
 * doc/algorithms/waveform-relaxation.md. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "algorithms/wr.h"
#include "tests/check.h"
#include "tests/figures.h"
#include "tests/unit/wr_fake.h"

#define TICK   1e-9
#define SEC(s) ((int64_t)llround((s) / TICK))

/* The coupled system under test. */
typedef fake_pair sys;

typedef struct run {
    fake_rig g;
    wr_result res;
    char err[1024];
    int st;
} run;

static void run_wr(run *r, const sys *y, const wr_opts *o, double end)
{
    memset(r, 0, sizeof *r);
    fake_rig_init(&r->g, y, TICK, SEC(end));
    r->st = wr_run(&r->g.m, r->g.links, 2, o, &r->res, r->err, sizeof r->err);
}

/* Largest error of the recorded points against exp(M t) x(0). */
static double max_err(const run *r, const sys *y)
{
    return fake_pair_max_err(&r->g.f[0], &r->g.f[1], y);
}

static const sys osc = {.a1 = 0.5, .b1 = 2, .a2 = 1, .b2 = -3, .x10 = 1, .x20 = 0.5};

static void test_fit(void)
{
    /* p(s) = 1 - 2 s + 3 s^2 - 0.5 s^3 over h = 0.4: exact for n_sub >= 3. */
    for (int n = 3; n <= WR_MAX_SUB; n++) {
        double v[WR_MAX_SUB + 1], c[WR_MAX_SUB + 1], h = 0.4;
        for (int m = 0; m <= n; m++) {
            double s = h * m / n;
            v[m] = 1 - 2 * s + 3 * s * s - 0.5 * s * s * s;
        }
        CHECK_INT_EQ(wr_fit(n, h, v, c), 0);
        CHECK_NEAR(c[0], 1, 1e-12);
        CHECK_NEAR(c[1], -2, 1e-9);
        CHECK_NEAR(c[2], 6, 1e-7);  /* p'' = 6 */
        CHECK_NEAR(c[3], -3, 1e-5); /* p''' = -3 */
        for (int k = 4; k <= n; k++)
            CHECK(fabs(c[k]) < 1e-2 * pow(10, k - 4), "c[%d] = %g", k, c[k]);
    }
    double v[2] = {1, 3}, c[2];
    CHECK_INT_EQ(wr_fit(1, 0.5, v, c), 0);
    CHECK_NEAR(c[1], 4, 1e-14);
    CHECK_INT_EQ(wr_fit(0, 0.5, v, c), -1);
    CHECK_INT_EQ(wr_fit(WR_MAX_SUB + 1, 0.5, v, c), -1);
}

static void test_decide(void)
{
    wr_opts o;
    wr_opts_default(&o, 1000);
    o.max_iter = 3;
    CHECK_INT_EQ(wr_decide(&o, 1, 1e-7, 1000).verdict, WR_ACCEPT);
    CHECK_INT_EQ(wr_decide(&o, 1, 1e-3, 1000).verdict, WR_ITERATE);
    CHECK_INT_EQ(wr_decide(&o, 2, NAN, 1000).verdict, WR_ITERATE);
    CHECK_INT_EQ(wr_decide(&o, 3, 1e-3, 1000).verdict, WR_GIVE_UP);
    o.on_fail = WR_HALVE;
    o.h_min = 400;
    wr_decision d = wr_decide(&o, 3, 1e-3, 1000);
    CHECK_INT_EQ(d.verdict, WR_RETRY_HALF);
    CHECK_INT_EQ(d.h_next, 500);
    CHECK_INT_EQ(wr_decide(&o, 3, 1e-3, 500).verdict, WR_GIVE_UP); /* 250 < h_min */
}

/* Fixed step 0.1 and n_sub 4 (interpolation error ~1e-9): the error follows tol. */
static void test_error_shrinks_with_tol(FILE *fig)
{
    const double tols[] = {1e-2, 1e-4, 1e-6, 1e-8};
    double prev = INFINITY;
    size_t prev_iters = 0;
    fprintf(fig, "### Error against tol, fixed step\n\nx1' = -0.5 x1 + 2 x2, x2' = -x2 - 3 x1, "
                 "x(0) = (1, 0.5), step 0.1, n_sub 4, end 2; the error against exp(M t) x(0).\n\n"
                 "| tol | max error | instants | steps | iterations | most per step |\n"
                 "|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < sizeof tols / sizeof *tols; i++) {
        wr_opts o;
        wr_opts_default(&o, SEC(0.1));
        o.tol = tols[i];
        run r;
        run_wr(&r, &osc, &o, 2.0);
        CHECK_INT_EQ(r.st, PORT_OK);
        double e = max_err(&r, &osc);
        printf("  tol %g: max error %.3g, %zu iterations over %zu steps (most %d)\n", tols[i], e,
               r.res.iter_total, r.res.n_accepted, r.res.iter_max);
        fprintf(fig, "| %g | %.2g | %zu | %zu | %zu | %d |\n", tols[i], e, r.res.n_instants,
                r.res.n_accepted, r.res.iter_total, r.res.iter_max);
        CHECK_INT_EQ(r.res.n_instants, 20);
        CHECK_INT_EQ(r.res.n_accepted, 20);
        CHECK(e < prev, "tol %g: error %g did not shrink (previous %g)", tols[i], e, prev);
        CHECK(r.res.iter_total > prev_iters, "tol %g: %zu iterations, not more than %zu", tols[i],
              r.res.iter_total, prev_iters);
        prev_iters = r.res.iter_total;
        CHECK(e <= 20 * tols[i] + 1e-8, "tol %g: error %g above 20 tol + 1e-8", tols[i], e);
        prev = e;
        wr_result_fini(&r.res);
    }
}

/* The printed Algorithm 2 rolls back after the converged iteration and never advances; ours
 * commits T_n + h: every step is recorded at a later time, the slaves end at t_end. */
static void test_advances(void)
{
    wr_opts o;
    wr_opts_default(&o, SEC(0.1));
    o.tol = 1e-8;
    run r;
    run_wr(&r, &osc, &o, 1.0);
    CHECK_INT_EQ(r.st, PORT_OK);
    CHECK_INT_EQ(r.res.n_accepted, 10);
    CHECK_INT_EQ(r.res.t_reached, SEC(1.0));
    CHECK_INT_EQ(r.g.f[0].t, SEC(1.0));
    CHECK_INT_EQ(r.g.f[1].t, SEC(1.0));
    CHECK_INT_EQ(r.g.f[0].n_rec, 11); /* t = 0, then every committed step */
    for (size_t k = 0; k < r.g.f[0].n_rec; k++)
        CHECK_NEAR(r.g.f[0].rec_t[k], 0.1 * k, 1e-12);
    CHECK(fabs(r.g.f[0].rec_x[1] - osc.x10) > 1e-3, "x1 at 0.1 s still the initial value");
    CHECK(r.res.iter_max >= 2 && r.res.iter_max < 50, "iterations per step %d", r.res.iter_max);
    for (size_t k = 0; k < r.res.n_steps; k++) {
        CHECK_INT_EQ(r.res.steps[k].accepted, 1);
        CHECK_STR_HAS(r.res.steps[k].reason, "converged");
    }
    wr_result_fini(&r.res);
}

static void test_no_convergence(FILE *fig)
{
    wr_opts o;
    wr_opts_default(&o, SEC(0.5));
    o.tol = 1e-12;
    o.max_iter = 3;
    run r;
    run_wr(&r, &osc, &o, 1.0);
    CHECK_INT_EQ(r.st, PORT_ENOCONV);
    CHECK_STR_HAS(r.err, "no convergence on [0, 0.5] s after 3 iterations");
    CHECK_STR_HAS(r.err, "tol 1e-12 (max-norm, absolute)");
    CHECK_STR_HAS(r.err, "residuals of iterations 1..3");
    CHECK_STR_HAS(r.err, "largest change 0.321 in output 0 of slave 'two'");
    fprintf(fig,
            "\n### No convergence\n\nThe same system, step 0.5, tol 1e-12, max_iter 3, "
            "`\"fail\"`: the report\n\n    %s\n",
            r.err);
    CHECK_INT_EQ(r.res.t_reached, 0);
    CHECK_INT_EQ(r.res.n_accepted, 0);
    CHECK_INT_EQ(r.res.n_steps, 1);
    CHECK_INT_EQ(r.res.steps[0].accepted, 0);
    CHECK_STR_HAS(r.res.steps[0].reason, "no convergence within max_iter");
    CHECK_INT_EQ(r.res.n_residuals, 3);
    CHECK(r.res.residuals[2] < r.res.residuals[0], "residuals did not decrease: %g then %g",
          r.res.residuals[0], r.res.residuals[2]);
    wr_result_fini(&r.res);
}

/* Commands and replies seen by the fakes equal the counts of the result, and the result's
 * count in the thesis's convention equals eq. 5.5: 4 n_s n_c + 5 n_c sum n_i. */
static void check_counts(const run *r)
{
    long cmd = r->g.f[0].n_cmd + r->g.f[1].n_cmd, rep = r->g.f[0].n_reply + r->g.f[1].n_reply;
    size_t n_c = 2, n_s = r->res.n_accepted, sum_i = 0;
    for (size_t k = 0; k < r->res.n_steps; k++)
        sum_i += (size_t)r->res.steps[k].iters;
    CHECK_INT_EQ(sum_i, r->res.iter_total);
    CHECK_INT_EQ((size_t)(cmd + rep), r->res.msg_init + r->res.msg_commands + r->res.msg_replies);
    CHECK_INT_EQ(r->res.msg_init, 4 * n_c);
    CHECK_INT_EQ(r->res.msg_commands + r->res.msg_replies, 4 * n_s * n_c + 4 * n_c * sum_i);
    CHECK_INT_EQ(r->res.msg_thesis, 4 * n_s * n_c + 5 * n_c * sum_i);
}

static void test_message_counts(void)
{
    wr_opts o;
    wr_opts_default(&o, SEC(0.1));
    o.tol = 1e-9;
    run r;
    run_wr(&r, &osc, &o, 1.0);
    CHECK_INT_EQ(r.st, PORT_OK);
    check_counts(&r);
    printf("  counts: n_s %zu, sum n_i %zu, messages %zu (+%zu at start), eq. 5.5 %zu\n",
           r.res.n_accepted, r.res.iter_total, r.res.msg_commands + r.res.msg_replies,
           r.res.msg_init, r.res.msg_thesis);
    wr_result_fini(&r.res);
}

/* Strong coupling and a long step: too few iterations at 0.8 s; halving to 0.2 s converges. */
static void test_halving(FILE *fig)
{
    const sys stiff = {.a1 = 1, .b1 = 6, .a2 = 2, .b2 = -6, .x10 = 1, .x20 = 0};
    wr_opts o;
    wr_opts_default(&o, SEC(0.8));
    o.tol = 1e-7;
    o.max_iter = 8;
    run r;
    run_wr(&r, &stiff, &o, 1.6);
    CHECK_INT_EQ(r.st, PORT_ENOCONV);
    wr_result_fini(&r.res);

    o.on_fail = WR_HALVE;
    o.h_min = SEC(0.01);
    run_wr(&r, &stiff, &o, 1.6);
    CHECK_INT_EQ(r.st, PORT_OK);
    CHECK(r.res.n_abandoned > 0, "no step was halved");
    CHECK_STR_HAS(r.res.steps[0].reason, "halve");
    CHECK_INT_EQ(r.res.steps[0].accepted, 0);
    CHECK_INT_EQ(r.res.t_reached, SEC(1.6));
    CHECK_INT_EQ(r.g.f[0].t, SEC(1.6));
    double e = max_err(&r, &stiff);
    CHECK(e < 1e-5, "halved run: error %g (> 1e-5)", e);
    printf("  halving: %zu accepted, %zu abandoned, error %.3g\n", r.res.n_accepted,
           r.res.n_abandoned, e);
    /* two instants (0.8, 1.6): each holds the accepted halves, what the slaves count */
    CHECK_INT_EQ(r.res.n_instants, 2);
    CHECK(r.res.n_accepted > r.res.n_instants, "%zu steps accepted in %zu instants",
          r.res.n_accepted, r.res.n_instants);
    fprintf(fig, "\n### Halving\n\nx1' = -x1 + 6 x2, x2' = -2 x2 - 6 x1, x(0) = (1, 0), step 0.8, "
                 "max_iter 8, tol 1e-7, h_min 0.01, end 1.6, `\"halve\"`.\n\n"
                 "| instants | steps accepted | attempts abandoned | smallest step | max error |\n"
                 "|---|---|---|---|---|\n");
    double h_small = INFINITY;
    for (size_t k = 0; k < r.res.n_steps; k++)
        if (r.res.steps[k].accepted)
            h_small = fmin(h_small, (double)(r.res.steps[k].t_to - r.res.steps[k].t_from) * TICK);
    fprintf(fig, "| %zu | %zu | %zu | %g | %.2g |\n", r.res.n_instants, r.res.n_accepted,
            r.res.n_abandoned, h_small, e);
    check_counts(&r);
    wr_result_fini(&r.res);

    o.h_min = SEC(0.5); /* one halving allowed (0.4 < 0.5): still fails */
    run_wr(&r, &stiff, &o, 1.6);
    CHECK_INT_EQ(r.st, PORT_ENOCONV);
    wr_result_fini(&r.res);
}

static void test_norms(void)
{
    for (int nm = 0; nm < 2; nm++)
        for (int rel = 0; rel < 2; rel++) {
            wr_opts o;
            wr_opts_default(&o, SEC(0.1));
            o.norm = nm ? WR_NORM_2 : WR_NORM_MAX;
            o.relative = rel;
            o.tol = 1e-8;
            run r;
            run_wr(&r, &osc, &o, 1.0);
            CHECK_INT_EQ(r.st, PORT_OK);
            double e = max_err(&r, &osc);
            CHECK(e < 1e-6, "norm %d relative %d: error %g", nm, rel, e);
            wr_result_fini(&r.res);
        }
}

static void test_errors(void)
{
    wr_opts o;
    wr_opts_default(&o, SEC(0.1));
    run r;
    o.n_sub = WR_MAX_SUB + 1;
    run_wr(&r, &osc, &o, 1.0);
    CHECK_INT_EQ(r.st, PORT_EUSAGE);
    CHECK_STR_HAS(r.err, "n_sub");
    wr_result_fini(&r.res);

    /* A slave that fails mid-run is named, with the time. */
    wr_opts_default(&o, SEC(0.1));
    memset(&r, 0, sizeof r);
    sys from_ones = osc;
    from_ones.x10 = from_ones.x20 = 1;
    fake_rig_init(&r.g, &from_ones, TICK, SEC(1));
    fake_rig_faults(&r.g);
    port_fault_arm(&r.g.pf[1], PF_STEP, 7, PORT_EFAIL);
    r.g.links[1] = (port_link){.to = 1, .in = 0, .from = 3, .out = 0};
    CHECK_INT_EQ(wr_run(&r.g.m, r.g.links, 2, &o, &r.res, r.err, sizeof r.err), PORT_EUSAGE);
    CHECK_STR_HAS(r.err, "link 1 (slave 1 input 0 <- slave 3 output 0)");
    wr_result_fini(&r.res);
    r.g.links[1] = (port_link){.to = 1, .in = 0, .from = 0, .out = 0};
    r.g.clk.last = INT64_MIN;
    CHECK_INT_EQ(wr_run(&r.g.m, r.g.links, 2, &o, &r.res, r.err, sizeof r.err), PORT_EFAIL);
    CHECK_STR_HAS(r.err, "slave 'two'");
    CHECK_INT_EQ(r.res.failed_slave, 1);
    wr_result_fini(&r.res);

    /* A slave that cannot save is refused before anything runs. */
    r.g.s[0].info.can_save = 0;
    r.g.clk.last = INT64_MIN;
    CHECK_INT_EQ(wr_run(&r.g.m, r.g.links, 2, &o, &r.res, r.err, sizeof r.err), PORT_EUNSUPPORTED);
    CHECK_STR_HAS(r.err, "'one' cannot save");
    wr_result_fini(&r.res);
}

/* Checkpoints (port_ckpt): what the uninterrupted run offered at the instant `at`, and both
 * fakes (their slot 0, the rollback point, included) as they were then. */
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
 * records exactly the uninterrupted run's rows and ends with its counters; bytes of another
 * writer are refused before any command. */
static void test_resume(void)
{
    static run a, b; /* large: the fakes' records */
    wr_opts o;
    wr_opts_default(&o, SEC(0.1));
    o.tol = 1e-8;
    int64_t ats[] = {0, SEC(0.3), SEC(0.9)};
    for (size_t c = 0; c < sizeof ats / sizeof ats[0]; c++) {
        memset(&a, 0, sizeof a);
        fake_rig_init(&a.g, &osc, TICK, SEC(1.0));
        keep k = {.at = ats[c], .f = a.g.f};
        port_ckpt ck = {.offer = keep_offer, .ctx = &k};
        a.g.m.ckpt = &ck;
        a.st = wr_run(&a.g.m, a.g.links, 2, &o, &a.res, a.err, sizeof a.err);
        CHECK(a.st == PORT_OK, "run: %s", a.err);
        CHECK_INT_EQ(k.offers, 11); /* the start and ten instants */
        CHECK(k.n > 0, "nothing offered at %lld", (long long)ats[c]);
        memset(&b, 0, sizeof b);
        fake_rig_init(&b.g, &osc, TICK, SEC(1.0));
        b.g.f[0] = k.saved[0], b.g.f[1] = k.saved[1];
        port_ckpt rk = {.resume = k.bytes, .n_resume = k.n};
        b.g.m.ckpt = &rk;
        b.st = wr_run(&b.g.m, b.g.links, 2, &o, &b.res, b.err, sizeof b.err);
        CHECK(b.st == PORT_OK, "resume after %lld: %s", (long long)ats[c], b.err);
        for (int j = 0; j < 2; j++) {
            CHECK_INT_EQ(b.g.f[j].n_rec, a.g.f[j].n_rec);
            CHECK(memcmp(b.g.f[j].rec_x, a.g.f[j].rec_x, sizeof a.g.f[j].rec_x) == 0 &&
                      memcmp(b.g.f[j].rec_t, a.g.f[j].rec_t, sizeof a.g.f[j].rec_t) == 0,
                  "resume after %lld: slave %d's rows differ", (long long)ats[c], j);
            CHECK_INT_EQ(b.g.f[j].n_step, a.g.f[j].n_step);
        }
        CHECK_INT_EQ(b.res.t_reached, a.res.t_reached);
        CHECK_INT_EQ(b.res.n_accepted, a.res.n_accepted);
        CHECK_INT_EQ(b.res.iter_total, a.res.iter_total);
        CHECK_INT_EQ(b.res.iter_max, a.res.iter_max);
        CHECK_INT_EQ(b.res.msg_commands, a.res.msg_commands);
        CHECK_INT_EQ(b.res.msg_thesis, a.res.msg_thesis);
        CHECK(memcmp(b.res.hist, a.res.hist, sizeof a.res.hist) == 0, "histogram");
        /* Refusals: every proper prefix and a trailing byte; another magic. */
        unsigned char bad[1025];
        for (size_t n = 0; c == 1 && n <= k.n + 1; n++) {
            if (n == k.n) continue;
            memcpy(bad, k.bytes, k.n);
            bad[k.n] = 0;
            wr_result_fini(&b.res);
            memset(&b, 0, sizeof b);
            fake_rig_init(&b.g, &osc, TICK, SEC(1.0));
            port_ckpt bk = {.resume = bad, .n_resume = n};
            b.g.m.ckpt = &bk;
            CHECK_INT_EQ(wr_run(&b.g.m, b.g.links, 2, &o, &b.res, b.err, sizeof b.err),
                         PORT_EUSAGE);
            CHECK_STR_HAS(b.err, "not one it wrote");
            CHECK_INT_EQ(b.g.f[0].n_cmd + b.g.f[1].n_cmd, 0);
        }
        wr_result_fini(&a.res);
        wr_result_fini(&b.res);
    }
}

int main(void)
{
    test_fit();
    test_decide();
    figures_table g;
    FILE *fig = figures_open(&g, "wr_fakes.md", "tests/unit/wr_test.c");
    test_error_shrinks_with_tol(fig);
    test_advances();
    test_no_convergence(fig);
    test_message_counts();
    test_halving(fig);
    figures_close(&g);
    test_norms();
    test_errors();
    test_resume();
    return check_summary();
}
