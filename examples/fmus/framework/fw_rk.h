/* Dormand-Prince 5(4) explicit Runge-Kutta step with an embedded error estimate, used by the
 * co-simulation side of the example-FMU framework (fw_cs.c). doc/fmu.md.
 * Read fw_cs.c next (step-size control, sub-stepping and event location). */
#ifndef TEMPO_FRAMEWORK_FW_RK_H
#define TEMPO_FRAMEWORK_FW_RK_H

#include <stddef.h>

/** Right-hand side: write dx = f(t, x) (n entries); ctx is the caller's. */
typedef void (*fw_rhs)(void *ctx, double t, const double *x, double *dx);

/** Workspace for systems of n states: allocated once by fw_rk_init, freed by fw_rk_fini. */
typedef struct {
    int n;         /* number of states */
    double *k[7];  /* stage slopes; k[6] = f(t+h, x1) after a step (first-same-as-last) */
    double *tmp;   /* stage argument */
    double *block; /* the one allocation behind k[] and tmp */
} fw_rk;

/**
 * Allocate the workspace for n >= 0 states with alloc (calloc-like).
 * @return 0, or -1 when the allocation failed (w is then safe to pass to fw_rk_fini)
 */
int fw_rk_init(fw_rk *w, int n, void *(*alloc)(size_t, size_t));

/** Free the workspace with release (free-like); safe on a zeroed or failed workspace. */
void fw_rk_fini(fw_rk *w, void (*release)(void *));

/**
 * One Dormand-Prince 5(4) step of size h from (t, x) with slope k1 = f(t, x) given.
 * x1 receives the 5th-order solution; the return value is the weighted RMS norm of the
 * embedded error estimate, sqrt(mean((e_i / (atol + rtol max(|x_i|, |x1_i|)))^2)), so a
 * step is acceptable when it is <= 1. Costs 6 evaluations of f; allocates nothing.
 * After the call w->k[6] holds f(t + h, x1). x1 must not alias x or k1.
 */
double fw_rk_step(fw_rk *w, fw_rhs f, void *ctx, double t, const double *x, const double *k1,
                  double h, double rtol, double atol, double *x1);

#endif
