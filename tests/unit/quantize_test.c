/* Unit tests of algorithms/quantize.c: the Awais thesis eq. (4.5) restored, its clamps and edge
 * cases, against hand-computed values (each derivation in the comment next to it) and against the
 * analytic signal sin(t). Read algorithms/quantize.c for the equations. */
#include "algorithms/quantize.h"

#include <math.h>
#include <stdint.h>

#include "tests/check.h"

static const quant_cfg CFG = {.q = 0.1, .h_min = 0.01, .h_max = 10.0};

static void test_cfg_check(void)
{
    char err[128];
    CHECK_INT_EQ(quant_cfg_check(&CFG, err, sizeof err), QUANT_OK);
    quant_cfg c = CFG;
    c.q = 0;
    CHECK_INT_EQ(quant_cfg_check(&c, err, sizeof err), QUANT_EINVAL);
    CHECK_STR_HAS(err, "quantum q");
    c = CFG;
    c.h_min = -1;
    CHECK_INT_EQ(quant_cfg_check(&c, err, sizeof err), QUANT_EINVAL);
    CHECK_STR_HAS(err, "h_min");
    c = CFG;
    c.h_max = 0.001; /* below h_min */
    CHECK_INT_EQ(quant_cfg_check(&c, err, sizeof err), QUANT_EINVAL);
    CHECK_STR_HAS(err, "h_max");
    c = CFG;
    c.q = NAN;
    CHECK_INT_EQ(quant_cfg_check(&c, err, sizeof err), QUANT_EINVAL);
    /* an invalid configuration is reported by the step functions too */
    double h = -1;
    c = CFG;
    c.q = -0.5;
    CHECK_INT_EQ(quant_step_slope(&c, 1.0, &h), QUANT_EINVAL);
    CHECK_NEAR(h, CFG.h_min, 0);
}

/* the Awais thesis eq. (4.5) restored, slope form: h = q / |s|. */
static void test_slope(void)
{
    double h = 0;
    CHECK_INT_EQ(quant_step_slope(&CFG, 2.0, &h), QUANT_OK); /* 0.1 / 2 = 0.05 */
    CHECK_NEAR(h, 0.05, 1e-15);
    CHECK_INT_EQ(quant_step_slope(&CFG, -2.0, &h), QUANT_OK); /* sign ignored */
    CHECK_NEAR(h, 0.05, 1e-15);
    CHECK_INT_EQ(quant_step_slope(&CFG, 0.0, &h), QUANT_AT_MAX); /* zero slope -> h_max */
    CHECK_NEAR(h, 10.0, 0);
    CHECK_INT_EQ(quant_step_slope(&CFG, -0.0, &h), QUANT_AT_MAX);
    CHECK_NEAR(h, 10.0, 0);
    CHECK_INT_EQ(quant_step_slope(&CFG, 1e-300, &h), QUANT_AT_MAX); /* 1e299 s -> h_max */
    CHECK_NEAR(h, 10.0, 0);
    CHECK_INT_EQ(quant_step_slope(&CFG, 1e-3, &h), QUANT_AT_MAX); /* 100 s -> 10 s */
    CHECK_NEAR(h, 10.0, 0);
    CHECK_INT_EQ(quant_step_slope(&CFG, 0.01, &h), QUANT_AT_MAX); /* exactly h_max: at bound */
    CHECK_NEAR(h, 10.0, 0);
    CHECK_INT_EQ(quant_step_slope(&CFG, 0.0125, &h), QUANT_OK); /* 0.1/0.0125 = 8 s */
    CHECK_NEAR(h, 8.0, 1e-12);
    CHECK_INT_EQ(quant_step_slope(&CFG, 100.0, &h), QUANT_AT_MIN); /* 0.001 -> 0.01 */
    CHECK_NEAR(h, 0.01, 0);
    CHECK_INT_EQ(quant_step_slope(&CFG, NAN, &h), QUANT_EINVAL);
    CHECK_NEAR(h, 0.01, 0);
    CHECK_INT_EQ(quant_step_slope(&CFG, INFINITY, &h), QUANT_EINVAL);
    CHECK_NEAR(h, 0.01, 0);
}

/* the Awais thesis eq. (4.5) restored, as the thesis uses it: two samples. */
static void test_secant(void)
{
    double h = 0;
    /* (1.0, 0.5), (1.5, 0.7): s = 0.2/0.5 = 0.4, h = 0.1 * 0.5/0.2 = 0.25 */
    CHECK_INT_EQ(quant_step_secant(&CFG, 1.0, 0.5, 1.5, 0.7, &h), QUANT_OK);
    CHECK_NEAR(h, 0.25, 1e-12);
    /* falling signal: (0, 3), (0.2, 2.0): s = -5, h = 0.02 */
    CHECK_INT_EQ(quant_step_secant(&CFG, 0.0, 3.0, 0.2, 2.0, &h), QUANT_OK);
    CHECK_NEAR(h, 0.02, 1e-12);
    /* v_n = v_{n-1}: the thesis' division by zero -> h_max */
    CHECK_INT_EQ(quant_step_secant(&CFG, 0.0, 1.0, 1.0, 1.0, &h), QUANT_AT_MAX);
    CHECK_NEAR(h, 10.0, 0);
    /* t_n <= t_{n-1} is refused */
    CHECK_INT_EQ(quant_step_secant(&CFG, 1.0, 1.0, 1.0, 2.0, &h), QUANT_EINVAL);
    CHECK_NEAR(h, 0.01, 0);
    CHECK_INT_EQ(quant_step_secant(&CFG, 2.0, 1.0, 1.0, 2.0, &h), QUANT_EINVAL);
    CHECK_INT_EQ(quant_step_secant(&CFG, 0.0, NAN, 1.0, 2.0, &h), QUANT_EINVAL);
}

/* Against the analytic signal v(t) = sin(t): after the predicted step the true change is the
 * quantum up to the neglected Taylor terms: |dv - q| <= |v''| h^2 / 2 for the slope form
 * (|v''| <= 1). */
static void test_against_sin(void)
{
    quant_cfg c = {.q = 1e-3, .h_min = 1e-9, .h_max = 100};
    for (double t = 0.05; t < 1.5; t += 0.1) {
        double h1 = 0;
        CHECK_INT_EQ(quant_step_slope(&c, cos(t), &h1), QUANT_OK);
        double e1 = fabs(fabs(sin(t + h1) - sin(t)) - c.q);
        CHECK(e1 <= h1 * h1 / 2 + 1e-15, "t=%g: slope-form error %g > h^2/2 = %g", t, e1,
              h1 * h1 / 2);
    }
}

static void test_next_time(void)
{
    const double ns = 1e-9;
    CHECK_INT_EQ(quant_next_time(1000, 2.5e-6, ns, 1000000), 3500); /* 2500 ticks */
    CHECK_INT_EQ(quant_next_time(1000, 1.0, ns, 2000), 2000);       /* clamped to t_end */
    CHECK_INT_EQ(quant_next_time(1000, 1e-12, ns, 2000), 1001);     /* at least one tick */
    CHECK_INT_EQ(quant_next_time(1000, 0.0, ns, 2000), 1001);
    CHECK_INT_EQ(quant_next_time(1000, NAN, ns, 2000), 1001);
    CHECK_INT_EQ(quant_next_time(1000, 1.0, 0.0, 2000), 1001); /* bad tick: smallest advance */
    CHECK_INT_EQ(quant_next_time(2000, 1.0, ns, 2000), 2000);  /* at the end: no advance */
    CHECK_INT_EQ(quant_next_time(2500, 1.0, ns, 2000), 2500);
    CHECK_INT_EQ(quant_next_time(0, 0.5, 0.25, 100), 2); /* 0.5 s / 0.25 s per tick */
    CHECK_INT_EQ(quant_next_time(0, 0.7, 0.25, 100), 2); /* floor: 2.8 -> 2 ticks */
    CHECK_INT_EQ(quant_next_time(INT64_MAX - 5, 1e9, ns, INT64_MAX), INT64_MAX);
    CHECK_INT_EQ(quant_next_time(-10, 1e30, ns, INT64_MAX), INT64_MAX - 10); /* saturates */
    CHECK_INT_EQ(quant_next_time(INT64_MIN, 1e30, ns, INT64_MAX), -1);
}

int main(void)
{
    test_cfg_check();
    test_slope();
    test_secant();
    test_against_sin();
    test_next_time();
    return check_summary();
}
