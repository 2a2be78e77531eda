/* Input extrapolation from past samples: hold (order 0), linear (1), quadratic (2).
 *
 * Serves doc/algorithms/README.md (optional higher-order inputs for the Jacobi variants; the Awais
 * thesis §6.3 uses order 0 only). Math and choices: algorithms/extrap.c, doc/algorithms/jacobi.md.
 * Read algorithms/topology.h next. Pure C: libc and libm only.
 */
#ifndef TEMPO_ALGORITHMS_EXTRAP_H
#define TEMPO_ALGORITHMS_EXTRAP_H

#include <stdint.h>

#define EXTRAP_MAX_ORDER   2                      /* quadratic is the highest order offered */
#define EXTRAP_MAX_SAMPLES (EXTRAP_MAX_ORDER + 1) /* samples kept per signal */

/* Status codes: 0 success, negative errors. */
enum {
    EXTRAP_OK = 0,
    EXTRAP_EORDER = -1, /* order outside 0..EXTRAP_MAX_ORDER */
    EXTRAP_EEMPTY = -2, /* no sample yet: nothing to extrapolate from */
    EXTRAP_ETIME = -3,  /* a pushed sample is older than the newest one kept */
    EXTRAP_EVALUE = -4, /* a pushed value is not finite */
};

/* Past samples of one scalar signal, newest last. Fixed size: no allocation anywhere.
 * Zero-initialised (or extrap_reset) means "no sample". */
typedef struct extrap_hist {
    int64_t t[EXTRAP_MAX_SAMPLES]; /* sample times, ticks, strictly increasing */
    double v[EXTRAP_MAX_SAMPLES];  /* sample values, the signal's unit */
    int n;                         /* samples held, 0..EXTRAP_MAX_SAMPLES */
} extrap_hist;

/**
 * Forget every sample (after an event that makes the signal jump, so that no polynomial is
 * fitted across the discontinuity).
 * @param h history, not NULL
 */
void extrap_reset(extrap_hist *h);

/**
 * Append a sample. A sample at the time of the newest one replaces its value (the value at an
 * instant may be revised while the instant is open, e.g. between TARA(t) and TAR(t)). When the
 * history is full the oldest sample is dropped.
 * @param h history, not NULL
 * @param t sample time, ticks; must be >= the newest time held
 * @param v sample value; must be finite
 * @return EXTRAP_OK, EXTRAP_ETIME (t older than the newest sample; nothing changed),
 *         EXTRAP_EVALUE (v not finite; nothing changed).
 */
int extrap_push(extrap_hist *h, int64_t t, double v);

/**
 * Value at time t of the polynomial of degree p through the newest p + 1 samples (Lagrange
 * form), where p = min(order, samples held - 1): at the start of a run fewer samples lower the
 * order. t may be anywhere (past samples too), usually t >= newest sample time.
 * @param h     history, not NULL
 * @param order requested order 0 (hold), 1 (linear) or 2 (quadratic)
 * @param t     evaluation time, ticks
 * @param out   out: the value, not NULL; untouched on error
 * @param used  out: the order actually used, may be NULL
 * @return EXTRAP_OK, EXTRAP_EORDER, EXTRAP_EEMPTY.
 */
int extrap_eval(const extrap_hist *h, int order, int64_t t, double *out, int *used);

/**
 * First and second derivatives, per second, at time t of the same polynomial as extrap_eval
 * (Newton divided differences over the newest p + 1 samples, p = min(order, samples - 1)); the
 * derivatives of orders above p are 0. Times are taken relative to t in integer ticks first, so
 * large absolute times lose nothing. Used to hand an FMU its inputs' derivatives
 * (fmi2SetRealInputDerivatives) so that it sees the polynomial itself over a step.
 * @param h     history, not NULL
 * @param order requested order 0..EXTRAP_MAX_ORDER
 * @param t     evaluation time, ticks
 * @param tick  seconds per tick, > 0
 * @param d     out: d[0] = du/dt, d[1] = d2u/dt2, not NULL; untouched on error
 * @param used  out: the order actually used, may be NULL
 * @return EXTRAP_OK, EXTRAP_EORDER, EXTRAP_EEMPTY.
 */
int extrap_derivs(const extrap_hist *h, int order, int64_t t, double tick,
                  double d[EXTRAP_MAX_ORDER], int *used);

#endif
