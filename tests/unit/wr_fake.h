/* Fake port slaves with closed-form solutions, for tests/unit/wr_test.c and
 * tests/bench/wr_bench.c (and the semi-implicit and strong-coupling tests): slave j holds one state
 * x with x' = -a x + sum_i b_i u_i(t), its output is x, and its inputs arrive as port polynomials.
 * A step is solved exactly: x(s) = e^{-a s} x0 + sum_i b_i sum_k c_ik s^{k+1} phi_{k+1}(-a s),
 *     phi_j(z) = sum_{m >= 0} z^m / (m + j)!
 * (the integral of e^{-a (s - r)} r^k / k! over [0, s]). doc/algorithms/waveform-relaxation.md.
 * fake_rig is the coupled pair wired to an in-process master, the set-up those tests share.
 */
#ifndef TEMPO_TESTS_UNIT_WR_FAKE_H
#define TEMPO_TESTS_UNIT_WR_FAKE_H

#include <math.h>
#include <string.h>

#include "algorithms/port.h"
#include "algorithms/wr.h"
#include "tests/unit/port_fault.h"

#define FAKE_MAX_IN  4
#define FAKE_MAX_REC 4096

typedef struct fake {
    double a, b[FAKE_MAX_IN]; /* 1/s */
    size_t n_in;
    double x;    /* state = output */
    int64_t t;   /* ticks */
    double tick; /* s per tick */
    double c[FAKE_MAX_IN][PORT_MAX_ORDER + 1];
    int order; /* -1: no inputs set yet */
    int64_t u_t0;
    double slot_x[PORT_SLOTS];
    int64_t slot_t[PORT_SLOTS];
    int slot_full[PORT_SLOTS];
    int status;
    long n_cmd, n_reply; /* operations posted, and replies (outputs) sent */
    long n_step;
    size_t n_rec;
    double rec_t[FAKE_MAX_REC], rec_x[FAKE_MAX_REC];
} fake;

static double fake_phi(int j, double z)
{
    double term = 1, sum = 0; /* term = z^m / (m + j)! */
    for (int i = 1; i <= j; i++)
        term /= i;
    for (int m = 0; m < 80; m++) {
        sum += term;
        term *= z / (m + j + 1);
        if (fabs(term) < 1e-18 * fabs(sum)) break;
    }
    return sum;
}

static void fake_note(fake *f, int st)
{
    if (f->status == PORT_OK) f->status = st;
}

static int fake_set_inputs(void *ctx, const port_poly *u)
{
    fake *f = ctx;
    f->n_cmd++;
    if (u->n != f->n_in || u->order < 0 || u->order > PORT_MAX_ORDER) {
        fake_note(f, PORT_EUSAGE);
        return PORT_EUSAGE;
    }
    for (size_t i = 0; i < u->n; i++)
        for (int k = 0; k <= u->order; k++)
            f->c[i][k] = u->c[i * (size_t)(u->order + 1) + (size_t)k];
    f->order = u->order;
    f->u_t0 = u->t0;
    return PORT_OK;
}

/* x at s seconds after the current time (the inputs must be expanded about it). */
static double fake_solve(const fake *f, double s)
{
    double x = exp(-f->a * s) * f->x;
    for (size_t i = 0; i < f->n_in && f->order >= 0; i++) {
        double p = s; /* s^{k+1} */
        for (int k = 0; k <= f->order; k++, p *= s)
            x += f->b[i] * f->c[i][k] * p * fake_phi(k + 1, -f->a * s);
    }
    return x;
}

static int fake_step(void *ctx, int64_t t_to, int n_sub, double *y_sub, port_step_result *res)
{
    fake *f = ctx;
    f->n_cmd++;
    f->n_reply++;
    f->n_step++;
    if (t_to <= f->t || (f->n_in && f->u_t0 != f->t)) { /* inputs expanded about the start */
        fake_note(f, PORT_EUSAGE);
        return PORT_EUSAGE;
    }
    if (n_sub < 1) n_sub = 1;
    int64_t span = t_to - f->t;
    double x_end = 0;
    for (int k = 1; k <= n_sub; k++) {
        int64_t tk = k == n_sub ? t_to : f->t + (int64_t)((double)span * k / n_sub);
        double xk = fake_solve(f, (double)(tk - f->t) * f->tick);
        if (y_sub) y_sub[k - 1] = xk;
        x_end = xk;
    }
    f->x = x_end;
    f->t = t_to;
    if (res) *res = (port_step_result){.t_reached = t_to, .event = 0, .n_sub_done = n_sub};
    return PORT_OK;
}

static int fake_get_outputs(void *ctx, double *y)
{
    fake *f = ctx;
    f->n_cmd++;
    f->n_reply++;
    y[0] = f->x;
    return PORT_OK;
}

static int fake_save(void *ctx, int slot)
{
    fake *f = ctx;
    f->n_cmd++;
    f->slot_x[slot] = f->x;
    f->slot_t[slot] = f->t;
    f->slot_full[slot] = 1;
    return PORT_OK;
}

static int fake_restore(void *ctx, int slot)
{
    fake *f = ctx;
    f->n_cmd++;
    if (!f->slot_full[slot]) {
        fake_note(f, PORT_EUSAGE);
        return PORT_EUSAGE;
    }
    f->x = f->slot_x[slot];
    f->t = f->slot_t[slot];
    return PORT_OK;
}

static int fake_record(void *ctx)
{
    fake *f = ctx;
    f->n_cmd++;
    if (f->n_rec < FAKE_MAX_REC) {
        f->rec_t[f->n_rec] = (double)f->t * f->tick;
        f->rec_x[f->n_rec++] = f->x;
    }
    return PORT_OK;
}

static int fake_collect(void *ctx)
{
    fake *f = ctx;
    int st = f->status;
    f->status = PORT_OK;
    return st;
}

static const port_slave_ops fake_ops = {
    .version = PORT_OPS_VERSION,

    .set_inputs = fake_set_inputs,
    .step = fake_step,
    .get_outputs = fake_get_outputs,
    .save = fake_save,
    .restore = fake_restore,
    .record = fake_record,
    .collect = fake_collect,
};

/* A fake with state x0 at tick 0 and n_in inputs weighted by b. */
static void fake_init(fake *f, double a, size_t n_in, const double *b, double x0, double tick)
{
    memset(f, 0, sizeof *f);
    f->a = a;
    f->n_in = n_in;
    for (size_t i = 0; i < n_in; i++)
        f->b[i] = b[i];
    f->x = x0;
    f->tick = tick;
    f->order = -1;
}

static port_slave fake_slave(fake *f, const char *name)
{
    return (port_slave){.ops = &fake_ops,
                        .ctx = f,
                        .info = {.name = name, .n_in = f->n_in, .n_out = 1, .can_save = 1}};
}

/* A pair of fakes coupled both ways, x1' = -a1 x1 + b1 x2, x2' = -a2 x2 + b2 x1, and its exact
 * solution exp(M t) x(0): the independent reference of the master algorithms' unit tests. */
typedef struct fake_pair {
    double a1, b1, a2, b2, x10, x20; /* 1/s, and the initial states */
} fake_pair;

/* The pair y as two fakes "one" and "two" of an in-process master from tick 0 to t_end, each
 * input wired to the other fake's output: the rig every master algorithm's test runs. */
typedef struct fake_rig {
    fake f[2];
    port_slave s[2];
    port_local_clock clk;
    port_master m;      /* its slaves are s, its clock clk */
    port_link links[2]; /* input of f[0] from f[1], and back */
    port_fault pf[2];   /* fake_rig_faults: s[j] wrapped to fail on demand */
} fake_rig;

static inline void fake_rig_init(fake_rig *g, const fake_pair *y, double tick, int64_t t_end)
{
    memset(g, 0, sizeof *g);
    fake_init(&g->f[0], y->a1, 1, &y->b1, y->x10, tick);
    fake_init(&g->f[1], y->a2, 1, &y->b2, y->x20, tick);
    g->s[0] = fake_slave(&g->f[0], "one");
    g->s[1] = fake_slave(&g->f[1], "two");
    g->clk.last = INT64_MIN;
    g->m = (port_master){.ops = &port_local_master_ops,
                         .ctx = &g->clk,
                         .slaves = g->s,
                         .n_slaves = 2,
                         .tick = tick,
                         .t_start = 0,
                         .t_end = t_end};
    g->links[0] = (port_link){.to = 0, .in = 0, .from = 1, .out = 0};
    g->links[1] = (port_link){.to = 1, .in = 0, .from = 0, .out = 0};
}

/* Wrap both slaves of the rig for fault injection (tests/unit/port_fault.h), once their tables
 * are final; arm g->pf[j] to make slave j fail. */
static inline void fake_rig_faults(fake_rig *g)
{
    for (int j = 0; j < 2; j++)
        port_fault_wrap(&g->pf[j], &g->s[j]);
}

/* exp(M t) for a 2x2 M: Taylor of degree 20 on M t / 2^q, then q squarings. */
static inline void fake_expm2(const double M[4], double t, double E[4])
{
    double A[4] = {M[0] * t, M[1] * t, M[2] * t, M[3] * t};
    double nrm = fabs(A[0]) + fabs(A[1]) + fabs(A[2]) + fabs(A[3]);
    int q = 0;
    while (nrm > 0.5)
        nrm /= 2, q++;
    for (int i = 0; i < 4; i++)
        A[i] /= ldexp(1, q);
    double T[4] = {1, 0, 0, 1}, S[4] = {1, 0, 0, 1};
    for (int k = 1; k <= 20; k++) {
        double N[4] = {(T[0] * A[0] + T[1] * A[2]) / k, (T[0] * A[1] + T[1] * A[3]) / k,
                       (T[2] * A[0] + T[3] * A[2]) / k, (T[2] * A[1] + T[3] * A[3]) / k};
        memcpy(T, N, sizeof T);
        for (int i = 0; i < 4; i++)
            S[i] += T[i];
    }
    for (int i = 0; i < q; i++) {
        double N[4] = {S[0] * S[0] + S[1] * S[2], S[0] * S[1] + S[1] * S[3],
                       S[2] * S[0] + S[3] * S[2], S[2] * S[1] + S[3] * S[3]};
        memcpy(S, N, sizeof S);
    }
    memcpy(E, S, sizeof S);
}

/* Largest error of the two fakes' recorded points against the exact solution of y. */
static inline double fake_pair_max_err(const fake *f0, const fake *f1, const fake_pair *y)
{
    double M[4] = {-y->a1, y->b1, y->b2, -y->a2}, worst = 0;
    for (size_t k = 0; k < f0->n_rec; k++) {
        double E[4];
        fake_expm2(M, f0->rec_t[k], E);
        double x1 = E[0] * y->x10 + E[1] * y->x20, x2 = E[2] * y->x10 + E[3] * y->x20;
        worst = fmax(worst, fmax(fabs(f0->rec_x[k] - x1), fabs(f1->rec_x[k] - x2)));
    }
    return worst;
}

#endif /* TEMPO_TESTS_UNIT_WR_FAKE_H */
