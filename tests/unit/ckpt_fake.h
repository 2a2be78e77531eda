/* The rig of the master checkpoint tests (tests/unit/explicit_ckpt_test.c,
 * energy_ckpt_test.c; doc/checkpoint.md "Master methods"): two deterministic fake slaves on
 * the in-process port, which record their rows, and the offer callback that keeps what an
 * uninterrupted run offered at one instant. A test gives the model (its step and outputs) as
 * a port_slave_ops built from fake_set_inputs, fake_record, fake_collect and its own two
 * functions; the tests compare two runs of the same code, so only determinism matters. */
#ifndef TEMPO_TESTS_UNIT_CKPT_FAKE_H
#define TEMPO_TESTS_UNIT_CKPT_FAKE_H

#include <stdint.h>
#include <string.h>

#include "algorithms/port.h"

#define TICK 1e-3 /* s per tick */
#define NREC 64
#define CW   (PORT_MAX_ORDER + 1) /* coefficients per input */

typedef struct fake {
    double x, X, k;   /* state, a running integral, gain (the test's model says which) */
    double c[2 * CW]; /* the inputs' coefficients, order + 1 per input */
    int order;
    int64_t t0, t; /* the inputs' expansion point, the slave's time (ticks) */
    long ops;
    int n_rec;
    double rec[NREC][3]; /* t, x, X */
} fake;

/* Input i at s seconds from the expansion point: sum_k c[k] s^k / k!. */
static double fake_input(const fake *f, int i, double s)
{
    double u = 0, p = 1, fact = 1;
    for (int k = 0; k <= f->order; k++) {
        u += f->c[i * (f->order + 1) + k] * p / fact;
        p *= s;
        fact *= k + 1;
    }
    return u;
}
static int fake_set_inputs(void *ctx, const port_poly *u)
{
    fake *f = ctx;
    f->ops++;
    size_t n = u->n * (size_t)(u->order + 1);
    if (u->n > 2) return PORT_EUSAGE; /* the rig's slaves have at most 2 inputs */
    memcpy(f->c, u->c, n * sizeof *f->c);
    f->order = u->order;
    f->t0 = u->t0;
    return PORT_OK;
}
static int fake_record(void *ctx)
{
    fake *f = ctx;
    if (f->n_rec < NREC) {
        f->rec[f->n_rec][0] = (double)f->t * TICK;
        f->rec[f->n_rec][1] = f->x;
        f->rec[f->n_rec++][2] = f->X;
    }
    return PORT_OK;
}
static int fake_collect(void *ctx)
{
    (void)ctx;
    return PORT_OK;
}

typedef struct rig {
    fake f[2];
    port_slave s[2];
    port_master m;
    port_local_clock clk;
} rig;

/* Slaves "A" (x = 1, k = 1) and "B" (x = x_b, k = -1) with n_in inputs and 3 outputs, over
 * [0, 2000] ticks. */
static void rig_init(rig *g, const port_slave_ops *ops, int n_in, double x_b)
{
    memset(g, 0, sizeof *g);
    g->f[0].x = 1, g->f[0].k = 1, g->f[1].x = x_b, g->f[1].k = -1;
    for (int j = 0; j < 2; j++)
        g->s[j] = (port_slave){
            .ops = ops, .ctx = &g->f[j], .info = {.name = j ? "B" : "A", .n_in = n_in, .n_out = 3}};
    g->clk.last = INT64_MIN;
    g->m = (port_master){.ops = &port_local_master_ops,
                         .ctx = &g->clk,
                         .slaves = g->s,
                         .n_slaves = 2,
                         .tick = TICK,
                         .t_start = 0,
                         .t_end = 2000};
}

/* What the uninterrupted run offered at instant `at`, and the fakes then. */
typedef struct keep {
    int64_t at;
    unsigned char bytes[1024];
    size_t n;
    int offers;
    const fake *f;
    fake saved[2];
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

#endif /* TEMPO_TESTS_UNIT_CKPT_FAKE_H */
