/* The settings of method "f3ornits" (federate/config/algo_f3ornits.c, doc/federation.md) as the
 * loaded file holds them: algorithms/f3ornits_master.h's f3_config as written, the imposed steps
 * by federate name. Read algo_f3ornits.c next.
 */
#ifndef TEMPO_FEDERATE_CONFIG_ALGO_F3ORNITS_H
#define TEMPO_FEDERATE_CONFIG_ALGO_F3ORNITS_H

#include <stddef.h>

typedef struct fedfile_f3 {
    int fit;                 /* 0 "extrapolation", 1 "cls" */
    int order;               /* -1 flexible (the order function), 0..2 forced (0: ZOH) */
    int variable;            /* 1: the time-stepper chooses the steps; 0: fixed dt_init */
    int norm;                /* 0 "magnitude", 1 "amplitude", 2 "damped" */
    int smooth;              /* 1: C^1 inputs (Hermite cubics) */
    double mu;               /* 1/s, damping of "damped" */
    double rtol, atol;       /* tolerances of the normalisation */
    double rho_min, rho_max; /* bounds of the step ratio */
    double safety;           /* factor of the ratio */
    double dt_init, dt_max;  /* s: first (and smallest) step; largest (0: none) */
    size_t n_imposed;
    char **imposed_fed;   /* federate names whose step is imposed */
    double *imposed_step; /* their steps, s, whole ticks */
} fedfile_f3;

#endif
