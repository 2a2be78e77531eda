/* Defect control, the pieces: Taylor coupling polynomials, the output-defect estimate, the
 * connection defect and the PI step-size controller of Glumac and Kovačić (2023)
 * (doc/references.md), described in doc/algorithms/defect-control.md. The master loop over the
 * port that uses them is algorithms/defect_master.h; the equations are in algorithms/defect.c.
 * Pure C: libc and libm only (doc/contributing.md §1). */
#ifndef TEMPO_ALGORITHMS_DEFECT_H
#define TEMPO_ALGORITHMS_DEFECT_H

#include <stddef.h>

#define DC_MAX_ORDER 4 /* highest polynomial order of inputs and outputs offered */

/* A Taylor polynomial is an array p[0..order] of the value and the time derivatives at its
 * expansion point: p(s) = sum_k p[k] s^k / k!, s = t - t0 in seconds. */

/** Value of p at s seconds from its expansion point. p not NULL, 0 <= order <= DC_MAX_ORDER. */
double dc_poly_eval(const double *p, int order, double s);

/**
 * Re-expand p about the point s seconds from its expansion point (exact, eq. 15's
 * "derivatives of the previous step's output at T_{k-1}"): q[j] = sum_{k>=j} p[k] s^(k-j)/(k-j)!.
 * @param q out: order + 1 coefficients; may alias p
 */
void dc_poly_shift(const double *p, int order, double s, double *q);

/**
 * Integral of p(s)^2 over [a, b] (s relative to the expansion point), exact: the square is
 * expanded into monomials and integrated term by term. b >= a.
 */
double dc_poly_sqint(const double *p, int order, double a, double b);

/**
 * Taylor coefficients d[0..np-1] at s = 0 of the polynomial through the np points (s_i, y_i)
 * (Newton divided differences, then expanded about 0): the derivatives of an output that
 * offers none, from its past samples (doc/algorithms/defect-control.md, "Degraded slaves").
 * @param s  np distinct times, s relative to the expansion point, seconds
 * @param y  np values
 * @param np 1 .. DC_MAX_ORDER + 1
 * @param d  out: np coefficients (value and derivatives 1 .. np-1)
 * @return 0, or -1 when np is out of range or two times coincide (d untouched).
 */
int dc_taylor_from_samples(const double *s, const double *y, int np, double *d);

/**
 * RMS over one step of the output-defect estimate (eqs. 30-32): with the output polynomial
 * y_end about T_k (order n) and the sample y_mid taken at T_k - H/2,
 *   delta(t) = -((T_k - t) / (H/2))^(n+1) * (y_mid - y_end(-H/2)),
 *   RMS over (T_k - H, T_k] = |y_mid - y_end(-H/2)| * 2^(n+1) / sqrt(2n + 3).
 * @param y_end order + 1 coefficients about T_k
 * @param H     step, seconds, > 0
 */
double dc_output_defect_rms(const double *y_end, int n, double y_mid, double H);

/**
 * RMS over [T_{k-1}, T_k] of the connection defect (eq. 17), input minus connected output:
 *   delta_u(t) = u(t) - y(t),  u about T_{k-1} (order m), y about T_k = T_{k-1} + H (order n);
 * y is re-expanded at T_{k-1} and the difference integrated exactly.
 */
double dc_connection_defect_rms(const double *u, int m, const double *y_end, int n, double H);

/* The explicit PI controller on the logarithm of the defect (eq. 39), with the constants of
 * eq. 50 as defaults. State: the integral part I (log of a step in seconds). */
#define DC_PI_KP        0.13       /* proportional gain, eq. 50 */
#define DC_PI_KI        (1.0 / 15) /* integral gain, eq. 50 */
#define DC_PI_THETA_MAX 2.0        /* largest growth H_{k+1}/H_k, eq. 50 */
#define DC_EPS_FLOOR    1e-16      /* a defect below this counts as this (log(0) guard) */

typedef struct dc_pi {
    double tol;          /* the defect aimed at, the signals' unit, > 0 */
    double kp, ki;       /* gains */
    double theta_max;    /* growth limit, > 1 */
    double h_min, h_max; /* s; 0 = no bound (the paper has none) */
    double I;            /* integral part, log(seconds) */
} dc_pi;

/**
 * Start the controller at the first step h1: I = log(h1). kp, ki, theta_max <= 0 take the
 * defaults above. @return 0, or -1 on a bad argument (tol or h1 not > 0, h_max < h_min).
 */
int dc_pi_init(dc_pi *c, double tol, double h1, double kp, double ki, double theta_max,
               double h_min, double h_max);

/**
 * The next step from the step h just taken and its controlled defect eps (eq. 38):
 *   e = log(tol) - log(max(eps, DC_EPS_FLOOR)),  I' = I + ki e,  H' = exp(I' + kp e),
 *   H_{k+1} = min(H', theta_max h, h_max), max(..., h_min),
 *   I = I' + log(H_{k+1}) - log(H')   (anti-windup: back-calculation to the step taken).
 * A step whose defect is above tol is not repeated (the method never rolls back).
 * @return H_{k+1}, seconds.
 */
double dc_pi_next(dc_pi *c, double h, double eps);

#endif
