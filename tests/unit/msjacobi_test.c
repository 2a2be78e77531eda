/* Tests of fixed-step Jacobi over the port (algorithms/msjacobi.h) against closed-form fake
 * slaves: slave A integrates x' = u_A, slave B y' = -u_B, wired u_A = y, u_B = x. With inputs
 * held over each step the scheme is the explicit map x' = x + H y, y' = y - H x, whose iterates
 * the test computes on its own; the recorded rows must equal them exactly (the fakes integrate
 * a constant exactly). Also: the last step is shortened to the end, instants never go back, a
 * failing slave stops the run with its name and the time, bad links are refused. Checkpoints
 * (port_ckpt): a run resumed after any instant from the state offered there and the slaves as
 * they were then records exactly the rows the uninterrupted run recorded after it; bytes it did
 * not write and instants outside the run are refused. */
#include <stdint.h>
#include <string.h>

#include "algorithms/msjacobi.h"
#include "tests/check.h"
#include "tests/unit/port_fault.h"

#define TICK 1e-3 /* s per tick */

typedef struct fake {
    double x, u, k; /* state, held input, sign of the right-hand side */
    int64_t t;      /* ticks */
    double rec_t[64], rec_x[64], rec_u[64];
    int n_rec;
    int steps; /* steps taken */
    int status;
} fake;

static int f_set_inputs(void *ctx, const port_poly *u)
{
    fake *f = ctx;
    if (u->n != 1 || u->order != 0) return f->status = PORT_EUSAGE;
    f->u = u->c[0];
    return PORT_OK;
}
static int f_step(void *ctx, int64_t t_to, int n_sub, double *y, port_step_result *res)
{
    fake *f = ctx;
    f->steps++;
    f->x += f->k * f->u * (double)(t_to - f->t) * TICK;
    f->t = t_to;
    if (y) y[0] = f->x;
    if (res) res->t_reached = t_to;
    return PORT_OK;
}
static int f_get_outputs(void *ctx, double *y)
{
    *y = ((fake *)ctx)->x;
    return PORT_OK;
}
static int f_record(void *ctx)
{
    fake *f = ctx;
    if (f->n_rec < 64) {
        f->rec_t[f->n_rec] = (double)f->t * TICK;
        f->rec_x[f->n_rec] = f->x;
        f->rec_u[f->n_rec++] = f->u;
    }
    return PORT_OK;
}
static int f_collect(void *ctx)
{
    fake *f = ctx;
    int s = f->status;
    f->status = PORT_OK;
    return s;
}
static const port_slave_ops fake_ops = {.version = PORT_OPS_VERSION,
                                        .set_inputs = f_set_inputs,
                                        .step = f_step,
                                        .get_outputs = f_get_outputs,
                                        .record = f_record,
                                        .collect = f_collect};

static void setup(fake *a, fake *b, port_slave *s, port_master *m, port_local_clock *clk,
                  int64_t t_end)
{
    memset(a, 0, sizeof *a);
    memset(b, 0, sizeof *b);
    a->x = 1, a->k = 1, b->x = 0, b->k = -1;
    s[0] = (port_slave){.ops = &fake_ops, .ctx = a, .info = {.name = "A", .n_in = 1, .n_out = 1}};
    s[1] = (port_slave){.ops = &fake_ops, .ctx = b, .info = {.name = "B", .n_in = 1, .n_out = 1}};
    clk->last = INT64_MIN;
    *m = (port_master){.ops = &port_local_master_ops,
                       .ctx = clk,
                       .slaves = s,
                       .n_slaves = 2,
                       .tick = TICK,
                       .t_start = 0,
                       .t_end = t_end};
}

/* What the uninterrupted run offered at the instant `at`: the bytes and both fakes. */
typedef struct keep {
    int64_t at;
    unsigned char bytes[64];
    size_t n;
    int offers;
    fake *a, *b, sa, sb;
} keep;

static int keep_offer(void *ctx, int64_t t, const void *state, size_t n)
{
    keep *k = ctx;
    k->offers++;
    if (t != k->at || n > sizeof k->bytes) return PORT_OK;
    memcpy(k->bytes, state, n);
    k->n = n;
    k->sa = *k->a, k->sb = *k->b;
    return PORT_OK;
}

/* Cut the 11-instant run (end 1.05 s) after each instant in turn and resume it. */
static void test_resume(const port_link *links)
{
    fake a, b, ra, rb;
    port_slave s[2], rs[2];
    port_master m, rm;
    port_local_clock clk, rclk;
    char err[MSJ_ERRLEN];
    int64_t ats[] = {0, 100, 500, 1000};
    for (size_t c = 0; c < sizeof ats / sizeof ats[0]; c++) {
        keep k = {.at = ats[c], .a = &a, .b = &b};
        port_ckpt ck = {.offer = keep_offer, .ctx = &k};
        setup(&a, &b, s, &m, &clk, 1050);
        m.ckpt = &ck;
        CHECK(msjacobi_run(&m, links, 2, 100, err, sizeof err) == PORT_OK, "run: %s", err);
        CHECK_INT_EQ(k.offers, 12); /* one per instant closed, the start included */
        CHECK(k.n == 16, "cut after %lld: %zu bytes offered", (long long)ats[c], k.n);
        /* The resumed run: fresh master, the slaves as they were when the instant closed
         * (their rows so far kept, as a resumed CSV keeps its rows). */
        setup(&ra, &rb, rs, &rm, &rclk, 1050);
        ra = k.sa, rb = k.sb;
        port_ckpt rck = {.resume = k.bytes, .n_resume = k.n};
        rm.ckpt = &rck;
        CHECK(msjacobi_run(&rm, links, 2, 100, err, sizeof err) == PORT_OK, "resume after %lld: %s",
              (long long)ats[c], err);
        CHECK_INT_EQ(ra.n_rec, a.n_rec);
        CHECK_INT_EQ(rclk.last, 1050);
        CHECK(memcmp(ra.rec_x, a.rec_x, sizeof a.rec_x) == 0 &&
                  memcmp(rb.rec_x, b.rec_x, sizeof b.rec_x) == 0 &&
                  memcmp(ra.rec_u, a.rec_u, sizeof a.rec_u) == 0 &&
                  memcmp(rb.rec_t, b.rec_t, sizeof b.rec_t) == 0,
              "resume after %lld: rows differ from the uninterrupted run's", (long long)ats[c]);
        CHECK_INT_EQ(ra.steps, a.steps);
    }
    /* Refusals: every proper prefix, a trailing byte, another magic, an instant at the end. */
    keep k = {.at = 500, .a = &a, .b = &b};
    port_ckpt ck = {.offer = keep_offer, .ctx = &k};
    setup(&a, &b, s, &m, &clk, 1050);
    m.ckpt = &ck;
    CHECK(msjacobi_run(&m, links, 2, 100, err, sizeof err) == PORT_OK, "run: %s", err);
    unsigned char bad[64];
    for (size_t n = 0; n <= k.n + 1; n++) {
        if (n == k.n) continue;
        memcpy(bad, k.bytes, k.n);
        bad[k.n] = 0;
        setup(&ra, &rb, rs, &rm, &rclk, 1050);
        port_ckpt rck = {.resume = bad, .n_resume = n};
        rm.ckpt = &rck;
        CHECK_INT_EQ(msjacobi_run(&rm, links, 2, 100, err, sizeof err), PORT_EUSAGE);
        CHECK_STR_HAS(err, "not one it wrote");
        CHECK_INT_EQ(ra.steps + rb.steps + ra.n_rec, 0);
    }
    memcpy(bad, k.bytes, k.n);
    bad[0] ^= 1;
    setup(&ra, &rb, rs, &rm, &rclk, 1050);
    port_ckpt rck = {.resume = bad, .n_resume = k.n};
    rm.ckpt = &rck;
    CHECK_INT_EQ(msjacobi_run(&rm, links, 2, 100, err, sizeof err), PORT_EUSAGE);
    CHECK_STR_HAS(err, "not one it wrote");
    memcpy(bad, k.bytes, k.n);
    int64_t end = 1050; /* the instant field, little-endian, after magic and version */
    for (int i = 0; i < 8; i++)
        bad[8 + i] = (unsigned char)((uint64_t)end >> (8 * i));
    setup(&ra, &rb, rs, &rm, &rclk, 1050);
    rm.ckpt = &rck;
    CHECK_INT_EQ(msjacobi_run(&rm, links, 2, 100, err, sizeof err), PORT_EUSAGE);
    CHECK_STR_HAS(err, "at 1.05 s, outside the run");
}

int main(void)
{
    fake a, b;
    port_slave s[2];
    port_master m;
    port_local_clock clk;
    port_link links[2] = {{.to = 0, .in = 0, .from = 1, .out = 0},
                          {.to = 1, .in = 0, .from = 0, .out = 0}};
    char err[MSJ_ERRLEN];
    /* End 1.05 s at H = 0.1 s: 10 full steps and a last one of 0.05 s. */
    setup(&a, &b, s, &m, &clk, 1050);
    int rc = msjacobi_run(&m, links, 2, 100, err, sizeof err);
    CHECK(rc == PORT_OK, "run: %s", err);
    CHECK_INT_EQ(a.n_rec, 12);
    CHECK_INT_EQ(b.n_rec, 12);
    CHECK_INT_EQ(clk.last, 1050);
    double x = 1, y = 0, t = 0;
    for (int n = 0; n < 12 && n < a.n_rec; n++) {
        /* Row n: the state at t_n and the input it will hold over the next step (the other
         * slave's output at t_n). */
        CHECK_NEAR(a.rec_t[n], t, 1e-12);
        CHECK(a.rec_x[n] == x && b.rec_x[n] == y, "row %d: x %.17g/%.17g y %.17g/%.17g", n,
              a.rec_x[n], x, b.rec_x[n], y);
        CHECK(a.rec_u[n] == y && b.rec_u[n] == x, "row %d: inputs", n);
        double h = n < 10 ? 0.1 : 0.05;
        /* The fakes compute k * u * (ticks * TICK): the same expression in the same order. */
        double ticks = (double)(n < 10 ? 100 : 50);
        double xn = x + 1 * y * ticks * TICK, yn = y + -1 * x * ticks * TICK;
        x = xn, y = yn, t += h;
    }
    /* The map multiplies x^2 + y^2 by 1 + H^2 per step: Jacobi's known instability here. */
    CHECK_NEAR(a.rec_x[11] * a.rec_x[11] + b.rec_x[11] * b.rec_x[11],
               1.01 * 1.01 * 1.01 * 1.01 * 1.01 * 1.01 * 1.01 * 1.01 * 1.01 * 1.01 * 1.0025, 1e-12);

    /* A slave failing at its 4th step: the run stops there, naming it and the time. */
    setup(&a, &b, s, &m, &clk, 1000);
    port_fault pf;
    port_fault_wrap(&pf, &s[1]);
    port_fault_arm(&pf, PF_STEP, 4, PORT_EFAIL);
    rc = msjacobi_run(&m, links, 2, 100, err, sizeof err);
    CHECK_INT_EQ(rc, PORT_EFAIL);
    CHECK_STR_HAS(err, "slave B");
    CHECK_STR_HAS(err, "at 0.4 s");
    CHECK_INT_EQ(b.n_rec, 4); /* rows at 0, 0.1, 0.2, 0.3 */

    /* Links out of range, a zero step. */
    setup(&a, &b, s, &m, &clk, 1000);
    port_link bad = {.to = 0, .in = 1, .from = 1, .out = 0};
    CHECK_INT_EQ(msjacobi_run(&m, &bad, 1, 100, err, sizeof err), PORT_EUSAGE);
    CHECK_STR_HAS(err, "link 0 out of range");
    CHECK_INT_EQ(msjacobi_run(&m, links, 2, 0, err, sizeof err), PORT_EUSAGE);
    /* The local clock refuses an instant before the last one. */
    clk.last = 5000;
    CHECK_INT_EQ(msjacobi_run(&m, links, 2, 100, err, sizeof err), PORT_EUSAGE);
    CHECK_STR_HAS(err, "opening 0 s");
    test_resume(links);
    return check_summary();
}
