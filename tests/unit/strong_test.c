/* Tests of strong coupling (algorithms/strong.h) over fake slaves that evaluate
 * x' = -a x + b u in closed form (tests/unit/wr_fake.h, with set_states / get_derivatives added
 * here): the linear pair x1' = -a1 x1 + b1 x2, x2' = -a2 x2 + b2 x1 against exp(M t) x(0); the
 * error follows the master's CVODE tolerance; one round per evaluation when the outputs are
 * the states (info.out_state) and two otherwise give the same numbers; the message count equals
 * eq. 5.19's form c0 + c1 n_s + c2 n_f for the recorded right-hand-side count n_f; a failing
 * slave is named. The accuracy figures go into doc/cases/figures/strong_fakes.md
 * (tests/figures.h). doc/algorithms/strong-coupling.md. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "algorithms/strong.h"
#include "tests/check.h"
#include "tests/figures.h"
#include "tests/unit/wr_fake.h"

#define TICK   1e-9
#define SEC(s) ((int64_t)llround((s) / TICK))

/* The evaluator operations: the state is x, its derivative -a x + sum b_i u_i (held). */
static int ev_get_states(void *ctx, double *x)
{
    fake *f = ctx;
    f->n_cmd++;
    f->n_reply++;
    x[0] = f->x;
    return PORT_OK;
}
static int ev_set_states(void *ctx, int64_t t, const double *x)
{
    fake *f = ctx;
    f->n_cmd++;
    f->x = x[0];
    f->t = t;
    return PORT_OK;
}
static int ev_get_derivatives(void *ctx, double *dx)
{
    fake *f = ctx;
    f->n_cmd++;
    f->n_reply++;
    f->n_step++;
    double d = -f->a * f->x;
    for (size_t i = 0; i < f->n_in; i++)
        d += f->b[i] * f->c[i][0];
    dx[0] = d;
    return PORT_OK;
}
static port_slave_ops ev_ops;

typedef fake_pair sys;

typedef struct run {
    fake_rig g;
    strong_result res;
    char err[1024];
    int st;
} run;

static run R;

static const long OUT_IS_X[1] = {0}; /* the fake's output is its state */

static void run_strong(run *r, const sys *y, const strong_opts *o, double end, long fail_at,
                       int map)
{
    memset(r, 0, sizeof *r);
    ev_ops = fake_ops;
    ev_ops.get_states = ev_get_states;
    ev_ops.set_states = ev_set_states;
    ev_ops.get_derivatives = ev_get_derivatives;
    fake_rig_init(&r->g, y, TICK, SEC(end));
    for (int j = 0; j < 2; j++) {
        r->g.s[j].ops = &ev_ops;
        r->g.s[j].info.n_state = 1;
        r->g.s[j].info.has_state_derivs = 1;
        r->g.s[j].info.out_state = map ? OUT_IS_X : NULL;
    }
    fake_rig_faults(&r->g);
    if (fail_at) port_fault_arm(&r->g.pf[1], PF_GET_DERIVATIVES, fail_at, PORT_ELOST);
    r->st = strong_run(&r->g.m, r->g.links, 2, o, &r->res, r->err, sizeof r->err);
}

static double err_exact(const run *r, const sys *y)
{
    return fake_pair_max_err(&r->g.f[0], &r->g.f[1], y);
}

static const sys OSC = {.a1 = 0.1, .b1 = 2, .a2 = 0.2, .b2 = -2, .x10 = 1, .x20 = 0};

static void test_accuracy(void)
{
    figures_table g;
    FILE *fig = figures_open(&g, "strong_fakes.md", "tests/unit/strong_test.c");
    fprintf(fig, "The linear pair x1' = -0.1 x1 + 2 x2, x2' = -0.2 x2 - 2 x1 in two evaluator "
                 "fakes, x(0) = (1, 0), output step 0.05, 0 to 10 s, BDF, atol = rtol / 100, "
                 "against exp(Mt) x(0).\n\n| rtol | max \\|error\\| | n_f | CVODE steps | n_s |\n"
                 "|---|---|---|---|---|\n");
    double prev = 0;
    const double rt[3] = {1e-6, 1e-8, 1e-10};
    static run two; /* the same run with two rounds per evaluation */
    for (int k = 0; k < 3; k++) {
        strong_opts o;
        strong_opts_default(&o, SEC(0.05));
        o.rtol = rt[k];
        o.atol = rt[k] * 1e-2;
        run_strong(&two, &OSC, &o, 10, 0, 0);
        CHECK(two.st == PORT_OK, "rtol %g, two rounds: %s", rt[k], two.err);
        CHECK_INT_EQ(two.res.one_round, 0);
        run_strong(&R, &OSC, &o, 10, 0, 1);
        CHECK_INT_EQ(R.res.one_round, 1);
        CHECK(R.st == PORT_OK, "rtol %g: %s", rt[k], R.err);
        CHECK_INT_EQ((long)R.res.n_out, 200);
        CHECK_INT_EQ((long)R.g.f[0].n_rec, 201);
        double e = err_exact(&R, &OSC);
        printf("strong: rtol %g: max error %.3g, %ld right-hand sides, %ld CVODE steps\n", rt[k], e,
               R.res.n_rhs, R.res.n_steps);
        fprintf(fig, "| %g | %.2g | %ld | %ld | %zu |\n", rt[k], e, R.res.n_rhs, R.res.n_steps,
                R.res.n_out);
        /* Global error within a few hundred times rtol over 10 s of a lightly damped oscillator. */
        CHECK(e < 300 * rt[k], "rtol %g: error %g", rt[k], e);
        if (k) CHECK(e < prev, "error %g did not shrink from %g", e, prev);
        prev = e;
        /* Wiring from the states or from the outputs read: the same numbers, bit for bit. */
        CHECK_INT_EQ(two.res.n_rhs, R.res.n_rhs);
        CHECK_INT_EQ(two.res.n_rounds, 2 * R.res.n_rounds);
        CHECK_INT_EQ(R.res.n_rounds, R.res.n_rhs);
        CHECK(two.g.f[0].x == R.g.f[0].x && two.g.f[1].x == R.g.f[1].x, "final states differ");
        /* Check C9: the message count for the recorded right-hand-side count (eq. 5.19): per
         * slave, 2 + (3 or 5) at the start, 3 or 5 per output instant, 4 or 6 per evaluation. */
        long n_f = R.res.n_rhs, n_s = (long)R.res.n_out;
        CHECK_INT_EQ((long)(R.res.msg_commands + R.res.msg_replies),
                     2 * (2 + 3 + 3 * n_s + 4 * n_f));
        CHECK_INT_EQ((long)(two.res.msg_commands + two.res.msg_replies),
                     2 * (2 + 5 + 5 * n_s + 6 * n_f));
        const run *rr[2] = {&R, &two};
        for (int q = 0; q < 2; q++) {
            const strong_result *x = &rr[q]->res;
            CHECK_INT_EQ((long)(x->msg_commands + x->msg_replies),
                         (long)(x->c0 + x->c1 * x->n_out + x->c2 * (size_t)x->n_rhs));
            CHECK_INT_EQ(rr[q]->g.f[0].n_cmd + rr[q]->g.f[1].n_cmd, (long)x->msg_commands);
            CHECK_INT_EQ(rr[q]->g.f[0].n_reply + rr[q]->g.f[1].n_reply, (long)x->msg_replies);
        }
    }
    figures_close(&g);
}

static void test_failures(void)
{
    strong_opts o;
    strong_opts_default(&o, SEC(0.05));
    run_strong(&R, &OSC, &o, 10, 40, 1); /* slave two lost at its 40th derivative evaluation */
    CHECK_INT_EQ(R.st, PORT_ELOST);
    CHECK_INT_EQ(R.res.failed_slave, 1);
    CHECK_STR_HAS(R.err, "slave 'two' evaluating its derivatives");
    o.rtol = 0;
    run_strong(&R, &OSC, &o, 1, 0, 1);
    CHECK_INT_EQ(R.st, PORT_EUSAGE);
    /* A slave without state derivatives is refused. */
    strong_opts_default(&o, SEC(0.05));
    memset(&R, 0, sizeof R);
    fake_rig_init(&R.g, &OSC, TICK, SEC(1));
    fake_init(&R.g.f[0], 1, 0, NULL, 1, TICK);
    R.g.s[0] = fake_slave(&R.g.f[0], "plain");
    R.g.m.n_slaves = 1; /* "plain" alone */
    R.st = strong_run(&R.g.m, NULL, 0, &o, &R.res, R.err, sizeof R.err);
    CHECK_INT_EQ(R.st, PORT_EUNSUPPORTED);
    CHECK_STR_HAS(R.err, "'plain' cannot set its states");
}

/* Checkpoints (port_ckpt, doc/checkpoint.md "Master methods"): the state offered at instant
 * `at`, both fakes as they were then, and the mark of the first instant at or past `at`
 * (CVODE restarts after its close). */
typedef struct keep {
    int64_t at, mark;
    unsigned char bytes[256];
    size_t n;
    fake *f, saved[2];
} keep;

static int keep_offer(void *ctx, int64_t t, const void *state, size_t n)
{
    keep *k = ctx;
    if (t != k->at || n > sizeof k->bytes) return PORT_OK;
    memcpy(k->bytes, state, n);
    k->n = n;
    k->saved[0] = k->f[0], k->saved[1] = k->f[1];
    return PORT_OK;
}

static int keep_marked(void *ctx, int64_t t)
{
    keep *k = ctx;
    if (k->mark < 0 || t < k->mark) return 0;
    k->mark = -1;
    return 1;
}

/* A run asked for a checkpoint instant restarts its CVODE there; cut at that instant and
 * resumed from the offered state with the slaves as they were, it records exactly the same
 * rows and ends with the same counters. It stays within CVODE's tolerance of a run asked for
 * none. Bytes of another writer, every proper prefix and a trailing byte are refused before
 * any command. */
static void test_resume(void)
{
    static run a, b, none;
    strong_opts o;
    strong_opts_default(&o, SEC(0.05));
    int64_t at = SEC(0.5);
    run_strong(&none, &OSC, &o, 1, 0, 1);
    CHECK(none.st == PORT_OK, "run: %s", none.err);
    /* the run asked for the instant: the cut's saving run */
    memset(&a, 0, sizeof a);
    keep k = {.at = at, .mark = at, .f = a.g.f};
    port_ckpt ck = {.offer = keep_offer, .marked = keep_marked, .ctx = &k};
    ev_ops = fake_ops;
    ev_ops.get_states = ev_get_states;
    ev_ops.set_states = ev_set_states;
    ev_ops.get_derivatives = ev_get_derivatives;
    fake_rig_init(&a.g, &OSC, TICK, SEC(1));
    for (int j = 0; j < 2; j++) {
        a.g.s[j].ops = &ev_ops;
        a.g.s[j].info.n_state = 1;
        a.g.s[j].info.has_state_derivs = 1;
        a.g.s[j].info.out_state = OUT_IS_X;
    }
    a.g.m.ckpt = &ck;
    a.st = strong_run(&a.g.m, a.g.links, 2, &o, &a.res, a.err, sizeof a.err);
    CHECK(a.st == PORT_OK, "run with a checkpoint instant: %s", a.err);
    CHECK(k.n > 0, "nothing offered at the instant");
    double worst = 0;
    for (int j = 0; j < 2; j++)
        for (size_t r = 0; r < a.g.f[j].n_rec && r < none.g.f[j].n_rec; r++)
            worst = fmax(worst, fabs(a.g.f[j].rec_x[r] - none.g.f[j].rec_x[r]));
    CHECK(worst < 1e-5, "the restart moved a row by %g (more than the tolerance allows)", worst);
    /* resumed from the instant */
    memset(&b, 0, sizeof b);
    fake_rig_init(&b.g, &OSC, TICK, SEC(1));
    for (int j = 0; j < 2; j++) {
        b.g.s[j].ops = &ev_ops;
        b.g.s[j].info.n_state = 1;
        b.g.s[j].info.has_state_derivs = 1;
        b.g.s[j].info.out_state = OUT_IS_X;
    }
    b.g.f[0] = k.saved[0], b.g.f[1] = k.saved[1];
    port_ckpt rk = {.resume = k.bytes, .n_resume = k.n};
    b.g.m.ckpt = &rk;
    b.st = strong_run(&b.g.m, b.g.links, 2, &o, &b.res, b.err, sizeof b.err);
    CHECK(b.st == PORT_OK, "resume: %s", b.err);
    for (int j = 0; j < 2; j++) {
        CHECK_INT_EQ(b.g.f[j].n_rec, a.g.f[j].n_rec);
        CHECK(memcmp(b.g.f[j].rec_x, a.g.f[j].rec_x, sizeof a.g.f[j].rec_x) == 0 &&
                  memcmp(b.g.f[j].rec_t, a.g.f[j].rec_t, sizeof a.g.f[j].rec_t) == 0,
              "resume: slave %d's rows differ from the run asked for the instant", j);
    }
    CHECK_INT_EQ(b.res.t_reached, a.res.t_reached);
    CHECK_INT_EQ(b.res.n_out, a.res.n_out);
    CHECK_INT_EQ(b.res.n_rhs, a.res.n_rhs);
    CHECK_INT_EQ(b.res.n_steps, a.res.n_steps);
    CHECK_INT_EQ(b.res.msg_commands, a.res.msg_commands);
    CHECK_INT_EQ(b.res.msg_replies, a.res.msg_replies);
    unsigned char bad[257];
    for (size_t n = 0; n <= k.n + 1; n++) {
        if (n == k.n) continue;
        memcpy(bad, k.bytes, k.n);
        bad[k.n] = 0;
        memset(&b, 0, sizeof b);
        fake_rig_init(&b.g, &OSC, TICK, SEC(1));
        for (int j = 0; j < 2; j++) {
            b.g.s[j].ops = &ev_ops;
            b.g.s[j].info.n_state = 1;
            b.g.s[j].info.has_state_derivs = 1;
            b.g.s[j].info.out_state = OUT_IS_X;
        }
        port_ckpt bk = {.resume = bad, .n_resume = n};
        b.g.m.ckpt = &bk;
        CHECK_INT_EQ(strong_run(&b.g.m, b.g.links, 2, &o, &b.res, b.err, sizeof b.err),
                     PORT_EUSAGE);
        CHECK_STR_HAS(b.err, "not one it wrote");
        CHECK_INT_EQ(b.g.f[0].n_cmd + b.g.f[1].n_cmd, 0);
    }
}

int main(void)
{
    test_accuracy();
    test_failures();
    test_resume();
    return check_summary();
}
