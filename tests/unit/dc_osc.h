/* The two-mass rotational oscillator of Glumac and Kovačić (2023) §4.1 (doc/references.md,
 * doc/example-fmus.md) as two port slaves in C (algorithms/port.h) with closed-form
 * numerics, and its monolithic reference: the test fakes of tests/unit/defect_test.c and of
 * the defect-control example. Each slave is x' = A x + B u, y = C x + D u with one input and
 * one output, integrated either
 *   - exactly (DC_OSC_EXACT): Taylor series of the linear ODE with its polynomial input on
 *     sub-steps of at most 0.05 s, 24 terms (the remainder is below 1e-30), or
 *   - by forward Euler (DC_OSC_EULER, the paper's eq. 45): one slope f(x(T), u(T)) per macro
 *     step, the mid sample on the same line; output derivatives per eqs. 46-47 (x' the slope
 *     of the last step, higher state derivatives 0; before the first step the model's own).
 * Output derivatives use the input polynomial's derivatives re-expanded at the current time.
 * Read tests/unit/defect_test.c next. */
#ifndef TEMPO_TESTS_UNIT_DC_OSC_H
#define TEMPO_TESTS_UNIT_DC_OSC_H

#include <math.h>
#include <string.h>

#include "algorithms/defect.h"
#include "algorithms/defect_master.h"
#include "algorithms/port.h"

enum { DC_OSC_EXACT = 0, DC_OSC_EULER = 1 };
#define DC_OSC_TERMS 24

typedef struct dc_osc {
    const char *name;
    int nx; /* states, <= 3 */
    double A[3][3], B[3], C[3], D;
    double x[3];     /* state at t */
    int64_t t;       /* ticks */
    double tick;     /* s per tick */
    int solver;      /* DC_OSC_EXACT or DC_OSC_EULER */
    int stepped;     /* Euler: a step was taken (derivatives are the slope's) */
    double slope[3]; /* Euler: x' of the last step */
    int64_t u_t0;    /* input polynomial: expansion point, ticks */
    int u_order;
    double u[PORT_MAX_ORDER + 1];
    int status;
    int max_deriv; /* advertised max_output_deriv */
    int euler_sub; /* Euler: a new slope at every sub-step (forward Euler at H/n_sub,
                      as the Euler variant of the example FMUs, one step per doStep) */
    int held;      /* exact: state derivatives computed at the end of each step and
                      held until the next (the paper's FMUs); 0: from the current
                      inputs at every call */
    double xd[DC_MAX_ORDER + 1][3]; /* held state derivatives, orders 1.. */
    int64_t t_switch;               /* exact: from this time (ticks) on the model is A2, B2, C2, D2;
                                       0: never (the parameter change of the F3ORNITS case) */
    double A2[3][3], B2[3], C2[3], D2;
} dc_osc;

/* d-th derivative of the input at time t (ticks). */
static double dc_osc_u(const dc_osc *s, int64_t t, int d)
{
    if (d > s->u_order) return 0;
    return dc_poly_eval(s->u + d, s->u_order - d, (double)(t - s->u_t0) * s->tick);
}

static void dc_osc_f(const dc_osc *s, const double *x, double u, double *dx)
{
    for (int i = 0; i < s->nx; i++) {
        dx[i] = s->B[i] * u;
        for (int j = 0; j < s->nx; j++)
            dx[i] += s->A[i][j] * x[j];
    }
}

static double dc_osc_g(const dc_osc *s, const double *x, double u)
{
    double y = s->D * u;
    for (int i = 0; i < s->nx; i++)
        y += s->C[i] * x[i];
    return y;
}

/* State derivative of order d at the current time from the ODE: x^(d) = A x^(d-1) + B u^(d-1). */
static void dc_osc_xder(const dc_osc *s, int d, double *xd)
{
    double cur[3];
    memcpy(cur, s->x, sizeof cur);
    for (int k = 1; k <= d; k++) {
        dc_osc_f(s, cur, dc_osc_u(s, s->t, k - 1), xd);
        memcpy(cur, xd, sizeof cur);
    }
    if (d == 0) memcpy(xd, cur, sizeof cur);
}

/* Exact: Taylor series of x about t over h seconds (input polynomial about t). */
static void dc_osc_exact(dc_osc *s, int64_t t, double h)
{
    double term[3], next[3], sum[3];
    memcpy(term, s->x, sizeof term);
    memcpy(sum, s->x, sizeof sum);
    for (int k = 1; k < DC_OSC_TERMS; k++) {
        /* term_k = h/k * (A term_{k-1} + B u^(k-1)(t) h^(k-1)/(k-1)!) written in scaled form */
        double uk = dc_osc_u(s, t, k - 1);
        double hp = 1;
        for (int q = 1; q < k; q++)
            hp *= h / q; /* h^(k-1)/(k-1)! */
        for (int i = 0; i < s->nx; i++) {
            next[i] = s->B[i] * uk * hp;
            for (int j = 0; j < s->nx; j++)
                next[i] += s->A[i][j] * term[j];
            next[i] *= h / k;
        }
        for (int i = 0; i < s->nx; i++)
            sum[i] += next[i];
        memcpy(term, next, sizeof term);
    }
    memcpy(s->x, sum, sizeof sum);
}

static void dc_osc_advance(dc_osc *s, int64_t t_to)
{
    int64_t span = t_to - s->t;
    double H = (double)span * s->tick;
    int nsub = (int)ceil(H / 0.05);
    if (nsub < 1) nsub = 1;
    for (int q = 0; q < nsub; q++) {
        int64_t a = s->t + (int64_t)((double)span * q / nsub);
        int64_t b = q + 1 == nsub ? t_to : s->t + (int64_t)((double)span * (q + 1) / nsub);
        int64_t keep = s->t;
        s->t = a;
        dc_osc_exact(s, a, (double)(b - a) * s->tick);
        s->t = keep;
    }
    s->t = t_to;
}

/* The model after t_switch, once the time has reached it. */
static void dc_osc_switch(dc_osc *s)
{
    if (s->t_switch <= 0 || s->t < s->t_switch) return;
    memcpy(s->A, s->A2, sizeof s->A);
    memcpy(s->B, s->B2, sizeof s->B);
    memcpy(s->C, s->C2, sizeof s->C);
    s->D = s->D2;
    s->t_switch = 0;
}

/* Exact integration to t_to through the switch time. */
static void dc_osc_exact_to(dc_osc *s, int64_t t_to)
{
    if (s->t_switch > s->t && s->t_switch < t_to) {
        dc_osc_advance(s, s->t_switch);
        dc_osc_switch(s);
    }
    dc_osc_advance(s, t_to);
    dc_osc_switch(s);
}

static int dc_osc_set_inputs(void *ctx, const port_poly *u)
{
    dc_osc *s = ctx;
    if (u->n != 1 || u->order > PORT_MAX_ORDER) return s->status = PORT_EUSAGE;
    s->u_t0 = u->t0;
    s->u_order = u->order;
    memcpy(s->u, u->c, (size_t)(u->order + 1) * sizeof(double));
    return PORT_OK;
}

static int dc_osc_step(void *ctx, int64_t t_to, int n_sub, double *y_sub, port_step_result *res)
{
    dc_osc *s = ctx;
    if (t_to <= s->t) return s->status = PORT_EUSAGE;
    if (n_sub < 1) n_sub = 1;
    int64_t t0 = s->t, span = t_to - t0;
    if (s->solver == DC_OSC_EULER) {
        dc_osc_f(s, s->x, dc_osc_u(s, t0, 0), s->slope);
        s->stepped = 1;
    }
    double x0[3];
    memcpy(x0, s->x, sizeof x0);
    for (int k = 1; k <= n_sub; k++) {
        int64_t tk = k == n_sub ? t_to : t0 + (int64_t)((double)span * k / n_sub);
        if (s->solver == DC_OSC_EULER && s->euler_sub) {
            dc_osc_f(s, s->x, dc_osc_u(s, s->t, 0), s->slope);
            double h = (double)(tk - s->t) * s->tick;
            for (int i = 0; i < s->nx; i++)
                s->x[i] += h * s->slope[i];
            s->t = tk;
        } else if (s->solver == DC_OSC_EULER) {
            double h = (double)(tk - t0) * s->tick;
            for (int i = 0; i < s->nx; i++)
                s->x[i] = x0[i] + h * s->slope[i];
            s->t = tk;
        } else {
            dc_osc_exact_to(s, tk);
        }
        if (y_sub) y_sub[k - 1] = dc_osc_g(s, s->x, dc_osc_u(s, tk, 0));
    }
    if (s->solver == DC_OSC_EXACT && s->held) {
        for (int d = 1; d <= DC_MAX_ORDER; d++)
            dc_osc_xder(s, d, s->xd[d]);
        s->stepped = 1;
    }
    if (res) *res = (port_step_result){.t_reached = t_to, .event = 0, .n_sub_done = n_sub};
    return PORT_OK;
}

static int dc_osc_get_outputs(void *ctx, double *y)
{
    dc_osc *s = ctx;
    y[0] = dc_osc_g(s, s->x, dc_osc_u(s, s->t, 0));
    return PORT_OK;
}

static int dc_osc_get_output_derivs(void *ctx, int order, double *dy)
{
    dc_osc *s = ctx;
    if (order < 1 || order > s->max_deriv) return s->status = PORT_EUNSUPPORTED;
    double xd[3] = {0, 0, 0};
    if (s->solver == DC_OSC_EULER && s->stepped) {
        if (order == 1) memcpy(xd, s->slope, sizeof xd);
    } else if (s->held && s->stepped) {
        memcpy(xd, s->xd[order], sizeof xd);
    } else {
        dc_osc_xder(s, order, xd);
    }
    double y = s->D * dc_osc_u(s, s->t, order);
    for (int i = 0; i < s->nx; i++)
        y += s->C[i] * xd[i];
    dy[0] = y;
    return PORT_OK;
}

static int dc_osc_record(void *ctx)
{
    (void)ctx;
    return PORT_OK;
}

static int dc_osc_collect(void *ctx)
{
    dc_osc *s = ctx;
    int st = s->status;
    s->status = PORT_OK;
    return st;
}

static const port_slave_ops dc_osc_ops = {
    .version = PORT_OPS_VERSION,

    .set_inputs = dc_osc_set_inputs,
    .step = dc_osc_step,
    .get_outputs = dc_osc_get_outputs,
    .get_output_derivs = dc_osc_get_output_derivs,
    .record = dc_osc_record,
    .collect = dc_osc_collect,
};

/* Parameters of eq. 44. */
#define DC_J1 10.0
#define DC_C1 1.0
#define DC_D1 1.0
#define DC_CK 1.0
#define DC_DK 2.0
#define DC_J2 10.0
#define DC_C2 1.0
#define DC_D2 2.0

/* Slave 1 ("omega2tau"): x = [phi1, omega1, phi2], input omega2, output tau1. */
static void dc_osc_slave1(dc_osc *s, int solver, double tick)
{
    *s = (dc_osc){.name = "omega2tau",
                  .nx = 3,
                  .tick = tick,
                  .solver = solver,
                  .max_deriv = DC_MAX_ORDER,
                  .A = {{0, 1, 0},
                        {-(DC_C1 + DC_CK) / DC_J1, -(DC_D1 + DC_DK) / DC_J1, DC_CK / DC_J1},
                        {0, 0, 0}},
                  .B = {0, DC_DK / DC_J1, 1},
                  .C = {DC_CK, DC_DK, -DC_CK},
                  .D = -DC_DK,
                  .x = {0.1, 0.1, 0.2},
                  .u = {0.1}};
}

/* Slave 2 ("tau2omega"): x = [phi2, omega2], input tau1, output omega2. */
static void dc_osc_slave2(dc_osc *s, int solver, double tick)
{
    *s = (dc_osc){.name = "tau2omega",
                  .nx = 2,
                  .tick = tick,
                  .solver = solver,
                  .max_deriv = DC_MAX_ORDER,
                  .A = {{0, 1}, {-DC_C2 / DC_J2, -DC_D2 / DC_J2}},
                  .B = {0, 1 / DC_J2},
                  .C = {0, 1},
                  .D = 0,
                  .x = {0.2, 0.1},
                  .u = {-0.1}};
}

static port_slave dc_osc_port(dc_osc *s)
{
    return (port_slave){
        .ops = &dc_osc_ops,
        .ctx = s,
        .info = {.name = s->name, .n_in = 1, .n_out = 1, .max_output_deriv = s->max_deriv}};
}

/* An in-process master over n slaves sl from tick 0 to t_end; clk is its clock, reset here. */
static inline port_master dc_local_master(port_slave *sl, size_t n, port_local_clock *clk,
                                          double tick, int64_t t_end)
{
    clk->last = INT64_MIN;
    return (port_master){.ops = &port_local_master_ops,
                         .ctx = clk,
                         .slaves = sl,
                         .n_slaves = n,
                         .tick = tick,
                         .t_start = 0,
                         .t_end = t_end};
}

/* The two links of the oscillator: omega2 (slave 2's output) into slave 1, tau1 back. */
static inline const port_link *dc_pair_links(void)
{
    static const port_link links[2] = {{.to = 0, .in = 0, .from = 1, .out = 0},
                                       {.to = 1, .in = 0, .from = 0, .out = 0}};
    return links;
}

/* The oscillator as two slaves on an in-process master: s[0] is slave 1 (input omega2, output
 * tau1), s[1] slave 2; sl their ports, m the master from tick 0 to t_end. */
typedef struct dc_pair {
    dc_osc s[2];
    port_slave sl[2];
    port_local_clock clk;
    port_master m;
} dc_pair;

/* The ports and the master of p's slaves as they are now (again after changing a slave). */
static inline void dc_pair_wire(dc_pair *p, double tick, int64_t t_end)
{
    p->sl[0] = dc_osc_port(&p->s[0]);
    p->sl[1] = dc_osc_port(&p->s[1]);
    p->m = dc_local_master(p->sl, 2, &p->clk, tick, t_end);
}

/* Both slaves with one solver (DC_OSC_EXACT or DC_OSC_EULER), wired. */
static inline void dc_pair_init(dc_pair *p, int solver, double tick, int64_t t_end)
{
    dc_osc_slave1(&p->s[0], solver, tick);
    dc_osc_slave2(&p->s[1], solver, tick);
    dc_pair_wire(p, tick, t_end);
}

/* The monolithic reference x = [phi1, omega1, phi2, omega2], exact (Taylor series). */
static const double dc_ref_M[4][4] = {
    {0, 1, 0, 0},
    {-(DC_C1 + DC_CK) / DC_J1, -(DC_D1 + DC_DK) / DC_J1, DC_CK / DC_J1, DC_DK / DC_J1},
    {0, 0, 0, 1},
    {DC_CK / DC_J2, DC_DK / DC_J2, -(DC_C2 + DC_CK) / DC_J2, -(DC_D2 + DC_DK) / DC_J2}};

static void dc_ref_mul(const double *x, double *y)
{
    for (int i = 0; i < 4; i++) {
        y[i] = 0;
        for (int j = 0; j < 4; j++)
            y[i] += dc_ref_M[i][j] * x[j];
    }
}

/* y = M x for a given matrix. */
static void dc_ref_mulm(const double M[4][4], const double *x, double *y)
{
    for (int i = 0; i < 4; i++) {
        y[i] = 0;
        for (int j = 0; j < 4; j++)
            y[i] += M[i][j] * x[j];
    }
}

/* x advanced by t seconds under x' = M x, sub-steps of at most 0.05 s (Taylor series). */
static void dc_ref_flow(const double M[4][4], double t, double *x)
{
    int nsub = (int)ceil(t / 0.05);
    for (int q = 0; q < nsub; q++) {
        double h = t / nsub, term[4], next[4], sum[4];
        memcpy(term, x, sizeof term);
        memcpy(sum, x, sizeof sum);
        for (int k = 1; k < DC_OSC_TERMS; k++) {
            dc_ref_mulm(M, term, next);
            for (int i = 0; i < 4; i++) {
                next[i] *= h / k;
                sum[i] += next[i];
            }
            memcpy(term, next, sizeof term);
        }
        memcpy(x, sum, sizeof sum);
    }
}

/* x(t) from x(0) = [0.1, 0.1, 0.2, 0.1]. */
static void dc_ref_state(double t, double *x)
{
    double x0[4] = {0.1, 0.1, 0.2, 0.1};
    memcpy(x, x0, sizeof x0);
    dc_ref_flow(dc_ref_M, t, x);
}

/* Taylor coefficients (order `order`) at t of omega2 (which = 0) or tau1 (which = 1). */
static void dc_ref_poly(double t, int which, int order, double *p)
{
    double x[4], nx[4];
    dc_ref_state(t, x);
    for (int d = 0; d <= order; d++) {
        p[d] = which == 0 ? x[3] : DC_CK * (x[0] - x[2]) + DC_DK * (x[1] - x[3]);
        dc_ref_mul(x, nx);
        memcpy(x, nx, sizeof nx);
    }
}

/* The F3ORNITS case: the coupling damper dk drops from 2 to DC_DK2 at DC_TSW (a jump of tau1
 * and new dynamics); slave 1 switches with it (t_switch in ticks of tick). */
#define DC_DK2 0.5  /* N m s/rad */
#define DC_TSW 10.0 /* s */
static inline void dc_osc_slave1_switching(dc_osc *s, double tick)
{
    dc_osc_slave1(s, DC_OSC_EXACT, tick);
    s->t_switch = (int64_t)(DC_TSW / tick + 0.5);
    double A2[3][3] = {
        {0, 1, 0}, {-(DC_C1 + DC_CK) / DC_J1, -(DC_D1 + DC_DK2) / DC_J1, DC_CK / DC_J1}, {0, 0, 0}};
    memcpy(s->A2, A2, sizeof A2);
    s->B2[0] = 0, s->B2[1] = DC_DK2 / DC_J1, s->B2[2] = 1;
    s->C2[0] = DC_CK, s->C2[1] = DC_DK2, s->C2[2] = -DC_CK;
    s->D2 = -DC_DK2;
}

/* Its exact reference: omega2 (which = 0) or tau1 (1) at t. */
static inline double dc_ref_switching(double t, int which)
{
    static const double M2[4][4] = {
        {0, 1, 0, 0},
        {-(DC_C1 + DC_CK) / DC_J1, -(DC_D1 + DC_DK2) / DC_J1, DC_CK / DC_J1, DC_DK2 / DC_J1},
        {0, 0, 0, 1},
        {DC_CK / DC_J2, DC_DK2 / DC_J2, -(DC_C2 + DC_CK) / DC_J2, -(DC_D2 + DC_DK2) / DC_J2}};
    double x[4] = {0.1, 0.1, 0.2, 0.1};
    dc_ref_flow(dc_ref_M, t < DC_TSW ? t : DC_TSW, x);
    double dk = DC_DK;
    if (t >= DC_TSW) {
        dc_ref_flow(M2, t - DC_TSW, x);
        dk = DC_DK2;
    }
    return which == 0 ? x[3] : DC_CK * (x[0] - x[2]) + dk * (x[1] - x[3]);
}

#endif
