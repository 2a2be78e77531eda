/* Input extrapolation polynomials of order 0, 1, 2 from non-uniform past samples.
 * the Awais thesis §4.2 and §6.3 (doc/references.md (Awais)): the thesis holds inputs constant over
 * a macro step ("The input variables of S_1 and S_2 remain constant during the internal integration
 * from T_n to T_{n+1}") and names linear or polynomial extrapolation as the alternatives it did not
 * use; doc/algorithms/README.md offers them, off by default. Doc: doc/algorithms/jacobi.md.
 *
 * Equations (t in ticks; only ratios of time differences appear, so the unit cancels):
 *
 *   samples (t_k, u_k), k = n-p .. n, newest t_n, p = min(order, samples - 1)
 *   u~(t) = sum_{j=n-p}^{n} u_j * L_j(t),   L_j(t) = prod_{k != j} (t - t_k) / (t_j - t_k)
 *
 *   p = 0:  u~(t) = u_n                                                (zero-order hold)
 *   p = 1:  u~(t) = u_n + (u_n - u_{n-1}) * (t - t_n) / (t_n - t_{n-1})
 *   p = 2:  the parabola through the last three samples
 *
 * Error for a smooth input u with step H between samples and extrapolation over a horizon of
 * order H: |u~(t) - u(t)| = O(H^(p+1)) (remainder u^(p+1)(xi)/(p+1)! * prod (t - t_k)).
 *
 * Choices: the time differences are taken in int64 ticks (exact) and converted to double only
 * as differences, relative to the samples, so large absolute times lose no precision; a sample
 * at an existing time replaces the value (an open instant may be revised); samples at distinct
 * times only, so every denominator t_j - t_k is a nonzero integer.
 */
#include "algorithms/extrap.h"

#include <math.h>

void extrap_reset(extrap_hist *h)
{
    h->n = 0;
}

int extrap_push(extrap_hist *h, int64_t t, double v)
{
    if (!isfinite(v)) return EXTRAP_EVALUE;
    if (h->n > 0) {
        int64_t last = h->t[h->n - 1];
        if (t < last) return EXTRAP_ETIME;
        if (t == last) { /* revise the value of the open instant */
            h->v[h->n - 1] = v;
            return EXTRAP_OK;
        }
    }
    if (h->n == EXTRAP_MAX_SAMPLES) { /* drop the oldest: O(EXTRAP_MAX_SAMPLES) */
        for (int i = 1; i < EXTRAP_MAX_SAMPLES; i++) {
            h->t[i - 1] = h->t[i];
            h->v[i - 1] = h->v[i];
        }
        h->n--;
    }
    h->t[h->n] = t;
    h->v[h->n] = v;
    h->n++;
    return EXTRAP_OK;
}

/* a - b as a double, subtracting in int64 first (exact) unless that would overflow. */
static double tdiff(int64_t a, int64_t b)
{
    int64_t d;
    if (__builtin_sub_overflow(a, b, &d)) return (double)a - (double)b;
    return (double)d;
}

/* Lagrange form over the newest p + 1 samples (see the file comment). */
int extrap_eval(const extrap_hist *h, int order, int64_t t, double *out, int *used)
{
    if (order < 0 || order > EXTRAP_MAX_ORDER) return EXTRAP_EORDER;
    if (h->n <= 0) return EXTRAP_EEMPTY;
    int p = order < h->n - 1 ? order : h->n - 1;
    int first = h->n - 1 - p;
    double sum = 0;
    for (int j = first; j < h->n; j++) {
        double L = 1;
        for (int k = first; k < h->n; k++) {
            if (k == j) continue;
            L *= tdiff(t, h->t[k]) / tdiff(h->t[j], h->t[k]);
        }
        sum += h->v[j] * L;
    }
    *out = sum;
    if (used) *used = p;
    return EXTRAP_OK;
}

/* Newton form P(x) = v2 + f12 (x - x2) + f012 (x - x2)(x - x1), x in seconds relative to t
 * (so x = 0 at t): P'(0) = f12 - f012 (x1 + x2), P''(0) = 2 f012. */
int extrap_derivs(const extrap_hist *h, int order, int64_t t, double tick,
                  double d[EXTRAP_MAX_ORDER], int *used)
{
    if (order < 0 || order > EXTRAP_MAX_ORDER) return EXTRAP_EORDER;
    if (h->n <= 0) return EXTRAP_EEMPTY;
    int p = order < h->n - 1 ? order : h->n - 1, n = h->n;
    d[0] = d[1] = 0;
    if (p >= 1) {
        double x2 = tdiff(h->t[n - 1], t) * tick, x1 = tdiff(h->t[n - 2], t) * tick;
        double f12 = (h->v[n - 1] - h->v[n - 2]) / (x2 - x1), f012 = 0;
        if (p >= 2) {
            double x0 = tdiff(h->t[n - 3], t) * tick;
            f012 = (f12 - (h->v[n - 2] - h->v[n - 3]) / (x1 - x0)) / (x2 - x0);
        }
        d[0] = f12 - f012 * (x1 + x2);
        d[1] = 2 * f012;
    }
    if (used) *used = p;
    return EXTRAP_OK;
}
