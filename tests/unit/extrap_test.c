/* Unit tests of algorithms/extrap.c: polynomials of degree <= p are reproduced exactly by
 * order p (non-uniform sample times), the start-up with fewer samples lowers the order, and on
 * the analytic function sin the extrapolation error shrinks as H^(p+1). */
#include "algorithms/extrap.h"

#include <math.h>
#include <stdint.h>

#include "tests/check.h"

static double poly(const double *c, int deg, double x)
{
    double y = 0;
    for (int i = deg; i >= 0; i--)
        y = y * x + c[i];
    return y;
}

static void test_errors_and_push(void)
{
    extrap_hist h = {0};
    double v = 42;
    int used = -7;
    CHECK_INT_EQ(extrap_eval(&h, 0, 10, &v, &used), EXTRAP_EEMPTY);
    CHECK_NEAR(v, 42, 0); /* untouched */
    CHECK_INT_EQ(extrap_push(&h, 10, 1.0), EXTRAP_OK);
    CHECK_INT_EQ(extrap_eval(&h, 3, 10, &v, &used), EXTRAP_EORDER);
    CHECK_INT_EQ(extrap_eval(&h, -1, 10, &v, &used), EXTRAP_EORDER);
    CHECK_INT_EQ(extrap_push(&h, 9, 2.0), EXTRAP_ETIME); /* older than newest */
    CHECK_INT_EQ(extrap_push(&h, 11, NAN), EXTRAP_EVALUE);
    CHECK_INT_EQ(extrap_push(&h, 11, INFINITY), EXTRAP_EVALUE);
    CHECK_INT_EQ(h.n, 1);
    /* same time revises the value */
    CHECK_INT_EQ(extrap_push(&h, 10, 3.0), EXTRAP_OK);
    CHECK_INT_EQ(h.n, 1);
    CHECK_INT_EQ(extrap_eval(&h, 2, 100, &v, &used), EXTRAP_OK);
    CHECK_NEAR(v, 3.0, 0);
    CHECK_INT_EQ(used, 0); /* one sample: hold, whatever the order asked */
    /* the history keeps the newest three */
    extrap_push(&h, 20, 1.0);
    extrap_push(&h, 30, 2.0);
    extrap_push(&h, 40, 3.0);
    CHECK_INT_EQ(h.n, 3);
    CHECK_INT_EQ(h.t[0], 20);
    CHECK_INT_EQ(h.t[2], 40);
    extrap_reset(&h);
    CHECK_INT_EQ(extrap_eval(&h, 0, 50, &v, NULL), EXTRAP_EEMPTY);
}

/* Start-up: with k samples the order used is min(order, k - 1). */
static void test_startup(void)
{
    extrap_hist h = {0};
    double v = 0;
    int used = -1;
    extrap_push(&h, 0, 1.0);
    extrap_push(&h, 10, 3.0); /* slope 0.2 per tick */
    CHECK_INT_EQ(extrap_eval(&h, 2, 20, &v, &used), EXTRAP_OK);
    CHECK_INT_EQ(used, 1);
    CHECK_NEAR(v, 5.0, 1e-14);
    CHECK_INT_EQ(extrap_eval(&h, 0, 20, &v, &used), EXTRAP_OK);
    CHECK_INT_EQ(used, 0);
    CHECK_NEAR(v, 3.0, 0);
}

/* Polynomials of degree <= order are reproduced exactly (to rounding), with non-uniform
 * sample times and at large absolute times (ns ticks around 10^12 = 1000 s). */
static void test_exact_polynomials(void)
{
    static const double c[3] = {0.75, -1.5, 0.625}; /* 0.75 - 1.5 x + 0.625 x^2 */
    const int64_t base[2] = {0, 1000000000000LL};
    const int64_t dt[3] = {0, 300000000, 1000000000}; /* 0, 0.3 s, 1.0 s: non-uniform */
    for (int b = 0; b < 2; b++) {
        for (int order = 0; order <= 2; order++) {
            for (int deg = 0; deg <= order; deg++) {
                extrap_hist h = {0};
                for (int k = 0; k < 3; k++) {
                    double x = (double)dt[k] * 1e-9; /* seconds since base */
                    extrap_push(&h, base[b] + dt[k], poly(c, deg, x));
                }
                for (double xs = 1.0; xs <= 2.5; xs += 0.25) { /* forward horizon 0..1.5 s */
                    int64_t t = base[b] + (int64_t)llround(xs * 1e9);
                    double v = 0;
                    int used = -1;
                    CHECK_INT_EQ(extrap_eval(&h, order, t, &v, &used), EXTRAP_OK);
                    CHECK_INT_EQ(used, order);
                    CHECK_NEAR(v, poly(c, deg, xs), 1e-12);
                }
            }
        }
    }
    /* and a degree the order cannot follow is not reproduced (the check above can fail) */
    extrap_hist h = {0};
    for (int k = 0; k < 3; k++)
        extrap_push(&h, dt[k], poly(c, 2, (double)dt[k] * 1e-9));
    double v = 0;
    extrap_eval(&h, 1, 2000000000, &v, NULL);
    CHECK(fabs(v - poly(c, 2, 2.0)) > 0.1, "linear through a parabola should miss it: %g", v);
}

/* Error of extrapolating sin one step H ahead from samples at t0 - 2H, t0 - H, t0 (and a
 * non-uniform variant): halving H divides the error by about 2^(p+1). */
static double sin_error(int order, double H, int nonuniform)
{
    const double tick = 1e-9, t0 = 0.7;
    extrap_hist h = {0};
    double offs[3] = {-2 * H, -H, 0};
    if (nonuniform) offs[0] = -2.5 * H;
    for (int k = 0; k < 3; k++) {
        int64_t tt = (int64_t)llround((t0 + offs[k]) / tick);
        extrap_push(&h, tt, sin((double)tt * tick));
    }
    int64_t te = (int64_t)llround((t0 + H) / tick);
    double v = 0;
    extrap_eval(&h, order, te, &v, NULL);
    return fabs(v - sin((double)te * tick));
}

static void test_error_order(void)
{
    for (int nu = 0; nu < 2; nu++) {
        for (int p = 0; p <= 2; p++) {
            double H = 0.02;
            double e1 = sin_error(p, H, nu), e2 = sin_error(p, H / 2, nu);
            double ratio = e1 / e2, want = pow(2, p + 1);
            CHECK(ratio > 0.8 * want && ratio < 1.25 * want,
                  "order %d (non-uniform %d): error ratio %g for H halved, want ~%g", p, nu, ratio,
                  want);
        }
    }
    /* Leading-term check for the uniform linear case: error = |u''| * H * 2H / 2 = |sin| H^2 */
    double H = 0.01;
    CHECK_NEAR(sin_error(1, H, 0), sin(0.7) * H * H, 0.05 * sin(0.7) * H * H);
}

/* extrap_derivs: the derivatives of the same polynomials, against the analytic ones
 * (c1 + 2 c2 x and 2 c2, zero above the degree), at large absolute times and, as in the
 * Gauss-Seidel sink, at a time before the newest sample. Tolerance: rounding of the divided
 * differences over samples 0.3 s apart. */
static void test_derivs(void)
{
    static const double c[3] = {0.75, -1.5, 0.625};
    const int64_t base = 1000000000000LL, dt[3] = {0, 300000000, 1000000000};
    for (int order = 0; order <= 2; order++) {
        extrap_hist h = {0};
        for (int k = 0; k < 3; k++)
            extrap_push(&h, base + dt[k], poly(c, 2, (double)dt[k] * 1e-9));
        for (double xs = 0.5; xs <= 2.0; xs += 0.5) {
            double d[2] = {-7, -7};
            int used = -1;
            CHECK_INT_EQ(extrap_derivs(&h, order, base + llround(xs * 1e9), 1e-9, d, &used),
                         EXTRAP_OK);
            CHECK_INT_EQ(used, order);
            if (order == 2) {
                CHECK_NEAR(d[0], c[1] + 2 * c[2] * xs, 1e-9);
                CHECK_NEAR(d[1], 2 * c[2], 1e-9);
            } else if (order == 1) { /* the secant of the newest two samples */
                CHECK_NEAR(d[0], (poly(c, 2, 1.0) - poly(c, 2, 0.3)) / 0.7, 1e-9);
                CHECK_NEAR(d[1], 0, 0);
            } else {
                CHECK_NEAR(d[0], 0, 0);
                CHECK_NEAR(d[1], 0, 0);
            }
        }
    }
    extrap_hist e = {0};
    double d[2] = {5, 5};
    CHECK_INT_EQ(extrap_derivs(&e, 1, 0, 1e-9, d, NULL), EXTRAP_EEMPTY);
    CHECK_INT_EQ(extrap_derivs(&e, 3, 0, 1e-9, d, NULL), EXTRAP_EORDER);
    CHECK_NEAR(d[0], 5, 0); /* untouched */
}

int main(void)
{
    test_errors_and_push();
    test_startup();
    test_exact_polynomials();
    test_error_order();
    test_derivs();
    return check_summary();
}
