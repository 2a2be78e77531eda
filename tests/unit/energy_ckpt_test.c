/* Checkpoints of the negotiated power exchange (algorithms/energy.h, doc/checkpoint.md "Master
 * methods"): a run cut after an instant and resumed from the state offered there, with the
 * slaves as they were, records exactly the rows of the uninterrupted run (bit for bit) and ends
 * with its counts; bytes of another writer or an instant outside the run are refused before any
 * operation. The slaves are deterministic fakes (Euler sub-steps of x' = k u + p / 10 with u the
 * standard input and p the power input; outputs x, the power P = k x u / 20 + 1 / 100, so that
 * the agreed power is not 0, and a stored energy W): the test compares two runs of the same code,
 * so only determinism matters, not accuracy. Both powers that keep state between steps are used:
 * the secant (the last agreed power) and the linear one, with the refeed's book on. */
#include <stdint.h>
#include <string.h>

#include "algorithms/energy.h"
#include "tests/check.h"
#include "tests/unit/ckpt_fake.h"

static int f_step(void *ctx, int64_t t_to, int n_sub, double *y, port_step_result *res)
{
    fake *f = ctx;
    f->ops++;
    for (int i = 0; i < 8; i++) {
        int64_t a = f->t + (t_to - f->t) * i / 8, b = f->t + (t_to - f->t) * (i + 1) / 8;
        double h = (double)(b - a) * TICK, s = (double)(a - f->t0) * TICK;
        f->X += h * f->x * f->x;
        f->x += h * (f->k * fake_input(f, 0, s) + fake_input(f, 1, s) / 10);
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
    y[0] = f->x;
    y[1] = f->k * f->x * fake_input(f, 0, (double)(f->t - f->t0) * TICK) / 20 + 0.01;
    y[2] = 10 + f->X;
    return PORT_OK;
}
static const port_slave_ops fake_ops = {.version = PORT_OPS_VERSION,
                                        .set_inputs = fake_set_inputs,
                                        .step = f_step,
                                        .get_outputs = f_get_outputs,
                                        .record = fake_record,
                                        .collect = fake_collect};

static void cut_and_resume(const energy_settings *set)
{
    static rig a, b;
    char err[512];
    int64_t ats[] = {0, 100, 700, 1900};
    for (size_t c = 0; c < sizeof ats / sizeof ats[0]; c++) {
        rig_init(&a, &fake_ops, 2, 0.5);
        keep k = {.at = ats[c], .f = a.f};
        port_ckpt ck = {.offer = keep_offer, .ctx = &k};
        a.m.ckpt = &ck;
        energy_stats sa, sb;
        CHECK(energy_run(&a.m, set, &sa, err, sizeof err) == PORT_OK, "run: %s", err);
        CHECK_INT_EQ(k.offers, 21); /* the start and 20 steps */
        CHECK(k.n > 0, "nothing offered at %lld", (long long)ats[c]);
        rig_init(&b, &fake_ops, 2, 0.5);
        b.f[0] = k.saved[0], b.f[1] = k.saved[1];
        port_ckpt rk = {.resume = k.bytes, .n_resume = k.n};
        b.m.ckpt = &rk;
        CHECK(energy_run(&b.m, set, &sb, err, sizeof err) == PORT_OK, "resume: %s", err);
        for (int j = 0; j < 2; j++) {
            CHECK_INT_EQ(b.f[j].n_rec, a.f[j].n_rec);
            CHECK(memcmp(b.f[j].rec, a.f[j].rec, sizeof a.f[j].rec) == 0,
                  "p_order %d, resume after %lld: slave %d's rows differ", set->p_order,
                  (long long)ats[c], j);
            CHECK_INT_EQ(b.f[j].ops, a.f[j].ops);
        }
        CHECK_INT_EQ(sb.steps, sa.steps);
        CHECK_INT_EQ(sb.exchanges, sa.exchanges);
        CHECK_INT_EQ(sb.operations, sa.operations);
        CHECK_INT_EQ(sb.landings, sa.landings);
        CHECK(sb.missed == sa.missed, "missed %.17g, want %.17g", sb.missed, sa.missed);
        CHECK_INT_EQ(b.clk.last, 2000);
    }
}

int main(void)
{
    energy_link link = {.a = 0,
                        .b = 1,
                        .a_out = 0,
                        .b_out = 0,
                        .a_slope = -1,
                        .b_slope = -1,
                        .a_in = 0,
                        .b_in = 0,
                        .a_pin = 1,
                        .b_pin = 1,
                        .a_P = 1,
                        .b_P = 1,
                        .a_W = 2,
                        .b_W = 2};
    energy_settings set = {.H = 100, .links = &link, .n_links = 1, .p_order = ENERGY_P_SECANT};
    cut_and_resume(&set);
    set.p_order = ENERGY_P_LINEAR;
    cut_and_resume(&set);
    static rig a, b;
    char err[512];
    rig_init(&a, &fake_ops, 2, 0.5);
    keep k = {.at = 700, .f = a.f};
    port_ckpt ck = {.offer = keep_offer, .ctx = &k};
    a.m.ckpt = &ck;
    CHECK(energy_run(&a.m, &set, NULL, err, sizeof err) == PORT_OK, "run: %s", err);
    /* Refusals: every proper prefix and a trailing byte, another magic, an instant at the
     * end; nothing is posted. */
    unsigned char bad[1025];
    for (size_t n = 0; n <= k.n + 1; n++) {
        if (n == k.n) continue;
        memcpy(bad, k.bytes, k.n);
        bad[k.n] = 0;
        rig_init(&b, &fake_ops, 2, 0.5);
        port_ckpt rk = {.resume = bad, .n_resume = n};
        b.m.ckpt = &rk;
        CHECK_INT_EQ(energy_run(&b.m, &set, NULL, err, sizeof err), PORT_EUSAGE);
        CHECK_STR_HAS(err, "not one this master wrote");
        CHECK_INT_EQ(b.f[0].ops + b.f[1].ops + b.f[0].n_rec, 0);
    }
    memcpy(bad, k.bytes, k.n);
    bad[1] ^= 1;
    rig_init(&b, &fake_ops, 2, 0.5);
    port_ckpt rk = {.resume = bad, .n_resume = k.n};
    b.m.ckpt = &rk;
    CHECK_INT_EQ(energy_run(&b.m, &set, NULL, err, sizeof err), PORT_EUSAGE);
    memcpy(bad, k.bytes, k.n);
    for (int i = 0; i < 8; i++) /* the instant, after magic and version */
        bad[8 + i] = (unsigned char)((uint64_t)2000 >> (8 * i));
    rig_init(&b, &fake_ops, 2, 0.5);
    b.m.ckpt = &rk;
    CHECK_INT_EQ(energy_run(&b.m, &set, NULL, err, sizeof err), PORT_EUSAGE);
    CHECK_STR_HAS(err, "at 2 s, outside the run");
    return check_summary();
}
