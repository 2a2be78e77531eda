/* Checkpoints of the explicit master (algorithms/explicit.h, doc/checkpoint.md "Master
 * methods"): a run cut after an instant and resumed from the state offered there, with the
 * slaves as they were, records exactly the rows of the uninterrupted run (bit for bit) and ends
 * with its counts; bytes of another writer, another wiring or an instant outside the run are
 * refused before any operation. The slaves are deterministic fakes (Euler sub-steps of x' = k u;
 * outputs x, its running integral X, the amount, and x', the slope): the test compares two runs of
 * the same code, so only determinism matters, not accuracy. Every coupling layer that keeps state
 * between steps is used: linear extrapolation with smoothing and a balance correction spread
 * over two intervals (pending corrections cross the cut). */
#include <stdint.h>
#include <string.h>

#include "algorithms/explicit.h"
#include "tests/check.h"
#include "tests/unit/ckpt_fake.h"

static int f_step(void *ctx, int64_t t_to, int n_sub, double *y, port_step_result *res)
{
    fake *f = ctx;
    f->ops++;
    for (int i = 0; i < 8; i++) {
        int64_t a = f->t + (t_to - f->t) * i / 8, b = f->t + (t_to - f->t) * (i + 1) / 8;
        double h = (double)(b - a) * TICK;
        f->X += h * f->x;
        f->x += h * f->k * fake_input(f, 0, (double)(a - f->t0) * TICK);
    }
    f->t = t_to;
    if (res) res->t_reached = t_to;
    (void)n_sub, (void)y;
    return PORT_OK;
}
static int f_get_outputs(void *ctx, double *y)
{
    fake *f = ctx;
    f->ops++;
    y[0] = f->x, y[1] = f->X, y[2] = f->k * fake_input(f, 0, (double)(f->t - f->t0) * TICK);
    return PORT_OK;
}
static const port_slave_ops fake_ops = {.version = PORT_OPS_VERSION,
                                        .set_inputs = fake_set_inputs,
                                        .step = f_step,
                                        .get_outputs = f_get_outputs,
                                        .record = fake_record,
                                        .collect = fake_collect};

int main(void)
{
    bal_settings layer = {.extrap = BAL_EXTRAP_LINEAR,
                          .smooth = 1,
                          .bc = BAL_BC_CLASSIC,
                          .hat = BAL_HAT_I2H,
                          .span = 2};
    explicit_conn conns[2] = {{.from = 1, .out = 0, .to = 0, .in = 0, .slope = 2, .amount = 1},
                              {.from = 0, .out = 0, .to = 1, .in = 0, .slope = 2, .amount = 1}};
    conns[0].layer = conns[1].layer = layer;
    explicit_settings set = {.H = 100, .conns = conns, .n_conns = 2};
    static rig a, b;
    char err[512];
    int64_t ats[] = {0, 100, 700, 1900};
    for (size_t c = 0; c < sizeof ats / sizeof ats[0]; c++) {
        rig_init(&a, &fake_ops, 1, 0);
        keep k = {.at = ats[c], .f = a.f};
        port_ckpt ck = {.offer = keep_offer, .ctx = &k};
        a.m.ckpt = &ck;
        explicit_stats sa, sb;
        CHECK(explicit_run(&a.m, &set, &sa, err, sizeof err) == PORT_OK, "run: %s", err);
        CHECK_INT_EQ(k.offers, 21); /* the start and 20 steps */
        CHECK(k.n > 0, "nothing offered at %lld", (long long)ats[c]);
        rig_init(&b, &fake_ops, 1, 0);
        b.f[0] = k.saved[0], b.f[1] = k.saved[1];
        port_ckpt rk = {.resume = k.bytes, .n_resume = k.n};
        b.m.ckpt = &rk;
        CHECK(explicit_run(&b.m, &set, &sb, err, sizeof err) == PORT_OK, "resume: %s", err);
        for (int j = 0; j < 2; j++) {
            CHECK_INT_EQ(b.f[j].n_rec, a.f[j].n_rec);
            CHECK(memcmp(b.f[j].rec, a.f[j].rec, sizeof a.f[j].rec) == 0,
                  "resume after %lld: slave %d's rows differ", (long long)ats[c], j);
            CHECK_INT_EQ(b.f[j].ops, a.f[j].ops);
        }
        CHECK_INT_EQ(sb.steps, sa.steps);
        CHECK_INT_EQ(sb.operations, sa.operations);
        CHECK_INT_EQ(b.clk.last, 2000);
    }
    rig_init(&a, &fake_ops, 1, 0);
    keep k = {.at = 700, .f = a.f};
    port_ckpt ck = {.offer = keep_offer, .ctx = &k};
    a.m.ckpt = &ck;
    CHECK(explicit_run(&a.m, &set, NULL, err, sizeof err) == PORT_OK, "run: %s", err);
    /* Refusals: every proper prefix and a trailing byte, another magic, another wiring, an
     * instant at the end; nothing is posted. */
    unsigned char bad[1025];
    for (size_t n = 0; n <= k.n + 1; n++) {
        if (n == k.n) continue;
        memcpy(bad, k.bytes, k.n);
        bad[k.n] = 0;
        rig_init(&b, &fake_ops, 1, 0);
        port_ckpt rk = {.resume = bad, .n_resume = n};
        b.m.ckpt = &rk;
        CHECK_INT_EQ(explicit_run(&b.m, &set, NULL, err, sizeof err), PORT_EUSAGE);
        CHECK_STR_HAS(err, "not one this master wrote");
        CHECK_INT_EQ(b.f[0].ops + b.f[1].ops + b.f[0].n_rec, 0);
    }
    memcpy(bad, k.bytes, k.n);
    bad[1] ^= 1;
    rig_init(&b, &fake_ops, 1, 0);
    port_ckpt rk = {.resume = bad, .n_resume = k.n};
    b.m.ckpt = &rk;
    CHECK_INT_EQ(explicit_run(&b.m, &set, NULL, err, sizeof err), PORT_EUSAGE);
    explicit_settings one = {.H = 100, .conns = conns, .n_conns = 1};
    memcpy(bad, k.bytes, k.n);
    rig_init(&b, &fake_ops, 1, 0);
    b.m.ckpt = &rk;
    b.s[1].info.n_in = 0;
    CHECK_INT_EQ(explicit_run(&b.m, &one, NULL, err, sizeof err), PORT_EUSAGE);
    CHECK_STR_HAS(err, "not one this master wrote");
    for (int i = 0; i < 8; i++) /* the instant, after magic and version */
        bad[8 + i] = (unsigned char)((uint64_t)2000 >> (8 * i));
    rig_init(&b, &fake_ops, 1, 0);
    b.m.ckpt = &rk;
    CHECK_INT_EQ(explicit_run(&b.m, &set, NULL, err, sizeof err), PORT_EUSAGE);
    CHECK_STR_HAS(err, "at 2 s, outside the run");
    return check_summary();
}
