/* F3ORNITS as a master over the port (algorithms/port.h), the synchronous case: every slave
 * takes the same communication step, the smallest the time-stepper allows (the scheduler of
 * Éguillon et al. (2021) §3.2.2 reduced to its synchronous fallback; imposed non-multiple steps
 * are not handled yet). Inputs are the flexible-order polynomials of algorithms/f3ornits.h
 * fitted to past outputs (no output derivatives needed). doc/algorithms/f3ornits.md.
 * Read algorithms/f3ornits_master.c next. Pure C: libc and libm only. */
#ifndef TEMPO_ALGORITHMS_F3ORNITS_MASTER_H
#define TEMPO_ALGORITHMS_F3ORNITS_MASTER_H

#include <stddef.h>
#include <stdint.h>

#include "algorithms/defect_master.h" /* dc_link */
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
    size_t n_links;
    const dc_link *links; /* every input of every slave fed once */
} f3_config;

/* One step, for the observer (valid during the call). */
typedef struct f3_step_info {
    size_t k;
    int64_t t0, t1;          /* ticks */
    double H;                /* s */
    const double *const *y;  /* per slave: outputs at t1 */
    const int *const *order; /* per slave: the order each output's polynomial had on the step */
    double rho;              /* the ratio chosen for the next step (1 when fixed) */
} f3_step_info;

typedef int f3_observer(void *ctx, const f3_step_info *s);

typedef struct f3_result {
    size_t N;
    double h_min, h_max; /* s */
    char err[256];
} f3_result;

/**
 * Run from m->t_start to m->t_end (the last step is shortened to end there).
 * @return PORT_OK; PORT_EUSAGE (bad settings, res->err says which); PORT_ENOMEM; a slave's
 *         failure (named in res->err); PORT_ENOCONV when the observer stopped the run.
 */
int f3_run(const port_master *m, const f3_config *cfg, f3_observer *obs, void *obs_ctx,
           f3_result *res);

#endif
