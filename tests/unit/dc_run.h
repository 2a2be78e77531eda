/* One run of the defect-controlled master (algorithms/defect_master.h) over the two oscillator
 * slaves of tests/unit/dc_osc.h, with the paper's measures: the RMS over the run of each
 * output's error against the exact reference (the reference sampled as order-2 Taylor
 * polynomials at every T_k, as the paper's code does), of each output-defect estimate and of
 * each connection defect, and the step statistics. Used by tests/unit/defect_test.c. */
#ifndef TEMPO_TESTS_UNIT_DC_RUN_H
#define TEMPO_TESTS_UNIT_DC_RUN_H

#include <stdio.h>

#include "algorithms/defect_master.h"
#include "tests/unit/dc_osc.h"

typedef struct dc_case {
    int solver; /* DC_OSC_EXACT or DC_OSC_EULER */
    int order;  /* m = n */
    int variable;
    double h1, tol; /* s */
    double t_end;   /* s */
    int init;       /* dc_init */
    int exchange;   /* dc_exchange */
    int held;       /* exact slaves hold their state derivatives from the step end */
    int no_derivs;  /* the slaves offer no output derivatives (max_output_deriv 0) */
    int euler_sub;  /* Euler slaves take a new slope at each sub-step (dc_osc.h) */
    /* results */
    int rc;
    dc_result res;
    double err[2];  /* RMS error of omega2, tau1 */
    double odef[2]; /* RMS output-defect estimate of omega2 (slave 2), tau1 (slave 1) */
    double cdef[2]; /* RMS connection defect of u1 (omega2 into slave 1), u2 (tau1) */
    double sq_err[2], sq_odef[2], sq_cdef[2]; /* sums of integrals of squares */
    double *trace_t, *trace_h;                /* optional: filled per step up to trace_cap */
    size_t trace_cap, trace_n;
} dc_case;

#define DC_TICK 1e-9 /* s per tick */

/* Least-squares slope of log10 v against log10 H (n points): a measured order of convergence. */
static inline double dc_slope(const double *H, const double *v, int n)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < n; i++) {
        double a = log10(H[i]), b = log10(v[i]);
        sx += a, sy += b, sxx += a * a, sxy += a * b;
    }
    return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

static int dc_case_obs(void *ctx, const dc_step_info *si)
{
    dc_case *c = ctx;
    int n = si->n;
    for (int which = 0; which < 2; which++) {
        /* omega2 is slave 1's output 0, tau1 slave 0's output 0 */
        const double *y = si->out_poly[which == 0 ? 1 : 0];
        double ref[3], diff[DC_MAX_ORDER + 1] = {0};
        dc_ref_poly((double)si->t1 * DC_TICK, which, 2, ref);
        int w = n > 2 ? n : 2;
        for (int d = 0; d <= n; d++)
            diff[d] += y[d];
        for (int d = 0; d <= 2; d++)
            diff[d] -= ref[d];
        c->sq_err[which] += dc_poly_sqint(diff, w, -si->H, 0);
        double od = si->out_def[which == 0 ? 1 : 0][0];
        c->sq_odef[which] += si->H * od * od;
        c->sq_cdef[which] += si->H * si->conn_def[which] * si->conn_def[which];
    }
    if (c->trace_n < c->trace_cap) {
        c->trace_t[c->trace_n] = (double)si->t0 * DC_TICK;
        c->trace_h[c->trace_n] = si->H;
        c->trace_n++;
    }
    return 0;
}

/* Run c over two slaves: sl[0] is slave 1 (input omega2, output tau1), sl[1] slave 2. */
static int dc_case_run_on(dc_case *c, port_slave sl[2])
{
    port_local_clock clk;
    port_master m = dc_local_master(sl, 2, &clk, DC_TICK, (int64_t)(c->t_end / DC_TICK + 0.5));
    dc_config cfg = {.m = c->order,
                     .n = c->order,
                     .variable = c->variable,
                     .h1 = c->h1,
                     .tol = c->tol,
                     .init = c->init,
                     .exchange = c->exchange,
                     .n_links = 2,
                     .links = dc_pair_links()};
    for (int i = 0; i < 2; i++)
        c->sq_err[i] = c->sq_odef[i] = c->sq_cdef[i] = 0;
    c->trace_n = 0;
    c->rc = dc_run(&m, &cfg, dc_case_obs, c, &c->res);
    double span = (double)c->res.t_end * DC_TICK;
    for (int i = 0; i < 2; i++) {
        c->err[i] = sqrt(c->sq_err[i] / span);
        c->odef[i] = sqrt(c->sq_odef[i] / span);
        c->cdef[i] = sqrt(c->sq_cdef[i] / span);
    }
    return c->rc;
}

/* Run c over the C fakes of dc_osc.h. */
static int dc_case_run(dc_case *c)
{
    dc_osc s1, s2;
    dc_osc_slave1(&s1, c->solver, DC_TICK);
    dc_osc_slave2(&s2, c->solver, DC_TICK);
    s1.held = s2.held = c->held;
    if (c->no_derivs) s1.max_deriv = s2.max_deriv = 0;
    s1.euler_sub = s2.euler_sub = c->euler_sub;
    port_slave sl[2] = {dc_osc_port(&s1), dc_osc_port(&s2)};
    return dc_case_run_on(c, sl);
}

#endif
