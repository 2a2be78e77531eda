/* F3ORNITS as a master over the port (algorithms/port.h): the flexible-order input polynomials
 * of algorithms/f3ornits.h fitted to past outputs (no output derivatives needed), the
 * time-stepper, and the asynchronous scheduler of Éguillon et al. (2021) §3.2.2 as we
 * reconstruct it: every slave has its own communication times, a variable step chosen by the
 * time-stepper or a step imposed by the slave (non-multiples such as 0.003 and 0.007 side by
 * side); each step's inputs are the providers' newest polynomials at its start (eq. 25's m*),
 * optionally smoothed to C^1 by Hermite cubics (eqs. 26-28). doc/algorithms/f3ornits.md.
 * Read algorithms/f3ornits_master.c next. Pure C: libc and libm only. */
#ifndef TEMPO_ALGORITHMS_F3ORNITS_MASTER_H
#define TEMPO_ALGORITHMS_F3ORNITS_MASTER_H

#include <stddef.h>
#include <stdint.h>

#include "algorithms/defect_master.h" /* port_link */
#include "algorithms/f3ornits.h"
#include "algorithms/port.h"

typedef enum f3_fit {
    F3_FIT_EXTRAP = 0, /* Omega^(p) through the newest p + 1 outputs */
    F3_FIT_CLS,        /* Gamma^(p): through the newest, least squares on p + 1 older ones */
} f3_fit;

typedef struct f3_config {
    f3_fit fit;
    int order;               /* -1: the order function (flexible); 0..2: forced (0 = ZOH Jacobi) */
    int variable;            /* 1: the time-stepper chooses the step; 0: fixed dt_init */
    f3_norm norm;            /* error normalisation of the time-stepper */
    double mu;               /* damping of F3_NORM_DAMPED, 1/s */
    double rtol, atol;       /* tolerances of the normalisation */
    double rho_min, rho_max; /* bounds of the step ratio (eq. 37) */
    double safety;           /* factor of eq. 32; <= 0: 1 */
    double dt_init;          /* first step (and smallest step), s */
    double dt_max;           /* largest step, s; 0: none */
    const double *imposed;   /* NULL, or per slave: its imposed step, s (0: the time-stepper's);
                                the last one is shortened to end at t_end */
    int smooth;              /* 1: C^1 inputs, a Hermite cubic per step after the first (eq. 28;
                                slaves must take input derivatives up to order 3) */
    size_t n_links;
    const port_link *links; /* every input of every slave fed once */
} f3_config;

/* One communication instant, for the observer (valid during the call). */
typedef struct f3_step_info {
    size_t k;                /* instant number, 1 .. */
    int64_t t0, t1;          /* the previous instant and this one, ticks */
    double H;                /* t1 - t0, s */
    const int *stepped;      /* per slave: 1 when it reached t1 at this instant */
    const double *const *y;  /* per slave: its newest outputs (at t1 when stepped) */
    const int *const *order; /* per slave: the order each output's polynomial had on the step */
    const double *const *u;  /* per slave: n_in * 4 input coefficients about t1 for the next
                                step (degree 3 with smooth, else 2 and a zero) */
    const int64_t *next;     /* per slave: its next communication time, ticks */
    double rho;              /* the smallest ratio chosen at this instant (1 when none) */
} f3_step_info;

typedef int f3_observer(void *ctx, const f3_step_info *s);

typedef struct f3_result {
    size_t N;            /* communication instants after the start */
    size_t steps;        /* slave steps in all (N times the slaves when synchronous) */
    double h_min, h_max; /* s, between instants */
    char err[256];
} f3_result;

/**
 * Run from m->t_start to m->t_end (every slave's last step is shortened to end there). The
 * start instant and each communication instant are opened and closed (port_open/close); at an
 * instant T the slaves due at T step there and their outputs are read, then each gets its next
 * time and the inputs of its next step (about T), and records its row.
 * @return PORT_OK; PORT_EUSAGE (bad settings, res->err says which); PORT_ENOMEM; a slave's
 *         failure (named in res->err); PORT_ENOCONV when the observer stopped the run.
 */
int f3_run(const port_master *m, const f3_config *cfg, f3_observer *obs, void *obs_ctx,
           f3_result *res);

#endif
