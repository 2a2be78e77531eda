/* Discrete-event step prediction by quantization (the Awais thesis §4.2.2, eq. 4.5 restored).
 *
 * Serves doc/algorithms/README.md (Jacobi, discrete-event variant: NERA/NER). The math, symbols and
 * our choices are in algorithms/quantize.c and doc/algorithms/jacobi-de.md. Read
 * algorithms/extrap.h next. Pure C: libc and libm only (doc/contributing.md §1).
 */
#ifndef TEMPO_ALGORITHMS_QUANTIZE_H
#define TEMPO_ALGORITHMS_QUANTIZE_H

#include <stddef.h>
#include <stdint.h>

/* Status codes. 0 and positive are successes (positive says how the step was bounded),
 * negative are errors. */
enum {
    QUANT_OK = 0,      /* the quantum crossing lies inside [h_min, h_max] */
    QUANT_AT_MIN = 1,  /* clamped up to h_min (a fast signal) */
    QUANT_AT_MAX = 2,  /* clamped down to h_max (slow or constant signal) */
    QUANT_EINVAL = -1, /* bad settings or non-finite input; *h is set to h_min if possible */
};

/* Settings of one quantized output. All durations in seconds. */
typedef struct quant_cfg {
    double q;     /* quantum: the change of the output that defines the next event, > 0,
                     in the output's unit (the Awais thesis: "absolute difference between consecutive
                     quantized values") */
    double h_min; /* smallest predicted step, s, > 0 */
    double h_max; /* largest predicted step, s, >= h_min */
} quant_cfg;

/**
 * Check a configuration.
 * @param c      settings to check; must not be NULL
 * @param err    caller-owned buffer for the reason, may be NULL when errlen is 0
 * @param errlen size of err in bytes
 * @return QUANT_OK, or QUANT_EINVAL with err naming the field (q, h_min, h_max) and the value.
 */
int quant_cfg_check(const quant_cfg *c, char *err, size_t errlen);

/**
 * Step from the output's slope: h = q / |dv/dt| (the Awais thesis eq. 4.5, restored form), clamped
 * to [h_min, h_max]. A slope of zero (or so small that q/|slope| exceeds h_max) gives h_max.
 * @param c     valid settings (quant_cfg_check), not NULL
 * @param slope dv/dt at the current time, output unit per second (sign is ignored)
 * @param h     out: the predicted step in seconds, not NULL
 * @return QUANT_OK, QUANT_AT_MIN, QUANT_AT_MAX, or QUANT_EINVAL (slope not finite, or c
 *         invalid) with *h = h_min.
 */
int quant_step_slope(const quant_cfg *c, double slope, double *h);

/**
 * Step from the last two samples, as the thesis does (the Awais thesis eq. 4.5, restored):
 * h = q * |(t1 - t0) / (v1 - v0)|, i.e. q / |secant slope|, clamped.
 * @param c  valid settings, not NULL
 * @param t0 time of the older sample, s
 * @param v0 value at t0
 * @param t1 time of the newer sample, s; must be > t0
 * @param v1 value at t1
 * @param h  out: predicted step, s, not NULL
 * @return as quant_step_slope; QUANT_EINVAL also when t1 <= t0.
 */
int quant_step_secant(const quant_cfg *c, double t0, double v0, double t1, double v1, double *h);

/**
 * Convert a predicted step into the next logical time: T + max(1, floor(h / tick)) ticks,
 * never past t_end, saturating at INT64_MAX. A federate with several outputs first takes the
 * smallest h over them (the Awais thesis §4.2.2: "several outputs: min").
 * @param T     current logical time, ticks
 * @param h     step in seconds, > 0 and finite (else the result is T + 1, clamped)
 * @param tick  seconds per tick (the federation's time resolution), > 0
 * @param t_end end time, ticks; the result never exceeds it (when T < t_end)
 * @return the next request time in ticks.
 */
int64_t quant_next_time(int64_t T, double h, double tick, int64_t t_end);

#endif
