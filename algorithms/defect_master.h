/* The defect-controlled non-iterative master of Glumac and Kovačić (2023), Algorithm 1, as a
 * function over the port (algorithms/port.h): Jacobi exchange of Taylor polynomials, a
 * mid-step output sample, the output and connection defects and the PI step-size controller
 * (algorithms/defect.h). Fixed-step and variable-step. doc/algorithms/defect-control.md.
 * Read algorithms/defect_master.c next. Pure C: libc and libm only. */
#ifndef TEMPO_ALGORITHMS_DEFECT_MASTER_H
#define TEMPO_ALGORITHMS_DEFECT_MASTER_H

#include <stddef.h>
#include <stdint.h>

#include "algorithms/defect.h"
#include "algorithms/port.h"

/* The connections (eq. 1d) are port_links (algorithms/port.h): input `in` of slave `to` is fed
 * by output `out` of slave `from`. */

/* Which defects drive the controller (eq. 38 uses both). */
typedef enum dc_defect {
    DC_DEFECT_BOTH = 0,   /* max of output and connection defects (the paper) */
    DC_DEFECT_OUTPUT,     /* output-defect estimate only */
    DC_DEFECT_CONNECTION, /* connection defect only (no mid sample needed) */
} dc_defect;

/* Output derivatives at the start time. */
typedef enum dc_init {
    DC_INIT_CONSISTENT = 0, /* the slaves' own derivatives with consistent input derivatives
                               (a sweep per order, dc_run); gives the orders n+1 */
    DC_INIT_ZERO,           /* zero derivatives at t_start (the paper's reference FMUs): the
                               first step is a hold, and slopes drop to 1.5 */
} dc_init;

/* How inputs are exchanged at a communication point. */
typedef enum dc_exchange {
    DC_EXCHANGE_SEQUENTIAL = 0, /* slave by slave in slave order; after its inputs are set, a
                                   slave's outputs are read again (direct feedthrough seen),
                                   and later slaves get those: the order of the paper's code */
    DC_EXCHANGE_JACOBI,         /* every input from the outputs read at the end of the step:
                                   one round trip */
} dc_exchange;

/* Settings; a zeroed struct is not valid (h1, t_end and links are needed). */
typedef struct dc_config {
    int m, n;                 /* input and output polynomial orders, 0 .. DC_MAX_ORDER */
    int variable;             /* 0: fixed step h1; 1: PI-controlled (eq. 39) */
    double h1;                /* first (or fixed) step, s, > 0 */
    double tol;               /* variable: the defect aimed at, > 0 */
    double h_min, h_max;      /* variable: step bounds, s; 0 = none (the paper's choice) */
    double kp, ki, theta_max; /* variable: controller constants; <= 0 = eq. 50's */
    dc_defect defect;
    dc_init init;
    dc_exchange exchange;
    int clip_end; /* 1: shorten the last step to end exactly at t_end; 0: stop at the
                     first T_k >= t_end (the paper's code) */
    size_t n_links;
    const port_link *links; /* n_links, caller-owned, read during dc_run */
} dc_config;

/* What one accepted step did, handed to the observer (valid during the call only). */
typedef struct dc_step_info {
    size_t k;                 /* step number, 1 .. */
    int64_t t0, t1;           /* T_{k-1}, T_k, ticks */
    double H;                 /* T_k - T_{k-1}, s */
    double eps;               /* controlled defect (eq. 38) */
    double eps_out, eps_conn; /* its output and connection parts */
    double H_next;            /* next step, s (0 after the last) */
    int n;                    /* output order used */
    /* per slave j: out_poly[j][o*(n+1) .. ] the output polynomials about T_k (eq. 12);
       out_def[j][o] the output-defect RMS of this step (NaN without mid sample) */
    const double *const *out_poly;
    const double *const *out_def;
    int m;                  /* input order used */
    const double *in_poly;  /* per link l: in_poly[l*(DC_MAX_ORDER+1) ..], m + 1 of them: the
                               input polynomial about T_{k-1} (eq. 14) */
    const double *conn_def; /* per link: connection-defect RMS of this step */
} dc_step_info;

typedef int dc_observer(void *ctx, const dc_step_info *s); /* nonzero stops the run */

/* Totals of a run. */
typedef struct dc_result {
    size_t N;                    /* steps taken */
    int64_t t_end;               /* T_N, ticks (>= the requested end unless clip_end) */
    double h_min, h_max, h_mean; /* s; h_mean = (T_N - T_0) / N */
    double eps_max;              /* largest per-step controlled defect */
    char err[256];               /* on failure: what and which slave */
} dc_result;

/**
 * Run the master from m->t_start to m->t_end over the slaves of m (all at t_start, inputs not
 * yet set). Each step opens the instant T_k (port_open), sets the inputs about T_{k-1}, steps
 * every slave to T_k in two halves (mid sample) or one (DC_DEFECT_CONNECTION), reads outputs
 * and their derivatives at T_k, computes the defects, lets the observer see them, records,
 * closes T_k and chooses H_{k+1}. A slave whose max_output_deriv is below n gets its
 * derivatives from its past samples at the communication points.
 * @param m   master with its slaves, not NULL; m->tick > 0
 * @param cfg settings, not NULL
 * @param obs NULL or called once per step (with obs_ctx)
 * @param res out: totals and, on failure, a message; not NULL
 * @return PORT_OK; PORT_EUSAGE (bad settings or links: res->err names the field); PORT_ENOMEM;
 *         a slave's failure status (res->err names the slave); PORT_EFAIL for a non-finite
 *         defect; PORT_ENOCONV when the observer stopped the run.
 */
int dc_run(const port_master *m, const dc_config *cfg, dc_observer *obs, void *obs_ctx,
           dc_result *res);

#endif
