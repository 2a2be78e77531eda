/* Defect control of Glumac and Kovačić (2023), "Defect Analysis of a Non-Iterative
 * Co-Simulation" (doc/references.md), §3 and §4; doc/algorithms/defect-control.md.
 *
 * Symbols: T_k communication points and H_k = T_k - T_{k-1} (s); m the input order, n the
 * output order; y~ an output, u~ an input (their own units).
 *
 *   (12) output polynomial, Taylor at the END of the step:
 *        y~(t) = sum_{j=0}^{n} y~^(j)(T_k) (t - T_k)^j / j!,        T_{k-1} < t <= T_k
 *   (14) input polynomial, Taylor at the START of the step:
 *        u~(t) = sum_{j=0}^{m} u~^(j)(T_{k-1}) (t - T_{k-1})^j / j!
 *   (15) u~^(j)(T_{k-1}) = derivatives of the connected output polynomial of step k-1 at
 *        T_{k-1}, j <= min(m, n); the orders min(m,n)+1 .. m are 0
 *   (17) connection defect  delta_u(t) = u~(t) - y~(t)       (exact: both are polynomials)
 *   (30) Hermite polynomial through the n+1 derivatives at T_k and the mid sample y_mid:
 *        y^(t) = y~(t) + ((T_k - t) / (H/2))^(n+1) (y_mid - y~(T_k - H/2))
 *   (32) output-defect estimate  delta^(t) = y~(t) - y^(t)
 *   (38) controlled defect  eps_k = max over outputs and inputs of the per-step RMS of (32)
 *        and (17), RMS_(a,b](p) = sqrt(1/(b-a) int_a^b p^2)
 *   (39) PI controller on log(eps) (algorithms/defect.h, dc_pi_next); (50) K_P = 0.13,
 *        K_I = 1/15, theta_max = 2.
 *
 * The RMS of (32) has a closed form: int_0^H (s/(H/2))^(2n+2) ds / H = 2^(2n+2) / (2n+3).
 * Choices where the paper is silent: a defect below 1e-16 counts as 1e-16 (the Euler slave's
 * output-defect estimate is exactly 0 for n >= 1); optional step bounds h_min/h_max, absent
 * from the paper, enter the same anti-windup back-calculation as the growth limit. */
#include "algorithms/defect.h"

#include <math.h>

double dc_poly_eval(const double *p, int order, double s)
{
    double v = 0, term = 1; /* term = s^k / k! */
    for (int k = 0; k <= order; k++) {
        v += p[k] * term;
        term *= s / (double)(k + 1);
    }
    return v;
}

void dc_poly_shift(const double *p, int order, double s, double *q)
{
    double tmp[DC_MAX_ORDER + 1];
    for (int j = 0; j <= order; j++)
        tmp[j] = dc_poly_eval(p + j, order - j, s);
    for (int j = 0; j <= order; j++)
        q[j] = tmp[j];
}

double dc_poly_sqint(const double *p, int order, double a, double b)
{
    double c[DC_MAX_ORDER + 1], fact = 1; /* monomial coefficients p[k] / k! */
    for (int k = 0; k <= order; k++) {
        if (k) fact *= k;
        c[k] = p[k] / fact;
    }
    double sum = 0;
    for (int i = 0; i <= order; i++)
        for (int j = 0; j <= order; j++) {
            int e = i + j + 1;
            sum += c[i] * c[j] * (pow(b, e) - pow(a, e)) / e;
        }
    return sum > 0 ? sum : 0;
}

int dc_taylor_from_samples(const double *s, const double *y, int np, double *d)
{
    if (np < 1 || np > DC_MAX_ORDER + 1) return -1;
    double dd[DC_MAX_ORDER + 1]; /* Newton divided differences, in place */
    for (int i = 0; i < np; i++)
        dd[i] = y[i];
    for (int j = 1; j < np; j++)
        for (int i = np - 1; i >= j; i--) {
            double den = s[i] - s[i - j];
            if (den == 0) return -1; /* exact: coinciding times only */
            dd[i] = (dd[i] - dd[i - 1]) / den;
        }
    /* Newton form sum_j dd[j] prod_{i<j} (x - s_i), expanded into monomials c[] (Horner). */
    double c[DC_MAX_ORDER + 1] = {0};
    for (int j = np - 1; j >= 0; j--) {
        /* c <- c * (x - s_j) + dd[j] */
        for (int k = np - 1; k >= 1; k--)
            c[k] = c[k - 1] - s[j] * c[k];
        c[0] = -s[j] * c[0] + dd[j];
    }
    double fact = 1;
    for (int k = 0; k < np; k++) {
        if (k) fact *= k;
        d[k] = c[k] * fact;
    }
    return 0;
}

double dc_output_defect_rms(const double *y_end, int n, double y_mid, double H)
{
    double diff = y_mid - dc_poly_eval(y_end, n, -H / 2);
    return fabs(diff) * ldexp(1.0, n + 1) / sqrt(2.0 * n + 3);
}

double dc_connection_defect_rms(const double *u, int m, const double *y_end, int n, double H)
{
    double y0[DC_MAX_ORDER + 1], diff[DC_MAX_ORDER + 1] = {0};
    dc_poly_shift(y_end, n, -H, y0); /* the output re-expanded at T_{k-1} */
    int w = m > n ? m : n;
    for (int k = 0; k <= m; k++)
        diff[k] += u[k];
    for (int k = 0; k <= n; k++)
        diff[k] -= y0[k];
    return sqrt(dc_poly_sqint(diff, w, 0, H) / H);
}

int dc_pi_init(dc_pi *c, double tol, double h1, double kp, double ki, double theta_max,
               double h_min, double h_max)
{
    if (!c || !(tol > 0) || !(h1 > 0) || h_min < 0 || h_max < 0 || (h_max > 0 && h_max < h_min))
        return -1;
    c->tol = tol;
    c->kp = kp > 0 ? kp : DC_PI_KP;
    c->ki = ki > 0 ? ki : DC_PI_KI;
    c->theta_max = theta_max > 0 ? theta_max : DC_PI_THETA_MAX;
    c->h_min = h_min;
    c->h_max = h_max;
    c->I = log(h1);
    return 0;
}

double dc_pi_next(dc_pi *c, double h, double eps)
{
    /* dc_run refuses a non-finite defect before it gets here; a NaN would read as tiny */
    if (!(eps > DC_EPS_FLOOR)) eps = DC_EPS_FLOOR;
    double e = log(c->tol) - log(eps);
    double Ip = c->I + c->ki * e;
    double Hp = exp(Ip + c->kp * e);
    double Hn = Hp > c->theta_max * h ? c->theta_max * h : Hp;
    if (c->h_max > 0 && Hn > c->h_max) Hn = c->h_max;
    if (c->h_min > 0 && Hn < c->h_min) Hn = c->h_min;
    c->I = Ip + log(Hn) - log(Hp);
    return Hn;
}
