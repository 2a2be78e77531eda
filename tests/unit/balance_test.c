/* Tests of the coupling layer (algorithms/balance.h) against the exact properties of
 * Scharff, Moshagen, Vondrejc (2017): the reference functions (eqs. 20-25), the support scaling
 * (eq. 19) and partition of unity, the per-interval shares of a hat, the closed-form switching
 * errors, the balance telescoping identity and the quick-refeed identity. Every tolerance is
 * rounding-level unless stated. doc/algorithms/balance-correction.md. */
#include <math.h>
#include <stdio.h>

#include "algorithms/balance.h"
#include "tests/check.h"

/* Gauss-Legendre, 8 points on [a, b]: exact for polynomials up to degree 15, so an independent
 * quadrature of everything here (degree <= 8). */
static double quad(double (*f)(double, const void *), const void *ctx, double a, double b)
{
    static const double x[4] = {0.1834346424956498, 0.5255324099163290, 0.7966664774136267,
                                0.9602898564975363};
    static const double w[4] = {0.3626837833783620, 0.3137066458778873, 0.2223810344533745,
                                0.1012285362903763};
    double m = (a + b) / 2, r = (b - a) / 2, s = 0;
    for (int i = 0; i < 4; i++)
        s += w[i] * (f(m - r * x[i], ctx) + f(m + r * x[i], ctx));
    return s * r;
}
/* The reference functions of algorithms/balance.h (Scharff et al. §5, eq. (20)-(25)), from
 * their closed forms: the independent reference of bal_hat_piece's polynomial pieces. */
static double ref_hat(double x)
{
    return fabs(x) >= 1 ? 0 : 35.0 / 32 * pow(1 - x * x, 3);
}
static double ref_psi(double x)
{
    if (x <= -1) return 0;
    if (x >= 1) return 1;
    return 0.5 + (35 * x - 35 * pow(x, 3) + 21 * pow(x, 5) - 5 * pow(x, 7)) / 32;
}
static double ref_i2h(double x)
{
    if (fabs(x) >= 1) return 0;
    return x < 0 ? ref_psi(2 * x + 1) : ref_psi(1 - 2 * x);
}

static double f_hat(double x, const void *c)
{
    (void)c;
    return ref_hat(x);
}
static double f_psi(double x, const void *c)
{
    (void)c;
    return ref_psi(x);
}
static double f_i2h(double x, const void *c)
{
    (void)c;
    return ref_i2h(x);
}
static double f_poly(double s, const void *c)
{
    return bal_poly_eval(c, s);
}

/* Numerical k-th derivative of a scalar function by central differences (k <= 3). */
static double nderiv(double (*f)(double), double x, int k)
{
    double h = 1e-3;
    switch (k) {
    case 1:
        return (f(x + h) - f(x - h)) / (2 * h);
    case 2:
        return (f(x + h) - 2 * f(x) + f(x - h)) / (h * h);
    default:
        return (f(x + 2 * h) - 2 * f(x + h) + 2 * f(x - h) - f(x - 2 * h)) / (2 * h * h * h);
    }
}

static void test_reference_functions(void)
{
    /* Gauss-Legendre on each half is exact for these (degree <= 7 per branch). */
    CHECK_NEAR(quad(f_hat, NULL, -1, 0) + quad(f_hat, NULL, 0, 1), 1, 1e-14);
    CHECK_NEAR(quad(f_i2h, NULL, -1, 0) + quad(f_i2h, NULL, 0, 1), 1, 1e-14);
    CHECK_NEAR(quad(f_psi, NULL, -1, 1), 1, 1e-14);
    CHECK_NEAR(ref_psi(-1), 0, 1e-15);
    CHECK_NEAR(ref_psi(0), 0.5, 1e-15);
    CHECK_NEAR(ref_psi(1), 1, 1e-15);
    CHECK_NEAR(ref_i2h(0), 1, 1e-15);
    CHECK_NEAR(ref_hat(0), 35.0 / 32, 1e-15);
    double worst = 0;
    for (double x = -1; x <= 1; x += 0.0625)
        worst = fmax(worst, fabs(ref_psi(-x) - (1 - ref_psi(x))));
    CHECK(worst < 1e-15, "psi(-x) = 1 - psi(x) off by %g", worst);
    /* psi', psi'', psi''' vanish at +-1 (evaluated just inside, where the polynomial holds);
     * finite differences of step 1e-3 leave O(1e-3) of the next nonzero derivative. The
     * i2h hat is checked through its exact polynomial derivatives below. */
    for (int k = 1; k <= 3; k++) {
        CHECK(fabs(nderiv(ref_psi, 1 - 2e-3, k)) < 0.2, "psi^(%d)(1) = %g", k,
              nderiv(ref_psi, 1 - 2e-3, k));
    }
    /* The same through the exact polynomial derivatives of the pieces. */
    bal_poly p;
    CHECK_INT_EQ(bal_hat_piece(BAL_HAT_I2H, 2, 0, 1.0, &p), BAL_OK);
    for (int k = 0; k <= 3; k++)
        CHECK_NEAR(bal_poly_deriv(&p, k, 0), 0, 1e-12);
    CHECK_INT_EQ(bal_hat_piece(BAL_HAT_POLY, 1, 0, 1.0, &p), BAL_OK);
    for (int k = 0; k <= 2; k++) {
        CHECK_NEAR(bal_poly_deriv(&p, k, 0), 0, 1e-12);
        CHECK_NEAR(bal_poly_deriv(&p, k, 1), 0, 1e-12);
    }
}

static void test_supports(void)
{
    const double H = 0.37;
    /* Eq. (19): integral 1 over the support, whatever the kind and span. */
    struct {
        bal_hat_kind k;
        int span;
    } cases[] = {{BAL_HAT_CONST, 1}, {BAL_HAT_POLY, 1}, {BAL_HAT_I2H, 2}, {BAL_HAT_I2H, 4}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        double total = 0;
        for (int m = 0; m < cases[c].span; m++) {
            bal_poly p;
            CHECK_INT_EQ(bal_hat_piece(cases[c].k, cases[c].span, m, H, &p), BAL_OK);
            double a = bal_poly_integral(&p, 0, H);
            CHECK_NEAR(a, quad(f_poly, &p, 0, H), 1e-14);
            total += a;
            if (cases[c].span == 4) {
                static const double share[4] = {35.0 / 512, 221.0 / 512, 221.0 / 512, 35.0 / 512};
                CHECK_NEAR(a, share[m], 1e-14);
            }
        }
        CHECK_NEAR(total, 1, 1e-13);
    }
    /* Partition of unity: hats starting at every exchange time sum to 1/H (spans 2 and 4). */
    for (int span = 2; span <= 4; span += 2) {
        double worst = 0;
        for (double s = 0; s <= H; s += H / 16) {
            double sum = 0;
            for (int m = 0; m < span; m++) { /* the hat started m intervals ago */
                bal_poly p;
                bal_hat_piece(BAL_HAT_I2H, span, m, H, &p);
                sum += bal_poly_eval(&p, s);
            }
            worst = fmax(worst, fabs(sum - 1 / H));
        }
        CHECK(worst < 1e-12, "span %d: sum of hats off 1/H by %g", span, worst);
    }
    /* Span 1 with polynomial hats is not a partition of unity: the sum dips at the ends. */
    bal_poly p;
    bal_hat_piece(BAL_HAT_POLY, 1, 0, H, &p);
    CHECK(fabs(bal_poly_eval(&p, 0) - 1 / H) > 1, "one-interval hat: no partition of unity");
    /* Mismatches are refused. */
    CHECK_INT_EQ(bal_hat_piece(BAL_HAT_I2H, 1, 0, H, &p), BAL_EINVAL);
    CHECK_INT_EQ(bal_hat_piece(BAL_HAT_POLY, 2, 0, H, &p), BAL_EINVAL);
    CHECK_INT_EQ(bal_hat_piece(BAL_HAT_I2H, 2, 2, H, &p), BAL_EINVAL);
}

/* The sender: u(t) = sin(1.3 t) + 0.4, exact value, slope and amount. */
static double su(double t)
{
    return sin(1.3 * t) + 0.4;
}
static double sdu(double t)
{
    return 1.3 * cos(1.3 * t);
}
static double samount(double a, double b)
{
    return (cos(1.3 * a) - cos(1.3 * b)) / 1.3 + 0.4 * (b - a);
}

static void test_switching_error(void)
{
    /* Closed forms (our derivation, checked here by quadrature): with smoothing and no
     * correction, the first interval is Ext^1; on the second,
     *   constant: int ubar = H (u0 + u1) / 2
     *   linear:   int ubar = H (u0 + u1)/2 + (23/36) H^2 du0 + (13/36) H^2 du1,
     * where (u0, du0) define Ext^1 (the first interval is constant: du0 = 0). */
    const double H = 0.25, u0 = 0.8, u1 = 1.7, du1 = -2.3;
    for (int lin = 0; lin <= 1; lin++) {
        bal_conn c;
        bal_settings set = {lin ? BAL_EXTRAP_LINEAR : BAL_EXTRAP_CONSTANT, 1, BAL_BC_OFF,
                            BAL_HAT_POLY, 1};
        CHECK_INT_EQ(bal_conn_init(&c, &set, NULL, 0), BAL_OK);
        bal_poly used;
        bal_conn_open(&c, H, u0, 5.0, &used);
        CHECK_NEAR(bal_poly_eval(&used, 0.1), u0, 1e-15); /* constant first interval */
        bal_conn_close(&c, 0);
        bal_conn_open(&c, H, u1, du1, &used);
        double want = H * (u0 + u1) / 2 + (lin ? 13.0 / 36 * H * H * du1 : 0);
        CHECK_NEAR(bal_poly_integral(&used, 0, H), want, 1e-13);
        CHECK_NEAR(quad(f_poly, &used, 0, H), want, 1e-13);
        /* Continuity at t_{j-1} (psi = 0) and the new extrapolation at t_j (psi = 1). */
        CHECK_NEAR(bal_poly_eval(&used, 0), u0, 1e-13);
        CHECK_NEAR(bal_poly_eval(&used, H), u1 + (lin ? du1 * H : 0), 1e-13);
        CHECK_NEAR(bal_poly_deriv(&used, 1, 0), 0, 1e-12); /* psi' = 0 and Ext^1 flat */
    }
}

/* Runs a connection for n intervals against the sine sender; returns the cumulative imbalance
 * sum_k (A_k - int used_k) computed here from the handed-out polynomials, and checks after
 * every close that the layer's outstanding amount equals it (with BC on). */
static double run_conn(const bal_settings *set, int n, double H, double *worst_gap)
{
    bal_conn c;
    double imb = 0;
    int bad = bal_conn_init(&c, set, NULL, 0) != BAL_OK;
    *worst_gap = 0;
    for (int k = 0; k < n && !bad; k++) {
        double t0 = k * H;
        bal_poly used;
        bad |= bal_conn_open(&c, H, su(t0), sdu(t0), &used) != BAL_OK;
        double A = samount(t0, t0 + H);
        imb += A - bal_poly_integral(&used, 0, H);
        bad |= bal_conn_close(&c, A) != BAL_OK;
        if (set->bc != BAL_BC_OFF)
            *worst_gap = fmax(*worst_gap, fabs(imb - bal_conn_outstanding(&c)));
    }
    if (bad) *worst_gap = INFINITY; /* a refused call fails the caller's check */
    return imb;
}

static void test_telescoping(void)
{
    /* With BC on, the cumulative imbalance is only what is still owed (check 4): at machine
     * precision, since every integral is exact. Every variant of the paper. */
    const double H = 0.2;
    bal_extrap ex[2] = {BAL_EXTRAP_CONSTANT, BAL_EXTRAP_LINEAR};
    struct {
        bal_bc bc;
        bal_hat_kind hat;
        int span;
    } bcs[] = {{BAL_BC_CLASSIC, BAL_HAT_CONST, 1}, {BAL_BC_CLASSIC, BAL_HAT_POLY, 1},
               {BAL_BC_QUICK, BAL_HAT_POLY, 1},    {BAL_BC_QUICK, BAL_HAT_I2H, 2},
               {BAL_BC_QUICK, BAL_HAT_I2H, 4},     {BAL_BC_CLASSIC, BAL_HAT_I2H, 4}};
    for (int e = 0; e < 2; e++)
        for (int smooth = 0; smooth <= 1; smooth++)
            for (size_t b = 0; b < sizeof bcs / sizeof *bcs; b++) {
                bal_settings set = {ex[e], smooth, bcs[b].bc, bcs[b].hat, bcs[b].span};
                double gap, imb = run_conn(&set, 100, H, &gap);
                CHECK(gap < 1e-13,
                      "extrap %d smooth %d bc %d hat %d span %d: imbalance %g vs "
                      "outstanding, gap %g",
                      e, smooth, (int)set.bc, (int)set.hat, set.span, imb, gap);
            }
    /* Without BC the imbalance is the sum of all balance errors and does not stay bounded by
     * one interval's error: compare with the largest single-interval error. */
    bal_settings off = {BAL_EXTRAP_CONSTANT, 0, BAL_BC_OFF, BAL_HAT_CONST, 1};
    double gap, imb = run_conn(&off, 7, H, &gap); /* 1.4 s: the sine is still rising */
    double sum = 0;
    for (int k = 0; k < 7; k++)
        sum += samount(k * H, (k + 1) * H) - H * su(k * H);
    CHECK_NEAR(imb, sum, 1e-13);
}

static void test_quick_refeed_identity(void)
{
    /* Check 5: with one-interval hats and quick refeed, each interval delivers the amount of
     * the unsmoothed extrapolation plus the BC part booked for it: int(used_j) = int(Ext^j) +
     * BC_{j-1}. We run the same data with smoothing off (no switching error) and on. */
    const double H = 0.3;
    for (int lin = 0; lin <= 1; lin++) {
        bal_settings on = {lin, 1, BAL_BC_QUICK, BAL_HAT_POLY, 1}, offs = on;
        offs.smooth = 0;
        bal_conn a, b;
        bal_conn_init(&a, &on, NULL, 0);
        bal_conn_init(&b, &offs, NULL, 0);
        double worst = 0;
        for (int k = 0; k < 40; k++) {
            double t0 = k * H;
            bal_poly ua, ub;
            bal_conn_open(&a, H, su(t0), sdu(t0), &ua);
            bal_conn_open(&b, H, su(t0), sdu(t0), &ub);
            worst = fmax(worst, fabs(bal_poly_integral(&ua, 0, H) - bal_poly_integral(&ub, 0, H)));
            bal_conn_close(&a, samount(t0, t0 + H));
            bal_conn_close(&b, samount(t0, t0 + H));
        }
        CHECK(worst < 1e-13, "%s: smoothed quick-refeed amounts differ from unsmoothed by %g",
              lin ? "linear" : "constant", worst);
    }
}

static void test_errors(void)
{
    char err[128] = "";
    bal_conn c;
    bal_settings bad = {BAL_EXTRAP_CONSTANT, 0, BAL_BC_CLASSIC, BAL_HAT_I2H, 1};
    CHECK_INT_EQ(bal_conn_init(&c, &bad, err, sizeof err), BAL_EINVAL);
    CHECK_STR_HAS(err, "span of 2 or 4");
    bal_settings bad2 = {BAL_EXTRAP_CONSTANT, 0, BAL_BC_CLASSIC, BAL_HAT_POLY, 2};
    CHECK_INT_EQ(bal_conn_init(&c, &bad2, err, sizeof err), BAL_EINVAL);
    CHECK_STR_HAS(err, "span 1 interval");
    bal_settings ok = {BAL_EXTRAP_LINEAR, 1, BAL_BC_QUICK, BAL_HAT_I2H, 2};
    CHECK_INT_EQ(bal_conn_init(&c, &ok, err, sizeof err), BAL_OK);
    bal_poly u;
    CHECK_INT_EQ(bal_conn_close(&c, 1), BAL_EINVAL); /* nothing open */
    CHECK_INT_EQ(bal_conn_open(&c, 0, 1, 0, &u), BAL_EINVAL);
    CHECK_INT_EQ(bal_conn_open(&c, 0.1, 1, 0, &u), BAL_OK);
    CHECK_INT_EQ(bal_conn_open(&c, 0.1, 1, 0, &u), BAL_EINVAL); /* still open */
    bal_conn_close(&c, 0.1);
    CHECK_INT_EQ(bal_conn_open(&c, 0.2, 1, 0, &u), BAL_EINVAL); /* span 2 needs constant H */
}

int main(void)
{
    test_reference_functions();
    test_supports();
    test_switching_error();
    test_telescoping();
    test_quick_refeed_identity();
    test_errors();
    return check_summary();
}
