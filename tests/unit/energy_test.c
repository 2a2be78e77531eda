/* Negotiated power exchange (algorithms/energy.h) on Test 2 of Moshagen (2017): the undamped
 * spring-mass oscillator m = c = 1, s(0) = 1, v(0) = 0, split into the example FMUs spring and
 * mass in power mode, model exchange at rtol 1e-12, to T = 75 at H = 0.2 and 0.15. Beside it,
 * the standard explicit scheme and balance correction (algorithms/explicit.h), which the paper
 * shows cannot keep the energy. Checked: the energy drift of each, the agreed powers' balance,
 * and the exchange count (two per step). Both slaves run in this process.
 * doc/algorithms/energy-balance.md. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "algorithms/energy.h"
#include "algorithms/explicit.h"
#include "federate/fmu/fmu_slave.h"
#include "tests/check.h"
#include "tests/figures.h"

#define TICK    1e-9
#define SEC(s)  ((int64_t)llround((s) / TICK))
#define T_END   75.0
#define MAX_REC 2000

typedef struct rec {
    fmu_step *fmu;
    int n;
    double W[MAX_REC]; /* the slave's energy output after each record */
    double z[MAX_REC]; /* its power law's divisor: the spring's s, the mass's v */
    double z_last;     /* the divisor at the last record (the state at the end) */
} rec;

static int record(void *ctx, int64_t t)
{
    rec *r = ctx;
    (void)t;
    if (fmu_step_get_by_name(r->fmu, "s", &r->z_last) != FMU_STEP_OK &&
        fmu_step_get_by_name(r->fmu, "v", &r->z_last) != FMU_STEP_OK)
        r->z_last = NAN;
    if (r->n < MAX_REC && fmu_step_get_by_name(r->fmu, "W", &r->W[r->n]) == FMU_STEP_OK) {
        r->z[r->n] = r->z_last;
        r->n++;
    }
    return 0;
}

typedef struct pair {
    fmu_step *fmu[2];
    fmu_slave *fs[2];
    port_slave ps[2];
    rec rec[2];
    port_local_clock clock;
    port_master m;
} pair;

enum { SPRING, MASS };

/* power: 0 the standard input, 1 power mode with the FMUs' default band and sign rule, 2 power
 * mode as examples/springmass_energy.json sets it for landing (a narrow band, the sign rule
 * only near the divisor's zero). */
static int open_slave(pair *p, int j, const char *model, int power, const char *const *in,
                      size_t n_in, const char *const *out, size_t n_out)
{
    char path[128], err[FMU_ERR_LEN] = "";
    snprintf(path, sizeof path, "build/fmus/%s_me.fmu", model);
    const char *names[] = {"power_in", "p_eps", "p_turn"},
               *values[] = {power ? "1" : "0", "1e-5", "0.3"};
    fmu_step_opts o = {.kind = FMU_KIND_ME,
                       .rtol = 1e-12,
                       .atol = 1e-14,
                       .n_params = power == 2 ? 3 : 1,
                       .param_names = names,
                       .param_values = values};
    if (fmu_step_open(path, &o, &p->fmu[j], err, sizeof err)) {
        CHECK(0, "open %s: %s", path, err);
        return -1;
    }
    const fmu_md *md = fmu_step_md(p->fmu[j]);
    fmi2ValueReference ivr[2], ovr[5];
    for (size_t k = 0; k < n_in; k++)
        ivr[k] = md->vars[fmu_md_find(md, in[k])].vr;
    for (size_t k = 0; k < n_out; k++)
        ovr[k] = md->vars[fmu_md_find(md, out[k])].vr;
    p->rec[j].fmu = p->fmu[j];
    fmu_slave_opts so = {.name = model,
                         .fmu = p->fmu[j],
                         .n_in = n_in,
                         .in_vr = ivr,
                         .n_out = n_out,
                         .out_vr = ovr,
                         .t_now = 0,
                         .tick = TICK,
                         .record = record,
                         .record_ctx = &p->rec[j]};
    return fmu_slave_new(&so, &p->fs[j], &p->ps[j]);
}

/* Outputs: spring f, fdot, impulse, P; mass v, a, x, P. Inputs: spring v [, p]; mass f [, p]. */
static int open_pair(pair *p, int power, double t_end)
{
    memset(p, 0, sizeof *p);
    const char *sin_[] = {"v", "p"}, *sout[] = {"f", "fdot", "impulse", "P", "W"};
    const char *min_[] = {"f", "p"}, *mout[] = {"v", "a", "x", "P", "W"};
    size_t n_in = power ? 2 : 1;
    if (open_slave(p, SPRING, "spring", power, sin_, n_in, sout, 5) ||
        open_slave(p, MASS, "mass", power, min_, n_in, mout, 5))
        return -1;
    p->clock.last = INT64_MIN;
    p->m = (port_master){.ops = &port_local_master_ops,
                         .ctx = &p->clock,
                         .slaves = p->ps,
                         .n_slaves = 2,
                         .tick = TICK,
                         .t_start = 0,
                         .t_end = SEC(t_end)};
    return 0;
}

static void close_pair(pair *p)
{
    for (int j = 0; j < 2; j++) {
        fmu_slave_free(p->fs[j]);
        fmu_step_close(p->fmu[j]);
    }
}

typedef struct drift {
    double worst; /* max over the records of |E - E0| / E0 */
    double calm;  /* max of |E_k - E_{k-1}| / E0 over the steps where neither divisor came
                     near zero (|s|, |v| >= 0.05 at both ends and no sign change) */
    double end;   /* E(T) */
    long exchanges, steps;
    double missed;  /* refeed: the energy missed over the last step refed (energy_stats): the
                       one before the last, whose miss is known when the last one starts */
    double before;  /* E at the start of the last step */
    double err;     /* |(s, v)(T) - (cos T, -sin T)|: the state error at the end */
    double stretch; /* max of |E_end - E_start| / E0 over the stretches of consecutive calm steps
                       (between two zero crossings) */
    long landings;  /* steps whose power the master chose to land a side on its zero */
} drift;

#define NO_DRIFT                                                                                   \
    {                                                                                              \
        NAN, NAN, NAN, 0, 0, 0, NAN, NAN, NAN, 0                                                   \
    }

static drift energy_of(pair *p)
{
    drift d = {0, 0, NAN, 0, 0, 0, NAN, NAN, 0, 0};
    int n = p->rec[0].n < p->rec[1].n ? p->rec[0].n : p->rec[1].n;
    double E0 = p->rec[0].W[0] + p->rec[1].W[0], prev = E0, start = E0;
    for (int k = 0; k < n; k++) {
        double E = p->rec[0].W[k] + p->rec[1].W[k];
        d.worst = fmax(d.worst, fabs(E - E0) / E0);
        int calm = k > 0;
        for (int j = 0; j < 2 && calm; j++)
            calm = p->rec[j].z[k] * p->rec[j].z[k - 1] > 0 && fabs(p->rec[j].z[k]) >= 0.05 &&
                   fabs(p->rec[j].z[k - 1]) >= 0.05;
        if (calm) d.calm = fmax(d.calm, fabs(E - prev) / E0);
        if (calm)
            d.stretch = fmax(d.stretch, fabs(E - start) / E0);
        else
            start = E; /* a stretch starts after a crossing step */
        prev = E;
        d.before = d.end;
        d.end = E;
    }
    return d;
}

/* The state error at t_end against the exact solution of Test 2, s = cos t, v = -sin t. */
static double state_error(const pair *p, double t_end)
{
    return hypot(p->rec[SPRING].z_last - cos(t_end), p->rec[MASS].z_last + sin(t_end));
}

static drift run_negotiated_to(double H, int p_order, int refeed, double t_end)
{
    drift d = NO_DRIFT;
    pair p;
    if (open_pair(&p, refeed ? 2 : 1, t_end) == 0) {
        energy_link l = {.a = SPRING,
                         .b = MASS,
                         .a_out = 0,
                         .b_out = 0,
                         .a_slope = 1,
                         .b_slope = 1,
                         .a_in = 0,
                         .b_in = 0,
                         .a_pin = 1,
                         .b_pin = 1,
                         .a_P = 3,
                         .b_P = 3,
                         .a_W = refeed ? 4 : -1,
                         .b_W = refeed ? 4 : -1};
        energy_settings set = {.H = SEC(H), .links = &l, .n_links = 1, .p_order = p_order};
        energy_stats st;
        char err[256] = "";
        int rc = energy_run(&p.m, &set, &st, err, sizeof err);
        CHECK(rc == PORT_OK, "negotiated H %g: %s", H, err);
        d = energy_of(&p);
        d.exchanges = st.exchanges;
        d.steps = st.steps;
        d.missed = st.missed;
        d.landings = st.landings;
        d.err = state_error(&p, t_end);
    }
    close_pair(&p);
    return d;
}

static drift run_negotiated(double H, int p_order, int refeed)
{
    return run_negotiated_to(H, p_order, refeed, T_END);
}

static drift run_explicit(double H, const bal_settings *layer)
{
    drift d = NO_DRIFT;
    pair p;
    if (open_pair(&p, 0, T_END) == 0) {
        explicit_conn c[2] = {
            {.from = SPRING,
             .out = 0,
             .to = MASS,
             .in = 0,
             .slope = 1,
             .amount = 2,
             .layer = *layer},
            {.from = MASS,
             .out = 0,
             .to = SPRING,
             .in = 0,
             .slope = 1,
             .amount = 2,
             .layer = *layer},
        };
        explicit_settings set = {.H = SEC(H), .conns = c, .n_conns = 2};
        char err[256] = "";
        int rc = explicit_run(&p.m, &set, NULL, err, sizeof err);
        CHECK(rc == PORT_OK, "explicit H %g: %s", H, err);
        d = energy_of(&p);
        d.err = state_error(&p, T_END);
    }
    close_pair(&p);
    return d;
}

/* Convergence (Moshagen 2017, §6.1, Fig. 9: the negotiated scheme "has extrapolation order
 * 2"): the state error at T = 20 against the exact solution for H = 0.2 ... 0.0125, with the
 * refeed and landing of examples/springmass_energy.json. The linear power (the slope
 * negotiated at T) must lose a factor 4 per halving (order 2, within 0.25 of it: measured
 * 1.96 to 2.03), the secant as well from H = 0.1 on (1.76 from 0.2, not yet asymptotic); the
 * secant's error is about 2.5 times the linear one's (5/12 against 1/6 of P'' H^3 per step,
 * doc/algorithms/energy-balance.md). */
static void convergence(FILE *fig, FILE *claims)
{
    const double Hs[] = {0.2, 0.1, 0.05, 0.025, 0.0125};
    const char *names[] = {"held", "linear", "secant"};
    double e[3][5] = {{0}};
    printf("  convergence, state error at T = 20 (refed and landed):\n");
    for (int o = ENERGY_P_LINEAR; o <= ENERGY_P_SECANT; o++) {
        printf("    %-7s", names[o]);
        for (int i = 0; i < 5; i++) {
            drift d = run_negotiated_to(Hs[i], o, 1, 20);
            e[o][i] = d.err;
            printf(" H %g: %.4g", Hs[i], d.err);
            if (o == ENERGY_P_LINEAR) CHECK_INT_EQ(d.exchanges, 3 * d.steps);
            CHECK(d.worst < 1e-9, "%s power, H %g: energy drift %g", names[o], Hs[i], d.worst);
            if (o == ENERGY_P_SECANT) CHECK_INT_EQ(d.exchanges, 2 * d.steps + 1);
        }
        printf("\n");
    }
    for (int i = 1; i < 5; i++) {
        double lin = log2(e[ENERGY_P_LINEAR][i - 1] / e[ENERGY_P_LINEAR][i]),
               sec = log2(e[ENERGY_P_SECANT][i - 1] / e[ENERGY_P_SECANT][i]);
        printf("    order H %g -> %g: linear %.3f, secant %.3f\n", Hs[i - 1], Hs[i], lin, sec);
        CHECK(fabs(lin - 2) < 0.25 && (i == 1 || fabs(sec - 2) < 0.25),
              "H %g -> %g: observed order %.3f (linear), %.3f (secant), want 2 +- 0.25", Hs[i - 1],
              Hs[i], lin, sec);
        double ratio = e[ENERGY_P_SECANT][i] / e[ENERGY_P_LINEAR][i];
        CHECK(ratio > 1.8 && ratio < 3.2, "H %g: secant / linear error %.3f, want about 2.5", Hs[i],
              ratio);
    }
    fprintf(fig, "\n### Convergence: state error |(s, v) - (cos T, -sin T)| at T = 20\n\n"
                 "| H | linear power | order | secant | order | secant / linear |\n"
                 "|---|---|---|---|---|---|\n");
    for (int i = 0; i < 5; i++) {
        fprintf(fig, "| %g | %.3g |", Hs[i], e[ENERGY_P_LINEAR][i]);
        if (i)
            fprintf(fig, " %.2f |", log2(e[ENERGY_P_LINEAR][i - 1] / e[ENERGY_P_LINEAR][i]));
        else
            fprintf(fig, " |");
        fprintf(fig, " %.3g |", e[ENERGY_P_SECANT][i]);
        if (i)
            fprintf(fig, " %.2f |", log2(e[ENERGY_P_SECANT][i - 1] / e[ENERGY_P_SECANT][i]));
        else
            fprintf(fig, " |");
        fprintf(fig, " %.2f |\n", e[ENERGY_P_SECANT][i] / e[ENERGY_P_LINEAR][i]);
    }
    fprintf(
        claims,
        "| Moshagen 2017 | §6.1, Fig. 9 | the negotiated power method converges with order 2 "
        "| orders %.2f, %.2f, %.2f, %.2f (H = 0.2 ... 0.0125, T = 20) | reproduced (with the "
        "power's slope negotiated at T, as the paper exchanges dP^) | tests/unit/energy_test.c |\n",
        log2(e[1][0] / e[1][1]), log2(e[1][1] / e[1][2]), log2(e[1][2] / e[1][3]),
        log2(e[1][3] / e[1][4]));
}

/* The standard input a step integrates with is the value exchanged at T, bit for bit: exchange
 * B' moves it along its slope by H to ask for the powers there, and must put back the value it
 * had, not u + H u' - H u' (which rounds). A spy between the master and each FMU slave keeps the
 * standard input's value at the first set_inputs since the last step and compares the one in
 * force at the step. */
typedef struct spy {
    port_slave inner;
    port_slave_ops ops;
    double first; /* input 0's value at the first set_inputs since the last step */
    int fresh;    /* no set_inputs since the last step yet */
    double last;  /* at the latest set_inputs */
    long steps, moved;
} spy;

static int spy_set_inputs(void *ctx, const port_poly *u)
{
    spy *s = ctx;
    if (s->fresh) s->first = u->c[0];
    s->fresh = 0;
    s->last = u->c[0];
    return s->inner.ops->set_inputs(s->inner.ctx, u);
}

static int spy_step(void *ctx, int64_t t_to, int n_sub, double *y_sub, port_step_result *res)
{
    spy *s = ctx;
    s->steps++;
    if (memcmp(&s->first, &s->last, sizeof s->first) != 0) s->moved++;
    s->fresh = 1;
    return s->inner.ops->step(s->inner.ctx, t_to, n_sub, y_sub, res);
}

static int spy_get_outputs(void *ctx, double *y)
{
    spy *s = ctx;
    return s->inner.ops->get_outputs(s->inner.ctx, y);
}

static int spy_record(void *ctx)
{
    spy *s = ctx;
    return s->inner.ops->record(s->inner.ctx);
}

static int spy_collect(void *ctx)
{
    spy *s = ctx;
    return s->inner.ops->collect(s->inner.ctx);
}

/* Only the operations energy_run calls are passed on; the others are empty. */
static void spy_wrap(spy *s, port_slave *ps)
{
    memset(s, 0, sizeof *s);
    s->inner = *ps;
    s->ops = (port_slave_ops){.set_inputs = spy_set_inputs,
                              .step = spy_step,
                              .get_outputs = spy_get_outputs,
                              .record = spy_record,
                              .collect = spy_collect,
                              .version = ps->ops->version};
    s->fresh = 1;
    ps->ops = &s->ops;
    ps->ctx = s;
}

static void test_slope_exchange_restores_inputs(void)
{
    pair p;
    if (open_pair(&p, 2, 20) != 0) {
        close_pair(&p);
        return;
    }
    spy sp[2];
    port_slave keep[2] = {p.ps[0], p.ps[1]};
    spy_wrap(&sp[0], &p.ps[0]);
    spy_wrap(&sp[1], &p.ps[1]);
    energy_link l = {.a = SPRING,
                     .b = MASS,
                     .a_out = 0,
                     .b_out = 0,
                     .a_slope = 1,
                     .b_slope = 1,
                     .a_in = 0,
                     .b_in = 0,
                     .a_pin = 1,
                     .b_pin = 1,
                     .a_P = 3,
                     .b_P = 3,
                     .a_W = 4,
                     .b_W = 4};
    /* H = 0.15: the slope times H is no power of two, so the move rounds at some steps */
    energy_settings set = {.H = SEC(0.15), .links = &l, .n_links = 1, .p_order = ENERGY_P_LINEAR};
    char err[256] = "";
    CHECK(energy_run(&p.m, &set, NULL, err, sizeof err) == PORT_OK, "run: %s", err);
    for (int j = 0; j < 2; j++) {
        CHECK(sp[j].steps >= 133, "slave %d: %ld steps", j, sp[j].steps);
        CHECK(sp[j].moved == 0,
              "slave %d: %ld of %ld steps integrated a standard input moved "
              "off the exchanged value",
              j, sp[j].moved, sp[j].steps);
    }
    p.ps[0] = keep[0], p.ps[1] = keep[1];
    close_pair(&p);
}

/* Moshagen's Fig. 12 steps (H = 0.375, 0.1825, 0.09125 to T = 74.25): the paper's energy jumps
 * at every zero crossing of a power law's divisor; with the refeed and the landing (our
 * additions) it stays within 1e-9. */
static void fig12(FILE *fig, FILE *claims)
{
    const double Hs[] = {0.375, 0.1825, 0.09125};
    double worst[3];
    fprintf(fig, "\n### Moshagen's Fig. 12 steps, T = 74.25 (refed and landed)\n\n"
                 "| H | max relative drift | landings |\n|---|---|---|\n");
    for (int i = 0; i < 3; i++) {
        drift d = run_negotiated_to(Hs[i], ENERGY_P_LINEAR, 1, 74.25);
        worst[i] = d.worst;
        fprintf(fig, "| %g | %.2g | %ld |\n", Hs[i], d.worst, d.landings);
        CHECK(d.worst < 1e-9, "H %g: drift %g with landing", Hs[i], d.worst);
    }
    fprintf(claims,
            "| Moshagen 2017 | Fig. 12 | zero crossings of the power law's divisor produce or "
            "consume energy (H = 0.375, 0.1825, 0.09125) | max drift %.1g, %.1g, %.1g | not "
            "reproduced, by design: our landing and refeed remove the crossings' energy "
            "(doc/algorithms/energy-balance.md); without them the crossings cost a few per cent "
            "| tests/unit/energy_test.c |\n",
            worst[0], worst[1], worst[2]);
}

int main(void)
{
    bal_settings lin = {BAL_EXTRAP_LINEAR, 0, BAL_BC_OFF, BAL_HAT_CONST, 1};
    bal_settings lin_bc = {BAL_EXTRAP_LINEAR, 0, BAL_BC_CLASSIC, BAL_HAT_CONST, 1};
    double Hs[2] = {0.2, 0.15};
    figures_table g, gc;
    FILE *fig = figures_open(&g, "energy.md", "tests/unit/energy_test.c"),
         *claims = figures_open(&gc, "energy.claims", "tests/unit/energy_test.c");
    fprintf(fig, "### Test 2 to T = 75: relative energy drift\n\n"
                 "Max over the run; the largest change in one step where neither s nor v comes "
                 "within 0.05 of zero (calm); the largest change over consecutive calm steps "
                 "(between crossings); E(75), exact 0.5; the state error at T = 75.\n\n"
                 "| H | scheme | max drift | per calm step | between crossings | E(75) | error "
                 "at 75 |\n|---|---|---|---|---|---|---|\n");
    drift keep[2][5];
    for (int i = 0; i < 2; i++) {
        double H = Hs[i];
        drift n0 = run_negotiated(H, 0, 0), n1 = run_negotiated(H, 1, 0),
              nr = run_negotiated(H, 1, 1);
        drift s = run_explicit(H, &lin), b = run_explicit(H, &lin_bc);
        const drift *row[5] = {&n0, &n1, &nr, &s, &b};
        const char *name[5] = {"negotiated, held power", "negotiated, linear power",
                               "negotiated, linear, refed and landed",
                               "standard, linear extrapolation", "balance-corrected, linear"};
        for (int k = 0; k < 5; k++) {
            keep[i][k] = *row[k];
            fprintf(fig, "| %g | %s | %.2g | %.2g | %.2g | %.*f | %.3g |\n", H, name[k],
                    row[k]->worst, row[k]->calm, row[k]->stretch, k == 2 ? 12 : 3, row[k]->end,
                    row[k]->err);
        }
        printf("  H = %g, T = %g: relative energy drift, max over the run / largest change in one "
               "step away from zero crossings / largest change between two crossings / E(T):\n"
               "    negotiated, held power    %.3g / %.3g / %.3g / %.6g\n"
               "    negotiated, linear power  %.3g / %.3g / %.3g / %.6g\n"
               "    negotiated, linear, refed %.3g / %.3g / %.3g / %.12g (last step missed %.3g; "
               "%ld landings)\n"
               "    standard, linear          %.3g / %.3g / %.3g / %.6g\n"
               "    balance-corrected, linear %.3g / %.3g / %.3g / %.6g\n",
               H, T_END, n0.worst, n0.calm, n0.stretch, n0.end, n1.worst, n1.calm, n1.stretch,
               n1.end, nr.worst, nr.calm, nr.stretch, nr.end, nr.missed, nr.landings, s.worst,
               s.calm, s.stretch, s.end, b.worst, b.calm, b.stretch, b.end);
        /* Away from zero crossings the agreed power keeps the energy to the solvers' accuracy:
         * rtol 1e-12 over a step of two subsystems, we see 1e-10 per step and 4e-10 between two
         * crossings (up to 8 steps); the target is 1e-9 between crossings. The explicit schemes
         * change it by 1e-3 to 3e-2 per step. */
        CHECK(n0.calm < 1e-9 && n1.calm < 1e-9 && n1.stretch < 1e-9,
              "H %g: negotiated energy change per calm step %g / %g, between crossings %g", H,
              n0.calm, n1.calm, n1.stretch);
        /* The standard linear scheme gains energy (Moshagen's Fig. 10 left, Scharff et al.'s
         * Fig. 6 "obviously instable"): measured E(75) 0.604 at H = 0.2, 0.545 at 0.15. */
        CHECK(s.end > 0.52, "H %g: standard linear E(75) = %g, want growth", H, s.end);
        CHECK(s.calm > 1e-6 && b.calm > 1e-6,
              "H %g: explicit schemes keep the "
              "energy too well (%g, %g): the comparison would not show anything",
              H, s.calm, b.calm);
        /* Without landing, zero crossings cost the linear negotiated scheme a few per cent
         * over the run (the power law cannot be inverted there). */
        CHECK(n1.worst < 0.1, "H %g: negotiated linear drifts %g over the run", H, n1.worst);
        /* With the missed energy refed and the crossings landed (doc/algorithms/
         * energy-balance.md), the total energy at an exchange is off by the miss of the step
         * before only, an identity of the bookkeeping (we see 1e-16; bound 1e-12); every
         * crossing is landed (four per period: at least 40 over 75 s) and the energy stays
         * within 1e-9 of E0 over the whole run, crossings included (measured 4e-10). */
        printf("    refeed identity: E(T - H) - E0 + missed = %.2g\n", nr.before - 0.5 + nr.missed);
        CHECK(fabs(nr.before - 0.5 + nr.missed) < 1e-12, "H %g: E(T - H) - E0 = %.3g, missed %.3g",
              H, nr.before - 0.5, nr.missed);
        CHECK(nr.landings >= 40, "H %g: %ld landings", H, nr.landings);
        CHECK(nr.worst < 1e-9 && nr.stretch < 1e-9,
              "H %g: negotiated with landing drifts %g over the run, %g between crossings", H,
              nr.worst, nr.stretch);
        CHECK_INT_EQ(n1.steps, (long)llround(T_END / H));
        CHECK_INT_EQ(n1.exchanges, 3 * n1.steps);
    }
    fprintf(claims,
            "| Moshagen 2017 | §6.2, Figs. 10, 11 | the power-balanced scheme is stable and "
            "conserves the energy at H = 0.2 and 0.15 to T = 75 | max drift %.1g, %.1g | "
            "reproduced with the refeed and landing (our additions); without them %.2g, %.2g "
            "| tests/unit/energy_test.c |\n",
            keep[0][2].worst, keep[1][2].worst, keep[0][1].worst, keep[1][1].worst);
    fprintf(claims,
            "| Moshagen 2017 | Figs. 10, 11 left | linear extrapolation does not conserve the "
            "energy (it grows) | E(75) = %.3f (H = 0.2), %.3f (0.15) | reproduced | "
            "tests/unit/energy_test.c |\n",
            keep[0][3].end, keep[1][3].end);
    fprintf(claims,
            "| Moshagen 2017 | Figs. 10, 11 middle | linear with balance correction acts as if "
            "damped | E(75) = %.3f (H = 0.2), %.3f (0.15) | reproduced | "
            "tests/unit/energy_test.c |\n",
            keep[0][4].end, keep[1][4].end);
    convergence(fig, claims);
    fig12(fig, claims);
    test_slope_exchange_restores_inputs();
    figures_close(&g);
    figures_close(&gc);
    return check_summary();
}
