/* F3ORNITS, the pieces: the polynomial tools (extrapolation Omega, constrained least squares
 * Gamma, two-point Hermite cubic), the order function, the three error normalisations and the
 * step-ratio rule of Éguillon et al. (2021) (doc/references.md), described in
 * doc/algorithms/f3ornits.md with which formulas are our reconstructions. The master loop and
 * the asynchronous scheduler over the port are algorithms/f3ornits_master.h. Equations in
 * algorithms/f3ornits.c. Pure C: libc and libm only (doc/contributing.md §1). */
#ifndef TEMPO_ALGORITHMS_F3ORNITS_H
#define TEMPO_ALGORITHMS_F3ORNITS_H

#define F3_PBAR 2 /* highest polynomial degree of an input (eq. 15) */

/* Polynomials are Taylor coefficients about an expansion point, as in algorithms/defect.h:
 * q(t) = sum_k c[k] (t - t0)^k / k!, t in seconds. */

/**
 * Omega^(p) (eqs. 9, 11): the polynomial of degree p through the p + 1 points (t[i], z[i]),
 * as Taylor coefficients about t0.
 * @param t p + 1 distinct times, s
 * @param z p + 1 values
 * @param p 0 .. 3
 * @param c out: p + 1 coefficients
 * @return 0, or -1 (p out of range, two equal times).
 */
int f3_extrap(const double *t, const double *z, int p, double t0, double *c);

/**
 * Gamma^(p) (eqs. 10, 12): the polynomial Q of degree p through the newest point
 * (t[p+1], z[p+1]) that minimises sum_{i=0..p} (Q(t[i]) - z[i])^2, as Taylor coefficients about
 * t[p+1]. p = 0 is the hold of z[p+1].
 * @param t p + 2 distinct times, the newest last
 * @param p 0 .. 2
 * @param c out: p + 1 coefficients
 * @return 0, or -1 (p out of range, equal times, singular normal equations).
 */
int f3_cls(const double *t, const double *z, int p, double *c);

/**
 * The cubic H with H(ta) = za, H'(ta) = dza, H(tb) = zb, H'(tb) = dzb (eqs. 13, 14, 28), as
 * Taylor coefficients c[0..3] about ta. tb != ta.
 */
void f3_hermite(double ta, double za, double dza, double tb, double zb, double dzb, double *c);

/**
 * The order function (eqs. 18-20): with the history (t[m], y[m]), m = 0 .. n (the newest last,
 * n = nh - 1), eps[p] = |y[n] - Omega^(p)(points n-1-p .. n-1)(t[n])| for p = 0 .. min(pbar,
 * n - 1), and the order is the p of least eps; a higher p is taken only when its eps is below
 * (1 - tie) times the best lower one (ties go to the lower degree).
 * @param nh   points held, >= 1 (1: order 0, the start-up hold)
 * @param eps  out: min(pbar, nh - 2) + 1 errors (none when nh == 1); may be NULL
 * @return the order, 0 .. min(pbar, nh - 2).
 */
int f3_order(const double *t, const double *y, int nh, int pbar, double tie, double *eps);

/* Error normalisations of the time-stepper (eqs. 33-35). */
typedef enum f3_norm {
    F3_NORM_MAGNITUDE = 0, /* eps / (atol + rtol |y|): collapses near zero crossings */
    F3_NORM_AMPLITUDE,     /* eps / (atol + rtol (max y - min y since the start)) */
    F3_NORM_DAMPED,        /* eps / (atol + rtol (Ymax - Ymin)), damped extremes (eq. 36) */
} f3_norm;

/* The extremes of one output (eq. 36, our recursion: doc/algorithms/f3ornits.md). */
typedef struct f3_band {
    double ymin, ymax; /* the output's unit */
    int started;       /* 0 before the first sample */
} f3_band;

/**
 * Add the sample y after a step dt (s): the extremes relax towards y by exp(-mu dt), then
 * widen to y. mu = 0 keeps the plain extremes since the start (Amplitude).
 */
void f3_band_update(f3_band *b, double y, double dt, double mu);

/** The normalised error eps~ (eqs. 33-35); b is read by AMPLITUDE and DAMPED only. */
double f3_normalise(f3_norm norm, double eps, double y, const f3_band *b, double rtol, double atol);

/**
 * The dilatation of one output (eq. 32): rho = safety (1 / eps~)^(1/(p+1)), p the order used
 * on the step just taken; eps~ = 0 gives +infinity (clipped later by f3_clip).
 */
double f3_ratio(double eps_norm, int p, double safety);

/** rho projected into [rho_min, rho_max] (eq. 37, Remark 1). */
double f3_clip(double rho, double rho_min, double rho_max);

#endif
