/* F3ORNITS of Éguillon, Lacabanne and Tromeur-Dervout (2021) (doc/references.md), §2.2 and
 * §3.1-3.2.1: the pieces of algorithms/f3ornits.h; doc/algorithms/f3ornits.md. The paper's
 * text as we have it lost every formula, so each one below is our reconstruction from its prose
 * (the page says which parts are certain).
 *
 *   (11) Omega^(p): the interpolating polynomial through p + 1 points (Newton form here)
 *   (12) Gamma^(p) = argmin_{Q in R_p[t], Q(t_{p+1}) = z_{p+1}} sum_{i=0..p} (Q(t_i) - z_i)^2:
 *        Q(t) = z_{p+1} + sum_{q=1..p} a_q d^q,  d = t - t_{p+1}; the a_q solve the unconstrained
 *        least squares of e_i = z_i - z_{p+1} on d_i^q (normal equations, p <= 2)
 *   (14) Hermite cubic through (ta, za, za') and (tb, zb, zb')
 *   (18) eps^(p),[n] = |y^[n] - Omega^(p)((t^[m], y^[m]), m = n-1-p .. n-1)(t^[n])|
 *   (20) p(t) = argmin_p eps^(p),[n] on [t^[n], t^[n+1])
 *   (32) rho = (1 / eps~)^(1/(p+1)), times a safety factor (our parameter; 1 is none)
 *   (33) magnitude eps~ = eps / (atol + rtol |y|)
 *   (34) amplitude eps~ = eps / (atol + rtol (max_m y^[m] - min_m y^[m]))
 *   (35) damped    eps~ = eps / (atol + rtol (Ymax - Ymin)),
 *   (36) Ymax^[n] = max(y^[n], y^[n] + (Ymax^[n-1] - y^[n]) e^(-mu dt)), Ymin likewise with min
 *        (our recursion: the text only says mu = 0 is the amplitude and larger mu forgets jumps
 *        faster)
 *   (37) rho_k = clip(min_j rho_kj, rho_min, rho_max)
 * Choices: ties in (20) go to the lower degree (a linear signal has eps^(1) = eps^(2) = 0). */
#include "algorithms/f3ornits.h"

#include <math.h>

#include "algorithms/defect.h"

int f3_extrap(const double *t, const double *z, int p, double t0, double *c)
{
    if (p < 0 || p > 3) return -1;
    double s[4];
    for (int i = 0; i <= p; i++)
        s[i] = t[i] - t0;
    return dc_taylor_from_samples(s, z, p + 1, c);
}

int f3_cls(const double *t, const double *z, int p, double *c)
{
    if (p < 0 || p > F3_PBAR) return -1;
    double tn = t[p + 1], zn = z[p + 1];
    c[0] = zn;
    if (p == 0) return 0;
    /* normal equations M a = r over q, r = 1..p: M_qr = sum d^(q+r), r_q = sum e d^q */
    double M[2][2] = {{0, 0}, {0, 0}}, r[2] = {0, 0};
    for (int i = 0; i <= p; i++) {
        double d = t[i] - tn, e = z[i] - zn;
        if (d == 0) return -1; /* exact: coinciding times only */
        double dq[3] = {1, d, d * d};
        for (int q = 1; q <= p; q++) {
            r[q - 1] += e * dq[q];
            for (int k = 1; k <= p; k++)
                M[q - 1][k - 1] += dq[q] * dq[k]; /* d^(q+k) */
        }
    }
    if (p == 1) {
        if (!(M[0][0] > 0)) return -1;
        c[1] = r[0] / M[0][0];
        return 0;
    }
    double det = M[0][0] * M[1][1] - M[0][1] * M[1][0];
    if (!(fabs(det) > 1e-300)) return -1;
    double a1 = (r[0] * M[1][1] - M[0][1] * r[1]) / det;
    double a2 = (M[0][0] * r[1] - M[1][0] * r[0]) / det;
    c[1] = a1;
    c[2] = 2 * a2; /* a2 d^2 = c2 d^2 / 2! */
    return 0;
}

void f3_hermite(double ta, double za, double dza, double tb, double zb, double dzb, double *c)
{
    /* H(s) = za + dza s + A s^2 + B s^3, s = t - ta, h = tb - ta:
     * A h^2 + B h^3 = zb - za - dza h,  2 A h + 3 B h^2 = dzb - dza */
    double h = tb - ta, R1 = zb - za - dza * h, R2 = dzb - dza;
    double B = (R2 * h - 2 * R1) / (h * h * h);
    double A = (R1 - B * h * h * h) / (h * h);
    c[0] = za;
    c[1] = dza;
    c[2] = 2 * A;
    c[3] = 6 * B;
}

int f3_order(const double *t, const double *y, int nh, int pbar, double tie, double *eps)
{
    if (pbar > 3) pbar = 3; /* f3_extrap's limit */
    int n = nh - 1, top = n - 1 < pbar ? n - 1 : pbar, best = 0;
    double e[4];
    for (int p = 0; p <= top; p++) {
        double c[4];
        const double *tp = &t[n - 1 - p], *yp = &y[n - 1 - p];
        if (f3_extrap(tp, yp, p, t[n], c) != 0) {
            e[p] = INFINITY;
        } else {
            e[p] = fabs(y[n] - c[0]);
        }
        if (eps) eps[p] = e[p];
        if (p > 0 && e[p] < (1 - tie) * e[best]) best = p;
    }
    return best;
}

void f3_band_update(f3_band *b, double y, double dt, double mu)
{
    if (!b->started) {
        b->ymin = b->ymax = y;
        b->started = 1;
        return;
    }
    double k = mu > 0 ? exp(-mu * dt) : 1;
    double hi = y + (b->ymax - y) * k, lo = y + (b->ymin - y) * k;
    b->ymax = hi > y ? hi : y;
    b->ymin = lo < y ? lo : y;
}

double f3_normalise(f3_norm norm, double eps, double y, const f3_band *b, double rtol, double atol)
{
    double scale = norm == F3_NORM_MAGNITUDE ? fabs(y) : b->ymax - b->ymin;
    return eps / (atol + rtol * scale);
}

double f3_ratio(double eps_norm, int p, double safety)
{
    if (!(eps_norm > 0)) return INFINITY;
    return safety * pow(1 / eps_norm, 1.0 / (p + 1));
}

double f3_clip(double rho, double rho_min, double rho_max)
{
    if (!(rho >= rho_min)) return rho_min; /* also NaN */
    return rho > rho_max ? rho_max : rho;
}
