/* Tests of the F3ORNITS pieces (algorithms/f3ornits.h), Éguillon et al. (2021);
 * doc/algorithms/f3ornits.md:
 *   1. polynomials: Omega reproduces polynomials of degree <= p on non-uniform times; Gamma
 *      passes through the newest point and minimises the residual (perturbations only raise
 *      it); Gamma^(0) is the hold; the Hermite cubic meets both ends' values and slopes
 *   2. the order function on a quadratic, a linear signal (tie to the lower degree), a sine
 *      (the order changes over time) and after a jump (it drops to 0)
 *   3. the time-stepper: eps~ = 1 keeps the step, eps~ = 2^-(p+1) doubles it, clipping;
 *      magnitude against amplitude at a zero crossing; amplitude against damped amplitude after
 *      an initial spike
 *   4. the synchronous master (algorithms/f3ornits_master.h) on the two-mass oscillator with
 *      exact slaves (tests/unit/dc_osc.h), t in [0, 20]: ZOH Jacobi at fixed steps is first
 *      order; every F3ORNITS run (both fits, three normalisations, rtol 1e-3) takes fewer steps
 *      than the coarsest Jacobi run and is more accurate than the finest; amplitude takes the
 *      fewest steps, magnitude the most and is the most accurate; the start is a hold of
 *      dt_init; a run repeats bit for bit
 *      and with the coupling damper changed at mid-time: F3ORNITS below the ZOH Jacobi curve
 *   5. the car with speed control (our parameters): ZOH Jacobi never sees a speed and the car
 *      accelerates without bound; F3ORNITS (order >= 1) holds the target speed
 *   6. asynchrony: slaves with imposed steps 0.003 and 0.007 s beside a variable-step one meet
 *      at exactly their own grids; every input of every step is the provider's output at its
 *      newest time not after the step's start (eq. 25's m*, checked by hand with ZOH inputs);
 *      a run repeats bit for bit
 *   7. smoothing: every input is C^1 across the communication times (value and slope meet
 *      the previous step's), its value differs from the provider's output there (the
 *      side effect of eq. 28), and the smoothed run still beats ZOH Jacobi */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/f3ornits.h"
#include "algorithms/f3ornits_master.h"
#include "tests/check.h"
#include "tests/figures.h"
#include "tests/unit/dc_osc.h"

static double quad(double t)
{
    return 1.5 - 0.7 * t + 0.3 * t * t;
}

static void test_polynomials(void)
{
    const double t[4] = {0.1, 0.35, 0.42, 0.9}; /* non-uniform */
    double z[4], c[4];
    for (int i = 0; i < 4; i++)
        z[i] = quad(t[i]);
    /* Omega^(2) through 3 points of a quadratic is the quadratic: value, slope and curvature
       at any t0 */
    CHECK_INT_EQ(f3_extrap(t + 1, z + 1, 2, 1.3, c), 0);
    CHECK_NEAR(c[0], quad(1.3), 1e-13);
    CHECK_NEAR(c[1], -0.7 + 0.6 * 1.3, 1e-12);
    CHECK_NEAR(c[2], 0.6, 1e-11);
    /* Omega^(1) of a straight line, Omega^(0) the value */
    double lz[2] = {2 - t[0], 2 - t[1]};
    CHECK_INT_EQ(f3_extrap(t, lz, 1, 5.0, c), 0);
    CHECK_NEAR(c[0], 2 - 5.0, 1e-13);
    CHECK_NEAR(c[1], -1, 1e-13);
    double dup[2] = {0.1, 0.1};
    CHECK_INT_EQ(f3_extrap(dup, lz, 1, 0, c), -1);
    /* Gamma^(2) over 4 points of a quadratic: exact (zero residual is the minimum) */
    CHECK_INT_EQ(f3_cls(t, z, 2, c), 0);
    CHECK_NEAR(c[0], quad(0.9), 1e-14);
    CHECK_NEAR(c[1], -0.7 + 0.6 * 0.9, 1e-11);
    CHECK_NEAR(c[2], 0.6, 1e-10);
    /* Gamma^(1) of noisy points: through the newest, and the least residual among lines through
       it (a perturbed slope has a larger residual) */
    double nz[3] = {1.0, 1.3, 1.1}, nt[3] = {0, 0.4, 1.0};
    CHECK_INT_EQ(f3_cls(nt, nz, 1, c), 0);
    CHECK_NEAR(c[0], 1.1, 0);
    double best = 0, worse = 0;
    for (int s = -1; s <= 1; s += 2) {
        double r0 = 0, r1 = 0;
        for (int i = 0; i < 2; i++) {
            double d = nt[i] - 1.0;
            r0 += pow(1.1 + c[1] * d - nz[i], 2);
            r1 += pow(1.1 + (c[1] + s * 1e-3) * d - nz[i], 2);
        }
        best = r0, worse = r1;
        CHECK(worse > best, "perturbed slope residual %g <= %g", worse, best);
    }
    /* hand value: d = (-1, -0.6), e = (-0.1, 0.2): a = sum d e / sum d^2 = (0.1 - 0.12) / 1.36 */
    CHECK_NEAR(c[1], (0.1 - 0.12) / 1.36, 1e-15);
    /* Gamma^(0) is the hold of the newest */
    CHECK_INT_EQ(f3_cls(nt, nz, 0, c), 0);
    CHECK_NEAR(c[0], 1.3, 0);
    /* Hermite: both ends */
    double h[4];
    f3_hermite(0.5, 1.0, -2.0, 0.8, 0.4, 3.0, h);
    CHECK_NEAR(h[0], 1.0, 0);
    CHECK_NEAR(h[1], -2.0, 0);
    double s = 0.3, val = h[0] + h[1] * s + h[2] * s * s / 2 + h[3] * s * s * s / 6;
    double der = h[1] + h[2] * s + h[3] * s * s / 2;
    CHECK_NEAR(val, 0.4, 1e-13);
    CHECK_NEAR(der, 3.0, 1e-12);
}

static void test_order(void)
{
    double t[12], y[12], eps[4];
    /* irregular times */
    for (int i = 0; i < 12; i++)
        t[i] = 0.1 * i + 0.03 * (i % 3);
    for (int i = 0; i < 12; i++)
        y[i] = quad(t[i]);
    CHECK_INT_EQ(f3_order(t, y, 1, 2, 1e-9, NULL), 0); /* start-up: hold */
    CHECK_INT_EQ(f3_order(t, y, 2, 2, 1e-9, eps), 0);  /* one past point: only degree 0 */
    CHECK_INT_EQ(f3_order(t, y, 3, 2, 1e-9, eps), 1);  /* line better than hold */
    for (int n = 4; n <= 12; n++) {
        CHECK_INT_EQ(f3_order(t, y, n, 2, 1e-9, eps), 2);
        CHECK(eps[2] < 1e-13, "quadratic: eps(2) = %g", eps[2]);
    }
    /* a straight line: eps(1) = eps(2) = 0 and the tie goes to 1 */
    for (int i = 0; i < 12; i++)
        y[i] = 3 - 2 * t[i];
    CHECK_INT_EQ(f3_order(t, y, 8, 2, 1e-9, eps), 1);
    /* a sine sampled coarsely: the order changes over time */
    int seen[3] = {0, 0, 0};
    double ts[80], ys[80];
    for (int i = 0; i < 80; i++) {
        ts[i] = 0.37 * i;
        ys[i] = sin(ts[i]) + 0.3 * sin(3.1 * ts[i]);
    }
    for (int n = 4; n <= 80; n++)
        seen[f3_order(ts, ys, n, 2, 1e-9, NULL)]++;
    CHECK(seen[0] + seen[1] > 0 && seen[2] > 0, "orders seen %d %d %d", seen[0], seen[1], seen[2]);
    /* a jump at point 6 of a smooth signal: one step later the hold predicts best */
    for (int i = 0; i < 12; i++)
        y[i] = quad(t[i]) + (i >= 6 ? 5.0 : 0);
    CHECK_INT_EQ(f3_order(t, y, 8, 2, 1e-9, eps), 0);
}

static void test_stepper(void)
{
    /* eps~ = 1 keeps the step; eps~ = 2^-(p+1) doubles it; clipping */
    for (int p = 0; p <= 2; p++) {
        CHECK_NEAR(f3_ratio(1.0, p, 1.0), 1.0, 1e-15);
        CHECK_NEAR(f3_ratio(pow(2, -(p + 1)), p, 1.0), 2.0, 1e-14);
        CHECK_NEAR(f3_ratio(pow(2, p + 1), p, 0.9), 0.45, 1e-14);
    }
    CHECK_NEAR(f3_clip(f3_ratio(0, 1, 1), 0.2, 1.5), 1.5, 0);
    CHECK_NEAR(f3_clip(0.01, 0.2, 1.5), 0.2, 0);
    CHECK_NEAR(f3_clip(NAN, 0.2, 1.5), 0.2, 0);
    /* a sinusoid of amplitude 100 near its zero crossing: the magnitude norm explodes the
       error (step collapses), the amplitude norm does not */
    f3_band b = {0};
    for (int i = 0; i <= 100; i++)
        f3_band_update(&b, 100 * sin(0.1 * i), 0.1, 0);
    double y0 = 100 * sin(M_PI - 1e-4), eps = 1e-3;
    double mag = f3_normalise(F3_NORM_MAGNITUDE, eps, y0, &b, 1e-3, 1e-6);
    double amp = f3_normalise(F3_NORM_AMPLITUDE, eps, y0, &b, 1e-3, 1e-6);
    CHECK(mag > 50 && amp < 0.01, "zero crossing: magnitude %g, amplitude %g", mag, amp);
    CHECK(f3_clip(f3_ratio(mag, 1, 0.9), 0.2, 2) == 0.2,
          "magnitude: the step shrinks to the bound");
    CHECK(f3_clip(f3_ratio(amp, 1, 0.9), 0.2, 2) == 2, "amplitude: the step grows");
    /* an initial spike of 1000 then a signal of amplitude 1: amplitude keeps the spike for
       ever; damped amplitude forgets it (the band relaxes to the signal's own) */
    f3_band a = {0}, d = {0};
    f3_band_update(&a, 1000, 0.1, 0);
    f3_band_update(&d, 1000, 0.1, 0.5);
    for (int i = 1; i <= 400; i++) {
        double v = sin(0.1 * i);
        f3_band_update(&a, v, 0.1, 0);
        f3_band_update(&d, v, 0.1, 0.5);
    }
    CHECK_NEAR(a.ymax - a.ymin, 1000 + 1, 1e-2);
    /* the spike is gone; the band is the signal's recent range (narrower than its full 2:
       with mu = 0.5 the extremes relax with a time constant of 2 s, a third of a period) */
    CHECK(d.ymax - d.ymin < 2.0 && d.ymax - d.ymin > 0.3, "damped band %g", d.ymax - d.ymin);
    double ea = f3_normalise(F3_NORM_AMPLITUDE, 1e-3, 0.5, &a, 1e-3, 1e-6);
    double ed = f3_normalise(F3_NORM_DAMPED, 1e-3, 0.5, &d, 1e-3, 1e-6);
    CHECK(ed > 100 * ea, "damped %g vs amplitude %g", ed, ea);
    /* mu = 0 is the amplitude exactly */
    f3_band z = {0};
    f3_band_update(&z, 3, 0.1, 0);
    f3_band_update(&z, -1, 0.1, 0);
    f3_band_update(&z, 0.5, 0.1, 0);
    CHECK_NEAR(z.ymax, 3, 0);
    CHECK_NEAR(z.ymin, -1, 0);
}

/* ---- 4. the master on the oscillator ------------------------------------------------- */

/* The flexible-order, variable-step settings every F3ORNITS run below starts from: fit and
 * normalisation as given, mu 0.5, rtol 1e-3, atol 1e-6, rho in [0.2, 2], safety 0.9, a first
 * step of 1e-3 s. */
static f3_config flexible(f3_fit fit, f3_norm norm)
{
    return (f3_config){.fit = fit,
                       .order = -1,
                       .variable = 1,
                       .norm = norm,
                       .mu = 0.5,
                       .rtol = 1e-3,
                       .atol = 1e-6,
                       .rho_min = 0.2,
                       .rho_max = 2,
                       .safety = 0.9,
                       .dt_init = 1e-3};
}

typedef struct osc_run {
    f3_result res;
    double rmse[2]; /* omega2, tau1 at the communication points, time-weighted */
    double sq[2];
    double first_h;  /* H of step 1 */
    int first_order; /* largest order used on step 1 */
    double sum_y;    /* a checksum of every output */
} osc_run;

static int osc_obs(void *ctx, const f3_step_info *si)
{
    osc_run *r = ctx;
    double t = (double)si->t1 * 1e-9;
    for (int w = 0; w < 2; w++) {
        double p[1], y = si->y[w == 0 ? 1 : 0][0];
        dc_ref_poly(t, w, 0, p);
        r->sq[w] += si->H * (y - p[0]) * (y - p[0]);
        r->sum_y += y * (double)si->k;
    }
    if (si->k == 1) {
        r->first_h = si->H;
        r->first_order = si->order[0][0] > si->order[1][0] ? si->order[0][0] : si->order[1][0];
    }
    return 0;
}

static osc_run osc_f3(f3_config c)
{
    dc_pair p;
    dc_pair_init(&p, DC_OSC_EXACT, 1e-9, 20000000000LL);
    c.n_links = 2;
    c.links = dc_pair_links();
    osc_run r;
    memset(&r, 0, sizeof r);
    CHECK_INT_EQ(f3_run(&p.m, &c, osc_obs, &r, &r.res), PORT_OK);
    for (int w = 0; w < 2; w++)
        r.rmse[w] = sqrt(r.sq[w] / 20);
    return r;
}

static void test_master(void)
{
    static const double Hs[5] = {0.005, 0.01, 0.02, 0.05, 0.1};
    osc_run jac[5];
    for (int i = 0; i < 5; i++)
        jac[i] = osc_f3((f3_config){.order = 0, .dt_init = Hs[i]});
    CHECK_INT_EQ(jac[4].res.N, 200);
    for (int i = 0; i + 1 < 5; i++) /* first order: the error grows like H */
        CHECK_NEAR(log(jac[i + 1].rmse[0] / jac[i].rmse[0]) / log(Hs[i + 1] / Hs[i]), 1.0, 0.05);
    static const char *const nn[3] = {"magnitude", "amplitude", "damped"};
    osc_run f[2][3];
    for (int fit = 0; fit < 2; fit++)
        for (int n = 0; n < 3; n++) {
            f[fit][n] = osc_f3(flexible((f3_fit)fit, (f3_norm)n));
            const osc_run *r = &f[fit][n];
            CHECK(r->res.N < jac[4].res.N && r->rmse[0] < jac[0].rmse[0] &&
                      r->rmse[1] < jac[2].rmse[1],
                  "%s %s: %zu steps, RMSE %g %g (Jacobi: 200 steps at H = 0.1; RMSE %g at "
                  "H = 0.005, %g at 0.02)",
                  fit ? "CLS" : "extrapolation", nn[n], r->res.N, r->rmse[0], r->rmse[1],
                  jac[0].rmse[0], jac[2].rmse[1]);
            CHECK_NEAR(r->first_h, 1e-3, 1e-15);
            CHECK_INT_EQ(r->first_order, 0);
        }
    for (int fit = 0; fit < 2; fit++) {
        osc_run *mg = &f[fit][F3_NORM_MAGNITUDE], *am = &f[fit][F3_NORM_AMPLITUDE],
                *dm = &f[fit][F3_NORM_DAMPED];
        CHECK(am->res.N < dm->res.N && dm->res.N < mg->res.N,
              "steps: amplitude %zu, damped "
              "%zu, magnitude %zu",
              am->res.N, dm->res.N, mg->res.N);
        CHECK(mg->rmse[0] <= dm->rmse[0] && dm->rmse[0] < am->rmse[0],
              "RMSE omega2: magnitude "
              "%g, damped %g, amplitude %g",
              mg->rmse[0], dm->rmse[0], am->rmse[0]);
    }
    for (int n = 0; n < 3; n++) /* extrapolation and CLS differ little */
        CHECK(fabs((double)f[0][n].res.N / (double)f[1][n].res.N - 1) < 0.2, "%s: %zu vs %zu",
              nn[n], f[0][n].res.N, f[1][n].res.N);
    /* the figures of doc/algorithms/f3ornits.md (tests/figures.h) */
    figures_table g, gc;
    FILE *fig = figures_open(&g, "f3ornits_unit.md", "tests/unit/f3ornits_test.c"),
         *claims = figures_open(&gc, "f3ornits_unit.claims", "tests/unit/f3ornits_test.c");
    fprintf(fig, "### The two-mass oscillator, exact slaves (`tests/unit/dc_osc.h`), t in [0, 20] "
                 "s\n\nRMSE at the communication points, each output as the master reads it "
                 "(before the next step's inputs are set).\n\n| run | steps | RMSE ω2 | RMSE τ1 "
                 "|\n|---|---|---|---|\n");
    for (int i = 0; i < 5; i++)
        fprintf(fig, "| ZOH Jacobi, H = %g | %zu | %.3g | %.3g |\n", Hs[i], jac[i].res.N,
                jac[i].rmse[0], jac[i].rmse[1]);
    for (int fit = 0; fit < 2; fit++)
        for (int n = 0; n < 3; n++)
            fprintf(fig, "| F3ORNITS %s, %s | %zu | %.3g | %.3g |\n", fit ? "CLS" : "extrapolation",
                    nn[n], f[fit][n].res.N, f[fit][n].rmse[0], f[fit][n].rmse[1]);
    const osc_run *e = f[0];
    fprintf(claims,
            "| Éguillon et al. 2021 | §4.2, Table 1 | amplitude takes the fewest steps, magnitude "
            "the most and is the most accurate, damped amplitude between | our two-mass "
            "oscillator, exact slaves: %zu / %zu / %zu steps (amplitude / damped / magnitude), "
            "RMSE ω2 %.2g / %.2g / %.2g (extrapolation) | %s | tests/unit/f3ornits_test.c |\n",
            e[F3_NORM_AMPLITUDE].res.N, e[F3_NORM_DAMPED].res.N, e[F3_NORM_MAGNITUDE].res.N,
            e[F3_NORM_AMPLITUDE].rmse[0], e[F3_NORM_DAMPED].rmse[0], e[F3_NORM_MAGNITUDE].rmse[0],
            e[F3_NORM_AMPLITUDE].res.N < e[F3_NORM_DAMPED].res.N &&
                    e[F3_NORM_DAMPED].res.N < e[F3_NORM_MAGNITUDE].res.N &&
                    e[F3_NORM_MAGNITUDE].rmse[0] <= e[F3_NORM_DAMPED].rmse[0] &&
                    e[F3_NORM_DAMPED].rmse[0] < e[F3_NORM_AMPLITUDE].rmse[0]
                ? "reproduced"
                : "not reproduced");
    /* Other tolerances: the steps of each normalisation (extrapolation), printed, not
     * asserted in order (the damped band follows the signal's recent range, narrower than its
     * full swing, and may take more steps than magnitude; doc/algorithms/f3ornits.md). */
    fprintf(fig, "\n### Steps at other tolerances (extrapolation)\n\n"
                 "| rtol | magnitude | amplitude | damped |\n|---|---|---|---|\n");
    const double rt[3] = {1e-2, 1e-3, 1e-4};
    for (int i = 0; i < 3; i++) {
        fprintf(fig, "| %g |", rt[i]);
        for (int n = 0; n < 3; n++) {
            size_t N = f[0][n].res.N;
            if (i != 1) {
                f3_config c = flexible(F3_FIT_EXTRAP, (f3_norm)n);
                c.rtol = rt[i];
                N = osc_f3(c).res.N;
                CHECK(N > 0, "rtol %g, %s: no steps", rt[i], nn[n]);
            }
            fprintf(fig, " %zu |", N);
        }
        fprintf(fig, "\n");
    }
    figures_close(&g);
    figures_close(&gc);
    osc_run again = osc_f3(flexible(F3_FIT_EXTRAP, F3_NORM_DAMPED));
    CHECK(again.res.N == f[0][2].res.N && again.sum_y == f[0][2].sum_y, "not repeatable");
    /* settings refused */
    f3_result res;
    port_local_clock clk;
    port_master m = dc_local_master(NULL, 0, &clk, 1e-9, 1);
    CHECK_INT_EQ(f3_run(&m, &(f3_config){.order = 3, .dt_init = 0.1}, NULL, NULL, &res),
                 PORT_EUSAGE);
    CHECK_STR_HAS(res.err, "order 3");
    CHECK_INT_EQ(
        f3_run(&m, &(f3_config){.order = -1, .variable = 1, .dt_init = 0.1}, NULL, NULL, &res),
        PORT_EUSAGE);
    CHECK_STR_HAS(res.err, "rtol");
}

/* The same with the coupling damper dropping from 2 to 0.5 at t = 10 (a jump of tau1 and new
 * dynamics; dc_osc_slave1_switching). */
typedef struct sw_acc {
    double sq[2];
} sw_acc;

static int sw_obs(void *ctx, const f3_step_info *si)
{
    sw_acc *a = ctx;
    double t = (double)si->t1 * 1e-9;
    for (int w = 0; w < 2; w++) {
        double d = si->y[w == 0 ? 1 : 0][0] - dc_ref_switching(t, w);
        a->sq[w] += si->H * d * d;
    }
    return 0;
}

static void sw_run(f3_config c, size_t *N, double rmse[2])
{
    dc_pair p;
    dc_osc_slave1_switching(&p.s[0], 1e-9);
    dc_osc_slave2(&p.s[1], DC_OSC_EXACT, 1e-9);
    dc_pair_wire(&p, 1e-9, 20000000000LL);
    c.n_links = 2;
    c.links = dc_pair_links();
    sw_acc a = {{0, 0}};
    f3_result r;
    CHECK_INT_EQ(f3_run(&p.m, &c, sw_obs, &a, &r), PORT_OK);
    *N = r.N;
    for (int w = 0; w < 2; w++)
        rmse[w] = sqrt(a.sq[w] / 20);
}

static void test_switching(void)
{
    size_t NJ, N[2][3];
    double J[2], R[2][3][2];
    sw_run((f3_config){.order = 0, .dt_init = 0.1}, &NJ, J);
    CHECK_INT_EQ(NJ, 200);
    for (int fit = 0; fit < 2; fit++)
        for (int n = 0; n < 3; n++) {
            sw_run(flexible((f3_fit)fit, (f3_norm)n), &N[fit][n], R[fit][n]);
            /* below the ZOH Jacobi curve (first order: RMSE ~ 1/N through its 200-step run),
               by a factor 5 at least, on both outputs */
            for (int w = 0; w < 2; w++) {
                double jac = J[w] * 200.0 / (double)N[fit][n];
                CHECK(R[fit][n][w] * 5 < jac,
                      "fit %d norm %d output %d: RMSE %g with %zu "
                      "steps; ZOH Jacobi at that many steps %g",
                      fit, n, w, R[fit][n][w], N[fit][n], jac);
            }
        }
    for (int fit = 0; fit < 2; fit++) { /* amplitude: fewest steps; magnitude beats it */
        CHECK(N[fit][1] < N[fit][0] && N[fit][1] < N[fit][2], "fit %d: steps %zu %zu %zu", fit,
              N[fit][0], N[fit][1], N[fit][2]);
        CHECK(R[fit][0][0] < R[fit][1][0], "fit %d: RMSE magnitude %g, amplitude %g", fit,
              R[fit][0][0], R[fit][1][0]);
    }
}

/* ---- 5. the car with speed control ---------------------------------------------------- */

/* The car of the speed-control case (ours: the paper's parameters are lost): a point mass
 * M x'' = F (slave "car": input F, output x), and a controller (slave "controller": input the
 * car's position, output F) that pushes F0 until T_sw, then F = K (v_target - v) with v the time
 * derivative of its position input: the derivative of the input polynomial, 0 under a hold. */
typedef struct car_ctl {
    int64_t t, u_t0;
    double tick, u[PORT_MAX_ORDER + 1];
    int u_order, status;
} car_ctl;
#define CAR_M   1000.0 /* kg */
#define CAR_F0  1500.0 /* N, before T_sw */
#define CAR_TSW 10.0   /* s */
#define CAR_VT  20.0   /* m/s */
#define CAR_K   500.0  /* N/(m/s) */

static int ctl_set_inputs(void *ctx, const port_poly *u)
{
    car_ctl *c = ctx;
    c->u_t0 = u->t0;
    c->u_order = u->order;
    memcpy(c->u, u->c, (size_t)(u->order + 1) * sizeof(double));
    return PORT_OK;
}
static int ctl_step(void *ctx, int64_t t, int n, double *y, port_step_result *r)
{
    car_ctl *c = ctx;
    (void)n, (void)y;
    c->t = t;
    if (r) *r = (port_step_result){.t_reached = t, .n_sub_done = 1};
    return PORT_OK;
}
static int ctl_get_outputs(void *ctx, double *y)
{
    car_ctl *c = ctx;
    double ts = (double)c->t * c->tick;
    double v = c->u_order >= 1
                   ? dc_poly_eval(c->u + 1, c->u_order - 1, (double)(c->t - c->u_t0) * c->tick)
                   : 0;
    y[0] = ts < CAR_TSW ? CAR_F0 : CAR_K * (CAR_VT - v);
    return PORT_OK;
}
static int ctl_record(void *ctx)
{
    (void)ctx;
    return PORT_OK;
}
static int ctl_collect(void *ctx)
{
    car_ctl *c = ctx;
    int s = c->status;
    c->status = 0;
    return s;
}
static const port_slave_ops ctl_ops = {.version = PORT_OPS_VERSION,
                                       .set_inputs = ctl_set_inputs,
                                       .step = ctl_step,
                                       .get_outputs = ctl_get_outputs,
                                       .record = ctl_record,
                                       .collect = ctl_collect};

/* Monolithic: v = F0/M t to T_sw (15 m/s), then v = 20 - 5 e^-(t - 10)/2, so at t = 60
 * v = 20 and x = 75 + 20 * 50 - 10 (1 - e^-25) = 1065 m. */
static void car_run(f3_config c, double *v, double *x, size_t *N)
{
    dc_osc car = {.name = "car",
                  .nx = 2,
                  .tick = 1e-9,
                  .max_deriv = 4,
                  .A = {{0, 1}, {0, 0}},
                  .B = {0, 1 / CAR_M},
                  .C = {1, 0},
                  .D = 0,
                  .x = {0, 0},
                  .u = {CAR_F0}};
    car_ctl ctl = {.tick = 1e-9};
    port_slave sl[2] = {
        dc_osc_port(&car),
        {.ops = &ctl_ops, .ctx = &ctl, .info = {.name = "controller", .n_in = 1, .n_out = 1}}};
    port_local_clock clk;
    port_master m = dc_local_master(sl, 2, &clk, 1e-9, 60000000000LL);
    c.n_links = 2;
    c.links = dc_pair_links(); /* the controller reads the car, the car the controller */
    f3_result r;
    CHECK_INT_EQ(f3_run(&m, &c, NULL, NULL, &r), PORT_OK);
    *v = car.x[1];
    *x = car.x[0];
    *N = r.N;
}

static void test_car(void)
{
    double v, x;
    size_t N;
    car_run((f3_config){.order = 0, .dt_init = 0.1}, &v, &x, &N);
    /* a hold has no derivative: F = K v_target for ever, v = 15 + 10 * 50 */
    CHECK_NEAR(v, 515, 1e-6);
    for (int n = 0; n < 3; n++) {
        f3_config c = flexible(F3_FIT_EXTRAP, (f3_norm)n);
        c.atol = 1e-3;
        c.dt_init = 0.01;
        c.dt_max = 0.5;
        car_run(c, &v, &x, &N);
        CHECK_NEAR(v, 20, 1e-3);
        CHECK_NEAR(x, 1065, 1.0);
        CHECK(N < 600, "norm %d: %zu steps (ZOH Jacobi at 0.1: 600)", n, N);
    }
}

/* ---- 6. asynchrony -------------------------------------------------------------------- */

/* A slave whose output is sin(w t) at its own time, whatever its input; it keeps every input
 * polynomial it is given (time, value). */
#define CLK_MAX 4096
typedef struct clk_slave {
    double w;    /* rad/s */
    int64_t t;   /* ticks */
    size_t n_in; /* set_inputs calls kept */
    int64_t in_t[CLK_MAX];
    double in_v[CLK_MAX];
    size_t n_t; /* times reached, kept */
    int64_t times[CLK_MAX];
} clk_slave;

static int clk_set_inputs(void *ctx, const port_poly *u)
{
    clk_slave *c = ctx;
    if (c->n_in < CLK_MAX) c->in_t[c->n_in] = u->t0, c->in_v[c->n_in++] = u->c[0];
    return PORT_OK;
}
static int clk_step(void *ctx, int64_t t, int n, double *y, port_step_result *r)
{
    clk_slave *c = ctx;
    (void)n, (void)y;
    c->t = t;
    if (c->n_t < CLK_MAX) c->times[c->n_t++] = t;
    if (r) *r = (port_step_result){.t_reached = t, .n_sub_done = 1};
    return PORT_OK;
}
static double clk_y(const clk_slave *c, int64_t t)
{
    return sin(c->w * (double)t * 1e-9);
}
static int clk_get_outputs(void *ctx, double *y)
{
    clk_slave *c = ctx;
    y[0] = clk_y(c, c->t);
    return PORT_OK;
}
static int clk_nop(void *ctx)
{
    (void)ctx;
    return PORT_OK;
}
static const port_slave_ops clk_ops = {.version = PORT_OPS_VERSION,
                                       .set_inputs = clk_set_inputs,
                                       .step = clk_step,
                                       .get_outputs = clk_get_outputs,
                                       .record = clk_nop,
                                       .collect = clk_nop};

/* The provider's output at its newest time <= t (its times: t_start, then those kept). */
static double clk_at(const clk_slave *p, int64_t t)
{
    int64_t best = 0;
    for (size_t k = 0; k < p->n_t; k++)
        if (p->times[k] <= t && p->times[k] > best) best = p->times[k];
    return clk_y(p, best);
}

static void clk_run(int order, int variable, clk_slave c[3], f3_result *r)
{
    static const double w[3] = {3.0, 5.0, 7.0};
    for (int j = 0; j < 3; j++) {
        memset(&c[j], 0, sizeof c[j]);
        c[j].w = w[j];
    }
    static const char *const names[3] = {"p3", "p7", "var"};
    port_slave sl[3];
    for (int j = 0; j < 3; j++)
        sl[j] = (port_slave){
            .ops = &clk_ops, .ctx = &c[j], .info = {.name = names[j], .n_in = 1, .n_out = 1}};
    port_local_clock clk;
    port_master m = dc_local_master(sl, 3, &clk, 1e-9, 100000000); /* 0.1 s */
    /* p3 <- var, p7 <- p3, var <- p7 */
    static const port_link links[3] = {{0, 0, 2, 0}, {1, 0, 0, 0}, {2, 0, 1, 0}};
    static const double imposed[3] = {0.003, 0.007, 0};
    f3_config cfg = {.order = order,
                     .variable = variable,
                     .norm = F3_NORM_AMPLITUDE,
                     .rtol = 1e-3,
                     .atol = 1e-6,
                     .rho_min = 0.2,
                     .rho_max = 2,
                     .safety = 0.9,
                     .dt_init = 1e-3,
                     .imposed = imposed,
                     .n_links = 3,
                     .links = links};
    CHECK_INT_EQ(f3_run(&m, &cfg, NULL, NULL, r), PORT_OK);
}

static void test_async(void)
{
    clk_slave c[3];
    f3_result r;
    clk_run(0, 1, c, &r);
    /* the imposed grids exactly: 33 steps of 0.003 then 0.001; 14 of 0.007 then 0.002 */
    CHECK_INT_EQ(c[0].n_t, 34);
    CHECK_INT_EQ(c[1].n_t, 15);
    for (size_t k = 0; k < c[0].n_t; k++)
        CHECK(c[0].times[k] == (k + 1 < c[0].n_t ? (int64_t)(k + 1) * 3000000 : 100000000),
              "p3 time %zu: %lld", k, (long long)c[0].times[k]);
    for (size_t k = 0; k < c[1].n_t; k++)
        CHECK(c[1].times[k] == (k + 1 < c[1].n_t ? (int64_t)(k + 1) * 7000000 : 100000000),
              "p7 time %zu: %lld", k, (long long)c[1].times[k]);
    /* the variable one: its own times, none of them forced onto the others' grids */
    CHECK(c[2].n_t > 10 && c[2].times[0] == 1000000, "var: %zu steps, first at %lld", c[2].n_t,
          (long long)c[2].times[0]);
    CHECK(r.steps == c[0].n_t + c[1].n_t + c[2].n_t && r.N < r.steps, "N %zu, steps %zu", r.N,
          r.steps);
    /* m*: every step's input (ZOH) is the provider's output at its newest time <= the start */
    static const int prov[3] = {2, 0, 1};
    size_t bad = 0, n = 0;
    for (int j = 0; j < 3; j++)
        for (size_t k = 0; k < c[j].n_in; k++, n++)
            if (c[j].in_v[k] != clk_at(&c[prov[j]], c[j].in_t[k])) bad++;
    /* one set of inputs per slave at the start and after each of its steps */
    CHECK(bad == 0 && n == r.steps + 3, "%zu of %zu inputs are not the provider's at m*", bad, n);
    /* the receiver of an imposed-step provider sees a value held since that provider's last
       time, not its current one: p7's inputs at 0.007 k come from p3 at 0.006, 0.012, ... */
    CHECK_NEAR(c[1].in_v[1], clk_y(&c[0], 6000000), 0);
    /* flexible order: deterministic, bit for bit */
    clk_slave a[3], b[3];
    f3_result ra, rb;
    clk_run(-1, 1, a, &ra);
    clk_run(-1, 1, b, &rb);
    int same = ra.N == rb.N;
    for (int j = 0; j < 3 && same; j++)
        same = a[j].n_in == b[j].n_in &&
               !memcmp(a[j].in_v, b[j].in_v, a[j].n_in * sizeof(double)) &&
               !memcmp(a[j].times, b[j].times, a[j].n_t * sizeof(int64_t));
    CHECK(same, "two runs differ");
    /* a bad imposed step is refused by name */
    port_local_clock clk;
    port_slave sl[1] = {{.ops = &clk_ops, .ctx = &a[0], .info = {.name = "p3", .n_out = 1}}};
    port_master m = dc_local_master(sl, 1, &clk, 1e-9, 1000);
    static const double neg[1] = {-1};
    CHECK_INT_EQ(f3_run(&m, &(f3_config){.dt_init = 1e-7, .imposed = neg}, NULL, NULL, &ra),
                 PORT_EUSAGE);
    CHECK_STR_HAS(ra.err, "imposed step of p3");
}

/* ---- 7. smoothing --------------------------------------------------------------------- */

typedef struct sm_obs {
    double u[2][4]; /* per slave: its input polynomial about t0 */
    int64_t t0;
    int have;
    double worst;    /* largest mismatch of value or slope at a communication time */
    double mismatch; /* largest |u(T) - provider's y(T)| */
    double sq[2];
} sm_obs;

static int sm_step(void *ctx, const f3_step_info *si)
{
    sm_obs *o = ctx;
    double h = (double)(si->t1 - si->t0) * 1e-9;
    for (int j = 0; j < 2; j++) {
        if (o->have && si->next[j] > si->t1) { /* after the last step no input is smoothed */
            double q[4];
            dc_poly_shift(o->u[j], 3, h, q);
            for (int d = 0; d < 2; d++) {
                double e = fabs(q[d] - si->u[j][d]) / (1e-3 + fabs(q[d]));
                if (!(e <= o->worst)) o->worst = e; /* NaN counts as a jump */
            }
        }
        double mm = fabs(si->u[j][0] - si->y[1 - j][0]);
        if (si->k > 1 && si->next[j] > si->t1 && mm > o->mismatch) o->mismatch = mm;
        memcpy(o->u[j], si->u[j], sizeof o->u[j]);
        double p[1], y = si->y[j == 0 ? 1 : 0][0];
        dc_ref_poly((double)si->t1 * 1e-9, j, 0, p);
        o->sq[j] += h * (y - p[0]) * (y - p[0]);
    }
    o->have = 1;
    return 0;
}

static void test_smooth(void)
{
    for (int n = 0; n < 3; n++) {
        dc_pair p;
        dc_pair_init(&p, DC_OSC_EXACT, 1e-9, 20000000000LL);
        f3_config c = flexible(F3_FIT_EXTRAP, (f3_norm)n);
        c.smooth = 1;
        c.n_links = 2;
        c.links = dc_pair_links();
        sm_obs o;
        memset(&o, 0, sizeof o);
        f3_result r;
        CHECK_INT_EQ(f3_run(&p.m, &c, sm_step, &o, &r), PORT_OK);
        CHECK(o.worst < 1e-9, "norm %d: a jump of %g in an input or its slope", n, o.worst);
        CHECK(o.mismatch > 1e-9, "norm %d: the smoothed input equals the output (%g)", n,
              o.mismatch);
        /* still far below ZOH Jacobi's first-order curve (RMSE 7.23e-4 on omega2 at 200 steps) */
        double rm = sqrt(o.sq[0] / 20), jac = 7.23e-4 * 200.0 / (double)r.N;
        CHECK(rm * 5 < jac, "norm %d: smoothed RMSE %g with %zu steps, Jacobi %g", n, rm, r.N, jac);
    }
}

/* ---- checkpoints ---------------------------------------------------------------------------
 * The instants a run takes, as the observer sees them, and what the run offered at the first
 * instant at or past `at` with both slaves as they were then (port_ckpt, doc/checkpoint.md
 * "Master methods"). */
#define F3R_MAX 4096
typedef struct f3r_log {
    size_t n;
    int64_t t1[F3R_MAX], next[F3R_MAX][2];
    double y[F3R_MAX][2], u[F3R_MAX][2], rho[F3R_MAX];
} f3r_log;

static int f3r_obs(void *ctx, const f3_step_info *si)
{
    f3r_log *l = ctx;
    if (l->n < F3R_MAX) {
        l->t1[l->n] = si->t1, l->rho[l->n] = si->rho;
        for (int j = 0; j < 2; j++) {
            l->y[l->n][j] = si->y[j][0];
            l->u[l->n][j] = si->u[j][0];
            l->next[l->n][j] = si->next[j];
        }
        l->n++;
    }
    return 0;
}

typedef struct f3r_keep {
    int64_t at;
    unsigned char bytes[8192];
    size_t n;
    const dc_pair *p;
    dc_osc saved[2];
    size_t steps_then;
    const f3r_log *log;
} f3r_keep;

static int f3r_offer(void *ctx, int64_t t, const void *state, size_t n)
{
    f3r_keep *k = ctx;
    if (k->n || t < k->at || n > sizeof k->bytes) return PORT_OK;
    memcpy(k->bytes, state, n);
    k->n = n;
    k->saved[0] = k->p->s[0], k->saved[1] = k->p->s[1];
    k->steps_then = k->log->n;
    return PORT_OK;
}

/* A run cut at an instant and resumed from the state offered there, the slaves as they were,
 * takes exactly the uninterrupted run's remaining instants (times, outputs, inputs, next times,
 * ratios: the step-size controllers' memory crosses the cut, bit for bit) and ends with its
 * result, with fixed and flexible orders, smoothing on and off; every proper prefix and a
 * trailing byte are refused before any operation. */
static void test_resume(void)
{
    static dc_pair a, b;
    static f3r_log la, lb;
    f3_config cfgs[3];
    cfgs[0] = flexible(F3_FIT_EXTRAP, F3_NORM_DAMPED);
    cfgs[1] = flexible(F3_FIT_CLS, F3_NORM_AMPLITUDE);
    cfgs[1].smooth = 1;
    cfgs[2] = (f3_config){.order = 2, .dt_init = 0.05};
    int64_t ats[] = {0, 3000000000LL, 11000000000LL};
    for (size_t c = 0; c < 3; c++)
        for (size_t q = 0; q < 3; q++) {
            f3_config cfg = cfgs[c];
            cfg.n_links = 2;
            cfg.links = dc_pair_links();
            dc_pair_init(&a, DC_OSC_EXACT, 1e-9, 20000000000LL);
            memset(&la, 0, sizeof la);
            f3r_keep k = {.at = ats[q], .p = &a, .log = &la};
            port_ckpt ck = {.offer = f3r_offer, .ctx = &k};
            a.m.ckpt = &ck;
            f3_result ra, rb;
            CHECK(f3_run(&a.m, &cfg, f3r_obs, &la, &ra) == PORT_OK, "run: %s", ra.err);
            CHECK(k.n > 0, "case %zu: nothing offered at or after %lld", c, (long long)ats[q]);
            dc_pair_init(&b, DC_OSC_EXACT, 1e-9, 20000000000LL);
            b.s[0] = k.saved[0], b.s[1] = k.saved[1];
            memset(&lb, 0, sizeof lb);
            port_ckpt rk = {.resume = k.bytes, .n_resume = k.n};
            b.m.ckpt = &rk;
            CHECK(f3_run(&b.m, &cfg, f3r_obs, &lb, &rb) == PORT_OK, "resume: %s", rb.err);
            size_t rest = la.n - k.steps_then;
            CHECK(lb.n == rest && rest > 0,
                  "case %zu cut at %lld: %zu instants after the resume, want %zu", c,
                  (long long)ats[q], lb.n, rest);
            for (size_t i = 0; i < lb.n && i < rest; i++) {
                size_t j = k.steps_then + i;
                CHECK(lb.t1[i] == la.t1[j] && lb.rho[i] == la.rho[j] &&
                          memcmp(lb.y[i], la.y[j], sizeof la.y[j]) == 0 &&
                          memcmp(lb.u[i], la.u[j], sizeof la.u[j]) == 0 &&
                          memcmp(lb.next[i], la.next[j], sizeof la.next[j]) == 0,
                      "case %zu cut at %lld: instant %zu differs", c, (long long)ats[q], j + 1);
            }
            CHECK(rb.N == ra.N && rb.steps == ra.steps && rb.h_min == ra.h_min &&
                      rb.h_max == ra.h_max,
                  "case %zu cut at %lld: result differs", c, (long long)ats[q]);
            for (size_t n = 0; c == 1 && q == 1 && n <= k.n + 1; n++) {
                if (n == k.n) continue;
                unsigned char *bad = malloc(k.n + 1);
                if (!bad) break;
                memcpy(bad, k.bytes, k.n);
                bad[k.n] = 0;
                dc_pair_init(&b, DC_OSC_EXACT, 1e-9, 20000000000LL);
                port_ckpt bk = {.resume = bad, .n_resume = n};
                b.m.ckpt = &bk;
                CHECK_INT_EQ(f3_run(&b.m, &cfg, NULL, NULL, &rb), PORT_EUSAGE);
                CHECK_STR_HAS(rb.err, "not one it wrote");
                CHECK_INT_EQ(b.s[0].t + b.s[1].t, 0);
                free(bad);
            }
        }
}

int main(void)
{
    test_polynomials();
    test_order();
    test_stepper();
    test_master();
    test_switching();
    test_car();
    test_async();
    test_smooth();
    test_resume();
    return check_summary();
}
