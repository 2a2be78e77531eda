/* Tests of the throwaway algorithm algorithms/subjacobi.h (tests/integration/new_algo.sh copies
 * it into a copy of the tree) against closed-form fake slaves: A integrates x' = u_A, B
 * y' = -u_B, wired u_A = y, u_B = x; with inputs held over a step the rows follow the explicit
 * map x' = x + H y, y' = y - H x exactly, whatever n_sub, and each step asks for n_sub sub-steps.
 * doc/algorithms/subjacobi.md. */
#include <stdint.h>
#include <string.h>

#include "algorithms/subjacobi.h"
#include "tests/check.h"

#define TICK 1e-3 /* s per tick */

typedef struct fake {
    double x, u, k; /* state, held input, sign of the right-hand side */
    int64_t t;      /* ticks */
    double rec_x[32];
    int n_rec, last_n_sub;
} fake;

static int f_set_inputs(void *ctx, const port_poly *u)
{
    ((fake *)ctx)->u = u->c[0];
    return PORT_OK;
}
static int f_step(void *ctx, int64_t t_to, int n_sub, double *y, port_step_result *res)
{
    fake *f = ctx;
    f->last_n_sub = n_sub;
    int64_t t0 = f->t;
    for (int i = 1; i <= n_sub; i++) { /* exact for a constant input */
        int64_t ti = t0 + (t_to - t0) * i / n_sub;
        f->x += f->k * f->u * (double)(ti - f->t) * TICK;
        f->t = ti;
        if (y) y[i - 1] = f->x;
    }
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
    if (f->n_rec < 32) f->rec_x[f->n_rec++] = f->x;
    return PORT_OK;
}
static int f_collect(void *ctx)
{
    (void)ctx;
    return PORT_OK;
}
static const port_slave_ops fake_ops = {.version = PORT_OPS_VERSION,
                                        .set_inputs = f_set_inputs,
                                        .step = f_step,
                                        .get_outputs = f_get_outputs,
                                        .record = f_record,
                                        .collect = f_collect};

static void run(int n_sub)
{
    fake a = {.x = 1, .k = 1}, b = {.x = 0, .k = -1};
    port_slave s[2] = {{.ops = &fake_ops, .ctx = &a, .info = {.name = "A", .n_in = 1, .n_out = 1}},
                       {.ops = &fake_ops, .ctx = &b, .info = {.name = "B", .n_in = 1, .n_out = 1}}};
    port_local_clock clk = {.last = INT64_MIN};
    port_master m = {.ops = &port_local_master_ops,
                     .ctx = &clk,
                     .slaves = s,
                     .n_slaves = 2,
                     .tick = TICK,
                     .t_start = 0,
                     .t_end = 1000};
    port_link links[2] = {{.to = 0, .in = 0, .from = 1, .out = 0},
                          {.to = 1, .in = 0, .from = 0, .out = 0}};
    subjacobi_settings st = {.t_step = 100, .n_sub = n_sub};
    char err[256] = "";
    CHECK(subjacobi_run(&m, links, 2, &st, err, sizeof err) == PORT_OK, "run: %s", err);
    CHECK_INT_EQ(a.n_rec, 11);
    CHECK_INT_EQ(a.last_n_sub, n_sub);
    double x = 1, y = 0;
    for (int n = 0; n < a.n_rec && n < b.n_rec; n++) {
        CHECK_NEAR(a.rec_x[n], x, 1e-12);
        CHECK_NEAR(b.rec_x[n], y, 1e-12);
        double xn = x + 0.1 * y, yn = y - 0.1 * x;
        x = xn, y = yn;
    }
}

int main(void)
{
    run(1);
    run(3);
    return check_summary();
}
